"""The game log and the review of a finished game, against a brute force."""

from __future__ import annotations

import functools
import random

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.hud.game import BEST, GameLog, review


@pytest.fixture(scope="module")
def score_of():
    solver = Solver.from_config(load_config(None).solver)
    return lambda board: solver.best(board).score


@functools.cache
def brute_outcome(grid: str) -> int:
    """+1 / 0 / -1 for the side to move, by full search (small positions only)."""
    board = Board.from_grid(grid)
    best = -1
    for column in board.legal_columns():
        after = board.play(column)
        if after.winner is not None:
            return 1
        value = 0 if after.is_full else -brute_outcome(after.grid_text())
        best = max(best, value)
    return best


def test_the_log_follows_one_disc_at_a_time_and_restarts_on_anything_else() -> None:
    log = GameLog()
    assert log.commit(Board.empty())
    for prefix in ("4", "44", "445"):
        assert not log.commit(Board.from_moves(prefix))
    assert log.notation == "445" and log.from_empty
    assert not log.commit(Board.from_moves("445"))  # the same board again changes nothing
    assert log.commit(Board.from_moves("44536"))  # two discs at once: a new log from there
    assert log.notation == "" and not log.from_empty
    assert not log.commit(Board.from_moves("445362"))
    assert log.notation == "2"
    assert log.commit(Board.empty())  # a new game
    assert log.notation == ""


def test_throwing_away_an_immediate_win_is_marked(score_of) -> None:
    # Red has three in column 1 and wins there; it plays 7 instead, and Yellow wins in 2.
    start = Board.from_moves("121212")
    marks = review(start, [7, 2], score_of)
    assert (marks[0].colour, marks[0].column, marks[0].mark) == ("R", 7, "threw the win away")
    assert (marks[1].colour, marks[1].mark) == ("Y", BEST)
    assert review(start, [1], score_of)[0].mark == BEST


def test_review_outcomes_match_a_brute_force(score_of) -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 12:
        board = Board.empty()
        while board.n_discs < 34 and not board.is_finished:
            board = board.play(rng.choice(board.legal_columns()))
        if board.is_finished:
            continue
        moves = []
        end = board
        while not end.is_finished:
            moves.append(rng.choice(end.legal_columns()))
            end = end.play(moves[-1])
        marks = review(board, moves, score_of)
        position = board
        for mark in marks:
            before = brute_outcome(position.grid_text())
            position = position.play(mark.column)
            after = 1 if position.winner else 0 if position.is_full else -brute_outcome(
                position.grid_text())
            assert (before > 0, before < 0) == (mark.before > 0, mark.before < 0)
            assert (after > 0, after < 0) == (mark.after > 0, mark.after < 0)
            if before > after:
                assert mark.mark.startswith(("threw", "lost the draw"))
        checked += 1
