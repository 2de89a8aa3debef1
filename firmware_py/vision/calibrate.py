"""``c4pi calibrate``: teach this installation's hole looks the empty board on demand.

The one model of how each hole looks (:mod:`.hole_looks`) learns from every
board the game confirmed. Calibrating teaches it the empty board on purpose,
in the room's light, before any game: the board is read over several
frames; a frame counts when the board is read empty, when the room shows one
disc colour through the holes (no game looks like that,
:func:`shows_a_coloured_wall`), or when the board stands empty by gravity
(:func:`stands_empty`) and every hole is seen (a hand over a hole would be
learnt as its look). Where the room shows disc colours through holes of the
bottom row, nothing in one frame tells a red cushion from a red disc; then
the owner's word decides (``c4pi calibrate --force``, ``owner_says_empty``):
every frame in which every hole is seen counts. Each of :data:`FRAMES_NEEDED`
such frames is taught (so the model learns how much a look strays between
frames), with the time and where the grid's corners were in the frame, so
that ``c4pi selftest`` can tell when it was done and whether the camera has
moved since; a board found by its holes leaves where it was found (the
lattice and what its points showed in the last such frame,
:class:`~.hole_looks.StoredLattice`): the appliance starts from it.
Optionally (:func:`calibrate_discs`) one red and one yellow
disc dropped into it give this set's disc colours (:mod:`.disc_colours`)
and their looks at those holes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from c4game.board import HEIGHT, WIDTH, floating_discs
from c4game.exc import VisionError
from firmware_py.config import resolve_path
from firmware_py.vision.cells import cell_crops, cell_features
from firmware_py.vision.decide import grid_of
from firmware_py.vision.disc_colours import DiscColour, check_pair, measure_disc
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import GRID_CORNERS
from firmware_py.vision.hole_looks import CELLS, KIND_OF, HoleLooks
from firmware_py.vision.look_evidence import CHANGED_DISTANCE
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import OK, cell_name

FRAMES_NEEDED = 5
STEADY_FRAMES = 3  # frames a dropped calibration disc must stand alone, unchanged
DOMINANCE = 1.5  # its hole changed this many times more than any other (a hand: many holes)
SURE_EMPTY = 0.9  # both readers this sure a bottom-row hole is empty: the board stands empty
WALL_CNN_CONFIDENCE = 0.95  # the CNN this sure every hole is empty: a floating disc is the room
WALL_IMBALANCE = 3  # discs of one colour the colour reader sees, none of the other: a wall
STATE_DIR = Path("/var/lib/c4pi")
FILE_NAME = "hole-looks.json"
FORCE_HINT = ("; if every disc is out and what looks like one is the room behind the board "
              "(a red or yellow wall, a cushion), run it again with --force")


def hole_looks_path(setting: str) -> Path:
    """Where the hole looks live: ``setting`` (``[vision] empty_board_file``) if given,
    a relative one taken from the project directory as every config path is
    (:func:`~firmware_py.config.resolve_path`), else the state directory."""
    if setting:
        return resolve_path(setting)
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0]) / FILE_NAME
    if STATE_DIR.is_dir():
        return STATE_DIR / FILE_NAME
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "c4pi" / FILE_NAME


def calibrate_empty_board(reader: BoardReader, frames: Iterable[np.ndarray],
                          now: dt.datetime | None = None, *, owner_says_empty: bool = False,
                          looks: HoleLooks | None = None,
                          warn: Callable[[str], None] | None = None) -> HoleLooks:
    """``looks`` (default: a new model) taught the empty board of ``frames``
    (VisionError when too few show it; then ``looks`` is left as it was). The
    calibration replaces the empty looks learnt before (a new cushion behind the
    board); the disc looks stay.

    With ``owner_says_empty`` the readers are not asked whether the board is
    empty, only whether every hole is seen: the owner has taken every disc out.
    Holes where both readers saw one disc colour in every frame taught are
    then told to ``warn`` (a disc left in would later be read as an empty hole).
    """
    taken, corners, shown, last_reason, hint, seen = [], [], [], "no frame", "", 0
    disc_seen = np.ones(CELLS, bool)  # both readers saw a disc there in every frame taught
    by_holes = None  # the last frame counted, when its holes found the board
    counts = _every_hole_seen if owner_says_empty else _shows_the_empty_board
    with _without_looks(reader):
        for frame in frames:
            seen += 1
            analysis = reader.analyse(frame)
            if counts(analysis):
                taken.append(cell_features(cell_crops(analysis.grid_image)))
                corners.append(analysis.fit.project(GRID_CORNERS))
                shown.append(_seen_holes(analysis))
                disc_seen &= _both_see_a_disc(analysis)
                by_holes = frame if analysis.fit.found_by == "holes" else None
                if len(taken) == FRAMES_NEEDED:
                    break
            else:
                last_reason = _why_not(analysis, owner_says_empty)
                hint = FORCE_HINT if _every_hole_seen(analysis) and not owner_says_empty else ""
    if 0 < len(taken) == seen < FRAMES_NEEDED:  # every frame counted: the source ran out
        raise VisionError(f"the empty board was seen in all {seen} frame(s) the source gave, "
                          f"need {FRAMES_NEEDED}: use the camera, a longer video or a folder "
                          f"of {FRAMES_NEEDED} pictures or more")
    if len(taken) < FRAMES_NEEDED:
        raise VisionError(f"the empty board was seen in {len(taken)} of {seen} frames, need "
                          f"{FRAMES_NEEDED}: take every disc out and aim the camera "
                          f"(c4pi snapshot --annotate); last frame: {last_reason}{hint}")
    if owner_says_empty and warn is not None and disc_seen.any():
        warn(_disc_warning(disc_seen))
    looks = looks if looks is not None else HoleLooks()
    looks.forget_empty()  # the empty looks start again from these frames
    for features, grid_corners, holes in zip(taken, corners, shown, strict=True):
        looks.teach(features, np.zeros(CELLS, int), holes, grid_corners)
    looks.lattice = None if by_holes is None else reader.hole_locator.stored(by_holes)
    looks.calibrated_at = (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    return looks


def calibrate_discs(reader: BoardReader, frames: Iterable[np.ndarray], looks: HoleLooks,
                    prompt: Callable[[str], None] = print) -> HoleLooks:
    """``looks`` with this set's disc colours (:mod:`.disc_colours`) measured from
    ``frames``, and each disc's look at the hole it was dropped in.

    ``prompt`` asks for one red disc, then one yellow disc; each counts once
    the lowest cell of a column has changed from its empty look, far more
    than any other cell (:data:`DOMINANCE`: a hand over the board changes
    many), for :data:`STEADY_FRAMES` frames. VisionError when the frames run
    out first, or the discs do not look red and yellow.
    """
    frames = iter(frames)
    taken: list[int] = []
    measured: dict[str, DiscColour] = {}
    seen: list[tuple[np.ndarray, int, str]] = []
    for key, name in (("R", "red"), ("Y", "yellow")):
        prompt(f"drop one {name} disc into any column")
        cell, crops, why = _steady_new_disc(reader, frames, looks, taken)
        if crops is None:
            raise VisionError(f"no {name} disc was seen standing alone in a column: drop one "
                              f"and keep hands off the board ({why})")
        taken.append(cell)
        measured[key] = measure_disc(crops[cell])
        seen.append((cell_features(crops), cell, key))
    check_pair(measured["R"], measured["Y"])
    looks.discs = measured
    for features, cell, key in seen:
        kinds, cells = np.zeros(CELLS, int), np.zeros(CELLS, bool)
        kinds[cell], cells[cell] = KIND_OF[key], True
        looks.teach(features, kinds, cells)
    return looks


def _steady_new_disc(reader: BoardReader, frames: Iterator[np.ndarray], looks: HoleLooks,
                     taken: list[int]) -> tuple[int, np.ndarray | None, str]:
    """(cell, the frame's crops, "") of the new disc steady for STEADY_FRAMES frames,
    or (-1, None, why not) when the frames ran out."""
    last, steady, why = None, 0, "no frame"
    empty_looks = looks.empty_looks()
    with _without_looks(reader):
        for frame in frames:
            analysis = reader.analyse(frame)
            if analysis.grid_image is None:
                last, steady, why = None, 0, analysis.reading.reason or analysis.reading.status
                continue
            crops = cell_crops(analysis.grid_image)
            distances = np.linalg.norm(cell_features(crops) - empty_looks, axis=1)
            cell, why = _new_disc(distances, taken)
            if cell is None:
                last, steady = None, 0
                continue
            steady = steady + 1 if cell == last else 1
            last = cell
            if steady >= STEADY_FRAMES:
                return cell, crops, ""
    return -1, None, why


@contextlib.contextmanager
def _without_looks(reader: BoardReader) -> Iterator[None]:
    """Read frames as they are, without the reader's hole looks."""
    saved, reader.hole_looks = reader.hole_looks, None
    try:
        yield
    finally:
        reader.hole_looks = saved


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


def _seen_holes(analysis) -> np.ndarray:  # noqa: ANN001
    """(42,) the holes nothing stands in front of (a hand over one teaches nothing)."""
    covered = analysis.reading.cell_covered
    return np.ones(CELLS, bool) if covered is None else ~np.asarray(covered, bool)


def _both_see_a_disc(analysis) -> np.ndarray:  # noqa: ANN001
    """(42,) where both readers' most probable class is the same disc colour."""
    if analysis.cnn is None or analysis.colour is None:
        return np.zeros(CELLS, bool)
    return both_see_a_disc(analysis.cnn, analysis.colour)


def _disc_warning(disc_seen: np.ndarray) -> str:
    """The words for holes both readers took for a disc while told the board is empty."""
    holes = ", ".join(cell_name(int(cell)) for cell in np.flatnonzero(disc_seen))
    return (f"both readers saw a disc at {holes} in every frame, learnt as empty all the "
            f"same (--force); if a disc is still there, take it out and run c4pi calibrate "
            f"--force again: a disc left in would later be read as an empty hole")


def _shows_the_empty_board(analysis) -> bool:  # noqa: ANN001
    reading = analysis.reading
    if analysis.grid_image is None or analysis.cnn is None:
        return False
    if reading.status == OK and all(set(line) == {"."} for line in reading.grid or ("R",)):
        return True
    if shows_a_coloured_wall(analysis.cnn, analysis.colour):
        return True
    return stands_empty(analysis.cnn, analysis.colour) and _every_hole_seen(analysis)


def _why_not(analysis, owner_says_empty: bool = False) -> str:  # noqa: ANN001
    reading = analysis.reading
    if owner_says_empty and analysis.grid_image is not None:
        return "a hole is covered (a hand?) or not in view"
    if reading.status == OK:
        return "discs are on the board"
    return f"{reading.status}: {reading.reason}" if reading.reason else reading.status


def camera_shift_px(looks: HoleLooks, fit: BoardFit) -> float | None:
    """How far (px) the grid's corners moved since the looks were learnt; None if unknown."""
    return looks.shift_px(fit.project(GRID_CORNERS)) if fit.ok else None


def both_see_a_disc(cnn: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(42,) True where both readers' most probable class is the same disc colour."""
    cnn_labels = cnn.argmax(axis=1)
    return (cnn_labels > 0) & (cnn_labels == colour.argmax(axis=1))


def stands_empty(cnn: np.ndarray, colour: np.ndarray) -> bool:
    """The empty board, by gravity: both readers are sure (:data:`SURE_EMPTY`) that
    every hole of the bottom row is empty, and no cell is a disc to both.

    No disc can stand above an empty bottom row, so whatever one reader takes
    for a disc higher up is the room behind the board (a red wall, a yellow
    cushion). A misplaced grid over a game would show discs both readers
    agree on, and does not count.
    """
    return (bool(np.all(cnn[-WIDTH:, 0] >= SURE_EMPTY))  # cells run top row first
            and bool(np.all(colour[-WIDTH:, 0] >= SURE_EMPTY))
            and not both_see_a_disc(cnn, colour).any())


def shows_a_coloured_wall(cnn: np.ndarray, colour: np.ndarray) -> bool:
    """An empty board with the room showing a disc colour through its holes.

    Either the colour reader sees :data:`WALL_IMBALANCE` or more discs of one
    colour and none of the other, and the CNN no disc of that other colour
    (no game, even an illegal one, looks like that: it is a red or yellow
    wall, where a flat red wall may fool the CNN too); or the CNN reads every
    cell empty with at least :data:`WALL_CNN_CONFIDENCE` while a disc of the
    colour reader floats. A board of discs one reader missed looks like a
    position of both colours to the other, and does not count.
    """
    colour_labels, cnn_labels = colour.argmax(axis=1), cnn.argmax(axis=1)
    reds, yellows = int(np.sum(colour_labels == 1)), int(np.sum(colour_labels == 2))
    for seen, other, other_class in ((reds, yellows, 2), (yellows, reds, 1)):
        if seen >= WALL_IMBALANCE and other == 0 and not np.any(cnn_labels == other_class):
            return True
    return (cnn[:, 0].min() >= WALL_CNN_CONFIDENCE
            and bool(floating_discs(grid_of(colour_labels))))
