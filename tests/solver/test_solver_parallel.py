"""The column tests spread over threads (cython_solver/parallel.py): every bound
they report is checked against the columns' exact scores from ``analyze``
(itself checked against the public test sets)."""

from __future__ import annotations

import threading
import time

import pytest
from cython_solver.engine import Engine

from c4game.exc import SolveCancelled
from cython_solver import Solver, bitboards
from cython_solver.parallel import ColumnTests, root_split

from .conftest import read_set, sample


def _positions(book_path) -> list[tuple[str, list[int | None]]]:
    """Positions next to the book and in the middle game with their exact column
    scores (one thread, fresh table)."""
    pairs = [p for p in read_set("begin-medium") if len(p[0]) in (12, 13)]
    chosen = sample(pairs, 4, seed=41) + sample(read_set("middle-medium"), 4, seed=42)
    serial = Solver(tt_mb=16, book=book_path, threads=1)
    found = []
    for moves, _ in chosen:
        serial.reset()
        found.append((moves, serial.analyze(moves)))
    return found


def _assert_true_bound(bound: int, score: int, exact: int, where: str) -> None:
    if bound >= score:
        assert exact >= bound, f"{where}: said at least {bound}, exact {exact}"
    else:
        assert exact <= bound, f"{where}: said at most {bound}, exact {exact}"


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_every_bound_of_a_round_is_true(book_path, threads: int) -> None:
    engine = Solver(tt_mb=16, book=book_path)._engine
    for moves, exact in _positions(book_path):
        position = bitboards(moves)
        jobs = [(col, value + delta) for col, value in enumerate(exact) if value is not None
                for delta in (1, 0, -1)]            # three tests per column, queued together
        engine.reset()
        engine.start()
        results = ColumnTests(engine, position, jobs, threads).run()
        assert not engine.aborted
        for (col, score), bound in results.items():
            assert bound is not None, (moves, col, score)      # no stop: every job answered
            _assert_true_bound(bound, score, exact[col], f"{moves} col {col + 1} vs {score}")


def test_a_round_ends_at_the_first_column_that_reaches(book_path) -> None:
    engine = Solver(tt_mb=16, book=book_path)._engine
    for moves, exact in _positions(book_path):
        top = max(value for value in exact if value is not None)
        jobs = [(col, top) for col, value in enumerate(exact) if value is not None]
        engine.reset()
        engine.start()
        results = ColumnTests(engine, bitboards(moves), jobs, 2, stop_at=top).run()
        answered = {job: bound for job, bound in results.items() if bound is not None}
        assert any(bound >= top for bound in answered.values()), moves
        for (col, score), bound in answered.items():
            _assert_true_bound(bound, score, exact[col], f"{moves} col {col + 1}")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_root_split_finds_the_score_and_every_optimal_column(book_path, threads: int) -> None:
    engine = Solver(tt_mb=16, book=book_path)._engine
    for moves, exact in _positions(book_path):
        cur, mask, n = bitboards(moves)
        engine.reset()
        engine.start()
        known, todo = engine.plan(cur, mask, n)
        if any(value is not None for value in known):
            continue                                    # an immediate win needs no search
        top, optimal = root_split(engine, cur, mask, n, todo, threads)
        assert top == max(value for value in exact if value is not None), moves
        assert sorted(optimal) == [col for col, value in enumerate(exact) if value == top]


def test_a_stopped_column_test_is_no_cancellation() -> None:
    solver = Solver(tt_mb=16)
    engine = solver._engine
    cur, mask, n = bitboards("4444")            # far too slow to finish without the book
    engine.start()
    engine.prepare_workers(1)
    engine.arm_slot(0)
    result: list[int | None] = [0]
    worker = threading.Thread(target=lambda: result.__setitem__(
        0, engine.worker_column_bound(0, cur, mask, n, 3, 0, 4)))
    started = time.perf_counter()
    worker.start()
    time.sleep(0.1)
    engine.stop_slot(0)
    worker.join(timeout=5)
    assert not worker.is_alive() and time.perf_counter() - started < 1.0
    assert result[0] is None
    engine.finish_workers(1)
    assert not engine.aborted and engine.nodes > 0   # it searched, and is no cancellation
    assert solver.solve("4453") == -2                 # the engine works on


def test_column_bound_rejects_a_full_column() -> None:
    engine = Engine(1)
    cur, mask, n = bitboards("444444")
    engine.prepare_workers(1)
    with pytest.raises(ValueError, match="column 4 is full"):
        engine.worker_column_bound(0, cur, mask, n, 3, 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_cancel_between_searches_cancels_best(book_path, monkeypatch, threads: int) -> None:
    # The cancel arrives while no search runs, just before a round of column
    # tests: best must raise instead of answering from tests that never ran.
    solver = Solver(tt_mb=16, book=book_path, threads=threads)
    moves = "2147756677465"
    original = ColumnTests.run

    def cancel_then_run(self: ColumnTests):
        solver.cancel()
        return original(self)

    monkeypatch.setattr(ColumnTests, "run", cancel_then_run)
    with pytest.raises(SolveCancelled):
        solver.best(moves)
    monkeypatch.undo()
    solver.reset()
    assert solver.best(moves).score == 1        # its score in begin-hard; works on
