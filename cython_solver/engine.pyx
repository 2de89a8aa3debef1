# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The ``Engine``: a transposition table and the searches of search.pyx.

The table is ``1 << table_bits`` entries of 8 bytes in anonymous memory,
2 MB aligned and marked for transparent huge pages. Every search releases the
GIL. See :mod:`cython_solver.solver` for the public API.
"""

from libc.stdint cimport int8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

from cython_solver.bitboard cimport possible_moves, winning_cells
from cython_solver.drivers cimport (
    column_bound,
    narrow_range,
    next_window,
    solve_between,
    solve_position,
)
from cython_solver.search cimport (
    BookView,
    Search,
    centre_order,
    column_move,
    disc_count,
    known_score,
    negamax,
    winning_moves,
)

cdef extern from "c4core.h":
    void *c4_table_alloc(size_t bytes, void **base, size_t *total) nogil
    void c4_table_free(void *base, size_t total) nogil
    void c4_store_flag(int *p, int v) nogil
    int c4_load_flag(const int *p) nogil
    int c4_popcount(unsigned long long x) nogil

cdef enum:
    WIDTH = 7
    CELLS = 42
    NOT_FOUND = 127
    MAX_THREADS = 8
    TT_LIMIT = 36               # positions with 36+ discs skip the table (cheaper to search)

MAX_TT_MB = 4096
cdef uint64_t TABLE_ALIGN = 2 << 20  # c4_table_alloc maps this much more, to align
cdef uint64_t HASH_NONE = <uint64_t>1 << 62      # negamax computes the hash itself


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
        if (<uint64_t>1 << bits) * 8 + TABLE_ALIGN > <uint64_t>(<size_t>-1):
            raise MemoryError(f"a {tt_mb} MB transposition table does not fit this machine's "
                              f"{8 * sizeof(size_t)}-bit address space")
        self.table_memory = <uint64_t *>c4_table_alloc((<size_t>1 << bits) * 8, &self.table_base,
                                                       &self.table_total)
        if self.table_memory == NULL:
            raise MemoryError(f"cannot allocate a {tt_mb} MB transposition table")
        self.tt_mb = tt_mb
        self.cancel_flag = 0
        memset(self.slot_stop, 0, sizeof(self.slot_stop))
        self.s.diversify_below = 0
        self.s.table = self.table_memory
        self.s.table_bits = bits
        self.s.table_mask = (<uint64_t>1 << bits) - 1
        self.s.nodes = 0
        self.s.cancel = &self.cancel_flag
        self.s.aborted = 0
        self.s.tt_limit = TT_LIMIT
        self.parent_first = True
        self.s.generation = <uint64_t>1 << 56
        self.clear_book()

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
        cdef int slot
        c4_store_flag(&self.cancel_flag, 1)
        for slot in range(MAX_THREADS):
            c4_store_flag(&self.slot_stop[slot], 1)

    @property
    def cancel_requested(self) -> bool:
        """Whether :meth:`cancel` was called since the last :meth:`start`."""
        return c4_load_flag(&self.cancel_flag) != 0

    def start(self) -> None:
        """Begin a new public call: clear the node count and the cancel flag."""
        c4_store_flag(&self.cancel_flag, 0)
        self.s.aborted = 0
        self.s.nodes = 0

    def set_book(self, owner, const uint32_t[::1] index, const uint16_t[::1] keys,
                 const int8_t[::1] values, int bucket_bits, int ply,
                 const uint32_t[::1] shallow_keys=None, const int8_t[::1] shallow_values=None,
                 int shallow_ply=-1) -> None:
        """Use a validated book; ``owner`` keeps the mapped memory alive. The
        shallow table (sorted keys and their scores, positions with at most
        ``shallow_ply`` discs) is optional."""
        if index.shape[0] != (1 << bucket_bits) + 1 or keys.shape[0] != values.shape[0]:
            raise ValueError("book arrays do not match the bucket count")
        if bucket_bits < 16 or bucket_bits > 24:
            raise ValueError(f"book bucket_bits must be 16 to 24, got {bucket_bits}")
        if (shallow_keys is None) != (shallow_values is None) or (
                shallow_keys is not None and shallow_keys.shape[0] != shallow_values.shape[0]):
            raise ValueError("shallow keys and values must come together, one value per key")
        if shallow_keys is not None and shallow_keys.shape[0] and not 0 <= shallow_ply < ply:
            raise ValueError(f"shallow_ply must be 0 to {ply - 1}, got {shallow_ply}")
        self.s.book.index = &index[0]
        self.s.book.keys = &keys[0] if keys.shape[0] else NULL
        self.s.book.values = &values[0] if values.shape[0] else NULL
        self.s.book.bucket_bits = bucket_bits
        self.s.book.ply = ply
        self.s.book.count = keys.shape[0]
        self.s.use_book = 1 if keys.shape[0] else 0
        self.s.book.shallow_ply = -1
        self.s.book.shallow_count = 0
        if shallow_keys is not None and shallow_keys.shape[0]:
            self.s.book.shallow_keys = &shallow_keys[0]
            self.s.book.shallow_values = &shallow_values[0]
            self.s.book.shallow_count = shallow_keys.shape[0]
            self.s.book.shallow_ply = shallow_ply
        self.shallow_ply = self.s.book.shallow_ply
        self.book_owner = owner

    @property
    def shallow(self) -> bool:
        """Whether the book's shallow table is consulted (switch off to compare)."""
        return self.s.book.shallow_ply >= 0

    @shallow.setter
    def shallow(self, bint on) -> None:
        self.s.book.shallow_ply = self.shallow_ply if on else -1

    @property
    def tt_limit(self) -> int:
        """Positions with this many discs or more skip the transposition table."""
        return self.s.tt_limit

    @tt_limit.setter
    def tt_limit(self, int value) -> None:
        self.s.tt_limit = value

    def clear_book(self) -> None:
        """Search without a book from now on."""
        self.s.use_book = 0
        memset(&self.s.book, 0, sizeof(BookView))
        self.s.book.shallow_ply = -1
        self.shallow_ply = -1
        self.book_owner = None

    @property
    def has_book(self) -> bool:
        return self.s.use_book != 0

    def book_value(self, uint64_t cur, uint64_t mask):
        """The book's score for a position (its ``ply``-disc entries or, while
        switched on, its shallow table), or ``None`` when it is not there."""
        cdef int v = known_score(&self.s, cur, mask, disc_count(mask))
        return None if v == NOT_FOUND else v

    def solve(self, uint64_t cur, uint64_t mask, int n) -> int:
        """Exact score of a playable position; ``aborted`` tells a cancelled search."""
        cdef int r
        with nogil:
            r = solve_position(&self.s, cur, mask, n)
        return r

    def search(self, uint64_t cur, uint64_t mask, int n, int alpha, int beta) -> int:
        """One alpha-beta search (the side to move must not win at once): a result
        r with alpha < r < beta is exact, r <= alpha an upper and r >= beta a lower
        bound."""
        cdef int r
        if alpha >= beta or winning_moves(cur, mask):
            raise ValueError("search needs alpha < beta and no immediate win")
        with nogil:
            r = negamax(&self.s, cur, mask, n, alpha, beta, HASH_NONE)
        return r

    def check_score(self, uint64_t cur, uint64_t mask, int n, int score) -> bool:
        """Whether ``score`` is the exact score, proved by two null-window searches
        (cheaper than :meth:`solve`); ``aborted`` tells a cancelled search."""
        cdef int above, below
        if winning_moves(cur, mask):
            return score == (CELLS + 1 - n) // 2
        with nogil:
            above = negamax(&self.s, cur, mask, n, score - 1, score, HASH_NONE)
            below = negamax(&self.s, cur, mask, n, score, score + 1, HASH_NONE)
        return above >= score and below <= score

    def plan(self, uint64_t cur, uint64_t mask, int n) -> tuple:
        """``(scores, todo)``: the scores known without search (immediate wins;
        ``None`` elsewhere) and the columns left to search, centre first."""
        cdef list scores = [None] * WIDTH
        cdef list todo = []
        cdef uint64_t m, w = winning_moves(cur, mask)
        cdef int col, i
        for i in range(WIDTH):
            col = centre_order(i)
            m = column_move(mask, col)
            if m & w:
                scores[col] = (CELLS + 1 - n) // 2
            elif m:
                todo.append(col)
        return scores, todo

    def move_order(self, uint64_t cur, uint64_t mask) -> list:
        """The playable columns in the search's order: moves that do not lose at
        once first, by the number of winning cells they create, ties centre
        first; then the moves that lose at once."""
        cdef uint64_t m, opp_wins = winning_cells(cur ^ mask, mask)
        cdef uint64_t forced = opp_wins & possible_moves(mask)
        cdef int col, i
        ranked = []
        for i in range(WIDTH):
            col = centre_order(i)
            m = column_move(mask, col)
            if not m:
                continue
            loses = (forced and not m & forced) or (m << 1) & opp_wins
            ranked.append((bool(loses), -c4_popcount(winning_cells(cur | m, mask)), i, col))
        return [col for *_, col in sorted(ranked)]

    def score_range(self, uint64_t cur, uint64_t mask, int n) -> tuple:
        """``(lo, hi, bound_first)``: the range of a playable position's score
        (no immediate win) as far as it is known without search, and whether
        ``lo`` is the book's bound for a position one disc past it."""
        cdef int lo = -CELLS, hi = CELLS
        cdef int bound_first = narrow_range(&self.s, cur, mask, n, &lo, &hi)
        return lo, hi, bool(bound_first)

    @staticmethod
    def next_window(int lo, int hi, bint bound_first) -> int:
        """``med`` of the null window ``(med, med + 1)`` the exact-score search
        tries next on a score in [lo, hi] (lo < hi)."""
        if lo >= hi:
            raise ValueError(f"next_window needs lo < hi, got {lo}, {hi}")
        return next_window(lo, hi, bound_first)

    def analyze(self, uint64_t cur, uint64_t mask, int n) -> list:
        """Score of playing each column (``None`` for a full one), in this thread;
        stops early on abort."""
        scores, todo = self.plan(cur, mask, n)
        cdef uint64_t m
        cdef int col, r, value = (CELLS + 1 - n) // 2
        if self.parent_first and all(score is None for score in scores):
            # no immediate win: the position's own score bounds every column's
            with nogil:
                value = solve_position(&self.s, cur, mask, n)
            if self.s.aborted:
                return scores
        for col in todo:
            m = column_move(mask, col)
            with nogil:
                r = -solve_between(&self.s, cur ^ mask, mask | m, n + 1, -value, CELLS)
            if self.s.aborted:
                break
            scores[col] = r
        return scores

    # ------------------------------------------------ worker searches (threads)

    def prepare_workers(self, int count) -> None:
        """Give ``count`` worker slots a copy of this search (sharing the table,
        the book and the cancel flag) with zero nodes and no stop request."""
        cdef int slot
        if not 1 <= count <= MAX_THREADS:
            raise ValueError(f"1 to {MAX_THREADS} workers, got {count}")
        for slot in range(count):
            c4_store_flag(&self.slot_stop[slot], 0)
            self.workers[slot] = self.s
            self.workers[slot].nodes = 0
            self.workers[slot].aborted = 0

    def worker_child_score(self, int slot, uint64_t cur, uint64_t mask, int n, int col):
        """Score of playing ``col`` searched on worker ``slot`` (releases the GIL),
        or ``None`` when the search was cancelled."""
        cdef uint64_t m = column_move(mask, col)
        cdef int r
        _check_slot(slot)
        with nogil:
            r = -solve_position(&self.workers[slot], cur ^ mask, mask | m, n + 1)
        return None if self.workers[slot].aborted else r

    def worker_column_bound(self, int slot, uint64_t cur, uint64_t mask, int n, int col,
                            int score, int rotate=0):
        """Whether playing ``col`` scores at least ``score``, as a bound: a result
        ``b >= score`` means the column scores at least ``b``, ``b < score`` at most
        ``b``. Searched on worker ``slot`` with the GIL released; with ``rotate``
        > 0 the moves are taken in another order (the first last) at nodes with
        fewer than ``n + rotate`` discs, so that two threads on one test fill
        the shared table differently. ``None`` when cancelled, or stopped by
        :meth:`stop_slot` (call :meth:`arm_slot` before the search)."""
        cdef uint64_t m = column_move(mask, col)
        cdef int r
        _check_slot(slot)
        if not m:
            raise ValueError(f"column {col + 1} is full")
        self.workers[slot].cancel = &self.slot_stop[slot]
        self.workers[slot].diversify_below = n + rotate if rotate > 0 else 0
        if c4_load_flag(&self.cancel_flag):
            self.workers[slot].aborted = 1
            return None
        with nogil:
            r = column_bound(&self.workers[slot], cur, mask, n, m, score)
        if not self.workers[slot].aborted:
            return r
        if not c4_load_flag(&self.cancel_flag):
            self.workers[slot].aborted = 0      # stopped, not cancelled
        return None

    def arm_slot(self, int slot) -> None:
        """Clear the stop request of worker ``slot`` before a search on it."""
        _check_slot(slot)
        c4_store_flag(&self.slot_stop[slot], 0)

    def stop_slot(self, int slot) -> None:
        """Stop the search on worker ``slot`` at its next poll (thread-safe)."""
        _check_slot(slot)
        c4_store_flag(&self.slot_stop[slot], 1)

    def finish_workers(self, int count) -> None:
        """Add the workers' nodes to this search and pass on a cancellation."""
        cdef int slot
        for slot in range(count):
            self.s.nodes += self.workers[slot].nodes
            if self.workers[slot].aborted:
                self.s.aborted = 1


cdef inline void _check_slot(int slot) except *:
    if not 0 <= slot < MAX_THREADS:
        raise ValueError(f"worker slot {slot} out of range")
