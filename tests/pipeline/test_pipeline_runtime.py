"""The runtime: effects reach the solver port, the announcer and the display."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import VisionError
from firmware_py.frames import Frame
from firmware_py.pipeline.events import (
    SOLVED,
    Announce,
    Silence,
    SolveDone,
    SolveFailed,
    SolveResult,
    View,
)
from firmware_py.pipeline.fakes import FakeSolver, fake_answer
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import (
    DeferredPort,
    FrameLoop,
    Pipeline,
    SyncPort,
    WorkerPort,
    speak,
)
from firmware_py.vision.reading import OK, Expectation, Reading
from firmware_py.worker import SolverWorker

P = PipelineParams()


def ok(moves: str, confidence: float = 0.9) -> Reading:
    board = Board.from_moves(moves)
    return Reading(OK, tuple(board.grid_lines()), board, confidence)


def solved_view(moves: str) -> View:
    board = Board.from_moves(moves)
    answer = fake_answer(board)
    return View(SOLVED, tuple(board.grid_lines()), answer.column, answer.score, answer.plies)


def test_sync_port_solves_each_board_once_and_shows_it(announcer):
    solver = FakeSolver()
    shows = []
    pipeline = Pipeline(P, SyncPort(solver), announcer=announcer,
                        on_show=lambda view, t: shows.append((round(t, 2), view)))
    for index in range(12):
        pipeline.feed(ok("" if index < 6 else "4"), index * 0.1)
    assert [b.grid_lines() for b in solver.boards] == [Board.from_moves(m).grid_lines()
                                                        for m in ("", "4")]
    assert [view.state for _, view in shows] == ["transitional", "solved", "transitional",
                                                 "solved"]
    assert shows[1] == (0.3, solved_view("")) and shows[3] == (0.9, solved_view("4"))
    # the empty board under "either" (the default): nobody has started, no colour named
    assert announcer.calls == [("recommend", None, 4, "=", 42), ("recommend", "Y", 4, "=", 41)]


def test_results_are_processed_after_the_effects_of_the_same_event():
    """A synchronous result must not overtake the Show of the event that started it."""
    shows = []
    pipeline = Pipeline(P, SyncPort(FakeSolver()), on_show=lambda view, t: shows.append(view))
    for index in range(4):
        pipeline.feed(ok(""), index * 0.1)
    assert [view.state for view in shows] == ["transitional", "solved"]


def test_solver_error_is_logged_and_not_retried(caplog):
    class Broken:
        def __init__(self):
            self.calls = 0

        def best(self, board, tie_break="centre", rng=None, *, scores=False):
            self.calls += 1
            raise RuntimeError("table exploded")

    broken = Broken()
    pipeline = Pipeline(P, SyncPort(broken))
    with caplog.at_level(logging.ERROR):
        for index in range(8):
            pipeline.feed(ok(""), index * 0.1)
    # the speculative attempt failed, the committed board was tried once more, then no retry
    assert broken.calls == 2
    assert "RuntimeError: table exploded" in caplog.text
    assert pipeline.view.state == "transitional"


def test_a_failing_display_does_not_stop_the_pipeline(caplog):
    def explode(view, t):
        raise OSError("broken pipe")

    pipeline = Pipeline(P, SyncPort(FakeSolver()), on_show=explode)
    with caplog.at_level(logging.ERROR):
        for index in range(5):
            pipeline.feed(ok(""), index * 0.1)
    assert pipeline.state.result is not None and "broken pipe" in caplog.text


def test_deferred_port_delivers_after_the_solve_time():
    ticks = iter([10.0, 10.25])  # the solve "takes" 250 ms
    port = DeferredPort(FakeSolver(), timer=lambda: next(ticks))
    shows = []
    pipeline = Pipeline(replace_params(speculate=False), port,
                        on_show=lambda view, t: shows.append((round(t, 2), view.state)))
    for index in range(8):
        pipeline.feed(ok(""), index * 0.1)
    # committed at 0.3 s, solved 250 ms later: visible with the first frame from 0.55 s
    assert shows == [(0.0, "transitional"), (0.3, "transitional"), (0.55, "solved")]


def replace_params(**changes) -> PipelineParams:
    from dataclasses import replace

    return replace(P, **changes)


def test_deferred_port_drops_cancelled_jobs():
    port = DeferredPort(FakeSolver(), timer=iter([0.0, 0.1]).__next__)
    port.start(1, Board.empty(), lambda e: None)
    port.cancel(1)
    assert port.due(5.0) == []


def test_worker_port_delivers_from_the_worker_thread(announcer):
    solver = FakeSolver(block=True)
    worker = SolverWorker(solver).start()
    done = threading.Event()
    shows = []

    def on_show(view, t):
        shows.append(view)
        if view.state == SOLVED:
            done.set()

    pipeline = Pipeline(replace_params(speculate=False), WorkerPort(worker),
                        announcer=announcer, on_show=on_show, clock=lambda: 99.0)
    try:
        for index in range(4):
            pipeline.feed(ok(""), index * 0.1)
        assert solver.started.wait(5)
        assert pipeline.view.state == "transitional"
        solver.release.set()
        assert done.wait(5)
    finally:
        worker.stop()
    assert shows[-1] == solved_view("")
    assert pipeline.now == 99.0  # the result was timed by the pipeline's clock
    assert announcer.calls == [("recommend", None, 4, "=", 42)]  # nobody started yet


def test_worker_port_cancel_stops_the_job():
    solver = FakeSolver(block=True)
    worker = SolverWorker(solver).start()
    delivered = []
    port = WorkerPort(worker)
    try:
        port.start(1, Board.empty(), delivered.append)
        assert solver.started.wait(5)
        port.cancel(1)
        deadline = time.monotonic() + 5
        while worker.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not worker.busy
    finally:
        worker.stop()
    assert delivered == []


def test_worker_errors_become_solve_failed():
    class Raising:
        def best(self, board, tie_break="centre", rng=None, *, scores=False):
            raise ValueError("bad position")

        def cancel(self):
            pass

    worker = SolverWorker(Raising()).start()
    got = threading.Event()
    events = []
    try:
        WorkerPort(worker).start(7, Board.empty(), lambda e: (events.append(e), got.set()))
        assert got.wait(5)
    finally:
        worker.stop()
    assert events == [SolveFailed(7, tuple(Board.empty().grid_lines()),
                                  "ValueError: bad position")]


@pytest.mark.parametrize("effect, call", [
    (Announce(Board.from_moves("4"), SolveResult(4, -2, 36)), ("recommend", "Y", 4, "-", 36)),
    (Announce(Board.from_moves("1213121"), None), ("finished", "R")),
    (Announce(Board.from_moves("472424756645422154157737216635626711335331"), None),
     ("finished", None)),  # a draw
    (Silence(), ("scanning",)),
    (Silence(lost=True), ("lost",)),
])
def test_speak_maps_effects_onto_the_announcer(announcer, effect, call):
    speak(announcer, effect)
    assert announcer.calls == [call]


class ListSource:
    def __init__(self, images):
        self.images = list(images)
        self.index = 0

    def read(self):
        if self.index >= len(self.images):
            return None
        frame = Frame(self.images[self.index], self.index / 10, self.index)
        self.index += 1
        return frame


class MapReader:
    """Reads frames whose first pixel value names a position (255: vision error)."""

    def __init__(self, positions):
        self.positions = positions

    def read(self, image, expectation=None):
        key = int(image[0, 0, 0])
        if key == 255:
            raise VisionError("sensor garbage")
        return ok(self.positions[key])


def test_frame_loop_reads_feeds_and_survives_vision_errors(caplog):
    images = [np.full((2, 2, 3), key, np.uint8) for key in (0, 0, 255, 0, 0, 0, 0)]
    seen = []
    pipeline = Pipeline(P, SyncPort(FakeSolver()))
    loop = FrameLoop(ListSource(images), MapReader({0: ""}), pipeline,
                     on_frame=lambda frame, reading: seen.append(reading.status))
    with caplog.at_level(logging.WARNING):
        assert loop.run() == 7
    assert seen == ["ok", "ok", "no-board", "ok", "ok", "ok", "ok"]
    assert "sensor garbage" in caplog.text
    assert pipeline.view == solved_view("")


def test_frame_loop_hands_the_reader_the_filters_expectation_of_each_frame():
    handed = []

    class RecordingReader(MapReader):
        def read(self, image, expectation=None):
            handed.append((expectation, pipeline.expectation))
            return super().read(image)

    images = [np.zeros((2, 2, 3), np.uint8)] * 3
    pipeline = Pipeline(P, SyncPort(FakeSolver()))
    pipeline.state = replace(pipeline.state, belief=replace(
        pipeline.state.belief, expectation=Expectation(np.zeros((42, 12)), np.zeros(42, int))))
    FrameLoop(ListSource(images), RecordingReader({0: ""}), pipeline).run()
    assert len(handed) == 3 and all(given is current for given, current in handed)
    assert handed[0][0] is not None


def test_frame_loop_max_frames_and_stop():
    images = [np.zeros((2, 2, 3), np.uint8)] * 5
    loop = FrameLoop(ListSource(images), MapReader({0: ""}), Pipeline(P, SyncPort(FakeSolver())))
    assert loop.run(max_frames=2) == 2
    loop.stop.set()
    assert loop.run() == 2


def test_frame_loop_wait_ticks_until_stopped():
    pipeline = Pipeline(P, SyncPort(FakeSolver()), clock=lambda: 0.0)
    ticks = []
    pipeline.tick = lambda now=None: ticks.append(now)
    loop = FrameLoop(ListSource([]), MapReader({}), pipeline)
    assert loop.wait(0.05, step=0.01) is False
    assert len(ticks) >= 3
    loop.stop.set()
    assert loop.wait(1.0) is True


def test_solve_done_event_for_unknown_job_is_cached():
    pipeline = Pipeline(P, SyncPort(FakeSolver()))
    grid = tuple(Board.empty().grid_lines())
    pipeline.post(SolveDone(42, grid, SolveResult(4, 1, 41)), 0.0)
    assert pipeline.state.cache.grid == grid


def test_a_stopped_worker_fails_the_solve_quietly() -> None:
    """At shutdown the worker stops before the frame loop: a solve asked then is cancelled,
    not a traceback."""
    from c4game.board import Board
    from c4game.exc import SolverError
    from firmware_py.pipeline.events import SolveFailed
    from firmware_py.pipeline.runtime import WorkerPort

    class StoppedWorker:
        def submit(self, *args, **kwargs):
            raise SolverError("the solver worker was stopped")

    delivered = []
    WorkerPort(StoppedWorker()).start(3, Board.from_moves("44"), delivered.append)
    assert len(delivered) == 1 and isinstance(delivered[0], SolveFailed)
    assert delivered[0].job == 3 and delivered[0].cancelled


def test_a_followed_empty_board_teaches_its_empty_holes_then_the_first_disc_confirms_it():
    from firmware_py.pipeline.fakes import FakeSolver
    from firmware_py.pipeline.reducer import PipelineParams
    from firmware_py.pipeline.runtime import Pipeline, SyncPort, feed_and_teach
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.hole_looks import HoleLooks
    from firmware_py.vision.reading import OK, Reading
    from tests.pipeline.as_read import as_read

    def reading(moves: str, doubted: int | None = None) -> Reading:
        board = Board.from_moves(moves)
        cells = "".join(board.grid_lines())
        looks = np.array([[40.0 if char == "." else 200.0] * 12 for char in cells])
        probs = np.array([[0.98 if char == c else 0.01 for c in ".RY"] for char in cells])
        if doubted is not None:  # a hole the readers favour a disc in, a little
            probs[doubted] = (0.4, 0.5, 0.1)
        return Reading(OK, tuple(board.grid_lines()), board, 0.99, (0.99,) * 42, markers=4,
                       cell_looks=looks, cell_log_probs=np.log(probs))

    pipeline = Pipeline(PipelineParams(), SyncPort(FakeSolver()))
    looks = HoleLooks()
    teacher = LookTeacher(looks)
    def read(moves: str, doubted: int | None = None) -> Reading:  # as the reader reads
        return as_read(reading(moves, doubted), pipeline.expectation, PipelineParams().belief)

    for frame in range(6):
        feed_and_teach(pipeline, read("", doubted=38), frame / 10, teacher)
    assert pipeline.state.reference.n_discs == 0  # the start prior reads it empty
    # committed: its holes the readers favour empty, not the doubt (a pale disc's look
    # must never be learnt as the empty hole's); no board learnt yet
    assert looks.boards == 0 and looks.counts[:, 0].sum() == 41 and not looks.counts[38, 0]
    for frame in range(6, 12):
        feed_and_teach(pipeline, read("4"), frame / 10, teacher)
    assert pipeline.state.reference.moves == "4"
    assert looks.boards == 1 and looks.counts[38, 0] == 1  # confirmed: the board, whole
    assert not looks.counts[:, 1:].any()


def test_the_screens_tap_hands_the_expectation_on_to_the_reader():
    """With the screen on, the frame loop reads through ``AnalysingReader``: the game
    filter's expectation must reach the board reader through it."""
    from firmware_py.hud.taps import AnalysingReader

    class Analyser:
        def __init__(self):
            self.handed = []

        def analyse(self, image, expectation=None):
            self.handed.append(expectation)
            return type("Analysis", (), {"reading": ok("")})()

    class Hub:
        def __init__(self):
            self.frames = 0

        def on_frame(self, image, reading, analysis):
            self.frames += 1

    board_reader, hub = Analyser(), Hub()
    expectation = Expectation(np.zeros((42, 12)), np.zeros(42, int))
    reading = AnalysingReader(board_reader, hub).read(np.zeros((2, 2, 3), np.uint8),
                                                      expectation)
    assert board_reader.handed == [expectation] and hub.frames == 1 and reading.status == OK


def test_a_red_wall_seen_through_a_hole_gravity_proved_empty_is_taught_as_empty():
    """Live, the reader holds a hole that still shows what it showed when gravity proved
    it empty: the empty board committed teaches its look (a red wall) as the empty
    hole's, as ``c4pi calibrate`` would; a hole nothing proved keeps the readers' doubt."""
    from firmware_py.pipeline.fakes import FakeSolver
    from firmware_py.pipeline.reducer import PipelineParams
    from firmware_py.pipeline.runtime import Pipeline, SyncPort, feed_and_teach
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.hole_looks import HoleLooks
    from tests.pipeline.as_read import as_read

    looks = np.full((42, 12), 40.0)
    probs = np.tile((0.98, 0.01, 0.01), (42, 1))
    looks[3] = 120.0
    probs[3] = (0.05, 0.9, 0.05)  # column 4's top hole: a red wall, read red
    probs[36] = (0.4, 0.5, 0.1)  # column 2's bottom hole: a doubt nothing proves empty
    frame = Reading(OK, ("",) * 6, None, 0.5, markers=4, cell_looks=looks,
                    cell_log_probs=np.log(probs))
    pipeline = Pipeline(PipelineParams(), SyncPort(FakeSolver()))
    taught = HoleLooks()
    teacher = LookTeacher(taught)
    for index in range(8):
        reading = as_read(frame, pipeline.expectation, PipelineParams().belief)
        feed_and_teach(pipeline, reading, index / 10, teacher)
    assert pipeline.state.reference is not None and pipeline.state.reference.n_discs == 0
    assert taught.counts[3, 0] == 1 and not taught.counts[36].any()
