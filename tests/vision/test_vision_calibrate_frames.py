"""Which frames ``c4pi calibrate`` takes for the empty board (calibrate.stands_empty), on
readers' outputs. (The reader itself learns nothing from its readings.)"""

from __future__ import annotations

import numpy as np

from firmware_py.vision.calibrate import stands_empty
from firmware_py.vision.colour_reader import UNSURE

EMPTY, RED, YELLOW = (0.96, 0.02, 0.02), (0.03, 0.95, 0.02), (0.03, 0.02, 0.95)
BOTTOM = list(range(35, 42))


def _readers(cnn_cells: dict[int, tuple] | None = None,
             colour_cells: dict[int, tuple] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(CNN, colour) probabilities: every cell surely empty but those given."""
    cnn, colour = np.tile(EMPTY, (42, 1)), np.tile(EMPTY, (42, 1))
    for probabilities, cells in ((cnn, cnn_cells), (colour, colour_cells)):
        for cell, value in (cells or {}).items():
            probabilities[cell] = value
    return cnn, colour


def test_a_disc_seen_above_an_empty_bottom_row_is_the_room() -> None:
    # the CNN takes a red wall in column 3, row 4 for a disc: it would float
    cnn, colour = _readers({16: RED})
    assert stands_empty(cnn, colour)
    cnn, colour = _readers({16: RED}, {17: YELLOW, 3: RED})  # disputes higher up, any number
    assert stands_empty(cnn, colour)


def test_the_empty_board_needs_a_bottom_row_both_readers_are_sure_of() -> None:
    for cell in BOTTOM:
        for cnn_cells, colour_cells in (({cell: RED}, {}), ({}, {cell: YELLOW}),
                                        ({cell: (0.85, 0.1, 0.05)}, {}), ({}, {cell: UNSURE})):
            assert not stands_empty(*_readers(cnn_cells, colour_cells)), (cell, cnn_cells)


def test_a_disc_both_readers_see_is_never_the_room() -> None:
    # a grid misplaced over a game (the bottom row on the table) shows discs both see
    assert not stands_empty(*_readers({20: RED}, {20: RED}))
    assert not stands_empty(*_readers({20: YELLOW, 13: RED}, {20: YELLOW}))
