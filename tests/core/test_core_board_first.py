"""Either colour may start (SPEC §1): who started, from the counts, the rule and the game."""

from __future__ import annotations

import random

import pytest

from c4game.board import Board, game_rule, starter
from c4game.exc import InvalidGridError
from firmware_py.simtable.script import random_moves

SWAP = str.maketrans("RY", "YR")


def swapped(board: Board) -> list[str]:
    return [line.translate(SWAP) for line in board.grid_lines()]


@pytest.mark.parametrize("seed", range(60))
def test_a_game_yellow_starts_is_the_red_game_with_colours_swapped(seed: int) -> None:
    moves = random_moves(random.Random(seed))[:random.Random(seed).randint(0, 42)]
    red, yellow = Board.from_moves(moves), Board.from_moves(moves, first="Y")
    assert yellow.grid_lines() == swapped(red)
    assert yellow.to_move == red.to_move.translate(SWAP)
    assert yellow.bitboards() == red.bitboards()  # the solver sees the same position
    assert yellow.winner == (red.winner.translate(SWAP) if red.winner else None)
    known = yellow.red_count != yellow.yellow_count or yellow.winner is not None
    for rule, started in (("yellow", None), ("either", "Y"), ("either", None)):
        again = Board.from_grid(yellow.grid_lines(), rule, started)  # read back from its grid
        if started is None and rule == "either" and not known:
            assert again.first == "R"  # equal counts on one frame: Red's turn (SPEC §1)
        else:
            assert again.first == "Y" and again.to_move == yellow.to_move
    if red.red_count != red.yellow_count:  # where the counts show it, Red may not start it
        with pytest.raises(InvalidGridError, match="parity: .* Red moves first"):
            Board.from_grid(yellow.grid_lines())
        with pytest.raises(InvalidGridError, match="parity: .* Yellow moves first"):
            Board.from_grid(red.grid_lines(), "yellow")


def test_the_starter_from_the_counts_the_rule_and_the_game() -> None:
    assert starter(3, 2, "either") == "R" and starter(2, 3, "either") == "Y"
    assert starter(2, 2, "either") == "R" and starter(2, 2, "either", "Y") == "Y"
    assert starter(2, 2, "yellow") == "Y" and starter(2, 2, "red", "Y") == "R"
    with pytest.raises(InvalidGridError, match="differ by at most one"):
        starter(4, 2, "either")
    with pytest.raises(ValueError, match="who may start"):
        starter(1, 0, "blue")


def test_equal_counts_with_a_four_say_who_started() -> None:
    """Red started, Yellow made four with the last disc: equal counts, read so under
    either (the winner moved last); the colour-swapped board is Yellow's game."""
    lines = [".......", ".......", ".......", ".......", "RR.....", "YYYYRR."]
    board = Board.from_grid(lines, "either")  # 4 red, 4 yellow: Yellow's four, last
    assert board.first == "R" and board.winner == "Y"
    game = Board.from_grid([line.translate(SWAP) for line in lines], "either")
    assert game.first == "Y" and game.winner == "R"


def test_a_game_keeps_its_starter() -> None:
    assert game_rule(None, "either") == "either"
    assert game_rule(Board.empty(), "either") == "either"
    assert game_rule(Board.from_moves("4", first="Y"), "either") == "yellow"
    assert game_rule(Board.from_moves("4"), "either") == "red"
    assert game_rule(Board.from_moves("4", first="Y"), "red") == "red"


def test_the_first_player_must_be_a_colour() -> None:
    with pytest.raises(ValueError, match="first must be 'R' or 'Y'"):
        Board(first="G")


@pytest.mark.parametrize("seed", range(4))
def test_the_solver_answers_a_yellow_first_position_as_the_same_moves_red_first(
        seed: int) -> None:
    from cython_solver import Solver

    moves = random_moves(random.Random(seed), max_moves=14 + seed)

    solver = Solver(tt_mb=8)
    red, yellow = Board.from_moves(moves), Board.from_moves(moves, first="Y")
    assert solver.analyze(yellow) == solver.analyze(red) == solver.analyze(moves)
    assert solver.best(yellow).column == solver.best(red).column
