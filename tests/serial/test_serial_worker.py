"""SolverWorker: one solve at a time, tags supersede, priorities preempt, cancel, busy."""

from __future__ import annotations

import threading

import pytest

from c4game.board import Board
from c4game.exc import GameOverError, SolverError
from firmware_py.worker import SERIAL_PRIORITY, VISION_PRIORITY, SolverWorker

from .conftest import GateSolver, wait_until


class Recorder:
    """Collects on_done calls: (moves, answer, error)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, object, BaseException | None]] = []
        self.event = threading.Event()

    def __call__(self, board: Board, answer: object, error: BaseException | None) -> None:
        self.calls.append((board.moves, answer, error))
        self.event.set()

    @property
    def moves(self) -> list[str | None]:
        return [moves for moves, _, _ in self.calls]


@pytest.fixture
def worker(gate_solver: GateSolver):
    worker = SolverWorker(gate_solver).start()
    yield worker
    assert worker.stop(5.0)


def test_delivers_answer_on_worker_thread(worker: SolverWorker, gate_solver: GateSolver) -> None:
    threads: list[str] = []
    done = threading.Event()

    def on_done(board: Board, answer: object, error: BaseException | None) -> None:
        threads.append(threading.current_thread().name)
        assert error is None and answer.column == 4  # type: ignore[attr-defined]
        done.set()

    gate_solver.auto = True
    worker.submit(Board.from_moves("44"), priority=0, tag="a", on_done=on_done)
    assert done.wait(5)
    assert threads == ["c4pi-solver"]


def test_error_is_delivered_not_raised(worker: SolverWorker, gate_solver: GateSolver) -> None:
    gate_solver.auto = True
    recorder = Recorder()
    worker.submit(Board.from_moves("1212121"), priority=0, tag="a", on_done=recorder)
    assert recorder.event.wait(5)
    (moves, answer, error), = recorder.calls
    assert moves == "1212121" and answer is None and isinstance(error, GameOverError)


def test_same_tag_supersedes_running_and_pending(worker: SolverWorker,
                                                 gate_solver: GateSolver) -> None:
    recorder = Recorder()
    first = worker.submit(Board.from_moves("1"), priority=10, tag="serial", on_done=recorder)
    assert gate_solver.wait_started("1")
    other = worker.submit(Board.from_moves("7"), priority=10, tag="other", on_done=recorder)
    assert not other.done
    second = worker.submit(Board.from_moves("2"), priority=10, tag="serial", on_done=recorder)
    third = worker.submit(Board.from_moves("3"), priority=10, tag="serial", on_done=recorder)
    assert first.cancelled and second.cancelled and not third.done
    assert wait_until(lambda: gate_solver.cancelled == ["1"])
    for moves in ("1", "2", "3", "7"):
        gate_solver.release(moves)
    assert wait_until(lambda: len(recorder.calls) == 2)
    assert sorted(recorder.moves) == ["3", "7"]
    assert "2" not in gate_solver.started  # pending jobs that were superseded never ran
    assert gate_solver.cancelled == ["1"]
    assert gate_solver.max_running == 1


def test_higher_priority_preempts_and_lower_restarts(worker: SolverWorker,
                                                     gate_solver: GateSolver) -> None:
    recorder = Recorder()
    worker.submit(Board.from_moves("4"), priority=VISION_PRIORITY, tag="vision",
                  on_done=recorder)
    assert gate_solver.wait_started("4")
    worker.submit(Board.from_moves("44"), priority=SERIAL_PRIORITY, tag="serial",
                  on_done=recorder)
    assert gate_solver.wait_started("44")
    assert gate_solver.cancelled == ["4"]
    gate_solver.release("44")
    assert gate_solver.wait_started("4", count=2)  # the preempted job restarts afterwards
    gate_solver.release("4")
    assert wait_until(lambda: len(recorder.calls) == 2)
    assert recorder.moves == ["44", "4"]
    assert gate_solver.max_running == 1


def test_equal_or_lower_priority_waits(worker: SolverWorker, gate_solver: GateSolver) -> None:
    recorder = Recorder()
    worker.submit(Board.from_moves("1"), priority=5, tag="a", on_done=recorder)
    assert gate_solver.wait_started("1")
    worker.submit(Board.from_moves("2"), priority=5, tag="b", on_done=recorder)
    worker.submit(Board.from_moves("3"), priority=0, tag="c", on_done=recorder)
    worker.submit(Board.from_moves("5"), priority=3, tag="d", on_done=recorder)
    assert gate_solver.cancel_calls == 0
    for moves in ("1", "2", "3", "5"):
        gate_solver.release(moves)
    assert wait_until(lambda: len(recorder.calls) == 4)
    assert recorder.moves == ["1", "2", "5", "3"]  # priority first, then age


def test_cancel_pending_and_running(worker: SolverWorker, gate_solver: GateSolver) -> None:
    recorder = Recorder()
    running = worker.submit(Board.from_moves("1"), priority=0, tag="a", on_done=recorder)
    pending = worker.submit(Board.from_moves("2"), priority=0, tag="b", on_done=recorder)
    assert gate_solver.wait_started("1")
    assert pending.cancel() and running.cancel()
    assert not running.cancel()  # already cancelled
    assert wait_until(lambda: not worker.busy)
    gate_solver.release("1")
    gate_solver.release("2")
    later = Recorder()
    gate_solver.auto = True
    worker.submit(Board.from_moves("3"), priority=0, tag="a", on_done=later)
    assert later.event.wait(5)
    assert recorder.calls == []
    assert "2" not in gate_solver.started


def test_cancel_after_delivery_returns_false(worker: SolverWorker,
                                             gate_solver: GateSolver) -> None:
    gate_solver.auto = True
    recorder = Recorder()
    handle = worker.submit(Board.from_moves("5"), priority=0, tag="a", on_done=recorder)
    assert recorder.event.wait(5)
    assert wait_until(lambda: handle.done)
    assert handle.cancel() is False


def test_cancel_racing_the_start_of_a_search_is_repeated(gate_solver: GateSolver) -> None:
    """The solver clears its flag when a search begins; the worker must cancel again."""
    solver = GateSolver(start_delay=0.1)
    worker = SolverWorker(solver).start()
    try:
        recorder = Recorder()
        worker.submit(Board.from_moves("1"), priority=0, tag="vision", on_done=recorder)
        assert solver.wait_started("1")
        worker.submit(Board.from_moves("2"), priority=10, tag="serial", on_done=recorder)
        # The first cancel is lost in start_delay; the repeat must still stop "1".
        assert solver.wait_started("2", timeout=3)
        solver.release("2")
        assert wait_until(lambda: recorder.moves[:1] == ["2"])
        solver.release("1")
        assert wait_until(lambda: recorder.moves == ["2", "1"])
    finally:
        assert worker.stop(5)


def test_busy_listener_sees_each_change_once(worker: SolverWorker,
                                             gate_solver: GateSolver) -> None:
    changes: list[bool] = []
    worker.add_busy_listener(changes.append)
    recorder = Recorder()
    assert not worker.busy
    worker.submit(Board.from_moves("1"), priority=0, tag="a", on_done=recorder)
    worker.submit(Board.from_moves("2"), priority=0, tag="b", on_done=recorder)
    assert wait_until(lambda: worker.busy)
    gate_solver.release("1")
    gate_solver.release("2")
    assert wait_until(lambda: len(recorder.calls) == 2 and not worker.busy)
    assert changes == [True, False]
    worker.remove_busy_listener(changes.append)


def test_callback_may_submit_and_failing_callback_is_contained(
        worker: SolverWorker, gate_solver: GateSolver) -> None:
    gate_solver.auto = True
    second = Recorder()

    def chain(board: Board, answer: object, error: BaseException | None) -> None:
        worker.submit(board.play(answer.column), priority=0, tag="b",  # type: ignore[attr-defined]
                      on_done=second)
        raise RuntimeError("callback bug")

    worker.submit(Board.from_moves("4"), priority=0, tag="a", on_done=chain)
    assert second.event.wait(5)
    assert second.moves == ["44"]


def test_stop_cancels_everything_and_refuses_new_work(gate_solver: GateSolver) -> None:
    worker = SolverWorker(gate_solver).start()
    recorder = Recorder()
    worker.submit(Board.from_moves("1"), priority=0, tag="a", on_done=recorder)
    worker.submit(Board.from_moves("2"), priority=0, tag="b", on_done=recorder)
    assert gate_solver.wait_started("1")
    assert worker.stop(5)
    assert not worker.alive and not worker.busy
    assert recorder.calls == []
    with pytest.raises(SolverError):
        worker.submit(Board.from_moves("3"), priority=0, tag="a", on_done=recorder)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="tie_break"):
        SolverWorker(GateSolver(), tie_break="left")
    worker = SolverWorker(GateSolver())
    with pytest.raises(TypeError, match="'44'"):
        worker.submit("44", priority=0, tag="a", on_done=lambda *a: None)  # type: ignore[arg-type]
