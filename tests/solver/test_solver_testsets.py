"""Exact scores on Pascal Pons' six public test sets (../shared/data/test-sets)."""

from __future__ import annotations

import pytest
from cython_solver.engine import Engine

from c4game.board import Board
from cython_solver import Solver

from .conftest import read_set, sample

# (set, sample size or None for all): with the book
WITH_BOOK = [("end-easy", None), ("middle-easy", None), ("begin-easy", None),
             ("middle-medium", 200), ("begin-medium", 60), ("begin-hard", 60)]
# without the book: the cheap sets whole, a sample of middle-medium
WITHOUT_BOOK = [("end-easy", None), ("middle-easy", None), ("begin-easy", None),
                ("middle-medium", 100)]


def _check(solver: Solver, pairs: list[tuple[str, int]]) -> None:
    wrong = [(moves, score, solver.solve(moves)) for moves, score in pairs]
    wrong = [item for item in wrong if item[1] != item[2]]
    assert not wrong, f"{len(wrong)} of {len(pairs)} wrong, e.g. (moves, expected, got) {wrong[:5]}"


@pytest.mark.parametrize(("name", "size"), WITH_BOOK)
def test_with_book(book_solver: Solver, name: str, size: int | None) -> None:
    pairs = read_set(name)
    _check(book_solver, pairs if size is None else sample(pairs, size, seed=3))


@pytest.mark.parametrize(("name", "size"), WITHOUT_BOOK)
def test_without_book(plain_solver: Solver, name: str, size: int | None) -> None:
    pairs = read_set(name)
    _check(plain_solver, pairs if size is None else sample(pairs, size, seed=4))


def test_fresh_table_per_position(book_path) -> None:
    """Scores do not depend on what the table remembers from earlier positions."""
    solver = Solver(tt_mb=8, book=book_path)
    for moves, score in sample(read_set("middle-medium"), 40, seed=5):
        solver.reset()
        assert solver.solve(moves) == score, moves


def test_small_table_many_collisions() -> None:
    """A 1 MB table (2^17 entries) overflows constantly and stays exact."""
    solver = Solver(tt_mb=1)
    for moves, score in sample(read_set("middle-medium"), 30, seed=6):
        assert solver.solve(moves) == score, moves


def test_one_disc_past_the_book(book_solver: Solver) -> None:
    """Positions with 13 discs start from lower bounds read off the book."""
    pairs = [(m, s) for m, s in read_set("begin-hard") if len(m) == 13]
    assert pairs
    _check(book_solver, pairs)
    for moves, score in pairs[:4]:
        assert book_solver.best(moves).score == score


@pytest.mark.parametrize("discs", [11, 12, 13])
def test_best_next_to_the_book_agrees_with_exact_column_scores(book_solver, discs: int) -> None:
    # 11 discs: the columns' positions are in the book; 12: the position itself
    # is; 13: only a bound from the book. The fast answer must match analyze's.
    pairs = [p for p in read_set("begin-medium") if len(p[0]) == discs]
    for moves, score in sample(pairs, 6, seed=discs):
        scores = book_solver.analyze(moves)
        answer = book_solver.best(moves)
        assert answer.score == score == max(s for s in scores if s is not None), moves
        assert answer.best_columns == tuple(c + 1 for c, s in enumerate(scores) if s == score)


def test_column_tests_agree_with_exact_column_scores() -> None:
    """The column test of ``best`` (one null-window search, a fail-soft bound)
    against each column's exact score from ``analyze``, at the score and one
    above: both outcomes, on a fresh table each time, some of them large
    searches."""
    engine = Engine(16)
    largest = 0
    for moves, _ in sample(read_set("begin-medium"), 5, seed=8):
        board = Board.from_moves(moves)
        cur, mask = board.bitboards()
        n = board.n_discs
        engine.reset()
        scores = engine.analyze(cur, mask, n)
        for col, score in enumerate(scores):
            if score is None:
                continue
            for target in (score, score + 1):
                engine.reset()
                engine.start()
                engine.prepare_workers(1)
                engine.arm_slot(0)
                bound = engine.worker_column_bound(0, cur, mask, n, col, target)
                engine.finish_workers(1)
                largest = max(largest, engine.nodes)
                where = (moves, col + 1, score, target, bound)
                assert (bound >= target) == (score >= target), where
                assert score >= bound if bound >= target else score <= bound, where
    assert largest > 150_000
