"""What one frame says of each hole, as the game filter weighs it.

The readers' per-hole log-probabilities (or, from a reader that gives only a
grid, its confidences turned into the same), each board's classes, how far
the readers favour a board's class at each hole, which holes the reader held
to the filter's expectation and the board it decided. Pure functions of a
reading and boards, for the filter (:mod:`.belief`); the reducer and the
benches name boards by :func:`grid_of`.
"""

from __future__ import annotations

import numpy as np

from c4game.board import HEIGHT, WIDTH, Board
from c4game.exc import InvalidGridError
from firmware_py.pipeline.events import Grid
from firmware_py.vision.reading import CLASSES, FINISHED, OK, Expectation, Reading

GRID_DOUBT = 1e-3  # a grid-only reading's surest cell's doubt (evidence_of)


def evidence_of(reading: Reading) -> np.ndarray | None:
    """(42, 3) log-probabilities of each hole's class: the readers' own, or, for a
    reader that gives only a grid and its confidences, each cell's confidence on its
    class and the rest shared by the other two (at most 1/3: no evidence; ``None`` when
    no cell says anything)."""
    if reading.cell_log_probs is not None:
        return np.asarray(reading.cell_log_probs, np.float64)
    if reading.grid is None:
        return None
    confidence = np.asarray(reading.cell_confidence or (reading.confidence,) * WIDTH * HEIGHT,
                            np.float64)
    if np.all(confidence <= 1 / 3):
        return None
    sure = np.clip(confidence, 1 / 3, 1 - GRID_DOUBT)
    probs = np.repeat(((1 - sure) / 2)[:, None], len(CLASSES), axis=1)
    probs[np.arange(len(sure)), classes_of(reading.grid)] = sure
    return np.log(probs)


def classes_of(grid: Board | Grid) -> np.ndarray:
    """(42,) class index (:data:`CLASSES`) of each hole, top row first."""
    lines = grid.grid_lines() if isinstance(grid, Board) else grid
    return np.array([CLASSES.index(char) for char in "".join(lines)])


def leads_of(log_probs: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """(42,) nats of each hole's class in ``classes`` over the other two."""
    rows = np.arange(len(classes))
    own = log_probs[rows, classes]
    rest = log_probs.copy()
    rest[rows, classes] = -np.inf
    leads: np.ndarray = own - rest.max(axis=1)
    return leads


def grid_of(board: Board) -> Grid:
    """``board``'s grid lines as a tuple."""
    return tuple(board.grid_lines())


def held_by(reading: Reading, expectation: Expectation | None) -> np.ndarray | None:
    """The holes the reader held to what ``expectation`` says (None: read without one,
    or without looks: nothing is known held or changed)."""
    if expectation is None or reading.expectation is not expectation:
        return None
    return reading.cell_held


def read_board(reading: Reading, rule: str) -> Board | None:
    """The board the reader decided on this frame, as a board of ``rule``'s games
    (None when it read none, or when the rule does not allow it)."""
    if reading.status not in (OK, FINISHED) or reading.grid is None:
        return None
    try:
        return Board.from_grid(list(reading.grid), rule)
    except InvalidGridError:
        return None
