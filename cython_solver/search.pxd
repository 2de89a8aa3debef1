# cython: language_level=3
"""C-level declarations of the search (implemented in search.pyx)."""

from libc.stdint cimport int8_t, uint16_t, uint32_t, uint64_t


cdef struct BookView:
    # A validated, memory-mapped opening book (see cython_solver/book.py).
    const uint32_t *index      # bucket start offsets, (1 << bucket_bits) + 1 of them
    const uint16_t *keys       # low 16 bits of the mixed position code, per entry
    const int8_t *values       # exact score (SPEC §2) of the side to move, per entry
    int bucket_bits
    int ply                    # number of discs of every book position
    uint64_t count
    const uint32_t *shallow_keys    # sorted keys of the shallow table (see shallow_lookup)
    const int8_t *shallow_values    # exact score of the side to move, per shallow key
    uint32_t shallow_count
    int shallow_ply            # positions with at most this many discs are there; -1: none


cdef struct Search:
    uint64_t *table            # transposition table, 1 << table_bits entries of 8 bytes
    uint64_t table_mask
    int table_bits
    uint64_t generation        # in bits 56..63, as stored in entries
    int tt_limit               # positions with this many discs or more skip the table
    uint64_t nodes
    const int *cancel          # set from another thread to stop the search
    int aborted
    int use_book
    int diversify_below        # a racing thread rotates its move order at nodes with fewer discs
    BookView book


cdef int negamax(Search *s, uint64_t cur, uint64_t mask, int n, int alpha, int beta,
                 uint64_t hs) noexcept nogil
cdef int book_lookup(const BookView *book, uint64_t cur, uint64_t mask) noexcept nogil
cdef int shallow_lookup(const BookView *book, uint64_t cur, uint64_t mask, int n) noexcept nogil
cdef int known_score(const Search *s, uint64_t cur, uint64_t mask, int n) noexcept nogil
cdef uint32_t position_code(uint64_t cur, uint64_t mask, int mirrored) noexcept nogil
cdef bint four_in_row(uint64_t pos) noexcept nogil
cdef uint64_t winning_moves(uint64_t cur, uint64_t mask) noexcept nogil
cdef uint32_t book_mix(uint32_t code) noexcept nogil
cdef int disc_count(uint64_t bits) noexcept nogil
cdef uint64_t column_move(uint64_t mask, int col) noexcept nogil
cdef int centre_order(int i) noexcept nogil
