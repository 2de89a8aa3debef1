"""Searches spread over threads that share one table (used by :mod:`.solver`).

The engine's worker slots each hold a copy of the search state; every search
releases the GIL, so Python threads run them in parallel. A thread that finds
no job left joins a job still running alone: it searches the same question
with its moves in another order near the root, and whichever of the two
finishes first answers (the other's partial work stays in the shared table).

:func:`root_split` finds the exact score and the optimal columns of a position
by null-window tests of the root's columns, several columns at a time. Each
window of the score search asks "does some column reach ``t``?": the first
column that does ends the window (the others are stopped); when none does,
every column was searched and each gives an upper bound. Once the score is
known, the columns not yet settled are tested for reaching it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from cython_solver.engine import Engine

HELPER_DEPTH = 6        # a joining thread rotates its moves down to n + 6 discs (5 plies)
UNBOUNDED = 64          # beyond every score
T = TypeVar("T")


def on_threads(engine: Engine, count: int, slots: int, work: Callable[[int], None]) -> None:
    """``work(slot)`` for slots 0 .. count - 1, slot 0 in this thread; then the
    first ``slots`` worker slots' nodes and cancellation go back to ``engine``."""
    threads = [threading.Thread(target=work, args=(slot,), daemon=True)
               for slot in range(1, count)]
    for thread in threads:
        thread.start()
    try:
        work(0)
    finally:
        for thread in threads:
            thread.join()
        engine.finish_workers(slots)


def each_column(engine: Engine, todo: list[int], threads: int,
                job: Callable[[int, int], T | None]) -> list[T | None]:
    """``job(slot, col)`` for each column of ``todo``, by ``threads`` threads (this
    one included), each on its own engine worker slot; the workers share the
    table, the book and the cancel flag. A job returns ``None`` when cancelled,
    and the columns after it are then left ``None``."""
    results: list[T | None] = [None] * len(todo)
    count = min(threads, len(todo))
    if count == 0:
        return results
    engine.prepare_workers(count)
    queue = iter(range(len(todo)))
    lock = threading.Lock()

    def work(slot: int) -> None:
        while True:
            with lock:
                index = next(queue, None)
            if index is None:
                return
            results[index] = job(slot, todo[index])
            if results[index] is None:      # cancelled
                return

    on_threads(engine, count, count, work)
    return results


class ColumnTests:
    """A round of column tests: does column ``col`` reach ``score``, for each
    ``(col, score)`` job?

    :meth:`run` returns each job's bound (``b >= score``: the column scores at
    least ``b``; ``b < score``: at most ``b``; ``None``: stopped or cancelled).
    A thread that finds the queue empty joins a job that runs alone, with its
    moves in another order near the root; the first of the two to finish
    answers and the other is stopped. With ``stop_at`` the round ends at the
    first job of that score whose column reaches it: the jobs still running
    are stopped, the others dropped.
    """

    def __init__(self, engine: Engine, position: tuple[int, int, int],
                 jobs: list[tuple[int, int]], threads: int, *,
                 stop_at: int | None = None) -> None:
        self.engine = engine
        self.cur, self.mask, self.n = position
        self.stop_at = stop_at
        self.count = min(threads, 2 * len(jobs))        # at most two threads per job
        self.queue = list(jobs)
        self.results: dict[tuple[int, int], int | None] = dict.fromkeys(jobs)
        self.runners: dict[tuple[int, int], list[int]] = {}   # running job -> its slots
        self.closed = False                     # the round ended early: nothing to join
        self.lock = threading.Lock()

    def run(self) -> dict[tuple[int, int], int | None]:
        if self.count:
            self.engine.prepare_workers(self.count)
            on_threads(self.engine, self.count, self.count, self._work)
        return self.results

    def _work(self, slot: int) -> None:
        while True:
            with self.lock:
                task = self._next(slot)
            if task is None:
                return
            job, rotate = task
            col, score = job
            bound = self.engine.worker_column_bound(slot, self.cur, self.mask, self.n,
                                                    col, score, rotate)
            with self.lock:
                self._finish(slot, job, bound)

    def _next(self, slot: int) -> tuple[tuple[int, int], int] | None:
        """The job this thread runs next and its move rotation, or ``None``. A
        queued job waits while its column is being tested at another score
        (that test may answer it); meanwhile the thread joins a job running
        alone."""
        if self.engine.cancel_requested:
            return None
        busy = {col for col, _ in self.runners}
        ready = [job for job in self.queue if job[0] not in busy]
        if ready:
            job, rotate = ready[0], 0
            self.queue.remove(job)
        elif self.closed:
            return None
        else:
            alone = [job for job, slots in self.runners.items()
                     if len(slots) == 1 and self.results[job] is None]
            if not alone:
                return None
            job, rotate = alone[0], HELPER_DEPTH
        self.runners.setdefault(job, []).append(slot)
        self.engine.arm_slot(slot)
        return job, rotate

    def _finish(self, slot: int, job: tuple[int, int], bound: int | None) -> None:
        slots = self.runners[job]
        slots.remove(slot)
        if not slots:
            del self.runners[job]
        if bound is None or self.results[job] is not None:
            return
        self.results[job] = bound
        for other in slots:                     # the race is won: stop the other thread
            self.engine.stop_slot(other)
        col, score = job
        for waiting in [queued for queued in self.queue if queued[0] == col]:
            if (bound >= score) == (bound >= waiting[1]):   # the bound answers it too
                self.queue.remove(waiting)
                self.results[waiting] = bound
        if score == self.stop_at and bound >= score:
            self.queue.clear()
            self.closed = True
            for others in self.runners.values():
                for other in others:
                    self.engine.stop_slot(other)


def root_split(engine: Engine, cur: int, mask: int, n: int, todo: list[int],
               threads: int) -> tuple[int, list[int]] | None:
    """The exact score and the optimal columns (0-based) of a playable position
    without an immediate win, ``todo`` its playable columns, searched by column
    tests on ``threads`` threads. ``None`` when cancelled.

    A window whose ``t`` is one above the score's lower bound settles the score
    when no column reaches ``t``; the tests of the columns at the lower bound
    then follow in the same round (wasted only when some column reaches ``t``).
    """
    position = (cur, mask, n)
    col_lo = dict.fromkeys(todo, -UNBOUNDED)
    col_hi = dict.fromkeys(todo, UNBOUNDED)
    lo, hi, try_bound = engine.score_range(cur, mask, n)
    order = [col for col in engine.move_order(cur, mask) if col in col_lo]
    while True:
        reach = engine.next_window(lo, hi, try_bound) + 1 if lo < hi else None
        try_bound = False
        order.sort(key=lambda col: -col_lo[col])     # a column that reached before first
        jobs = [(col, reach) for col in order if reach is not None and col_hi[col] >= reach]
        if reach is None or reach == lo + 1:
            jobs += [(col, lo) for col in order if col_lo[col] < lo <= col_hi[col]]
        results = ColumnTests(engine, position, jobs, threads, stop_at=reach).run()
        if engine.cancel_requested:
            return None
        _narrow(results, col_lo, col_hi)
        lo = max(lo, *col_lo.values())          # the position scores its best column's score
        hi = min(hi, max(col_hi.values()))
        if reach is None:
            return lo, [col for col in todo if col_lo[col] >= lo]


def _narrow(results: dict[tuple[int, int], int | None], col_lo: dict[int, int],
            col_hi: dict[int, int]) -> None:
    """Record each column's new bound from a round of tests."""
    for (col, score), bound in results.items():
        if bound is None:
            continue
        if bound >= score:
            col_lo[col] = max(col_lo[col], bound)
        else:
            col_hi[col] = min(col_hi[col], bound)
