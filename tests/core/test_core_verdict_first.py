"""``verdict`` for games either colour started (SPEC §1), and before anyone has."""

from __future__ import annotations

from c4game.board import Board
from c4game.scores import verdict


def test_the_winner_is_the_real_colour() -> None:
    assert verdict(Board.empty("Y"), 1, 41) == "Yellow wins in 41"
    assert verdict(Board.from_moves("4", "Y"), -1, 40) == "Yellow wins in 40"
    assert verdict(Board.from_moves("4"), -1, 40) == "Red wins in 40"   # as before
    assert verdict(Board.empty(), 0, 42) == "Draw in 42"


def test_unnamed_says_first_or_second_player() -> None:
    assert verdict(Board.empty(), 1, 41, named=False) == "First player wins in 41"
    assert verdict(Board.empty("Y"), -2, 40, named=False) == "Second player wins in 40"
    assert verdict(Board.from_moves("4", "Y"), -1, 40, named=False) == "First player wins in 40"
    assert verdict(Board.empty(), 0, 42, named=False) == "Draw in 42"
