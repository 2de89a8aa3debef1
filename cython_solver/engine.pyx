# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search engine: bitboards, transposition table, book probe, negamax.

Everything below ``Engine`` is plain C (typed, ``noexcept nogil``): the search
touches no Python object and runs with the GIL released.

Bitboards follow ``firmware_py.board``: column c (0-based) uses bits 7c..7c+5,
bit 7c+6 is an always-empty sentinel; ``cur`` holds the discs of the side to
move, ``mask`` all discs. Scores are SPEC §2 scores of the side to move.

Transposition table: ``1 << table_bits`` entries of 8 bytes. The 49-bit key
``min(cur + mask, mirror(cur + mask))`` is scrambled by a bijection on 49 bits;
the low ``table_bits`` bits of the result index the table and the remaining
high bits (at most 32) are stored as the check, so a hit is never a false
positive. An entry holds the check (32 bits), a lower and an upper bound on
the score (8 bits each, offset by 64), the best column found (8 bits, +1) and
the table generation (8 bits): ``reset`` starts a new generation instead of
wiping 64 MB.
"""

from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

cdef extern from *:
    """
    #include <stddef.h>
    #include <sys/mman.h>
    static inline int c4_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int c4_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    /* Kernighan's count: fast for the few bits of a threat mask, and portable
       (x86-64 baseline has no popcnt instruction without -mpopcnt). */
    static inline int c4_popcount_sparse(unsigned long long x) {
        int n = 0;
        while (x) { x &= x - 1; n++; }
        return n;
    }
    /* The table: anonymous memory (zeroed lazily by the kernel), 2 MB aligned
       and marked for transparent huge pages where the kernel offers them. */
    static void *c4_table_alloc(size_t bytes, void **base, size_t *total) {
        size_t align = (size_t)2 << 20;
        char *p;
        *total = bytes + align;
        p = (char *)mmap(NULL, *total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == (char *)MAP_FAILED) { *base = NULL; return NULL; }
        *base = p;
        p = (char *)(((size_t)p + align - 1) & ~(align - 1));
    #ifdef MADV_HUGEPAGE
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        return p;
    }
    static inline void c4_prefetch(const void *p) { __builtin_prefetch(p); }
    static void c4_table_free(void *base, size_t total) { if (base) munmap(base, total); }
    static inline int c4_load_flag(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void c4_store_flag(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int c4_popcount(unsigned long long x) nogil
    int c4_popcount_sparse(unsigned long long x) nogil
    int c4_ctz(unsigned long long x) nogil
    void *c4_table_alloc(size_t bytes, void **base, size_t *total) nogil
    void c4_table_free(void *base, size_t total) nogil
    void c4_prefetch(const void *p) nogil
    int c4_load_flag(const int *p) nogil
    void c4_store_flag(int *p, int v) nogil

cdef enum:
    WIDTH = 7
    HEIGHT = 6
    CELLS = 42
    CHECK_EVERY = 4095          # poll the cancel flag when (nodes & CHECK_EVERY) == 0
    BOUND_OFFSET = 64
    NOT_FOUND = 127

cdef uint64_t BOTTOM = 0x0040810204081          # bit 0 of every column
cdef uint64_t BOARD = BOTTOM * 0x3F              # every playable cell
cdef uint64_t KEY49 = (<uint64_t>1 << 49) - 1
cdef uint64_t MATCH_BITS = 0xFF000000FFFFFFFFULL  # check and generation of an entry
cdef int ORDER[7]
ORDER[:] = [3, 2, 4, 1, 5, 0, 6]                 # centre first (0-based columns)

MAX_TT_MB = 4096
NOT_IN_BOOK = NOT_FOUND


# ---------------------------------------------------------------- bitboards

cdef inline uint64_t column_mask(int col) noexcept nogil:
    return <uint64_t>0x3F << (7 * col)


cdef inline uint64_t possible_moves(uint64_t mask) noexcept nogil:
    """The lowest empty cell of every non-full column."""
    return (mask + BOTTOM) & BOARD


cdef inline uint64_t winning_cells(uint64_t pos, uint64_t mask) noexcept nogil:
    """Empty cells that would complete a four for the discs ``pos``."""
    cdef uint64_t r = (pos << 1) & (pos << 2) & (pos << 3)       # vertical
    r |= _line_cells(pos, 7)                                      # horizontal
    r |= _line_cells(pos, 6)                                      # diagonal down-right
    r |= _line_cells(pos, 8)                                      # diagonal up-right
    return r & (BOARD ^ mask)


cdef inline uint64_t _line_cells(uint64_t pos, int s) noexcept nogil:
    """Cells completing three discs of ``pos`` along the direction of shift ``s``."""
    cdef uint64_t r, p = (pos << s) & (pos << (2 * s))
    r = p & (pos << (3 * s))
    r |= p & (pos >> s)
    p = (pos >> s) & (pos >> (2 * s))
    r |= p & (pos << s)
    r |= p & (pos >> (3 * s))
    return r


cdef inline bint has_four(uint64_t pos) noexcept nogil:
    return _four(pos, 1) or _four(pos, 7) or _four(pos, 6) or _four(pos, 8)


cdef inline bint _four(uint64_t pos, int s) noexcept nogil:
    cdef uint64_t m = pos & (pos >> s)
    return (m & (m >> (2 * s))) != 0


cdef inline uint64_t mirror_key(uint64_t k) noexcept nogil:
    """Swap columns 1<->7, 2<->6, 3<->5 of a 7-bits-per-column board."""
    return (((k >> 42) & 0x7F) | ((k >> 28) & (<uint64_t>0x7F << 7))
            | ((k >> 14) & (<uint64_t>0x7F << 14)) | (k & (<uint64_t>0x7F << 21))
            | ((k << 14) & (<uint64_t>0x7F << 28)) | ((k << 28) & (<uint64_t>0x7F << 35))
            | ((k << 42) & (<uint64_t>0x7F << 42)))


cdef inline uint64_t mix_key(uint64_t k) noexcept nogil:
    """A bijection on 49-bit integers that spreads every bit over the low bits."""
    k ^= k >> 23
    k = (k * 0x1C2BD4F7A5E3ULL) & KEY49
    k ^= k >> 25
    k = (k * 0x0B7E151628AEDULL) & KEY49
    k ^= k >> 22
    return k


cdef inline uint64_t table_hash(uint64_t cur, uint64_t mask, int *sym) noexcept nogil:
    """The scrambled symmetric key; ``sym`` tells whether the mirror image was used."""
    cdef uint64_t key = cur + mask
    cdef uint64_t mirrored = mirror_key(key)
    sym[0] = mirrored < key
    return mix_key(mirrored if sym[0] else key)


# ---------------------------------------------------------------- opening book

cdef inline uint32_t mix32(uint32_t h) noexcept nogil:
    """A bijection on 32-bit integers (the MurmurHash3 finaliser)."""
    h ^= h >> 16
    h *= 0x85EBCA6BU
    h ^= h >> 13
    h *= 0xC2B2AE35U
    h ^= h >> 16
    return h


cdef uint16_t COLUMN_CODE[7 * 64]   # [height * 64 + discs of the side to move]: code bits


cdef void _init_column_codes() noexcept nogil:
    cdef int height, bits, row, code
    for height in range(HEIGHT + 1):
        for bits in range(64):
            code = 0
            for row in range(height):
                code = (code << 2) | (2 if (bits >> row) & 1 else 3)
            COLUMN_CODE[height * 64 + bits] = <uint16_t>(code << 1)


_init_column_codes()


cdef uint32_t position_code(uint64_t cur, uint64_t mask, int mirrored) noexcept nogil:
    """The book's position code: per column (left to right, or right to left when
    ``mirrored``) bottom-up ``10`` for a disc of the side to move, ``11`` for an
    opponent disc, then ``0`` closing the column. 12 discs give 31 bits."""
    cdef uint32_t code = 0
    cdef int i, col, height
    cdef uint64_t column
    for i in range(WIDTH):
        col = WIDTH - 1 - i if mirrored else i
        column = (mask >> (7 * col)) & 0x7F
        height = c4_ctz(column + 1)
        code = (code << (2 * height + 1)) | COLUMN_CODE[height * 64 + ((cur >> (7 * col)) & column)]
    return code


cdef inline uint32_t book_hash(uint64_t cur, uint64_t mask) noexcept nogil:
    """mix32 of the canonical (smaller of direct and mirrored) code."""
    cdef uint32_t code = position_code(cur, mask, 0)
    cdef uint32_t other = position_code(cur, mask, 1)
    return mix32(other if other < code else code)


cdef inline int book_scan(const BookView *book, uint32_t h) noexcept nogil:
    """The score stored under ``h`` (see ``book_hash``), or NOT_FOUND."""
    cdef uint32_t bucket = h >> (32 - book.bucket_bits)
    cdef uint16_t low = <uint16_t>(h & 0xFFFF)
    cdef uint32_t i = book.index[bucket]
    cdef uint32_t end = book.index[bucket + 1]
    while i < end:
        if book.keys[i] >= low:
            if book.keys[i] == low:
                return book.values[i]
            return NOT_FOUND
        i += 1
    return NOT_FOUND


cdef int book_lookup(const BookView *book, uint64_t cur, uint64_t mask) noexcept nogil:
    """The exact score of a ``book.ply``-disc position, or NOT_FOUND (127)."""
    return book_scan(book, book_hash(cur, mask))


# ---------------------------------------------------------------- search

cdef inline void tt_store(Search *s, uint64_t idx, uint64_t check, int lower, int upper,
                          int best) noexcept nogil:
    s.table[idx] = (check | (<uint64_t>(lower + BOUND_OFFSET) << 32)
                    | (<uint64_t>(upper + BOUND_OFFSET) << 40)
                    | (<uint64_t>(best + 1) << 48))


cdef int negamax(Search *s, uint64_t cur, uint64_t mask, int n, int alpha,
                 int beta) noexcept nogil:
    """Score of a position where the side to move cannot win at once, clamped to
    [alpha, beta]: a result <= alpha is an upper bound, >= beta a lower bound."""
    cdef uint64_t opp = cur ^ mask
    cdef uint64_t possible, threats, forced, moves, h = 0, idx = 0, check = 0, entry, m
    cdef int lo, hi, v, best_col = -1, found_col = -1, i, j, cnt = 0, col, score, sym = 0
    cdef int tt_lower = -BOUND_OFFSET, tt_upper = BOUND_OFFSET
    cdef bint use_tt = n < s.tt_limit, child_tt = n + 1 < s.tt_limit
    cdef bint book_children = s.use_book and n + 1 == s.book.ply
    cdef uint64_t order_moves[7]
    cdef int order_scores[7]
    cdef int order_cols[7]
    cdef uint64_t child_hash[7]

    s.nodes += 1
    if (s.nodes & CHECK_EVERY) == 0 and c4_load_flag(s.cancel):
        s.aborted = 1
    if s.aborted:
        return 0

    possible = possible_moves(mask)
    threats = winning_cells(opp, mask)
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return -((CELLS - n) // 2)           # two threats: lost at the opponent's next disc
        possible = forced
    moves = possible & ~(threats >> 1)           # never play under an opponent's winning cell
    if moves == 0:
        return -((CELLS - n) // 2)
    if n >= CELLS - 2:
        return 0

    lo = -((CELLS - 2 - n) // 2)                 # we survive the opponent's next disc
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (CELLS - 1 - n) // 2                    # we cannot win with this disc
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    if use_tt:                                   # start the load; its latency overlaps the ordering
        h = table_hash(cur, mask, &sym)
        idx = h & s.table_mask
        check = (h >> s.table_bits) | s.generation
        c4_prefetch(&s.table[idx])

    # order the moves by the number of winning cells they create, ties centre first
    for i in range(WIDTH):
        col = ORDER[i]
        m = moves & column_mask(col)
        if m:
            if book_children:
                child_hash[col] = book_hash(opp, mask | m)
                c4_prefetch(&s.book.index[child_hash[col] >> (32 - s.book.bucket_bits)])
            elif child_tt:
                child_hash[col] = table_hash(opp, mask | m, &j)
                c4_prefetch(&s.table[child_hash[col] & s.table_mask])
            score = c4_popcount_sparse(winning_cells(cur | m, mask))
            j = cnt
            while j > 0 and order_scores[j - 1] < score:
                order_moves[j] = order_moves[j - 1]
                order_scores[j] = order_scores[j - 1]
                order_cols[j] = order_cols[j - 1]
                j -= 1
            order_moves[j] = m
            order_scores[j] = score
            order_cols[j] = col
            cnt += 1

    if use_tt:
        entry = s.table[idx]
        if (entry & MATCH_BITS) == check:
            tt_lower = <int>((entry >> 32) & 0xFF) - BOUND_OFFSET
            tt_upper = <int>((entry >> 40) & 0xFF) - BOUND_OFFSET
            if tt_lower > alpha:
                alpha = tt_lower
                if alpha >= beta:
                    return alpha
            if tt_upper < beta:
                beta = tt_upper
                if alpha >= beta:
                    return beta
            found_col = <int>((entry >> 48) & 0xFF) - 1
            if found_col >= 0:
                if sym:
                    found_col = WIDTH - 1 - found_col
                _move_to_front(order_moves, order_cols, cnt, found_col)

    if s.use_book and n == s.book.ply:
        v = book_lookup(&s.book, cur, mask)
        if v != NOT_FOUND:
            return v

    if book_children:                            # start loading the children's book entries
        for i in range(cnt):
            c4_prefetch(&s.book.keys[s.book.index[child_hash[order_cols[i]] >> (32 - s.book.bucket_bits)]])

    if n < s.etc_limit and child_tt and not book_children:
        # enhanced transposition cutoff: a child's stored upper bound is a
        # lower bound for us
        for i in range(cnt):
            h = child_hash[order_cols[i]]
            entry = s.table[h & s.table_mask]
            if (entry & MATCH_BITS) == ((h >> s.table_bits) | s.generation):
                v = BOUND_OFFSET - <int>((entry >> 40) & 0xFF)
                if v > alpha:
                    alpha = v
                    best_col = order_cols[i]
                    if alpha >= beta:
                        if use_tt:
                            _store(s, idx, check, sym, alpha, tt_upper, best_col)
                        return alpha

    for i in range(cnt):
        v = NOT_FOUND
        if book_children:
            v = book_scan(&s.book, child_hash[order_cols[i]])
        if v != NOT_FOUND:
            v = -v
        else:
            v = -negamax(s, opp, mask | order_moves[i], n + 1, -beta, -alpha)
        if s.aborted:
            return 0
        if v >= beta:
            if use_tt:
                _store(s, idx, check, sym, v, tt_upper, order_cols[i])
            return v
        if v > alpha:
            alpha = v
            best_col = order_cols[i]
    if best_col < 0:
        best_col = found_col
    if use_tt:
        _store(s, idx, check, sym, tt_lower, alpha, best_col)
    return alpha


cdef inline void _move_to_front(uint64_t *moves, int *cols, int cnt, int col) noexcept nogil:
    """Put the move in ``col`` first, keeping the order of the others."""
    cdef int i, j
    cdef uint64_t m
    for i in range(cnt):
        if cols[i] == col:
            m = moves[i]
            j = i
            while j > 0:
                moves[j] = moves[j - 1]
                cols[j] = cols[j - 1]
                j -= 1
            moves[0] = m
            cols[0] = col
            return


cdef inline void _store(Search *s, uint64_t idx, uint64_t check, int sym, int lower, int upper,
                        int best_col) noexcept nogil:
    """Store bounds, keeping the other bound when the slot still holds this position."""
    cdef uint64_t entry = s.table[idx]
    cdef int old_lower, old_upper
    if (entry & MATCH_BITS) == check:
        old_lower = <int>((entry >> 32) & 0xFF) - BOUND_OFFSET
        old_upper = <int>((entry >> 40) & 0xFF) - BOUND_OFFSET
        if old_lower > lower:
            lower = old_lower
        if old_upper < upper:
            upper = old_upper
    if lower < -BOUND_OFFSET + 1:
        lower = -BOUND_OFFSET + 1
    if upper > BOUND_OFFSET - 1:
        upper = BOUND_OFFSET - 1
    if best_col >= 0 and sym:
        best_col = WIDTH - 1 - best_col
    tt_store(s, idx, check, lower, upper, best_col)


cdef inline bint can_win_next(uint64_t cur, uint64_t mask) noexcept nogil:
    return (winning_cells(cur, mask) & possible_moves(mask)) != 0


cdef int solve_position(Search *s, uint64_t cur, uint64_t mask, int n) noexcept nogil:
    """Exact score of a playable position (null-window searches around the middle)."""
    cdef int lo, hi, med, r
    if can_win_next(cur, mask):
        return (CELLS + 1 - n) // 2
    if s.use_book and n == s.book.ply:
        r = book_lookup(&s.book, cur, mask)
        if r != NOT_FOUND:
            return r
    lo = -((CELLS - n) // 2)
    hi = (CELLS - 1 - n) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = negamax(s, cur, mask, n, med, med + 1)
        if s.aborted:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


# ---------------------------------------------------------------- Python API

cdef inline int _count(uint64_t x) noexcept nogil:
    return c4_popcount(x)


# ---------------------------------------------------------------- exported to positions.pyx

cdef bint four_in_row(uint64_t pos) noexcept nogil:
    return has_four(pos)


cdef uint64_t winning_moves(uint64_t cur, uint64_t mask) noexcept nogil:
    return winning_cells(cur, mask) & possible_moves(mask)


cdef uint32_t book_mix(uint32_t code) noexcept nogil:
    return mix32(code)


cdef int disc_count(uint64_t bits) noexcept nogil:
    return c4_popcount(bits)


cdef class Engine:
    """Owns a transposition table and runs searches without the GIL.

    One thread uses an engine at a time; :meth:`cancel` may be called from any
    thread and stops the running search at its next poll (every 4096 nodes).
    """

    def __cinit__(self, int tt_mb=64):
        cdef int bits = 0
        cdef uint64_t entries
        if tt_mb < 1 or tt_mb > MAX_TT_MB:
            raise ValueError(f"tt_mb must be 1 to {MAX_TT_MB}, got {tt_mb}")
        entries = (<uint64_t>tt_mb << 20) // 8
        while (<uint64_t>1 << (bits + 1)) <= entries:
            bits += 1
        self.table_memory = <uint64_t *>c4_table_alloc((<size_t>1 << bits) * 8, &self.table_base,
                                                       &self.table_total)
        if self.table_memory == NULL:
            raise MemoryError(f"cannot allocate a {tt_mb} MB transposition table")
        self.tt_mb = tt_mb
        self.cancel_flag = 0
        self.s.table = self.table_memory
        self.s.table_bits = bits
        self.s.table_mask = (<uint64_t>1 << bits) - 1
        self.s.nodes = 0
        self.s.cancel = &self.cancel_flag
        self.s.aborted = 0
        self.s.use_book = 0
        self.s.tt_limit = CELLS
        self.s.etc_limit = 0
        self.s.generation = <uint64_t>1 << 56
        memset(&self.s.book, 0, sizeof(BookView))
        self.book_owner = None

    def __dealloc__(self):
        c4_table_free(self.table_base, self.table_total)
        self.table_memory = NULL
        self.table_base = NULL

    @property
    def table_entries(self) -> int:
        return 1 << self.s.table_bits

    @property
    def nodes(self) -> int:
        """Nodes searched since the last :meth:`start`."""
        return self.s.nodes

    @property
    def aborted(self) -> bool:
        return self.s.aborted != 0

    def reset(self) -> None:
        """Clear the transposition table: entries of older generations never
        match; every 255 resets the memory is wiped for real."""
        if self.s.generation >= (<uint64_t>255 << 56):
            memset(self.table_memory, 0, (<size_t>1 << self.s.table_bits) * 8)
            self.s.generation = <uint64_t>1 << 56
        else:
            self.s.generation += <uint64_t>1 << 56

    def wipe(self) -> None:
        """Zero the whole table now (also faults its pages in, for benchmarks)."""
        memset(self.table_memory, 0, (<size_t>1 << self.s.table_bits) * 8)
        self.s.generation = <uint64_t>1 << 56

    def cancel(self) -> None:
        """Ask the running search to stop (thread-safe)."""
        c4_store_flag(&self.cancel_flag, 1)

    def start(self) -> None:
        """Begin a new public call: clear the node count and the cancel flag."""
        c4_store_flag(&self.cancel_flag, 0)
        self.s.aborted = 0
        self.s.nodes = 0

    def set_book(self, owner, const uint32_t[::1] index, const uint16_t[::1] keys,
                 const int8_t[::1] values, int bucket_bits, int ply) -> None:
        """Use a validated book; ``owner`` keeps the mapped memory alive."""
        if index.shape[0] != (1 << bucket_bits) + 1 or keys.shape[0] != values.shape[0]:
            raise ValueError("book arrays do not match the bucket count")
        if bucket_bits < 16 or bucket_bits > 24:
            raise ValueError(f"book bucket_bits must be 16 to 24, got {bucket_bits}")
        self.s.book.index = &index[0]
        self.s.book.keys = &keys[0] if keys.shape[0] else NULL
        self.s.book.values = &values[0] if values.shape[0] else NULL
        self.s.book.bucket_bits = bucket_bits
        self.s.book.ply = ply
        self.s.book.count = keys.shape[0]
        self.s.use_book = 1 if keys.shape[0] else 0
        self.book_owner = owner

    @property
    def tt_limit(self) -> int:
        """Positions with this many discs or more skip the transposition table."""
        return self.s.tt_limit

    @tt_limit.setter
    def tt_limit(self, int value) -> None:
        self.s.tt_limit = value

    @property
    def etc_limit(self) -> int:
        """Positions with fewer discs try enhanced transposition cutoffs."""
        return self.s.etc_limit

    @etc_limit.setter
    def etc_limit(self, int value) -> None:
        self.s.etc_limit = value

    def clear_book(self) -> None:
        self.s.use_book = 0
        memset(&self.s.book, 0, sizeof(BookView))
        self.book_owner = None

    @property
    def has_book(self) -> bool:
        return self.s.use_book != 0

    def book_value(self, uint64_t cur, uint64_t mask):
        """The book's score for a position, or ``None`` when it is not there."""
        cdef int v
        if not self.s.use_book or _count(mask) != self.s.book.ply:
            return None
        v = book_lookup(&self.s.book, cur, mask)
        return None if v == NOT_FOUND else v

    def solve(self, uint64_t cur, uint64_t mask, int n) -> int:
        """Exact score of a playable position; ``aborted`` tells a cancelled search."""
        cdef int r
        with nogil:
            r = solve_position(&self.s, cur, mask, n)
        return r

    def check_score(self, uint64_t cur, uint64_t mask, int n, int score) -> bool:
        """Whether ``score`` is the exact score, proved by two null-window searches
        (cheaper than :meth:`solve`); ``aborted`` tells a cancelled search."""
        cdef int above, below
        if winning_moves(cur, mask):
            return score == (CELLS + 1 - n) // 2
        with nogil:
            above = negamax(&self.s, cur, mask, n, score - 1, score)
            below = negamax(&self.s, cur, mask, n, score, score + 1)
        return above >= score and below <= score

    def analyze(self, uint64_t cur, uint64_t mask, int n) -> list:
        """Score of playing each column (``None`` for a full one); stops early on abort."""
        cdef list scores = [None] * WIDTH
        cdef uint64_t m, w = winning_cells(cur, mask)
        cdef int col, r, i
        for i in range(WIDTH):
            col = ORDER[i]
            m = possible_moves(mask) & column_mask(col)
            if not m:
                continue
            if m & w:
                scores[col] = (CELLS + 1 - n) // 2
                continue
            with nogil:
                r = -solve_position(&self.s, cur ^ mask, mask | m, n + 1)
            if self.s.aborted:
                break
            scores[col] = r
        return scores
