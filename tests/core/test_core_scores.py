"""Score conventions (SPEC §2, §3) checked against a brute-force game tree."""

from __future__ import annotations

import functools

import pytest

from c4game.board import Board
from c4game.exc import PositionError
from c4game.scores import (
    max_score,
    min_score,
    outcome,
    pick_centre_first,
    plies_to_end,
    serial_answer,
)


@functools.cache
def brute(columns: tuple[str, ...]) -> tuple[int, int]:
    """(score, plies to end) by plain minimax straight from the SPEC's definitions."""
    board = Board(columns=columns, moves=None)
    n = board.n_discs
    best: tuple[int, int] | None = None
    for col in board.legal_columns():
        child = board.play(col)
        if child.winner is not None:
            k = 1
            result = ((43 - n) // 2 - k + 1, 1)
        elif child.is_full:
            result = (0, 1)
        else:
            score, plies = brute(child.columns)
            result = (-score, plies + 1)
        if best is None or result[0] > best[0] or (
            result[0] == best[0] and result[0] > 0 and result[1] < best[1]
        ):
            best = result
    assert best is not None
    return best


# Near-full positions from the public end-easy test set, with their published scores.
POSITIONS = [
    ("2252576253462244111563365343671351441", -1),
    ("7422341735647741166133573473242566", 1),
    ("23163416124767223154467471272416755633", 0),
]


@pytest.mark.parametrize(("moves", "published"), POSITIONS)
def test_plies_agree_with_brute_force(moves: str, published: int) -> None:
    board = Board.from_moves(moves)
    score, plies = brute(board.columns)
    assert score == published
    if score != 0:
        assert plies_to_end(score, board.n_discs) == plies


def test_bounds() -> None:
    assert max_score(0) == 21 and min_score(0) == -21
    assert max_score(41) == 1 and min_score(41) == 0
    assert plies_to_end(max_score(10), 10) == 1
    assert plies_to_end(min_score(10), 10) == 2
    assert plies_to_end(0, 30) == 12


def test_plies_parity() -> None:
    for n in range(0, 42):
        for score in range(min_score(n), max_score(n) + 1):
            plies = plies_to_end(score, n)
            if score > 0:
                assert plies % 2 == 1
            elif score < 0:
                assert plies % 2 == 0
            assert 1 <= plies <= 42 - n


def test_serial_answer_examples() -> None:
    assert serial_answer(4, max_score(20), 20) == "4+00"
    assert serial_answer(1, 0, 41) == "1=00"
    assert serial_answer(6, min_score(5) + 2, 5) == "6-05"
    assert outcome(0) == "=" and outcome(3) == "+" and outcome(-1) == "-"


def test_impossible_score_rejected() -> None:
    with pytest.raises(PositionError):
        plies_to_end(22, 0)
    with pytest.raises(PositionError):
        serial_answer(8, 1, 0)


def test_centre_first() -> None:
    assert pick_centre_first([1, 7, 3]) == 3
    assert pick_centre_first((7, 1)) == 1
    assert pick_centre_first([4, 5]) == 4
