"""The thin layer around the reducer: it runs effects and feeds events.

:class:`Pipeline` owns the reducer state. ``post(event, now)`` is thread-safe
and processes events strictly one after the other (an event posted while one
is being handled, by the solver or from another thread, waits its turn), so
the effects come out in a deterministic order. Effects go to collaborators
passed in: a :class:`SolverPort` (the shared worker, or a synchronous solver
for files), an announcer (docs/speech.md API), ``on_show`` / ``on_commit``
callbacks and the log.

:class:`FrameLoop` reads frames from a source, reads each with the board
reader and feeds the readings in; a live source's outages become ticks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from c4game.board import Board
from c4game.exc import SolverError, VisionError
from c4game.scores import outcome
from firmware_py.pipeline.belief import first_sight_doubt
from firmware_py.pipeline.events import (
    Announce,
    CancelSolve,
    Committed,
    Effect,
    Event,
    Log,
    ReadingSeen,
    Show,
    Silence,
    SolveDone,
    SolveFailed,
    SolveResult,
    StartSolve,
    Tick,
    View,
)
from firmware_py.pipeline.reducer import PipelineParams, PipelineState, reduce
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.vision.reading import NO_BOARD, Expectation, Reading

if TYPE_CHECKING:
    import random

    import numpy as np

    from cython_solver import Answer
    from firmware_py.frames import Frame
    from firmware_py.worker import JobHandle, SolverLike, SolverWorker

log = logging.getLogger(__name__)

Deliver = Callable[[Event], None]


class SolverPort(Protocol):
    """Where the pipeline's solves run."""

    def start(self, job: int, board: Board, deliver: Deliver) -> None:
        """Begin solving; later call ``deliver(SolveDone | SolveFailed)`` once."""

    def cancel(self, job: int) -> None:
        """Drop ``job``: its result is no longer needed."""

    def due(self, now: float) -> list[tuple[float, Event]]:
        """Results whose time has come on a virtual timeline (``[]`` for real ones)."""


class Announcer(Protocol):
    """The part of :class:`firmware_py.speech.Announcer` the pipeline uses."""

    def show_recommendation(self, player: str | None, column: int, outcome: str,
                            plies: int) -> None: ...

    def show_finished(self, winner: str | None, key: str | None = None) -> None: ...

    def show_scanning(self) -> None: ...

    def show_board_lost(self) -> None: ...


class FrameReader(Protocol):
    """What the frame loop needs of the reader (:class:`~firmware_py.vision.reader.BoardReader`):
    a frame read under the game filter's expectation (:attr:`Pipeline.expectation`)."""

    def read(self, image: np.ndarray, expectation: Expectation | None = None) -> Reading: ...


class Frames(Protocol):
    """What the frame loop needs of a source (:class:`~firmware_py.frames.FrameSource`)."""

    def read(self) -> Frame | None: ...


def result_event(job: int, board: Board, answer: Answer | None,
                 error: BaseException | None) -> Event:
    """The pipeline event for a solver's answer or error."""
    grid = tuple(board.grid_lines())
    if error is not None or answer is None:
        return SolveFailed(job, grid, f"{type(error).__name__}: {error}")
    return SolveDone(job, grid, SolveResult.from_answer(answer))


class WorkerPort:
    """Solves on the shared :class:`firmware_py.worker.SolverWorker` (tag ``vision``)."""

    def __init__(self, worker: SolverWorker, *, tag: str = "vision",
                 priority: int | None = None) -> None:
        from firmware_py.worker import VISION_PRIORITY

        self.worker = worker
        self.tag = tag
        self.priority = VISION_PRIORITY if priority is None else priority
        self._handles: dict[int, JobHandle] = {}
        self._lock = threading.Lock()

    def start(self, job: int, board: Board, deliver: Deliver) -> None:
        def on_done(done_board: Board, answer: Answer | None,
                    error: BaseException | None) -> None:
            with self._lock:
                self._handles.pop(job, None)
            deliver(result_event(job, done_board, answer, error))

        try:
            handle = self.worker.submit(board, priority=self.priority, tag=self.tag,
                                        on_done=on_done)
        except SolverError as error:  # the worker was stopped: the appliance is stopping
            deliver(SolveFailed(job, tuple(board.grid_lines()), str(error), cancelled=True))
            return
        with self._lock:
            # Superseded jobs never call on_done: forget them so the map stays small.
            self._handles = {key: old for key, old in self._handles.items() if not old.done}
            self._handles[job] = handle

    def cancel(self, job: int) -> None:
        with self._lock:
            handle = self._handles.pop(job, None)
        if handle is not None:
            handle.cancel()

    def due(self, now: float) -> list[tuple[float, Event]]:
        return []


class SyncPort:
    """Solves at once on the calling thread: files get the same output every run."""

    def __init__(self, solver: SolverLike, *, tie_break: str = "centre",
                 rng: random.Random | None = None) -> None:
        self.solver = solver
        self.tie_break = tie_break
        self.rng = rng

    def start(self, job: int, board: Board, deliver: Deliver) -> None:
        deliver(self._solve(job, board))

    def _solve(self, job: int, board: Board) -> Event:
        try:
            answer = self.solver.best(board, tie_break=self.tie_break, rng=self.rng)
        except Exception as error:  # reported through the pipeline, like the worker does
            return result_event(job, board, None, error)
        return result_event(job, board, answer, None)

    def cancel(self, job: int) -> None:
        """Nothing runs in the background."""

    def due(self, now: float) -> list[tuple[float, Event]]:
        return []


class DeferredPort(SyncPort):
    """Solves at once but delivers on a virtual timeline, after the real solve time.

    For benchmarks on a file timeline: a result solved in ``ms`` milliseconds
    at virtual time ``t`` becomes visible at ``t + ms / 1000``.
    """

    def __init__(self, solver: SolverLike, *, tie_break: str = "centre",
                 rng: random.Random | None = None,
                 timer: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(solver, tie_break=tie_break, rng=rng)
        self._timer = timer
        self._pending: dict[int, tuple[float, Event]] = {}
        self.now = 0.0

    def start(self, job: int, board: Board, deliver: Deliver) -> None:
        began = self._timer()
        event = self._solve(job, board)
        self._pending[job] = (self.now + (self._timer() - began), event)

    def cancel(self, job: int) -> None:
        self._pending.pop(job, None)

    def due(self, now: float) -> list[tuple[float, Event]]:
        self.now = now
        ready = sorted((when, job) for job, (when, _) in self._pending.items() if when <= now)
        return [self._pending.pop(job) for _, job in ready]


class Pipeline:
    """Runs :func:`~firmware_py.pipeline.reducer.reduce` and executes its effects.

    ``clock`` times events posted without a time (solver results from the
    worker thread); ``None`` uses the time of the latest event (file mode).
    """

    def __init__(self, params: PipelineParams, solver: SolverPort, *,
                 announcer: Announcer | None = None,
                 on_show: Callable[[View, float], None] | None = None,
                 on_commit: Callable[[Board, str, float], None] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.params = params
        self.solver = solver
        self.announcer = announcer
        self.on_show = on_show
        self.on_commit = on_commit
        self.state = PipelineState()
        self.now = 0.0
        self._clock = clock
        self._lock = threading.RLock()
        self._inbox: deque[tuple[Event, float | None]] = deque()
        self._draining = False

    @property
    def view(self) -> View:
        return self.state.view

    @property
    def first_sight_doubt(self) -> str:
        """Why a game first seen mid-game may not be followed ("" when nothing says so):
        :func:`~firmware_py.pipeline.belief.first_sight_doubt`."""
        return first_sight_doubt(self.state.belief)

    @property
    def expectation(self) -> Expectation | None:
        """What the game filter expects the next frame to show: hand it to the reader
        with that frame (:meth:`FrameReader.read`)."""
        return self.state.belief.expectation

    def feed(self, reading: Reading, now: float) -> None:
        """One frame's reading at ``now`` (after any solver results due by then)."""
        for when, event in self.solver.due(now):
            self.post(event, when)
        self.post(ReadingSeen(reading), now)

    def tick(self, now: float | None = None) -> None:
        """Let time pass without a frame."""
        self.post(Tick(), now)

    def post(self, event: Event, now: float | None = None) -> None:
        """Queue ``event`` and process the queue unless that is already under way."""
        with self._lock:
            self._inbox.append((event, now))
            if self._draining:
                return
            self._draining = True
            try:
                while self._inbox:
                    queued, when = self._inbox.popleft()
                    self._step(queued, self._time(when))
            finally:
                self._draining = False

    def _time(self, when: float | None) -> float:
        if when is not None:
            return when
        return self._clock() if self._clock is not None else self.now

    def _step(self, event: Event, now: float) -> None:
        self.now = max(self.now, now)
        self.state, effects = reduce(self.state, event, now, self.params)
        for effect in effects:
            try:
                self._execute(effect, now)
            except Exception:  # one broken collaborator must not stop the pipeline
                log.exception("effect %r failed", effect)

    def _execute(self, effect: Effect, now: float) -> None:
        if isinstance(effect, StartSolve):
            self.solver.start(effect.job, effect.board, self.post)
        elif isinstance(effect, CancelSolve):
            self.solver.cancel(effect.job)
        elif isinstance(effect, Show):
            if self.on_show is not None:
                self.on_show(effect.view, now)
        elif isinstance(effect, Committed):
            log.debug("committed (%s) %s", effect.kind, "/".join(effect.board.grid_lines()))
            if self.on_commit is not None:
                self.on_commit(effect.board, effect.kind, now)
        elif isinstance(effect, (Announce, Silence)):
            if self.announcer is not None:
                speak(self.announcer, effect)
        elif isinstance(effect, Log):
            log.log(logging.getLevelName(effect.level.upper()), "%s", effect.message)


def speak(announcer: Announcer, effect: Announce | Silence) -> None:
    """Map an announce/silence effect onto the announcer's API (docs/speech.md)."""
    if isinstance(effect, Silence):
        if effect.lost:
            announcer.show_board_lost()
        else:
            announcer.show_scanning()
    elif effect.result is None:
        announcer.show_finished(effect.board.winner, key=effect.board.grid_text())
    else:
        result = effect.result
        announcer.show_recommendation(effect.to_move, result.column,
                                      outcome(result.score), result.plies)


class FrameLoop:
    """Source → reader → pipeline, until the source ends or ``stop`` is set.

    ``reader`` has ``read(image, expectation) -> Reading`` (each frame is read under
    the pipeline's expectation); a :class:`VisionError` from it
    counts as a frame without a board. ``on_frame(frame, reading)`` sees every
    frame (status lines, benchmarks). ``teacher`` (a
    :class:`~firmware_py.pipeline.teach.LookTeacher`) learns the followed empty board
    and the boards the game confirms.
    """

    def __init__(self, source: Frames, reader: FrameReader, pipeline: Pipeline, *,
                 stop: threading.Event | None = None,
                 on_frame: Callable[[Frame, Reading], None] | None = None,
                 teacher: LookTeacher | None = None) -> None:
        self.source = source
        self.reader = reader
        self.pipeline = pipeline
        self.teacher = teacher
        self.stop = stop or threading.Event()
        self.on_frame = on_frame
        self.frames = 0

    def run(self, max_frames: int | None = None) -> int:
        """Process frames; returns how many were processed."""
        while not self.stop.is_set() and (max_frames is None or self.frames < max_frames):
            frame = self.source.read()
            if frame is None:
                break
            reading = self.read(frame.image)
            feed_and_teach(self.pipeline, reading, frame.t, self.teacher)
            self.frames += 1
            if self.on_frame is not None:
                self.on_frame(frame, reading)
        return self.frames

    def read(self, image: np.ndarray) -> Reading:
        """``image`` read under the pipeline's expectation; a :class:`VisionError` is
        a frame without a board."""
        try:
            return self.reader.read(image, self.pipeline.expectation)
        except VisionError as error:
            log.warning("frame not read: %s", error)
            return Reading(NO_BOARD, reason=str(error))

    def wait(self, seconds: float, step: float = 0.1) -> bool:
        """Wait (while a live source is being reopened), ticking; ``True`` when stopped."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self.stop.wait(min(step, left)):
                return True
            self.pipeline.tick()
        return self.stop.is_set()


def feed_and_teach(pipeline: Pipeline, reading: Reading, now: float,
                   teacher: LookTeacher | None = None) -> None:
    """Feed ``reading`` to ``pipeline``; ``teacher`` sees every frame and learns the
    empty board a game is followed from and the boards the game confirms (the game
    filter may commit a game's empty board where the frame alone was refused: a hole
    the readers doubt, :mod:`.belief`)."""
    pipeline.feed(reading, now)
    if teacher is not None:
        teacher.observe(pipeline.state.reference, pipeline.state.frame_kind, reading)


class RebasedSource:
    """A live source's frames with times counted from ``start`` (the loop's start), so
    the pipeline's timeline begins near 0; a file's frames keep their own times."""

    def __init__(self, source: Frames, start: float) -> None:
        self.source = source
        self.start = start

    def now(self) -> float:
        """Seconds since ``start``: the pipeline's clock on this timeline."""
        return time.monotonic() - self.start

    def read(self) -> Frame | None:
        frame = self.source.read()
        if frame is None or not getattr(self.source, "live", True):
            return frame
        return replace(frame, t=frame.t - self.start)
