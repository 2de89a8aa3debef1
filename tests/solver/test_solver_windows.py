"""Null-window searches against the brute force, at every window of the score range.

The search resolves some nodes without recursing, when the window sits at the
edge of what is still possible (a win or loss within the next few discs, see
``cython_solver/search.pyx``): these tests put the root window at each of
those edges, on positions with 9-11 empty cells, and check the fail-soft
contract against the independent brute force of ``test_solver_bruteforce``.
"""

from __future__ import annotations

import pytest

from cython_solver import Solver
from cython_solver.solver import bitboards

from .conftest import random_positions
from .test_solver_bruteforce import reference_score

POSITIONS = [board for board in random_positions(seed=23, count=400, low=30, high=33)
             if not any(board.play(col).winner for col in board.legal_columns())][:40]


@pytest.fixture(scope="module")
def truths() -> list[int]:
    return [reference_score(board) for board in POSITIONS]


def test_positions_cover_wins_draws_and_losses(truths: list[int]) -> None:
    assert len(POSITIONS) == 40  # none with an immediate win: the search assumes there is none
    assert min(truths) < 0 < max(truths) and 0 in truths


def test_exact_scores(truths: list[int]) -> None:
    solver = Solver(tt_mb=8)
    for board, truth in zip(POSITIONS, truths, strict=True):
        assert solver.solve(board) == truth, board.moves


def test_every_null_window_keeps_the_fail_soft_contract(truths: list[int]) -> None:
    solver = Solver(tt_mb=8)
    engine = solver._engine
    for board, truth in zip(POSITIONS, truths, strict=True):
        cur, mask, n = bitboards(board)
        for alpha in range(-(42 - n) // 2 - 1, (43 - n) // 2 + 1):
            solver.reset()
            engine.start()
            result = engine.search(cur, mask, n, alpha, alpha + 1)
            if result <= alpha:
                assert truth <= result, (board.moves, alpha, result, truth)
            else:
                assert truth >= result, (board.moves, alpha, result, truth)
