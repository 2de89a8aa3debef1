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
(:mod:`firmware_py.vision.postprocess`). Parity only ranks the readers' own
choices for the grid an ``invalid`` reading shows
(:func:`most_probable_position`).
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


def most_probable_position(labels: np.ndarray, open_cells: Sequence[int] | np.ndarray,
                           options: Mapping[int, Sequence[int]],
                           probabilities: np.ndarray) -> np.ndarray:
    """The labels with the open cells filled by the most probable grid a game can leave.

    Each column's stacked ways (:func:`gravity_readings`) are scored by the
    product of ``probabilities`` (42, 3) of the values they give its open
    cells. Of the combinations over all columns, the most probable one with
    as many red discs as yellow, or one more (Red moves first), wins; where
    no combination has such counts, each column takes its own most probable
    way. A column with no stacked way (a disc floats in it whatever the open
    cells hold) keeps its labels. This is a best guess to show, never a
    reason to trust a reading: parity and gravity prefer among the readers'
    own choices, they never make a reading ``ok``.
    """
    guess = np.asarray(labels, np.int64).ravel().copy()
    logs = np.log(np.asarray(probabilities, np.float64) + 1e-12)
    # red minus yellow so far -> (log probability, the ways chosen so far)
    columns = gravity_readings(guess, open_cells, options)
    best_by_balance: dict[int, tuple[float, list[tuple]]] = {0: (0.0, [])}
    for column, ways in enumerate(columns):
        scored = [(_way_log(logs, way), _way_balance(guess, column, way), way)
                  for way in ways or [((), ())]]
        grown: dict[int, tuple[float, list[tuple]]] = {}
        for balance, (log_so_far, chosen) in best_by_balance.items():
            for log_way, balance_way, way in scored:
                key, total = balance + balance_way, log_so_far + log_way
                if key not in grown or grown[key][0] < total:
                    grown[key] = (total, [*chosen, way])
        best_by_balance = grown
    legal = [best_by_balance[balance] for balance in (0, 1) if balance in best_by_balance]
    if legal:
        chosen = max(legal, key=lambda entry: entry[0])[1]
    else:
        chosen = [max(ways, key=lambda way: _way_log(logs, way)) for ways in columns if ways]
    for cells, values in chosen:
        guess[list(cells)] = values
    return guess


def _way_log(logs: np.ndarray, way: tuple) -> float:
    cells, values = way
    return float(logs[list(cells), list(values)].sum()) if cells else 0.0


def _way_balance(labels: np.ndarray, column: int, way: tuple) -> int:
    """Red minus yellow discs in ``column`` once ``way`` fills its open cells."""
    trial = labels[column::WIDTH].copy()
    cells, values = way
    trial[[cell // WIDTH for cell in cells]] = values
    return int(np.count_nonzero(trial == 1) - np.count_nonzero(trial == 2))
