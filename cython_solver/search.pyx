# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search: transposition table, book probe, negamax.

Everything here is plain C (typed, ``noexcept nogil``): the search touches no
Python object and runs with the GIL released. :mod:`cython_solver.engine`
wraps it in the ``Engine`` class.

Bitboards (``cur``: the side to move's discs, ``mask``: all discs) are drawn
in ``bitboard.pxd``. Scores are SPEC §2 scores of the side to move.

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

from cython_solver.bitboard cimport (
    C4_KEY49,
    C4_ORDER,
    C4_ORDER_MASK,
    can_win_next,
    column_mask,
    has_four,
    mirror_key,
    mix_key,
    possible_moves,
    winning_cells,
)
from cython_solver.lookahead cimport (
    has_forcing_move,
    has_safe_move,
    leaves_opponent_lost,
)

cdef extern from "c4core.h":
    int c4_popcount(unsigned long long x) nogil
    int c4_popcount_sparse(unsigned long long x) nogil
    int c4_ctz(unsigned long long x) nogil
    void *c4_table_alloc(size_t bytes, void **base, size_t *total) nogil
    void c4_table_free(void *base, size_t total) nogil
    void c4_prefetch(const void *p) nogil
    int c4_load_flag(const int *p) nogil
    void c4_store_flag(int *p, int v) nogil
    uint64_t c4_load64(const uint64_t *p) nogil
    void c4_store64(uint64_t *p, uint64_t v) nogil
    const uint64_t C4_MATCH

cdef enum:
    WIDTH = 7
    HEIGHT = 6
    CELLS = 42
    CHECK_EVERY = 4095          # poll the cancel flag when (nodes & CHECK_EVERY) == 0
    BOUND_OFFSET = 64
    NOT_FOUND = 127
    MAX_THREADS = 8
    MIRROR_DISCS = 20
    TT_LIMIT = 36               # positions with 36+ discs skip the table (cheaper to search)
    ETC_DISCS = 25              # enhanced transposition cutoffs at nodes with at most this many discs
    ETC_AFTER = 50000           # ... once the search has visited this many nodes (small searches
                                # find the table empty: the probes would cost more than they save)

cdef uint64_t HASH_NONE = <uint64_t>1 << 62      # "no hash given" (hashes are < 2**49)
cdef uint64_t HASH_MIRRORED = <uint64_t>1 << 63  # the key came from the mirror image



# ---------------------------------------------------------------- table keys

cdef inline uint64_t table_hash(uint64_t cur, uint64_t mask, int n) noexcept nogil:
    """The scrambled key, with bit 63 set when the mirror image gave it. Up to
    MIRROR_DISCS discs the key is symmetric (the smaller of the position's and
    its mirror image's); later, symmetric transpositions are too rare to pay."""
    cdef uint64_t key = cur + mask
    if n > MIRROR_DISCS:
        return mix_key(key)
    cdef uint64_t mirrored = mirror_key(key)
    if mirrored < key:
        return mix_key(mirrored) | HASH_MIRRORED
    return mix_key(key)


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


cdef int shallow_lookup(const BookView *book, uint64_t cur, uint64_t mask, int n) noexcept nogil:
    """The exact score of an ``n``-disc position from the shallow table, or
    NOT_FOUND. Its key is the canonical code with a marker bit above it (bit
    2n + 7: a code is 2n + 7 bits long), so positions of different disc counts
    never share a key; the keys are sorted, a lookup is a binary search."""
    cdef uint32_t code, other, key, low = 0, high = book.shallow_count, middle
    if n > book.shallow_ply:
        return NOT_FOUND
    code = position_code(cur, mask, 0)
    other = position_code(cur, mask, 1)
    key = (other if other < code else code) | (<uint32_t>1 << (2 * n + WIDTH))
    while low < high:
        middle = (low + high) >> 1
        if book.shallow_keys[middle] < key:
            low = middle + 1
        else:
            high = middle
    if low < book.shallow_count and book.shallow_keys[low] == key:
        return book.shallow_values[low]
    return NOT_FOUND


cdef int known_score(const Search *s, uint64_t cur, uint64_t mask, int n) noexcept nogil:
    """The exact score of an ``n``-disc position where the book holds it (its
    ``ply``-disc entries or its shallow table), else NOT_FOUND."""
    if s.use_book and n == s.book.ply:
        return book_lookup(&s.book, cur, mask)
    if n <= s.book.shallow_ply:
        return shallow_lookup(&s.book, cur, mask, n)
    return NOT_FOUND


# ---------------------------------------------------------------- search

cdef inline void tt_store(Search *s, uint64_t idx, uint64_t check, int lower, int upper,
                          int best) noexcept nogil:
    c4_store64(&s.table[idx], check | (<uint64_t>(lower + BOUND_OFFSET) << 32)
               | (<uint64_t>(upper + BOUND_OFFSET) << 40) | (<uint64_t>(best + 1) << 48))


cdef int negamax(Search *s, uint64_t cur, uint64_t mask, int n, int alpha, int beta,
                 uint64_t hs) noexcept nogil:
    """Score of a position where the side to move cannot win at once, clamped to
    [alpha, beta]: a result <= alpha is an upper bound, >= beta a lower bound.
    ``hs`` is the position's table hash with the mirror flag in bit 63, as the
    parent computed it, or HASH_NONE."""
    cdef uint64_t opp = cur ^ mask
    cdef uint64_t possible, threats, forced, moves, idx = 0, check = 0, entry, m, h
    cdef int lo, hi, v, best = -BOUND_OFFSET, best_col = -1, found_col = -1, i, j, cnt = 0
    cdef int col, score, sym = 0, promoted = 0
    cdef int tt_lower = -BOUND_OFFSET, tt_upper = BOUND_OFFSET
    cdef bint use_tt = n < s.tt_limit, child_tt = n + 1 < s.tt_limit
    cdef bint book_children = s.use_book and n + 1 == s.book.ply
    cdef uint64_t order_moves[7]
    cdef int order_scores[7]
    cdef int order_cols[7]
    cdef uint64_t child_hash[7]
    cdef uint64_t child_threats[7]               # our winning cells after each move (centre order)
    cdef bint have_threats = 0

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

    if beta > hi - 1 and n < CELLS - 3:
        # look one disc further: unless a move leaves the opponent lost at once
        # (score hi), we cannot win with our next disc either
        if leaves_opponent_lost(cur, mask, moves, child_threats):
            return hi
        have_threats = 1
        beta = hi - 1
        if alpha >= beta:
            return beta
    if beta == hi - 1 and n <= CELLS - 7:
        # and whether we can win with our next but one disc, whatever he replies
        if has_forcing_move(cur, mask, moves):
            alpha = hi - 1
            if alpha >= beta:
                return alpha
        else:
            beta = hi - 2
            if alpha >= beta:
                return beta
    if alpha == lo and n <= CELLS - 6:
        # likewise for the opponent: unless every move lets him leave us lost
        # at once (score lo), he cannot win with his next but one disc either
        if not has_safe_move(cur, mask, moves, 0):
            return lo
        alpha = lo + 1
        if alpha >= beta:
            return alpha
    if alpha == lo + 1 and n <= CELLS - 8:
        # and whether he can win with his third disc from now, whatever we do
        if not has_safe_move(cur, mask, moves, 1):
            return lo + 1
        alpha = lo + 2
        if alpha >= beta:
            return alpha

    if use_tt:
        if hs == HASH_NONE:
            hs = table_hash(cur, mask, n)
        sym = <int>(hs >> 63)
        idx = hs & s.table_mask
        check = ((hs & C4_KEY49) >> s.table_bits) | s.generation
        entry = c4_load64(&s.table[idx])
        if (entry & C4_MATCH) == check:
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
            if found_col >= 0 and sym:
                found_col = WIDTH - 1 - found_col

    if n == s.book.ply or n <= s.book.shallow_ply:
        v = known_score(s, cur, mask, n)
        if v != NOT_FOUND:
            return v

    if found_col >= 0 and moves & column_mask(found_col):
        # the table's best move first, before ordering the others: it often cuts
        m = moves & column_mask(found_col)
        moves ^= m
        v = book_lookup(&s.book, opp, mask | m) if book_children else NOT_FOUND
        if v != NOT_FOUND:
            v = -v
        else:
            v = -negamax(s, opp, mask | m, n + 1, -beta, -alpha, HASH_NONE)
        if s.aborted:
            return 0
        if v >= beta:
            if use_tt:
                _store(s, idx, check, sym, v, tt_upper, found_col)
            return v
        best = v
        if v > alpha:
            alpha = v
            best_col = found_col

    # order the other moves by the number of winning cells they create, ties
    # centre first; start loading the children's table (or book) entries
    for i in range(WIDTH):
        m = moves & C4_ORDER_MASK[i]
        if m:
            col = C4_ORDER[i]
            if book_children:
                child_hash[col] = book_hash(opp, mask | m)
                c4_prefetch(&s.book.index[child_hash[col] >> (32 - s.book.bucket_bits)])
            elif child_tt:
                child_hash[col] = table_hash(opp, mask | m, n + 1)
                c4_prefetch(&s.table[child_hash[col] & s.table_mask])
            else:
                child_hash[col] = HASH_NONE
            if moves == m:
                score = 0
            elif have_threats:
                score = c4_popcount_sparse(child_threats[i])
            else:
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

    if n < s.diversify_below and cnt > 1:
        # a second thread racing on the same test as another: take the
        # moves in another order, so the two search (and fill the table) differently
        m, col, score = order_moves[0], order_cols[0], order_scores[0]
        for i in range(cnt - 1):
            order_moves[i] = order_moves[i + 1]
            order_cols[i] = order_cols[i + 1]
            order_scores[i] = order_scores[i + 1]
        order_moves[cnt - 1], order_cols[cnt - 1], order_scores[cnt - 1] = m, col, score

    if book_children:
        for i in range(cnt):
            # the bucket's keys and scores: a bucket holds about 16 entries,
            # so its scores share the cache line of its first one
            j = s.book.index[child_hash[order_cols[i]] >> (32 - s.book.bucket_bits)]
            c4_prefetch(&s.book.keys[j])
            c4_prefetch(&s.book.values[j])
    elif child_tt and n <= ETC_DISCS and s.nodes > ETC_AFTER:
        # enhanced transposition cutoff: a child whose stored upper bound already
        # lets this move reach beta cuts before any subtree is searched
        for i in range(cnt):
            h = child_hash[order_cols[i]]
            entry = c4_load64(&s.table[h & s.table_mask])
            if (entry & C4_MATCH) == (((h & C4_KEY49) >> s.table_bits) | s.generation):
                v = BOUND_OFFSET - <int>((entry >> 40) & 0xFF)
                if v >= beta:
                    if use_tt:
                        _store(s, idx, check, sym, v, tt_upper, order_cols[i])
                    return v
                if v > alpha and i > 0 and not promoted:
                    # this move is known to raise alpha: search it first
                    m = order_moves[i]
                    col = order_cols[i]
                    j = i
                    while j > 0:
                        order_moves[j] = order_moves[j - 1]
                        order_cols[j] = order_cols[j - 1]
                        j -= 1
                    order_moves[0] = m
                    order_cols[0] = col
                    promoted = 1

    for i in range(cnt):
        v = NOT_FOUND
        if book_children:
            v = book_scan(&s.book, <uint32_t>child_hash[order_cols[i]])
        if v != NOT_FOUND:
            v = -v
        else:
            v = -negamax(s, opp, mask | order_moves[i], n + 1, -beta, -alpha,
                         HASH_NONE if book_children else child_hash[order_cols[i]])
        if s.aborted:
            return 0
        if v >= beta:
            if use_tt:
                _store(s, idx, check, sym, v, tt_upper, order_cols[i])
            return v
        if v > best:
            best = v
        if v > alpha:
            alpha = v
            best_col = order_cols[i]
    if best_col < 0:
        best_col = found_col
    # fail soft: every move scored at most ``best`` (possibly below alpha), a
    # tighter upper bound for the table and for the null-window driver
    if use_tt:
        _store(s, idx, check, sym, tt_lower, best, best_col)
    return best


cdef inline void _store(Search *s, uint64_t idx, uint64_t check, int sym, int lower, int upper,
                        int best_col) noexcept nogil:
    """Store bounds, keeping the other bound when the slot still holds this position."""
    cdef uint64_t entry = c4_load64(&s.table[idx])
    cdef int old_lower, old_upper
    if (entry & C4_MATCH) == check:
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


# ---------------------------------------------------------------- exported (search.pxd)

cdef bint four_in_row(uint64_t pos) noexcept nogil:
    return has_four(pos)


cdef uint64_t winning_moves(uint64_t cur, uint64_t mask) noexcept nogil:
    return winning_cells(cur, mask) & possible_moves(mask)


cdef uint32_t book_mix(uint32_t code) noexcept nogil:
    return mix32(code)


cdef int disc_count(uint64_t bits) noexcept nogil:
    return c4_popcount(bits)


cdef uint64_t column_move(uint64_t mask, int col) noexcept nogil:
    """The cell a disc dropped into ``col`` lands on (0 if the column is full)."""
    return possible_moves(mask) & column_mask(col)


cdef int centre_order(int i) noexcept nogil:
    """The i-th column (0-based) in centre-first order."""
    return C4_ORDER[i]

