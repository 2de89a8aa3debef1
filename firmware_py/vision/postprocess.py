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

Before these rules, doubtful cells get a chance to be settled by the rules
themselves (:func:`completions`): the cells below ``min_frontier_confidence``
and the cells two readers dispute (at most :data:`MAX_DOUBTFUL`) are given
every class, all three, and every resulting grid is checked for gravity,
parity and plausible fours. When the other cells admit exactly one legal
grid, that grid is the reading, provided each settled cell's class is one a
reader chose (``support`` at least :data:`MIN_SETTLED_PROBABILITY`). This is
exact, not a guess: if the confident cells are right, no other legal board
can be on the table (a red wall seen through a hole two or more above a
column's top disc is empty, since a red disc there would float). When more than one legal
grid remains, the reading is ``invalid`` even if the most probable grid would
have passed rules 1-5 (two doubtful discs swapped in colour keep parity).
A disputed cell left unsettled makes the reading ``invalid``.

The board confidence is the minimum of the 42 cell confidences.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from firmware_py.board import EMPTY, HEIGHT, WIDTH, Board
from firmware_py.exc import InvalidGridError
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.reading import FINISHED, INVALID, OK

MAX_LISTED = 4
MAX_DOUBTFUL = 6  # more doubtful cells than this are not settled by the rules
MIN_SETTLED_PROBABILITY = 0.5  # a settled cell's class must be one reader's choice


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


def _column_is_stacked(column: np.ndarray) -> bool:
    """Whether a column of labels (top first) has no disc above an empty cell."""
    discs = (column != 0)[::-1].astype(np.int8)  # bottom first
    return bool(np.all(discs[1:] <= discs[:-1]))


def completions(labels: np.ndarray, doubtful: np.ndarray,
                limit: int = 2) -> list[tuple[np.ndarray, Board]]:
    """Legal grids that agree with ``labels`` outside the ``doubtful`` cells (at most ``limit``).

    Each doubtful cell may take any class; a grid is legal when no disc floats,
    the parity holds and its fours could have arisen in play
    (:meth:`Board.from_grid`). Returns (labels, board) pairs.
    """
    base = np.asarray(labels, np.int64).ravel().copy()
    by_column: dict[int, list[int]] = {}
    for index in sorted(int(i) for i in np.asarray(doubtful).ravel()):
        by_column.setdefault(index % WIDTH, []).append(index)
    columns = []  # per column: (cells, [(values, reds, yellows)])
    for column in range(WIDTH):
        cells = by_column.get(column, [])
        rows = [cell // WIDTH for cell in cells]
        options = []
        for values in itertools.product(range(len(CLASSES)), repeat=len(cells)):
            trial = base[column::WIDTH].copy()
            trial[rows] = values
            if _column_is_stacked(trial):
                options.append((values, int(np.sum(trial == 1)), int(np.sum(trial == 2))))
        if not options:
            return []
        columns.append((cells, options))
    found: list[tuple[np.ndarray, Board]] = []
    for combo in itertools.product(*(options for _, options in columns)):
        reds = sum(option[1] for option in combo)
        yellows = sum(option[2] for option in combo)
        if reds - yellows not in (0, 1):
            continue
        trial = base.copy()
        for (cells, _), (values, _, _) in zip(columns, combo, strict=True):
            trial[cells] = values
        try:
            board = Board.from_grid(list(grid_from_labels(trial)))
        except InvalidGridError:
            continue
        found.append((trial, board))
        if len(found) >= limit:
            break
    return found


def doubtful_cells(confidence: np.ndarray, min_cell_confidence: float,
                   min_frontier_confidence: float) -> np.ndarray:
    """Indices of the cells whose confidence is below both thresholds' larger one."""
    return np.flatnonzero(np.asarray(confidence) < max(min_cell_confidence,
                                                       min_frontier_confidence))


def judge(probabilities: np.ndarray, min_cell_confidence: float,
          min_frontier_confidence: float = 0.0, *, support: np.ndarray | None = None,
          disputed: np.ndarray | None = None, dispute_reason: str = "") -> GridVerdict:
    """Apply the rules of the module docstring to probabilities (42, 3).

    ``disputed`` cells (where two readers disagree, ``dispute_reason`` says
    how) are doubtful whatever their probabilities; a doubtful cell may be
    settled to a class only when ``support`` (default: ``probabilities``)
    gives that class at least :data:`MIN_SETTLED_PROBABILITY`.
    """
    probs = np.asarray(probabilities, np.float64)
    if probs.shape != (WIDTH * HEIGHT, len(CLASSES)):
        raise ValueError(f"expected probabilities of shape (42, 3), got {probs.shape}")
    backing = probs if support is None else np.asarray(support, np.float64)
    confidence = probs.max(axis=1)
    labels = probs.argmax(axis=1)
    cells = tuple(float(c) for c in confidence)
    board_confidence = float(confidence.min())
    most_probable = grid_from_labels(labels)

    def verdict(status: str, board: Board | None = None, reason: str = "",
                grid: tuple[str, ...] | None = None) -> GridVerdict:
        return GridVerdict(status, grid or most_probable, board, board_confidence, cells, reason)

    disputed = np.zeros(0, np.int64) if disputed is None else np.asarray(disputed, np.int64)
    doubtful = np.union1d(doubtful_cells(confidence, min_cell_confidence,
                                         min_frontier_confidence), disputed)
    if 0 < doubtful.size <= MAX_DOUBTFUL:
        legal = completions(labels, doubtful)
        why = dispute_reason or _uncertain(confidence, doubtful)
        if len(legal) > 1:
            return verdict(INVALID, reason=why + " (more than one legal reading)")
        if legal:
            settled, board = legal[0]
            if backing[doubtful, settled[doubtful]].min() >= MIN_SETTLED_PROBABILITY:
                return _final(board, partial(verdict, grid=grid_from_labels(settled)))
            return verdict(INVALID, reason=why + " (the only legal reading contradicts "
                                                 "the readers)")
    if disputed.size:
        return verdict(INVALID, reason=dispute_reason or _uncertain(confidence, disputed))
    return _rules(verdict, confidence, min_cell_confidence, min_frontier_confidence)
def _rules(verdict: Callable[..., GridVerdict], confidence: np.ndarray,
           min_cell_confidence: float, min_frontier_confidence: float) -> GridVerdict:
    """Rules 1-6 on the most probable grid."""
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
