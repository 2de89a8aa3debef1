# cython: language_level=3
"""C-level declarations of the search drivers (implemented in drivers.pyx)."""

from libc.stdint cimport uint64_t

from cython_solver.search cimport Search


cdef int solve_position(Search *s, uint64_t cur, uint64_t mask, int n) noexcept nogil
cdef int solve_between(Search *s, uint64_t cur, uint64_t mask, int n, int lo, int hi) noexcept nogil
cdef int column_bound(Search *s, uint64_t cur, uint64_t mask, int n, uint64_t move,
                      int score) noexcept nogil
cdef int narrow_range(Search *s, uint64_t cur, uint64_t mask, int n, int *lo,
                      int *hi) noexcept nogil
cdef int next_window(int lo, int hi, bint bound_first) noexcept nogil
