"""What may follow what (``firmware_py.succession``), against a brute force over grids."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from c4game.board import EMPTY, HEIGHT, WIDTH, Board
from c4game.exc import PositionError
from firmware_py.succession import (
    COMMIT_FIRST,
    COMMIT_NEW_GAME,
    COMMIT_NEXT,
    COMMIT_OVERRIDE,
    commit_kind,
    is_next,
    next_boards,
    why_not_after,
)


def one_disc_more(before: Board, rule: str) -> set[tuple[str, ...]]:
    """Every legal grid (under ``rule``) that is ``before``'s grid with one empty cell
    filled by either colour: found by trying all 84, not by playing moves."""
    lines = before.grid_lines()
    found = set()
    for row, col, colour in itertools.product(range(HEIGHT), range(WIDTH), "RY"):
        if lines[row][col] != EMPTY:
            continue
        grid = [*lines]
        grid[row] = grid[row][:col] + colour + grid[row][col + 1:]
        try:
            board = Board.from_grid(grid, rule, before.first if before.n_discs else None)
        except PositionError:
            continue
        if board.n_discs == before.n_discs + 1 and not before.is_finished:
            found.add(tuple(grid))
    return found


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(0, 30), yellow=st.booleans())
def test_the_next_boards_are_every_legal_one_disc_more(seed: int, length: int,
                                                       yellow: bool) -> None:
    rng = random.Random(seed)
    board = Board.empty("Y" if yellow else "R")
    for _ in range(length):
        if board.is_finished:
            break
        board = board.play(rng.choice(board.legal_columns()))
    rule = "either" if board.n_discs == 0 else ("yellow" if yellow else "red")
    listed = {tuple(b.grid_lines()) for b in next_boards(board, rule)}
    assert listed == one_disc_more(board, rule)
    assert all(is_next(board, b, rule) for b in next_boards(board, rule))


def test_an_empty_board_under_a_named_rule_takes_only_that_colour_first() -> None:
    assert {b.columns[3] for b in next_boards(Board(), "yellow") if b.columns[3]} == {"Y"}
    assert len(next_boards(Board(), "either")) == 14 and len(next_boards(Board(), "red")) == 7
    assert next_boards(Board.from_moves("1212121"), "red") == []  # finished: nothing follows


def test_why_not_after_names_removed_and_recoloured_discs_only() -> None:
    before = Board.from_moves("4453")
    assert why_not_after(None, before) == ""
    assert why_not_after(before, Board.from_moves("445366")) == ""
    assert "1 disc(s) removed" in why_not_after(before, Board.from_moves("445"))
    assert "changed colour" in why_not_after(before, Board.from_moves("4454"))
    assert why_not_after(before, Board.from_moves("44531122")) == ""  # moves missed


def test_commit_kind_by_brute_force_over_short_games() -> None:
    """Every pair of boards of games up to 4 moves: ``next`` exactly when the later
    keeps every disc of the earlier (checked cell by cell here), ``new-game`` for the
    empty board, ``override`` otherwise."""
    boards = [Board.from_moves("".join(map(str, moves))) for n in range(5)
              for moves in itertools.product(range(1, 8), repeat=n)]
    for before in boards[::29]:
        for after in boards[::11]:
            kind = commit_kind(before, after)
            keeps = all(old == "." or old == new for old, new in
                        zip("".join(before.grid_lines()), "".join(after.grid_lines()),
                            strict=True))
            expected = (COMMIT_NEW_GAME if after.n_discs == 0 else
                        COMMIT_NEXT if keeps else COMMIT_OVERRIDE)
            assert kind == expected, (before.grid_lines(), after.grid_lines())
    assert commit_kind(None, boards[3]) == COMMIT_FIRST
