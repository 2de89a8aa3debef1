"""Let gravity settle the cells two readers dispute.

Given the 42 labels of a reading and some *open* cells, each with the classes
it may take (the readers' choices), :func:`gravity_readings` lists, column by
column, the ways to fill the open cells that leave no disc floating. Where
every column has exactly one way, that is the only board physics allows: a
hole two above a column's top disc that one reader calls red is empty. The
reader accepts a settlement only where it makes the disputed cells empty
(:func:`firmware_py.vision.postprocess.judge`).

Only gravity settles cells, never parity or the rule of fours: people do
put a disc of the wrong colour or play twice, and a board the rules reject
must be reported ``invalid``, not corrected into a legal board nobody
played. The settled grid then goes through all the rules like any other
(:mod:`firmware_py.vision.postprocess`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from firmware_py.board import WIDTH

ALL_CLASSES = (0, 1, 2)


def stacked(column: np.ndarray) -> bool:
    """Whether a column of labels (top first) has no disc above an empty cell."""
    discs = (np.asarray(column) != 0)[::-1].astype(np.int8)  # bottom first
    return bool(np.all(discs[1:] <= discs[:-1]))


def gravity_readings(labels: np.ndarray, open_cells: Sequence[int] | np.ndarray,
                     options: Mapping[int, Sequence[int]] | None = None) -> list[list[tuple]]:
    """Per column, every stacked assignment ``(cells, values)`` of its open cells.

    Each open cell takes its ``options`` (default: all three classes); a
    column without open cells has one empty assignment when it is stacked
    and none when a disc floats in it.
    """
    base = np.asarray(labels, np.int64).ravel()
    cells = sorted(int(i) for i in np.asarray(open_cells).ravel())
    allowed = {cell: tuple((options or {}).get(cell, ALL_CLASSES)) for cell in cells}
    columns = []
    for column in range(WIDTH):
        mine = [cell for cell in cells if cell % WIDTH == column]
        rows = [cell // WIDTH for cell in mine]
        ways = []
        for values in itertools.product(*(allowed[cell] for cell in mine)):
            trial = base[column::WIDTH].copy()
            trial[rows] = values
            if stacked(trial):
                ways.append((tuple(mine), values))
        columns.append(ways)
    return columns


def settle(labels: np.ndarray, open_cells: Sequence[int] | np.ndarray,
           options: Mapping[int, Sequence[int]] | None = None) -> np.ndarray | None:
    """The labels with the open cells filled, when gravity allows exactly one way; else None."""
    columns = gravity_readings(labels, open_cells, options)
    if any(len(ways) != 1 for ways in columns):
        return None
    settled = np.asarray(labels, np.int64).ravel().copy()
    for ((cells, values),) in columns:
        settled[list(cells)] = values
    return settled


def most_probable_stacked(labels: np.ndarray, open_cells: Sequence[int] | np.ndarray,
                          options: Mapping[int, Sequence[int]],
                          probabilities: np.ndarray) -> np.ndarray:
    """The labels with the open cells filled by the most probable stacked way per column.

    A column's ways are scored by the product of ``probabilities`` (42, 3) of
    the values they give its open cells; a column with no stacked way (a
    disc floats in it whatever the open cells hold) keeps its labels. This is
    a best guess to show, never a reason to trust a reading.
    """
    guess = np.asarray(labels, np.int64).ravel().copy()
    logs = np.log(np.asarray(probabilities, np.float64) + 1e-12)
    for ways in gravity_readings(guess, open_cells, options):
        if not ways:
            continue
        cells, values = max(ways, key=lambda way: float(logs[list(way[0]), list(way[1])].sum()))
        guess[list(cells)] = values
    return guess
