# cython: language_level=3
"""Declarations of the Engine class (implemented in engine.pyx)."""

from libc.stdint cimport uint64_t

from cython_solver.search cimport Search


cdef class Engine:
    cdef Search s
    cdef Search workers[8]     # per-thread searches of analyze (MAX_THREADS)
    cdef int cancel_flag
    cdef int slot_stop[8]      # per worker slot: stops its search (see stop_slot)
    cdef uint64_t *table_memory
    cdef void *table_base
    cdef size_t table_total
    cdef object book_owner
    cdef public int tt_mb
    cdef public bint parent_first
    cdef int shallow_ply           # the book's shallow table depth while it is switched off
