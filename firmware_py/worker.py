"""The shared solver worker: one thread that owns the solver (docs/serial.md, "Worker API").

The serial service, the live pipeline and the daemon submit boards here; the
worker runs one search at a time. A submission cancels older jobs with the same
tag (supersedes them) and preempts a running job of lower priority, which is
re-queued and restarted afterwards (the transposition table keeps its work).
"""

from __future__ import annotations

import itertools
import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from c4game.board import Board
from c4game.exc import SolveCancelled, SolverError

if TYPE_CHECKING:
    from cython_solver.solver import Answer, Position

log = logging.getLogger(__name__)

SERIAL_PRIORITY = 10
VISION_PRIORITY = 0
TIE_BREAKS = ("centre", "random")
RECANCEL_S = 0.02  # a cancel is repeated this often while the cancelled search still runs

OnDone = Callable[[Board, "Answer | None", "BaseException | None"], None]
BusyListener = Callable[[bool], None]

_PENDING, _RUNNING, _DELIVERING, _FINISHED, _CANCELLED = (
    "pending", "running", "delivering", "finished", "cancelled")


class SolverLike(Protocol):
    """What the worker needs from :class:`cython_solver.Solver`."""

    def best(self, position: Position, tie_break: str = "centre",
             rng: random.Random | None = None, *, scores: bool = False) -> Answer: ...

    def cancel(self) -> None: ...


@dataclass(eq=False)
class _Job:
    board: Board
    priority: int
    tag: str
    on_done: OnDone
    seq: int
    state: str = _PENDING
    preempted: bool = False
    attempts: int = field(default=0)
    scores: bool = False  # also search every column's exact score


class JobHandle:
    """A submitted job: lets its owner cancel it."""

    def __init__(self, worker: SolverWorker, job: _Job) -> None:
        self._worker = worker
        self._job = job

    @property
    def board(self) -> Board:
        return self._job.board

    @property
    def tag(self) -> str:
        return self._job.tag

    @property
    def priority(self) -> int:
        return self._job.priority

    @property
    def done(self) -> bool:
        """True once the job was delivered, failed or cancelled."""
        return self._job.state in (_FINISHED, _CANCELLED)

    @property
    def cancelled(self) -> bool:
        return self._job.state == _CANCELLED

    def cancel(self) -> bool:
        """Cancel if pending or running; True means ``on_done`` will never be called."""
        return self._worker._cancel_job(self._job)

    def __repr__(self) -> str:
        job = self._job
        return f"<JobHandle {job.tag!r} p={job.priority} {job.state} moves={job.board.moves!r}>"


class SolverWorker:
    """One thread that runs ``solver.best`` for submitted boards, one at a time."""

    def __init__(self, solver: SolverLike, tie_break: str = "centre",
                 rng: random.Random | None = None, *, name: str = "c4pi-solver") -> None:
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
        self._solver = solver
        self._tie_break = tie_break
        self._rng = rng
        self._name = name
        self._cond = threading.Condition()
        self._pending: list[_Job] = []
        self._running: _Job | None = None
        self._seq = itertools.count()
        self._busy = False
        self._listeners: list[BusyListener] = []
        self._thread: threading.Thread | None = None
        self._stopping = False

    # ------------------------------------------------------------ lifecycle

    def start(self) -> SolverWorker:
        """Start the worker thread (idempotent); returns self."""
        with self._cond:
            if self._stopping:
                raise SolverError("the solver worker was stopped; create a new one")
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
        return self

    def stop(self, timeout: float | None = 5.0) -> bool:
        """Cancel every job and end the thread; True when it has ended."""
        with self._cond:
            self._stopping = True
            for job in self._pending:
                job.state = _CANCELLED
            self._pending.clear()
            if self._running is not None and self._running.state == _RUNNING:
                self._running.state = _CANCELLED
                self._interrupt_locked()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        ended = thread is None or not thread.is_alive()
        if ended:
            self._update_busy()
        return ended

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------ jobs

    def submit(self, board: Board, *, priority: int, tag: str, on_done: OnDone,
               scores: bool = False) -> JobHandle:
        """Queue ``board``; supersede jobs with the same tag, preempt lower priorities.

        With ``scores`` the answer also holds every column's exact score.
        """
        if not isinstance(board, Board):
            raise TypeError(f"submit needs a Board, got {type(board).__name__}: {board!r}")
        with self._cond:
            if self._stopping:
                raise SolverError("the solver worker was stopped")
            self._cancel_tag_locked(tag)
            job = _Job(board, priority, tag, on_done, next(self._seq), scores=scores)
            self._pending.append(job)
            running = self._running
            if running is not None and running.state == _RUNNING and priority > running.priority:
                running.preempted = True
                self._interrupt_locked()
            self._cond.notify_all()
        return JobHandle(self, job)

    def cancel_tag(self, tag: str) -> int:
        """Cancel every pending or running job with ``tag``; returns how many."""
        with self._cond:
            count = self._cancel_tag_locked(tag)
            self._cond.notify_all()
        return count

    @property
    def busy(self) -> bool:
        """True while a job runs or waits."""
        with self._cond:
            return self._busy

    def add_busy_listener(self, callback: BusyListener) -> None:
        """Call ``callback(busy)`` whenever :attr:`busy` changes."""
        with self._cond:
            self._listeners.append(callback)

    def remove_busy_listener(self, callback: BusyListener) -> None:
        with self._cond:
            if callback in self._listeners:
                self._listeners.remove(callback)

    # ------------------------------------------------------------ internals

    def _cancel_job(self, job: _Job) -> bool:
        with self._cond:
            if job.state == _PENDING:
                self._pending.remove(job)
            elif job.state == _RUNNING:
                self._interrupt_locked()
            else:
                return False
            job.state = _CANCELLED
            self._cond.notify_all()
            return True

    def _cancel_tag_locked(self, tag: str) -> int:
        victims = [job for job in self._pending if job.tag == tag]
        for job in victims:
            job.state = _CANCELLED
            self._pending.remove(job)
        running = self._running
        if running is not None and running.tag == tag and running.state == _RUNNING:
            running.state = _CANCELLED
            self._interrupt_locked()
            victims.append(running)
        return len(victims)

    def _interrupt_locked(self) -> None:
        """Stop the running search; repeat shortly in case the search had not begun."""
        try:
            self._solver.cancel()
        except Exception:  # a broken cancel must not take the caller down
            log.exception("solver.cancel() failed")
            return
        job = self._running
        if job is not None:
            timer = threading.Timer(RECANCEL_S, self._recancel, args=(job, 20))
            timer.daemon = True
            timer.start()

    def _recancel(self, job: _Job, left: int) -> None:
        """A cancel that raced the start of a search may be lost: repeat it while needed."""
        with self._cond:
            still_due = self._running is job and (job.state == _CANCELLED or job.preempted)
            if not still_due:
                return
            try:
                self._solver.cancel()
            except Exception:
                log.exception("solver.cancel() failed")
                return
        if left > 1:
            timer = threading.Timer(RECANCEL_S, self._recancel, args=(job, left - 1))
            timer.daemon = True
            timer.start()

    def _next_job(self) -> _Job | None:
        """Wait for the next job; None when stopping. Updates busy on wake-ups."""
        while True:
            self._update_busy()
            with self._cond:
                if self._stopping:
                    return None
                if not self._pending:
                    self._cond.wait()
                    continue
                job = min(self._pending, key=lambda j: (-j.priority, j.seq))
                self._pending.remove(job)
                job.state = _RUNNING
                job.attempts += 1
                self._running = job
            self._update_busy()
            return job

    def _loop(self) -> None:
        while (job := self._next_job()) is not None:
            try:
                answer = self._solver.best(job.board, tie_break=self._tie_break, rng=self._rng,
                                           scores=job.scores)
                error: BaseException | None = None
            except SolveCancelled:
                self._after_cancel(job)
                continue
            except Exception as exc:  # delivered to the submitter, who decides
                answer, error = None, exc
            self._deliver(job, answer, error)

    def _after_cancel(self, job: _Job) -> None:
        with self._cond:
            self._running = None
            if job.state == _CANCELLED:
                return
            # Preempted, or a cancel meant for an earlier search: run it again later.
            if not job.preempted and job.attempts > 3:
                log.warning("job %r was cancelled %d times for no reason", job.tag, job.attempts)
            job.state = _PENDING
            job.preempted = False
            self._pending.append(job)

    def _deliver(self, job: _Job, answer: Answer | None, error: BaseException | None) -> None:
        with self._cond:
            self._running = None
            if job.state == _CANCELLED:
                return
            job.state = _DELIVERING
        try:
            job.on_done(job.board, answer, error)
        except Exception:
            log.exception("on_done callback of job %r failed", job.tag)
        finally:
            with self._cond:
                job.state = _FINISHED

    def _update_busy(self) -> None:
        """Recompute busy; call listeners (outside the lock) when it changed."""
        with self._cond:
            busy = self._running is not None or bool(self._pending)
            if busy == self._busy:
                return
            self._busy = busy
            listeners = list(self._listeners)
        for callback in listeners:
            try:
                callback(busy)
            except Exception:
                log.exception("busy listener %r failed", callback)
