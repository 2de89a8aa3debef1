"""``c4pi calibrate``: learn this installation's empty board on demand, and check it later.

The reader keeps each cell's empty look (:mod:`.empty_board`), learnt at
every new game. Calibrating takes it on purpose, in the room's light: the
board is read over several frames; a frame counts when both readers agree
it is empty, or when the room shows one disc colour through the holes (no
game looks like that, :func:`~.reader.shows_a_coloured_wall`). The looks of
:data:`FRAMES_NEEDED` such frames are averaged and stored with the time and
where the grid's corners were in the frame, so that ``c4pi selftest`` can
tell when it was done and whether the camera has moved since.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from firmware_py.exc import VisionError
from firmware_py.vision.cells import cell_crops
from firmware_py.vision.empty_board import EmptyBoard, cell_features
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import GRID_CORNERS
from firmware_py.vision.reader import BoardReader, shows_a_coloured_wall
from firmware_py.vision.reading import OK

FRAMES_NEEDED = 5
STATE_DIR = Path("/var/lib/c4pi")
FILE_NAME = "empty-board.json"
MOVED_PX = 10.0  # the grid's corners moved more than this: the camera or board was moved


def empty_board_path(setting: str) -> Path:
    """Where the empty board lives: ``setting`` if given, else the state directory."""
    if setting:
        return Path(setting).expanduser()
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0]) / FILE_NAME
    if STATE_DIR.is_dir():
        return STATE_DIR / FILE_NAME
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "c4pi" / FILE_NAME


def calibrate_empty_board(reader: BoardReader, frames: Iterable[np.ndarray],
                          now: dt.datetime | None = None) -> EmptyBoard:
    """The empty board learnt from ``frames`` (VisionError when too few show it)."""
    saved, reader.empty_board = reader.empty_board, None
    looks, corners, last_reason, seen = [], [], "no frame", 0
    try:
        for frame in frames:
            seen += 1
            analysis = reader.analyse(frame)
            if _shows_the_empty_board(analysis):
                looks.append(cell_features(cell_crops(analysis.grid_image)))
                corners.append(analysis.fit.project(GRID_CORNERS))
                if len(looks) == FRAMES_NEEDED:
                    break
            else:
                last_reason = _why_not(analysis)
    finally:
        reader.empty_board = saved
    if len(looks) < FRAMES_NEEDED:
        raise VisionError(f"the empty board was seen in {len(looks)} of {seen} frames, need "
                          f"{FRAMES_NEEDED}: take every disc out and aim the camera "
                          f"(c4pi snapshot --annotate); last frame: {last_reason}")
    board = EmptyBoard()
    board.learn(np.mean(looks, axis=0))
    board.calibrated_at = (now or dt.datetime.now(dt.UTC)).isoformat(
        timespec="seconds")
    board.grid_corners = np.mean(corners, axis=0)
    return board


def _shows_the_empty_board(analysis) -> bool:  # noqa: ANN001
    reading = analysis.reading
    if analysis.grid_image is None or analysis.cnn is None:
        return False
    if reading.status == OK and all(set(line) == {"."} for line in reading.grid or ("R",)):
        return True
    return shows_a_coloured_wall(analysis.cnn, analysis.colour)


def _why_not(analysis) -> str:  # noqa: ANN001
    reading = analysis.reading
    if reading.status == OK:
        return "discs are on the board"
    return f"{reading.status}: {reading.reason}" if reading.reason else reading.status


def camera_shift_px(board: EmptyBoard, fit: BoardFit) -> float | None:
    """How far (px) the grid's corners moved since calibration; None if unknown."""
    if board.grid_corners is None or not fit.ok:
        return None
    return float(np.linalg.norm(fit.project(GRID_CORNERS) - board.grid_corners, axis=1).max())
