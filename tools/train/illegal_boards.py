"""Grids no game leaves, made from random legal games: the boards a reader must refuse.

Each kind is what a camera really meets at a table, and each stays illegal
whichever colour moved first (except :data:`YELLOW_FIRST`, illegal only where
Red must start):

* ``extra disc``: a player dropped two discs in a row (one colour two ahead);
* ``wrong colour``: a disc of the other colour than the one played (one colour
  two or more ahead);
* ``yellow first``: a game Yellow began (yellow one ahead);
* ``two fours``: both players have four in a row.

    grid = illegal_grid(rng, "two fours")   # 6 lines, top row first
"""

from __future__ import annotations

import numpy as np

from c4game.board import HEIGHT, WIDTH, Board
from c4game.exc import InvalidGridError

EXTRA_DISC, WRONG_COLOUR, YELLOW_FIRST, TWO_FOURS = (
    "extra disc", "wrong colour", "yellow first", "two fours")
KINDS = (EXTRA_DISC, WRONG_COLOUR, YELLOW_FIRST, TWO_FOURS)
SWAP = str.maketrans("RY", "YR")


def random_game(rng: np.random.Generator, length: int) -> Board:
    """A random game of ``length`` discs (fewer when it ends in a four first)."""
    board = Board.empty()
    for _ in range(length):
        if board.is_finished:
            break
        board = board.play(int(rng.choice(board.legal_columns())))
    return board


def _counts(lines: list[str]) -> tuple[int, int]:
    text = "".join(lines)
    return text.count("R"), text.count("Y")


def extra_disc(rng: np.random.Generator) -> list[str]:
    """A game still on, and the colour ahead (or either, when level) two discs ahead."""
    board = random_game(rng, int(rng.integers(0, 36)))
    lines = [list(line) for line in board.grid_lines()]
    reds, yellows = _counts(board.grid_lines())
    colour = "R" if reds > yellows else str(rng.choice(["R", "Y"]))
    for _ in range(2 - abs(reds - yellows)):  # one disc alone could be Yellow starting
        _drop(rng, lines, colour)
    return ["".join(line) for line in lines]


def _drop(rng: np.random.Generator, lines: list[list[str]], colour: str) -> None:
    """``colour`` dropped into a random column with room."""
    free = [c for c in range(WIDTH) if lines[0][c] == "."]
    column = int(rng.choice(free))
    row = max(r for r in range(HEIGHT) if lines[r][column] == ".")
    lines[row][column] = colour


def wrong_colour(rng: np.random.Generator) -> list[str]:
    """A game, one disc of the colour ahead (or level) turned to the other."""
    board = random_game(rng, int(rng.integers(2, 40)))
    lines = [list(line) for line in board.grid_lines()]
    reds, yellows = _counts(board.grid_lines())
    # red ahead: a yellow turned red makes it three ahead; level: either way two
    source = "Y" if reds > yellows else str(rng.choice(["R", "Y"]))
    cells = [(r, c) for r in range(HEIGHT) for c in range(WIDTH) if lines[r][c] == source]
    row, column = cells[int(rng.integers(len(cells)))]
    lines[row][column] = source.translate(SWAP)
    return ["".join(line) for line in lines]


def yellow_first(rng: np.random.Generator) -> list[str]:
    """A game with an odd number of discs, its colours swapped: Yellow one ahead."""
    length = int(rng.integers(0, 20)) * 2 + 1
    board = random_game(rng, length)
    while len(board.moves or ()) % 2 == 0:  # a four ended it on an even count
        board = random_game(rng, length)
    return [line.translate(SWAP) for line in board.grid_lines()]


def two_fours(rng: np.random.Generator) -> list[str]:
    """Red four in a row in one column, Yellow's in another, more discs level."""
    lines = [["."] * WIDTH for _ in range(HEIGHT)]
    red, yellow = (int(c) for c in rng.choice(WIDTH, size=2, replace=False))
    for row in range(HEIGHT - 4, HEIGHT):
        lines[row][red], lines[row][yellow] = "R", "Y"
    for _ in range(int(rng.integers(0, 5))):
        _drop(rng, lines, "R")
        _drop(rng, lines, "Y")
    return ["".join(line) for line in lines]


MAKERS = {EXTRA_DISC: extra_disc, WRONG_COLOUR: wrong_colour, YELLOW_FIRST: yellow_first,
          TWO_FOURS: two_fours}


def illegal_grid(rng: np.random.Generator, kind: str) -> list[str]:
    """A grid of ``kind`` (:data:`KINDS`) that :meth:`Board.from_grid` refuses."""
    if kind not in MAKERS:
        raise ValueError(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    grid = MAKERS[kind](rng)
    try:
        Board.from_grid(grid)
    except InvalidGridError:
        return grid
    raise AssertionError(f"{kind}: made a legal grid {grid}")  # a bug of this module
