"""What the reader teaches the empty board (reader.remember), on readers' outputs."""

from __future__ import annotations

import numpy as np

from firmware_py.vision.colour_reader import UNSURE
from firmware_py.vision.empty_board import EmptyBoard
from firmware_py.vision.reader import remember, stands_empty
from firmware_py.vision.reading import INVALID, OK, Reading

EMPTY, RED, YELLOW = (0.96, 0.02, 0.02), (0.03, 0.95, 0.02), (0.03, 0.02, 0.95)
BOTTOM = list(range(35, 42))

NONE = np.zeros(42, bool)  # no hole covered


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


def test_the_board_standing_empty_is_learnt_but_for_the_cells_the_colour_reader_cannot_see(
        ) -> None:
    board = EmptyBoard()
    old = np.full((42, 12), 7.0)
    board.learn(old, np.arange(42) == 10)
    features = np.random.default_rng(1).uniform(0, 255, (42, 12))
    cnn, colour = _readers({16: RED}, {10: UNSURE, 11: UNSURE})  # a hand over two holes
    remember(board, Reading(INVALID, reason="uncertain cells"), features, cnn, colour,
             np.isin(np.arange(42), (10, 11)))  # the reader's explicit mask: no opinion
    assert board.known.sum() == 41 and not board.known[11]
    assert np.array_equal(board.features[10], old[10])  # kept what it had
    assert np.array_equal(np.delete(board.features, [10, 11], axis=0),
                          np.delete(features, [10, 11], axis=0))
    untaught = EmptyBoard()
    cnn, colour = _readers({16: RED, 37: RED})  # a disc in the bottom row to one reader
    remember(untaught, Reading(INVALID, reason="uncertain cells"), features, cnn, colour, NONE)
    assert not untaught.known.any()


def test_a_disc_dropped_beside_a_red_wall_is_not_learnt_as_the_room() -> None:
    # the empty board is known; Red's first disc stands in column 1 (both readers
    # see it) and a red wall shows through two holes higher up (colour only): three
    # reds and no yellow look like a wall of one colour, but the disc is no wall
    board = EmptyBoard()
    known = np.full((42, 12), 7.0)
    board.learn(known)
    cnn, colour = _readers({35: RED}, {35: RED, 16: RED, 17: RED})
    features = np.random.default_rng(2).uniform(0, 255, (42, 12))
    remember(board, Reading(INVALID, reason="uncertain cells"), features, cnn, colour, NONE)
    assert np.array_equal(board.features[35], known[35])  # still the empty hole's look
    assert np.array_equal(board.features[16], features[16])  # the wall is learnt
    assert np.array_equal(board.features[17], features[17])
    fresh = EmptyBoard()  # nothing known yet: a flat wall may fool both readers
    remember(fresh, Reading(INVALID, reason="uncertain cells"), features, cnn, colour, NONE)
    assert fresh.known.all()


def test_a_board_read_is_learnt_only_where_the_readers_are_sure_of_empty_holes() -> None:
    """The decision may read a hole empty against one reader's doubt (a pale disc the
    colour reader misses): its look is not learnt as the empty hole's, or that disc
    would read empty from then on (found by the live bench: wrong commits)."""
    features = np.full((42, 12), 3.0)
    cnn, colour = _readers({38: (0.55, 0.40, 0.05)})  # the CNN half sees a red disc
    board = EmptyBoard()
    remember(board, Reading(OK, grid=("......." ,) * 6, cell_confidence=(0.99,) * 42),
             features, cnn, colour, NONE)
    assert not board.known[38] and board.known.sum() == 41
    walled = EmptyBoard()  # a red wall the colour reader sees through a hole: learnt
    remember(walled, Reading(OK, grid=("......." ,) * 6, cell_confidence=(0.99,) * 42),
             features, *_readers({}, {38: RED}), NONE)
    assert walled.known.all()
    grid = ("......." ,) * 5 + ("...R...",)
    later = EmptyBoard()
    remember(later, Reading(OK, grid=grid, cell_confidence=(0.99,) * 42), features,
             *_readers({38: RED, 37: (0.6, 0.1, 0.3)}, {38: RED}), NONE)
    assert later.known.sum() == 40 and not later.known[37] and not later.known[38]
