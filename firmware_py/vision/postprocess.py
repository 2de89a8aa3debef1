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

Before these rules, a cell two readers dispute makes the reading ``invalid``
("the readers disagree: …"), unless gravity settles it empty
(:mod:`firmware_py.vision.settle`): one reader's disc would float there (a red
wall seen high through the board, with nothing under it) and the other
reader says empty. Nothing else is settled: a doubtful cell stays doubtful,
and parity or fours never correct a board (a board played illegally must be
reported ``invalid``, not turned into a legal board nobody played). The grid
an ``invalid`` reading of disputed cells shows is the best guess that
gravity allows, with counts a game can leave where the readers' choices
permit (:func:`~firmware_py.vision.settle.most_probable_position`).

The board confidence is the minimum of the 42 cell confidences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from firmware_py.board import EMPTY, HEIGHT, WIDTH, Board
from firmware_py.exc import InvalidGridError
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.reading import FINISHED, INVALID, OK
from firmware_py.vision.settle import most_probable_position, settle

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
          min_frontier_confidence: float = 0.0, *, choices: np.ndarray | None = None,
          best: np.ndarray | None = None, disputed: np.ndarray | None = None,
          dispute_reason: str = "", settle_choices: np.ndarray | None = None) -> GridVerdict:
    """Apply the rules of the module docstring to probabilities (42, 3).

    ``disputed`` cells (where two readers disagree, ``dispute_reason`` says
    how) make the reading ``invalid`` unless gravity settles each of them
    empty, among its ``settle_choices`` (default ``choices``: the readers' top
    classes, (42, 3) bool).
    ``best`` (default: ``probabilities``) picks each cell's label; its
    confidence is the ``probabilities`` of it.
    """
    probs = np.asarray(probabilities, np.float64)
    if probs.shape != (WIDTH * HEIGHT, len(CLASSES)):
        raise ValueError(f"expected probabilities of shape (42, 3), got {probs.shape}")
    labels = (probs if best is None else np.asarray(best)).argmax(axis=1)
    confidence = probs[np.arange(len(probs)), labels]
    cells = tuple(float(c) for c in confidence)
    board_confidence = float(confidence.min())
    most_probable = grid_from_labels(labels)

    def verdict(status: str, board: Board | None = None, reason: str = "",
                grid: tuple[str, ...] | None = None) -> GridVerdict:
        return GridVerdict(status, grid or most_probable, board, board_confidence, cells, reason)

    if disputed is None or not len(disputed):
        return _rules(verdict, confidence, min_cell_confidence, min_frontier_confidence)
    disputed = np.asarray(disputed, np.int64)
    options = settle_options(np.ones_like(probs, bool) if choices is None else choices, disputed)
    settle_from = options if settle_choices is None else settle_options(settle_choices, disputed)
    settled = settle(labels, disputed, settle_from)
    if settled is None or np.any(settled[disputed] != 0):
        guess = most_probable_position(labels, disputed, options,
                                       probs if best is None else best)
        guess_confidence = probs[np.arange(len(probs)), guess]
        return GridVerdict(INVALID, grid_from_labels(guess), None,
                           float(guess_confidence.min()),
                           tuple(float(c) for c in guess_confidence),
                           dispute_reason or _uncertain(confidence, disputed))
    sure = confidence.copy()
    sure[disputed] = 1.0  # empty by gravity: a disc there would float
    return _rules(partial(verdict, grid=grid_from_labels(settled)), sure,
                  min_cell_confidence, min_frontier_confidence)


def settle_options(choices: np.ndarray, cells: np.ndarray) -> dict[int, tuple[int, ...]]:
    """The classes each open cell may be settled to: the readers' choices for it."""
    return {int(cell): tuple(int(c) for c in np.flatnonzero(choices[cell]))
            for cell in np.asarray(cells).ravel()}


def _rules(verdict: Callable[..., GridVerdict], confidence: np.ndarray,
           min_cell_confidence: float, min_frontier_confidence: float) -> GridVerdict:
    """Rules 1-6 on the verdict's grid (the most probable one, or the settled one)."""
    grid = verdict(INVALID).grid
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
    return _final(board, verdict)


def _final(board: Board, verdict: Callable[..., GridVerdict]) -> GridVerdict:
    """``finished`` for a won or full board, else ``ok``."""
    if board.is_finished:
        return verdict(FINISHED, board, reason="draw: the board is full" if board.winner is None
                       else f"{'Red' if board.winner == 'R' else 'Yellow'} has four in a row")
    return verdict(OK, board)
