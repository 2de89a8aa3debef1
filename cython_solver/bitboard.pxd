# cython: language_level=3
"""Bitboard helpers of the search (inline, shared by search.pyx and lookahead.pxd).

A position is two ``uint64``: ``cur``, the discs of the side to move, and
``mask``, all discs (as in ``c4game.board``). Column c (0-based) uses
bits 7c..7c+5 from the bottom up; bit 7c+6 is a sentinel that stays empty,
so shifting a line of discs never wraps into the next column::

    .  .  .  .  .  .  .      <- sentinels: 6 13 20 27 34 41 48
    5 12 19 26 33 40 47      <- top row
    4 11 18 25 32 39 46
    3 10 17 24 31 38 45
    2  9 16 23 30 37 44
    1  8 15 22 29 36 43
    0  7 14 21 28 35 42      <- bottom row

A line of four is four set bits 1 (vertical), 7 (horizontal), 6 or 8
(diagonals) apart. ``cur + mask`` is a unique key of the position: each
column's discs plus one bit just above its top disc.
"""

from libc.stdint cimport uint64_t

cdef extern from "c4core.h":
    uint64_t c4_winning_cells(uint64_t pos, uint64_t mask) nogil
    const uint64_t C4_BOTTOM                 # bit 0 of every column
    const uint64_t C4_BOARD                  # every playable cell
    const uint64_t C4_KEY49
    const int C4_ORDER[7]                    # columns (0-based), centre first
    const uint64_t C4_ORDER_MASK[7]          # their masks


cdef inline uint64_t column_mask(int col) noexcept nogil:
    return <uint64_t>0x3F << (7 * col)


cdef inline uint64_t possible_moves(uint64_t mask) noexcept nogil:
    """The lowest empty cell of every non-full column."""
    return (mask + C4_BOTTOM) & C4_BOARD


cdef inline uint64_t winning_cells(uint64_t pos, uint64_t mask) noexcept nogil:
    """Empty cells that would complete a four for the discs ``pos``."""
    return c4_winning_cells(pos, mask)


cdef inline bint can_win_next(uint64_t cur, uint64_t mask) noexcept nogil:
    """Whether the side to move completes a four with its next disc."""
    return (winning_cells(cur, mask) & possible_moves(mask)) != 0


cdef inline bint _four_along(uint64_t pos, int step) noexcept nogil:
    cdef uint64_t pairs = pos & (pos >> step)
    return (pairs & (pairs >> (2 * step))) != 0


cdef inline bint has_four(uint64_t pos) noexcept nogil:
    """Whether the discs ``pos`` hold a line of four."""
    return _four_along(pos, 1) or _four_along(pos, 7) or _four_along(pos, 6) or _four_along(pos, 8)


cdef inline uint64_t mirror_key(uint64_t k) noexcept nogil:
    """Swap columns 1<->7, 2<->6, 3<->5 of a 7-bits-per-column board."""
    return (((k >> 42) & 0x7F) | ((k >> 28) & (<uint64_t>0x7F << 7))
            | ((k >> 14) & (<uint64_t>0x7F << 14)) | (k & (<uint64_t>0x7F << 21))
            | ((k << 14) & (<uint64_t>0x7F << 28)) | ((k << 28) & (<uint64_t>0x7F << 35))
            | ((k << 42) & (<uint64_t>0x7F << 42)))


cdef inline uint64_t mix_key(uint64_t k) noexcept nogil:
    """A bijection on 49-bit integers that spreads every bit over the low bits."""
    k ^= k >> 23
    k = (k * 0x1C2BD4F7A5E3ULL) & C4_KEY49
    k ^= k >> 25
    k = (k * 0x0B7E151628AEDULL) & C4_KEY49
    k ^= k >> 22
    return k
