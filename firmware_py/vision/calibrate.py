"""``c4pi calibrate``: learn this installation's empty board on demand, and check it later.

The reader keeps each cell's empty look (:mod:`.empty_board`), learnt at
every new game. Calibrating takes it on purpose, in the room's light: the
board is read over several frames; a frame counts when the board is read
empty, when the room shows one disc colour through the holes (no
game looks like that, :func:`~.reader.shows_a_coloured_wall`), or when the
board stands empty by gravity (:func:`~.reader.stands_empty`) and every
hole is seen (a hand over a hole would be learnt as its look). Where the
room shows disc colours through holes of the bottom row, nothing in one
frame tells a red cushion from a red disc; then the owner's word decides
(``c4pi calibrate --force``, ``owner_says_empty``): every frame in which
every hole is seen counts. The looks of
:data:`FRAMES_NEEDED` such frames are averaged and stored with the time and
where the grid's corners were in the frame, so that ``c4pi selftest`` can
tell when it was done and whether the camera has moved since. Optionally
(:func:`calibrate_discs`) one red and one yellow disc dropped into it give
this set's disc colours (:mod:`.disc_colours`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from c4game.board import HEIGHT, WIDTH
from c4game.exc import VisionError
from firmware_py.vision.cells import cell_crops
from firmware_py.vision.colour_reader import CHANGED_DISTANCE
from firmware_py.vision.disc_colours import DiscColour, check_pair, measure_disc
from firmware_py.vision.empty_board import EmptyBoard, cell_features
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import GRID_CORNERS
from firmware_py.vision.reader import BoardReader, shows_a_coloured_wall, stands_empty
from firmware_py.vision.reading import OK

FRAMES_NEEDED = 5
STEADY_FRAMES = 3  # frames a dropped calibration disc must stand alone, unchanged
DOMINANCE = 1.5  # its hole changed this many times more than any other (a hand: many holes)
STATE_DIR = Path("/var/lib/c4pi")
FILE_NAME = "empty-board.json"
LOOKS_FILE_NAME = "board-looks.json"  # vision/board_looks.py, beside the empty board
FORCE_HINT = ("; if every disc is out and what looks like one is the room behind the board "
              "(a red or yellow wall, a cushion), run it again with --force")


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


def board_looks_path(setting: str) -> Path:
    """Where the learnt board looks live: beside the empty board (``[vision] empty_board_file``)."""
    return empty_board_path(setting).with_name(LOOKS_FILE_NAME)


def calibrate_empty_board(reader: BoardReader, frames: Iterable[np.ndarray],
                          now: dt.datetime | None = None, *,
                          owner_says_empty: bool = False) -> EmptyBoard:
    """The empty board learnt from ``frames`` (VisionError when too few show it).

    With ``owner_says_empty`` the readers are not asked whether the board is
    empty, only whether every hole is seen: the owner has taken every disc out.
    """
    looks, corners, last_reason, hint, seen = [], [], "no frame", "", 0
    counts = _every_hole_seen if owner_says_empty else _shows_the_empty_board
    with _without_empty_board(reader):
        for frame in frames:
            seen += 1
            analysis = reader.analyse(frame)
            if counts(analysis):
                looks.append(cell_features(cell_crops(analysis.grid_image)))
                corners.append(analysis.fit.project(GRID_CORNERS))
                if len(looks) == FRAMES_NEEDED:
                    break
            else:
                last_reason = _why_not(analysis)
                hint = FORCE_HINT if _every_hole_seen(analysis) else ""
    if len(looks) < FRAMES_NEEDED:
        raise VisionError(f"the empty board was seen in {len(looks)} of {seen} frames, need "
                          f"{FRAMES_NEEDED}: take every disc out and aim the camera "
                          f"(c4pi snapshot --annotate); last frame: {last_reason}{hint}")
    board = EmptyBoard()
    board.learn(np.mean(looks, axis=0))
    board.calibrated_at = (now or dt.datetime.now(dt.UTC)).isoformat(
        timespec="seconds")
    board.grid_corners = np.mean(corners, axis=0)
    return board


def calibrate_discs(reader: BoardReader, frames: Iterable[np.ndarray], board: EmptyBoard,
                    prompt: Callable[[str], None] = print) -> EmptyBoard:
    """``board`` with its disc colours (:mod:`.disc_colours`) measured from ``frames``.

    ``prompt`` asks for one red disc, then one yellow disc; each counts once
    the lowest cell of a column has changed from its empty look, far more
    than any other cell (:data:`DOMINANCE`: a hand over the board changes
    many), for :data:`STEADY_FRAMES` frames. VisionError when the frames run
    out first, or the discs do not look red and yellow.
    """
    frames = iter(frames)
    taken: list[int] = []
    measured: dict[str, DiscColour] = {}
    for key, name in (("R", "red"), ("Y", "yellow")):
        prompt(f"drop one {name} disc into any column")
        cell, crop, why = _steady_new_disc(reader, frames, board, taken)
        if crop is None:
            raise VisionError(f"no {name} disc was seen standing alone in a column: drop one "
                              f"and keep hands off the board ({why})")
        taken.append(cell)
        measured[key] = measure_disc(crop)
    check_pair(measured["R"], measured["Y"])
    board.discs = measured
    return board


def _steady_new_disc(reader: BoardReader, frames: Iterator[np.ndarray], board: EmptyBoard,
                     taken: list[int]) -> tuple[int, np.ndarray | None, str]:
    """(cell, its crop, "") of the new disc steady for STEADY_FRAMES frames, or
    (-1, None, why not) when the frames ran out."""
    last, steady, why = None, 0, "no frame"
    with _without_empty_board(reader):
        for frame in frames:
            analysis = reader.analyse(frame)
            if analysis.grid_image is None:
                last, steady, why = None, 0, analysis.reading.reason or analysis.reading.status
                continue
            crops = cell_crops(analysis.grid_image)
            cell, why = _new_disc(board.distances(cell_features(crops)), taken)
            if cell is None:
                last, steady = None, 0
                continue
            steady = steady + 1 if cell == last else 1
            last = cell
            if steady >= STEADY_FRAMES:
                return cell, crops[cell], ""
    return -1, None, why


@contextlib.contextmanager
def _without_empty_board(reader: BoardReader) -> Iterator[None]:
    """Read frames as they are, neither using nor teaching the reader's empty board."""
    saved, reader.empty_board = reader.empty_board, None
    try:
        yield
    finally:
        reader.empty_board = saved


def _new_disc(distances: np.ndarray, taken: list[int]) -> tuple[int | None, str]:
    """The landing cell that changed most, if it did by :data:`CHANGED_DISTANCE` and
    :data:`DOMINANCE` times more than any other cell not taken; else (None, why)."""
    change = np.where(np.isfinite(distances), distances, 0.0)
    change[taken] = 0.0
    landing = sorted(_landing_cells(taken))
    cell = landing[int(np.argmax(change[landing]))]
    others = np.delete(change, cell)
    if change[cell] < CHANGED_DISTANCE:
        return None, "no hole changed"
    if change[cell] < DOMINANCE * others.max():
        return None, f"{int(np.sum(change >= CHANGED_DISTANCE))} holes changed"
    return cell, ""


def _landing_cells(taken: list[int]) -> set[int]:
    """Where a disc dropped into the board with ``taken`` discs lands (top row first)."""
    bottom = {(HEIGHT - 1) * WIDTH + column for column in range(WIDTH)}
    above = {cell - WIDTH for cell in taken if cell >= WIDTH}
    return (bottom | above) - set(taken)


def _every_hole_seen(analysis) -> bool:  # noqa: ANN001
    """The grid was found and no hole is covered (by a hand, say)."""
    covered = analysis.reading.cell_covered
    return analysis.grid_image is not None and covered is not None and not covered.any()


def _shows_the_empty_board(analysis) -> bool:  # noqa: ANN001
    reading = analysis.reading
    if analysis.grid_image is None or analysis.cnn is None:
        return False
    if reading.status == OK and all(set(line) == {"."} for line in reading.grid or ("R",)):
        return True
    if shows_a_coloured_wall(analysis.cnn, analysis.colour):
        return True
    return stands_empty(analysis.cnn, analysis.colour) and _every_hole_seen(analysis)


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
