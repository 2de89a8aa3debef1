# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The drivers of the search: exact scores by null-window searches, column tests.

``negamax`` (search.pyx) answers one window; these functions choose the
windows: :func:`solve_between` narrows an exact score from both ends,
:func:`column_bound` tests one bound of a move (the column tests of ``best``). A
position one disc past the book starts from the lower bound its book parents
give. Plain C, ``noexcept nogil``, like the search.
"""

from libc.stdint cimport uint64_t

from cython_solver.bitboard cimport can_win_next
from cython_solver.search cimport Search, book_lookup, known_score, negamax

cdef enum:
    WIDTH = 7
    CELLS = 42
    BOUND_OFFSET = 64
    NOT_FOUND = 127

cdef uint64_t HASH_NONE = <uint64_t>1 << 62      # negamax computes the hash itself


cdef int book_lower_bound(Search *s, uint64_t cur, uint64_t mask) noexcept nogil:
    """A lower bound for a position one disc past the book: every book position
    Q that it follows (remove a top disc of the player who just moved) scores at
    least minus this position's score, so it scores at least -score(Q)."""
    cdef uint64_t opp = cur ^ mask, top, column
    cdef int col, v, best = -BOUND_OFFSET
    for col in range(WIDTH):
        column = (mask >> (7 * col)) & 0x3F
        if not column:
            continue
        top = ((column + 1) >> 1) << (7 * col)   # the column's top disc
        if not opp & top:
            continue
        v = book_lookup(&s.book, opp ^ top, mask ^ top)
        if v != NOT_FOUND and -v > best:
            best = -v
    return best


cdef int solve_position(Search *s, uint64_t cur, uint64_t mask, int n) noexcept nogil:
    """Exact score of a playable position."""
    return solve_between(s, cur, mask, n, -((CELLS - n) // 2), (CELLS + 1 - n) // 2)


cdef int solve_between(Search *s, uint64_t cur, uint64_t mask, int n, int lo,
                       int hi) noexcept nogil:
    """Exact score of a playable position known to lie in [lo, hi], by null-window
    searches that start near the middle and probe towards quick results."""
    cdef int med, r, bound_first
    if can_win_next(cur, mask):
        return (CELLS + 1 - n) // 2
    bound_first = narrow_range(s, cur, mask, n, &lo, &hi)
    while lo < hi:
        med = next_window(lo, hi, bound_first)
        bound_first = 0
        r = negamax(s, cur, mask, n, med, med + 1, HASH_NONE)
        if s.aborted:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


cdef int narrow_range(Search *s, uint64_t cur, uint64_t mask, int n, int *lo,
                      int *hi) noexcept nogil:
    """Narrow ``[lo, hi]`` for a playable position without an immediate win by
    what is known without search: the score range, the book's score, or for a
    position one disc past the book its lower bound. Returns 1 when ``lo`` is
    that bound (often exact: worth testing first)."""
    cdef int r = known_score(s, cur, mask, n), bound_first = 0
    if r != NOT_FOUND:
        lo[0] = r
        hi[0] = r
        return 0
    if s.use_book and n == s.book.ply + 1:
        r = book_lower_bound(s, cur, mask)
        if r > lo[0]:
            lo[0] = r
            bound_first = 1
    if lo[0] < -((CELLS - n) // 2):
        lo[0] = -((CELLS - n) // 2)
    if hi[0] > (CELLS - 1 - n) // 2:            # no win with this very disc
        hi[0] = (CELLS - 1 - n) // 2
    return bound_first


cdef int next_window(int lo, int hi, bint bound_first) noexcept nogil:
    """``med`` of the next null window ``(med, med + 1)`` on a score in [lo, hi],
    lo < hi: the lower bound when it is the book's, else near the middle,
    moved towards the nearer end of the range (quick wins and losses are
    cheap to prove)."""
    cdef int med = lo + (hi - lo) // 2
    if bound_first:
        return lo
    if med <= 0 and lo // 2 < med:
        return lo // 2
    if med >= 0 and hi // 2 > med:
        return hi // 2
    return med


cdef int column_bound(Search *s, uint64_t cur, uint64_t mask, int n, uint64_t move,
                      int score) noexcept nogil:
    """Whether playing ``move`` scores at least ``score``, as a fail-soft bound on
    that move's score: a result ``b >= score`` means the move scores at least
    ``b``, a result ``b < score`` that it scores at most ``b``. One null-window
    search of the child (none when its score is known or bounded enough)."""
    cdef uint64_t child_cur = cur ^ mask, child_mask = mask | move
    cdef int child_n = n + 1, v = -score, r
    if can_win_next(child_cur, child_mask):
        return -((CELLS + 1 - child_n) // 2)
    if v >= (CELLS - 1 - child_n) // 2:
        return -((CELLS - 1 - child_n) // 2)
    if v < -((CELLS - child_n) // 2):
        return (CELLS - child_n) // 2
    r = known_score(s, child_cur, child_mask, child_n)
    if r != NOT_FOUND:
        return -r
    if s.use_book and child_n == s.book.ply + 1:
        r = book_lower_bound(s, child_cur, child_mask)
        if r > v:
            return -r
    return -negamax(s, child_cur, child_mask, child_n, v, v + 1, HASH_NONE)
