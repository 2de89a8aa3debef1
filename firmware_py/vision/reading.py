"""The result of reading one camera frame: the contract between vision and pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from c4game.board import EMPTY, HEIGHT, RED, WIDTH, YELLOW, Board

CLASSES = (EMPTY, RED, YELLOW)  # the order of a cell's classes in ``cell_log_probs``
CLASS_NAMES = ("empty", "red", "yellow")  # as a person says them, in CLASSES order

OK = "ok"
NO_BOARD = "no-board"
INVALID = "invalid"
FINISHED = "finished"
STATUSES = (OK, NO_BOARD, INVALID, FINISHED)


def cell_name(index: int) -> str:
    """'column C row R' (1-based, row 1 at the bottom) of cell ``index`` (top row first)."""
    row, column = divmod(index, WIDTH)
    return f"column {column + 1} row {HEIGHT - row}"


@dataclass(frozen=True, eq=False)
class Expectation:
    """What the game filter expects the next frame to show, handed to the reader with it.

    ``looks`` (42 x 12, NaN rows where nothing is expected): each hole's look when
    the filter last knew what it held (the committed board's looks; before any
    board, the room seen through holes gravity proved empty); ``classes`` (42,
    indices into :data:`CLASSES`): what each hole held then; ``rule``: who may have
    started the board read (``[game] first``, or the committed game's starter). A
    hole that still looks as expected is held to its class
    (:mod:`~firmware_py.vision.expectation`), unless ``hold`` (42 bools) leaves it
    out: its look is then only compared. Compared by identity: a reading says
    which expectation it was read under.
    """

    looks: np.ndarray
    classes: np.ndarray
    rule: str = "either"
    hold: np.ndarray | None = None  # the holes held when they look as expected (None: all)


@dataclass(frozen=True)
class Reading:
    """What one frame showed.

    ``grid`` is the classified grid (6 strings, top row first, SPEC §1) whenever
    a board was found, even when it is invalid; ``board`` is set only for
    ``ok`` and ``finished``. ``confidence`` is the board read's share against
    its runner-up (:mod:`~firmware_py.vision.decide`, 0-1); ``cell_confidence``
    holds the 42 per-cell confidences, top row first, left to right.

    Two per-cell records let the pipeline follow a game (:mod:`firmware_py.pipeline.belief`):
    ``cell_log_probs`` (42 x 3, empty/red/yellow, the readers combined) and
    ``cell_looks`` (42 x 12, each hole's appearance,
    :func:`~firmware_py.vision.cells.cell_features`); ``None`` when the
    reader did not see the cells. ``cell_covered`` (42 bools: something stands
    in front of the hole, a hand) and ``grid_corners`` (4 x 2 frame pixels of
    the grid's corners) let this installation's looks be learnt
    (:mod:`~firmware_py.vision.hole_looks`). Read under an ``expectation`` (the
    game filter's, for this frame), ``cell_held`` (42 bools) says which holes
    still looked as expected (and were held to what they held, where the
    expectation holds them); ``cell_log_probs``,
    the decision and ``status`` are then those of the held evidence, under the
    expectation's rule.
    """

    status: str
    grid: tuple[str, ...] | None = None
    board: Board | None = None
    confidence: float = 0.0
    cell_confidence: tuple[float, ...] = field(default=(), repr=False)
    markers: int = 0
    reason: str = ""
    blur: float = 0.0
    reprojection_px: float = 0.0
    cell_log_probs: np.ndarray | None = field(default=None, repr=False, compare=False)
    cell_looks: np.ndarray | None = field(default=None, repr=False, compare=False)
    cell_covered: np.ndarray | None = field(default=None, repr=False, compare=False)
    grid_corners: np.ndarray | None = field(default=None, repr=False, compare=False)
    found_by: str = "markers"  # how the board was found: "markers" or "holes"
    cell_held: np.ndarray | None = field(default=None, repr=False, compare=False)
    expectation: Expectation | None = field(default=None, repr=False, compare=False)

    @property
    def found(self) -> bool:
        """True when a board was located (any status but ``no-board``)."""
        return self.status != NO_BOARD
