# cython: language_level=3
"""Look-ahead at the edges of the score range (inline helpers of search.pyx).

A node's window often asks only whether a game ends within the next few
discs: "can we win with our next disc but one?" (a score of ``hi``) or "can
the opponent?" (``lo``). Those questions are settled here by playing out the
few forced moves, without recursion, table or ordering. Every helper takes
the side to move's discs ``cur``, all discs ``mask`` and a set of its
non-losing ``moves`` (one bit per column, see ``negamax``), and looks at the
moves centre first. "Lost at once" is what ``negamax`` returns without
search: two opponent threats, or a forced block that lies under another
threat, or every move lies under one.
"""

from libc.stdint cimport uint64_t

from cython_solver.bitboard cimport C4_ORDER_MASK, possible_moves, winning_cells


cdef inline uint64_t replies_after(uint64_t cur, uint64_t mask, uint64_t m,
                                   uint64_t *threats) noexcept nogil:
    """The opponent's non-losing replies after we play ``m`` (0: he is lost at
    once); ``threats`` receives our winning cells after ``m``."""
    cdef uint64_t after = mask | m
    cdef uint64_t w = winning_cells(cur | m, after)
    cdef uint64_t playable = possible_moves(after)
    cdef uint64_t forced = w & playable
    threats[0] = w
    if forced:
        if forced & (forced - 1):
            return 0
        playable = forced
    return playable & ~(w >> 1)


cdef inline bint leaves_opponent_lost(uint64_t cur, uint64_t mask, uint64_t moves,
                                      uint64_t *threats_after) noexcept nogil:
    """Whether a move leaves the opponent lost at once (we win with our next
    disc but one). Fills ``threats_after[i]`` (unless NULL) with our winning
    cells after the i-th move in centre order, for each move looked at."""
    cdef uint64_t m, w
    cdef int i
    for i in range(7):
        m = moves & C4_ORDER_MASK[i]
        if m:
            if not replies_after(cur, mask, m, &w):
                return 1
            if threats_after != NULL:
                threats_after[i] = w
    return 0


cdef inline bint has_forcing_move(uint64_t cur, uint64_t mask, uint64_t moves) noexcept nogil:
    """Whether a move lets us, whatever the reply, leave the opponent lost at
    once (we win with our third disc from now at the latest)."""
    cdef uint64_t m, r, w, replies, ours
    cdef int i
    for i in range(7):
        m = moves & C4_ORDER_MASK[i]
        if not m:
            continue
        replies = replies_after(cur, mask, m, &w)
        while replies:
            r = replies & (~replies + 1)
            ours = replies_after(cur ^ mask, mask | m, r, &w)
            if not ours or not leaves_opponent_lost(cur | m, mask | m | r, ours, NULL):
                break                            # this reply holds out
            replies ^= r
        if not replies:
            return 1
    return 0


cdef inline bint has_safe_move(uint64_t cur, uint64_t mask, uint64_t moves,
                               bint two_discs) noexcept nogil:
    """Whether a move leaves the opponent unable to win with his next disc but
    one (no reply that leaves us lost at once) or, with ``two_discs``, with his
    third disc from now (no forcing move)."""
    cdef uint64_t m, w, replies, opp = cur ^ mask
    cdef bint threat
    cdef int i
    for i in range(7):
        m = moves & C4_ORDER_MASK[i]
        if not m:
            continue
        replies = replies_after(cur, mask, m, &w)
        if not replies:
            return 1                             # he is lost at once himself
        if two_discs:
            threat = has_forcing_move(opp, mask | m, replies)
        else:
            threat = leaves_opponent_lost(opp, mask | m, replies, NULL)
        if not threat:
            return 1
    return 0
