"""From 42 cell probabilities to a reading status (SPEC.md §1 and §6).

Rules, in order; the first that applies decides:

1. any cell whose confidence (its top probability) is below
   ``min_cell_confidence`` → ``invalid`` ("uncertain cells: …"): a doubtful
   frame (a hand, glare, a disc in flight) never comes out ``ok``;
2. gravity: a disc above an empty cell → ``invalid`` ("floating disc …");
3. parity: Red moves first, so red = yellow or yellow + 1, else ``invalid``;
4. a four-in-a-row that cannot have arisen in play (both colours, or the
   wrong side moved last, or not made by the last disc) → ``invalid``;
5. a *frontier* cell (the top disc of a column, or the empty cell just above
   it) below ``min_frontier_confidence`` → ``invalid``: a misreading there
   leaves a legal-looking grid, which rules 2-4 cannot expose, whereas a
   single misread cell anywhere else makes a disc float or, for a colour
   swap, breaks parity;
6. a four-in-a-row, or a full board → ``finished``; otherwise ``ok``.

The board confidence is the minimum of the 42 cell confidences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_py.board import EMPTY, HEIGHT, WIDTH, Board
from firmware_py.exc import InvalidGridError
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.reading import FINISHED, INVALID, OK

MAX_LISTED = 4


@dataclass(frozen=True)
class GridVerdict:
    """The grid read from the probabilities and what it amounts to."""

    status: str
    grid: tuple[str, ...]
    board: Board | None
    confidence: float
    cell_confidence: tuple[float, ...]
    reason: str


def grid_from_labels(labels: np.ndarray) -> tuple[str, ...]:
    """42 class indices (top row first) to 6 grid lines."""
    chars = [CLASSES[int(label)] for label in np.asarray(labels).ravel()]
    if len(chars) != WIDTH * HEIGHT:
        raise ValueError(f"expected {WIDTH * HEIGHT} labels, got {len(chars)}")
    return tuple("".join(chars[row * WIDTH:(row + 1) * WIDTH]) for row in range(HEIGHT))


def cell_name(index: int) -> str:
    """'column C row R' (1-based, row 1 at the bottom) of cell ``index`` (top row first)."""
    row, column = divmod(index, WIDTH)
    return f"column {column + 1} row {HEIGHT - row}"


def floating_discs(grid: tuple[str, ...]) -> list[tuple[int, int]]:
    """(column, row) of every disc with an empty cell somewhere below it (1-based)."""
    found = []
    for column in range(WIDTH):
        seen_empty = False
        for row in range(1, HEIGHT + 1):
            if grid[HEIGHT - row][column] == EMPTY:
                seen_empty = True
            elif seen_empty:
                found.append((column + 1, row))
    return found


def frontier_cells(grid: tuple[str, ...]) -> list[int]:
    """Indices (top row first) of each column's top disc and the empty cell above it."""
    cells = []
    for column in range(WIDTH):
        height = sum(grid[HEIGHT - row][column] != EMPTY for row in range(1, HEIGHT + 1))
        if height:
            cells.append((HEIGHT - height) * WIDTH + column)
        if height < HEIGHT:
            cells.append((HEIGHT - 1 - height) * WIDTH + column)
    return sorted(cells)


def _uncertain(confidence: np.ndarray, cells: np.ndarray) -> str:
    order = cells[np.argsort(confidence[cells])]
    listed = ", ".join(f"{cell_name(i)} ({confidence[i]:.2f})" for i in order[:MAX_LISTED])
    more = f" and {len(cells) - MAX_LISTED} more" if len(cells) > MAX_LISTED else ""
    return f"uncertain cells: {listed}{more}"


def judge(probabilities: np.ndarray, min_cell_confidence: float,
          min_frontier_confidence: float = 0.0) -> GridVerdict:
    """Apply the rules of the module docstring to probabilities (42, 3)."""
    probs = np.asarray(probabilities, np.float64)
    if probs.shape != (WIDTH * HEIGHT, len(CLASSES)):
        raise ValueError(f"expected probabilities of shape (42, 3), got {probs.shape}")
    confidence = probs.max(axis=1)
    grid = grid_from_labels(probs.argmax(axis=1))
    cells = tuple(float(c) for c in confidence)
    board_confidence = float(confidence.min())

    def verdict(status: str, board: Board | None = None, reason: str = "") -> GridVerdict:
        return GridVerdict(status, grid, board, board_confidence, cells, reason)

    doubtful = np.flatnonzero(confidence < min_cell_confidence)
    if doubtful.size:
        return verdict(INVALID, reason=_uncertain(confidence, doubtful))
    floating = floating_discs(grid)
    if floating:
        column, row = floating[0]
        return verdict(INVALID, reason=f"floating disc at column {column} row {row}")
    try:
        board = Board.from_grid(list(grid))
    except InvalidGridError as error:
        return verdict(INVALID, reason=str(error))
    frontier = np.array(frontier_cells(grid))
    doubtful = frontier[confidence[frontier] < min_frontier_confidence]
    if doubtful.size:
        return verdict(INVALID, reason=_uncertain(confidence, doubtful) + " (column tops)")
    if board.is_finished:
        return verdict(FINISHED, board, reason="draw: the board is full" if board.winner is None
                       else f"{'Red' if board.winner == 'R' else 'Yellow'} has four in a row")
    return verdict(OK, board)
