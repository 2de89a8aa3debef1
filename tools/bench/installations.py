"""How a bench sets an installation up before it reads a view's frames.

Each set-up takes the reader and frames of the same view (the empty board,
and for ``--discs`` a red then a red and a yellow disc) and teaches the
reader's hole looks (``firmware_py/vision/hole_looks.py``) as the appliance
would; it returns whether the owner's calibration succeeded (the bench counts
it). Used by ``tools.bench.vision`` (its ``+empty``, ``+calibrated`` and
``+discs`` sources), ``tools.bench.depth`` and the reader's tests.
"""

from __future__ import annotations

import numpy as np

from firmware_py.vision.hole_looks import EMPTY_GRID, HoleLooks
from firmware_py.vision.reader import BoardReader


def learn_in_view(reader: BoardReader, empty: np.ndarray) -> bool:
    """An installation that followed a game from this view's empty board: the empty
    board taught as the game confirms it, when the game filter would commit it (it
    leads, :mod:`firmware_py.pipeline.belief`). True when it was learnt (never
    calibrated: the bench prints the count as "calibrated" for this setup)."""
    from firmware_py.pipeline.belief import BeliefParams, starts_empty

    reader.hole_looks = HoleLooks()
    reading = reader.read(empty)
    committed = starts_empty(reading, BeliefParams(first=reader.first))
    if committed and reading.cell_looks is not None:
        reader.hole_looks.learn(reading.cell_looks, EMPTY_GRID, covered=reading.cell_covered,
                                grid_corners=reading.grid_corners)
        return True
    return False


def owner_calibration(reader: BoardReader, empty: np.ndarray) -> bool:
    """Set ``reader`` up as `c4pi calibrate --force` would; False where it failed (a
    hole not seen: the empty board is then learnt at the new game)."""
    from c4game.exc import VisionError
    from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_empty_board

    try:
        reader.hole_looks = calibrate_empty_board(reader, [empty] * FRAMES_NEEDED,
                                                  owner_says_empty=True)
    except VisionError:
        learn_in_view(reader, empty)
        return False
    return True


def calibrate_in_view(reader: BoardReader, empty: np.ndarray, red: np.ndarray,
                      both: np.ndarray) -> bool:
    """Set ``reader`` up as `c4pi calibrate --discs` would; False where calibration failed
    (the reader then keeps what it could learn, as the appliance would)."""
    from c4game.exc import VisionError
    from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_discs, calibrate_empty_board

    try:
        reader.hole_looks = calibrate_empty_board(reader, [empty] * FRAMES_NEEDED)
    except VisionError:  # learnt at the new game instead
        learn_in_view(reader, empty)
        return False
    try:
        calibrate_discs(reader, [red] * 3 + [both] * 3, reader.hole_looks, lambda _: None)
    except VisionError:
        return False
    return True


SETUPS = {"render+empty": learn_in_view, "scene+empty": learn_in_view,
          "render+discs": calibrate_in_view, "render+calibrated": owner_calibration,
          "scene+calibrated": owner_calibration}
