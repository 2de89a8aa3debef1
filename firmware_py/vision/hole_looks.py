"""The one model of how each hole of this installation looks: empty, with a red, with a yellow disc.

The appliance watches one board for years. What it knows of that board's
looks is held here, and only here, in one model taught only what is known
for sure:

* ``c4pi calibrate``: the owner's empty board (each frame of it, so the model
  learns how much a look strays between frames), and with ``--discs`` one
  red and one yellow disc at the holes they were dropped in (:meth:`teach`);
* every board the game confirmed (:class:`~firmware_py.pipeline.teach.LookTeacher`:
  the game went on from it by one legal move), all 42 holes in this room's
  light (:meth:`learn`); and the empty board a game starts from, when it is
  committed, its holes the readers favour empty (the first disc is seen by
  how its hole changed from the empty look).

Never a single frame's reading: a wrong board, even one shown for a moment,
cannot teach a wrong look.

Per hole and kind it keeps the mean look (:func:`~.cells.cell_features`,
12 numbers) of about the last :data:`MEMORY` times it was taught, and per
kind how far looks stray from their hole's mean (the *spread*). A kind seen
at :data:`MIN_HOLES` holes or more but never at this one has the kind's look
over the board (the mean of its holes' means), its spread widened by how
much those holes differ. The reader consults it once per frame
(:meth:`recall`, the rule of :func:`~.look_evidence.recall`): a hole that
looks as one of its known looks is read as that (a red wall seen through an
empty hole is empty); a hole unlike them all is read by the generic readers
(the colour reader told that it no longer looks empty, :meth:`empty_looks`),
weighed by how its look compares with the known kinds' looks. Looks are
compared in the same light: each frame's looks are first mapped onto the
model's by one colour map for the whole board (:meth:`light`,
:mod:`.light_map`); the model is taught the looks as seen, so it follows a
lasting change of light over about :data:`MEMORY` boards, and the map
bridges the frames between.

It also keeps when ``c4pi calibrate`` ran, where the grid's corners stood in
the frame when it last learnt (:meth:`moved`: beyond :data:`MOVED_PX` the
camera or the board moved, and the model forgets every look and gives no
opinion until it is taught again), where ``c4pi calibrate`` found the board
by its holes (:class:`StoredLattice`: the appliance starts from it, forgotten
with the looks), and this set's disc colours measured by
``calibrate --discs`` (:mod:`.disc_colours`). Bounded: 42 x 3 x 12 means and
3 x 12 spreads whatever the years; learning a board costs microseconds.
Stored as one JSON file (:meth:`save`, written whole then renamed); the two
files of earlier versions (the empty board and the learnt looks) are read
by :func:`load_hole_looks`.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from c4game.exc import VisionError
from c4game.files import write_whole
from firmware_py.json_types import JsonObject
from firmware_py.vision.disc_colours import COLOURS, DiscColour
from firmware_py.vision.light_map import LightMap, light_map
from firmware_py.vision.look_evidence import FEATURES, recall

CELLS = 42
KINDS = 3  # empty, red, yellow (classifier.CLASSES)
MEMORY = 8  # teachings: a hole's look follows about its last 8
MIN_HOLES = 3  # holes a kind must have been seen at to have a look over the board
FIRST_SPREAD = 25.0  # Lab units squared: the spread before any look was seen twice
MOVED_PX = 10.0  # the grid's corners moved more than this: the camera or board was moved
SAME_LATTICE_PX = 0.5  # px: a board read through the stored lattice has its very corners
FORMAT = "c4pi-hole-looks-1"
EARLIER_EMPTY = ("empty-board.json", "c4pi-empty-board-1")  # file name, format (to 2026-11)
EARLIER_LOOKS = ("board-looks.json", "c4pi-board-looks-1")
KIND_OF = {".": 0, "R": 1, "Y": 2}
EMPTY_GRID = ("." * 7,) * 6
FACE_POINTS = 56  # colours of the face stored with a lattice (hole_locator.FACE_POINTS)


@dataclass(frozen=True)
class StoredLattice:
    """Where ``c4pi calibrate`` found the board by its holes, all of it from one frame:
    the lattice (3 x 3, lattice -> frame px, :class:`~.holes.Lattice`), the grid's
    corners it puts in the frame, and what its points showed in that frame
    (:class:`~.hole_locator.View`: the face's colours and each hole's contrast with
    it, NaN past the frame's edge)."""

    lattice_to_image: np.ndarray  # (3, 3)
    grid_corners: np.ndarray  # (4, 2) frame px of the grid's corners through it
    face: np.ndarray  # (FACE_POINTS, 3)
    hole_contrast: np.ndarray  # (42,)

    def to_dict(self) -> JsonObject:
        """JSON-ready (a NaN contrast as null)."""
        contrast = [None if np.isnan(value) else round(float(value), 1)
                    for value in self.hole_contrast]
        return {"lattice_to_image": self.lattice_to_image.tolist(),
                "grid_corners": self.grid_corners.tolist(),
                "face": np.round(self.face, 1).tolist(), "hole_contrast": contrast}

    @classmethod
    def from_dict(cls, data: object) -> StoredLattice:
        """Read :meth:`to_dict`'s form; :class:`ValueError` names the bad key."""
        if not isinstance(data, dict):
            raise ValueError(f"lattice must be an object, got {str(data)[:20]}")
        raw = data.get("hole_contrast")
        if not isinstance(raw, list) or len(raw) != CELLS:
            raise ValueError(f"lattice.hole_contrast must be {CELLS} finite numbers or nulls")
        contrast = _finite([0.0 if value is None else value for value in raw], (CELLS,),
                           "lattice.hole_contrast", nulls=" or nulls")
        contrast[[value is None for value in raw]] = np.nan
        return cls(_finite(data.get("lattice_to_image"), (3, 3), "lattice.lattice_to_image"),
                   _finite(data.get("grid_corners"), (4, 2), "lattice.grid_corners"),
                   _finite(data.get("face"), (FACE_POINTS, 3), "lattice.face"), contrast)

    def used_at(self, grid_corners: np.ndarray) -> bool:
        """Whether a board seen with its grid at ``grid_corners`` was read through this
        lattice (a kept lattice is reused exactly; another one was found since)."""
        corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
        return float(np.abs(corners - self.grid_corners).max()) <= SAME_LATTICE_PX


class HoleLooks:
    """This installation's look of each hole and kind (see the module docstring)."""

    def __init__(self) -> None:
        self._reset()
        self.discs: dict[str, DiscColour] = {}  # "R", "Y": calibrated disc colours, if any

    def _reset(self) -> None:
        self.means = np.zeros((CELLS, KINDS, FEATURES))
        self.counts = np.zeros((CELLS, KINDS))  # looks taught, at most MEMORY
        self.squares = np.zeros((KINDS, FEATURES))  # summed squared strays from hole means
        self.strays = np.zeros(KINDS)  # how many looks those sums hold
        self.boards = 0  # confirmed boards learnt
        self.learnt_at = ""  # ISO 8601 UTC time of the latest, "" if never
        self.calibrated_at = ""  # ISO 8601 UTC time of `c4pi calibrate`, "" if never
        self.grid_corners: np.ndarray | None = None  # (4, 2) frame px of the grid then
        self.lattice: StoredLattice | None = None  # where `c4pi calibrate` found the holes

    # ------------------------------------------------------------------ teaching
    def learn(self, features: np.ndarray, grid: Sequence[str], *,
              covered: np.ndarray | None = None, grid_corners: np.ndarray | None = None,
              when: str = "") -> None:
        """Learn one confirmed board: ``grid`` (6 lines, top first) and its holes'
        ``features`` (42, 12); ``covered`` holes (a hand in front) teach nothing."""
        taught = np.ones(CELLS, bool) if covered is None else ~np.asarray(covered, bool)
        self.teach(features, kinds_of(grid), taught, grid_corners)
        self.boards += 1
        self.learnt_at = when or self.learnt_at

    def teach(self, features: np.ndarray, kinds: np.ndarray, cells: np.ndarray,
              grid_corners: np.ndarray | None = None) -> None:
        """Teach the looks ``features`` (42, 12) of ``cells`` (42 bools), holding
        ``kinds`` (42 ints 0-2). A grid standing elsewhere in the frame than the
        learnt one's (``grid_corners``) makes it forget first (the camera moved)."""
        features = _checked(features)
        if grid_corners is not None and self.moved(grid_corners):
            self.forget()
        if grid_corners is not None and self.lattice is not None \
                and not self.lattice.used_at(grid_corners):
            self.lattice = None  # the finder has found the board elsewhere since
        cells = np.flatnonzero(np.asarray(cells, bool))
        kind = np.asarray(kinds)[cells]
        count = self.counts[cells, kind]
        seen = count > 0
        stray = features[cells] - self.means[cells, kind]
        np.add.at(self.squares, kind[seen], stray[seen] ** 2)
        np.add.at(self.strays, kind[seen], 1.0)
        rate = 1.0 / np.minimum(count + 1, MEMORY)
        self.means[cells, kind] += rate[:, None] * stray
        self.counts[cells, kind] = np.minimum(count + 1, MEMORY)
        if grid_corners is not None:
            corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
            self.grid_corners = corners if self.grid_corners is None else (
                self.grid_corners + (corners - self.grid_corners) / MEMORY)

    def forget_empty(self) -> None:
        """Start each hole's empty look afresh at its next teaching (a calibration
        replaces the empty looks learnt before; the disc looks stay)."""
        self.counts[:, 0] = 0

    def forget(self) -> None:
        """Forget every look learnt (``c4pi calibrate --force``, a moved camera); the
        calibrated disc colours stay (they belong to the discs, not the view)."""
        self._reset()

    # ------------------------------------------------------------------ consulting
    @property
    def knows_anything(self) -> bool:
        """Whether any hole's look of any kind was taught."""
        return bool(self.counts.any())

    def moved(self, grid_corners: np.ndarray) -> bool:
        """True when the grid stands over :data:`MOVED_PX` from where it was learnt."""
        return (self.shift_px(grid_corners) or 0.0) > MOVED_PX

    def shift_px(self, grid_corners: np.ndarray) -> float | None:
        """How far (px) the grid's corners stand from where they were learnt; None if
        unknown."""
        if self.grid_corners is None:
            return None
        corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
        return float(np.linalg.norm(corners - self.grid_corners, axis=1).max())

    def _silent(self, grid_corners: np.ndarray | None) -> bool:
        """Whether the model has no opinion: nothing learnt, or the grid moved."""
        return not self.knows_anything or (grid_corners is not None
                                           and self.moved(grid_corners))

    def light(self, features: np.ndarray, *, covered: np.ndarray | None = None,
              grid_corners: np.ndarray | None = None) -> LightMap:
        """This frame's light against the learnt looks' (:mod:`.light_map`): each hole
        paired with the look it was taught that its look is nearest to, covered holes
        left out. No change (the identity) while nothing is learnt or the grid moved."""
        if self._silent(grid_corners):
            return LightMap()
        features = _checked(features)
        taught: np.ndarray = self.counts > 0
        distance = np.where(taught, ((features[:, None, :] - self.means) ** 2).sum(axis=2),
                            np.inf)
        nearest = self.means[np.arange(CELLS), distance.argmin(axis=1)]
        known = np.any(taught, axis=1, keepdims=True)
        reference = np.where(known, nearest, np.nan)
        usable = None if covered is None else ~np.asarray(covered, bool)
        return light_map(features, reference, usable)

    def recall(self, log_probs: np.ndarray, features: np.ndarray, *,
               covered: np.ndarray | None = None,
               grid_corners: np.ndarray | None = None,
               light: LightMap | None = None) -> np.ndarray:
        """(42, 3) log-probabilities: the readers' ``log_probs`` (weighed by the known
        looks) where a hole looks unfamiliar, what it held where it looks as a known
        look (:func:`~.look_evidence.recall`), the looks compared in the model's light
        (``light``: :meth:`light`, the identity when not given). Unchanged where the
        model has no opinion: nothing learnt, a covered hole, a moved grid."""
        features = _checked(features)
        if self._silent(grid_corners):
            return np.asarray(log_probs, np.float64)
        means, variances, known = self._looks()
        if covered is not None:
            known = known & ~np.asarray(covered, bool)[:, None]
        if light is not None:
            features = light.to_model(features)
        return recall(log_probs, features, means, variances, known)

    def empty_looks(self, grid_corners: np.ndarray | None = None,
                    light: LightMap | None = None) -> np.ndarray:
        """(42, 12) each hole's known empty look, in this frame's ``light`` when given
        (:meth:`light`), NaN where none (or the grid moved)."""
        looks = np.where(self.counts[:, 0:1] > 0, self.means[:, 0], np.nan)
        if grid_corners is not None and self.moved(grid_corners):
            looks[:] = np.nan
        return looks if light is None else light.to_frame(looks)

    def _looks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per hole and kind: the mean, the variance and whether the look is known."""
        spread = np.where(self.strays[:, None] > 0,
                          self.squares / np.maximum(self.strays[:, None], 1.0), FIRST_SPREAD)
        at_hole = self.counts > 0  # (42, 3)
        holes = at_hole.sum(axis=0)  # (3,)
        means = self.means.copy()
        variances = np.broadcast_to(spread, (CELLS, KINDS, FEATURES)).copy()
        for kind in np.flatnonzero(holes >= MIN_HOLES):
            seen = self.means[at_hole[:, kind], kind]
            board_mean, board_var = seen.mean(axis=0), seen.var(axis=0)
            unseen = ~at_hole[:, kind]
            means[unseen, kind] = board_mean
            variances[unseen, kind] = spread[kind] + board_var
        known = at_hole | (holes >= MIN_HOLES)[None, :]
        return means, variances, known

    def summary(self) -> str:
        """One line for ``c4pi selftest`` and the screen: what was learnt and when."""
        calibrated = f"calibrated {self.calibrated_at}; " if self.calibrated_at else ""
        if self.lattice is not None:
            calibrated += "the board's lattice of holes stored; "
        if not self.knows_anything:
            return f"{calibrated}no board learnt yet"
        holes = (self.counts > 0).sum(axis=0)
        return (f"{calibrated}{self.boards} confirmed boards learnt (latest "
                f"{self.learnt_at or '-'}); holes seen empty {holes[0]}, red {holes[1]}, "
                f"yellow {holes[2]} of {CELLS}")

    # ------------------------------------------------------------------ storage
    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` (JSON, :func:`~c4game.files.write_whole`)."""
        data = {"format": FORMAT, "boards": self.boards, "learnt_at": self.learnt_at,
                "calibrated_at": self.calibrated_at,
                "means": np.round(self.means, 3).tolist(), "counts": self.counts.tolist(),
                "squares": np.round(self.squares, 3).tolist(), "strays": self.strays.tolist(),
                "grid_corners": (None if self.grid_corners is None
                                 else np.round(self.grid_corners, 2).tolist()),
                "lattice": None if self.lattice is None else self.lattice.to_dict(),
                "discs": {key: colour.to_dict() for key, colour in self.discs.items()}}
        write_whole(path, (json.dumps(data) + "\n").encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> HoleLooks:
        """Read a model written by :meth:`save`; :class:`VisionError` names a bad file."""
        looks = cls()

        def fill(data: JsonObject) -> None:
            _read_looks(looks, data)
            looks.calibrated_at = _text(data.get("calibrated_at"), "calibrated_at")
            looks.discs = _discs(data.get("discs") or {})

        _read_file(Path(path), FORMAT, fill)
        return looks


def _read_looks(looks: HoleLooks, data: JsonObject) -> None:
    """The learnt looks of ``data`` (this format's, or the earlier learnt looks file's)."""
    looks.means = _finite(data["means"], (CELLS, KINDS, FEATURES), "means")
    looks.counts = _finite(data["counts"], (CELLS, KINDS), "counts")
    looks.squares = _finite(data["squares"], (KINDS, FEATURES), "squares")
    looks.strays = _finite(data["strays"], (KINDS,), "strays")
    if (looks.counts < 0).any() or (looks.counts > MEMORY).any() or (
            looks.strays < 0).any() or (looks.squares < 0).any():
        raise ValueError("counts, strays and squares must be within their ranges")
    boards = data["boards"]
    if isinstance(boards, bool) or not isinstance(boards, int) or boards < 0:
        raise ValueError(f"boards must be a whole number >= 0, got {str(boards)[:20]}")
    looks.boards = boards
    looks.learnt_at = _text(data.get("learnt_at"), "learnt_at")
    corners = data.get("grid_corners")
    if corners is not None:
        looks.grid_corners = _finite(corners, (4, 2), "grid_corners")
    lattice = data.get("lattice")
    if lattice is not None:
        looks.lattice = StoredLattice.from_dict(lattice)


def load_hole_looks(path: str | Path) -> HoleLooks | None:
    """The model stored at ``path``; where there is none, the two files earlier
    versions kept beside it (the empty board ``c4pi calibrate`` took and the learnt
    looks) made into one; None when there is neither. :class:`VisionError` names a
    bad file."""
    path = Path(path)
    _check_kind(path)
    if path.is_file():
        if _format(path) != EARLIER_EMPTY[1]:
            return HoleLooks.load(path)
        return _from_earlier(path, path.with_name(EARLIER_LOOKS[0]))
    empty, looks = path.with_name(EARLIER_EMPTY[0]), path.with_name(EARLIER_LOOKS[0])
    if empty.is_file() or looks.is_file():
        return _from_earlier(empty, looks)
    return None


def _check_kind(path: Path) -> None:
    """:class:`VisionError` where ``path`` can never hold the model: a folder, a device,
    a loop of links (a link to a file not yet made is fine: calibrate makes it)."""
    try:
        path.stat()
    except FileNotFoundError:
        return
    except OSError as error:
        reason = "a loop of links" if error.errno == errno.ELOOP else error.strerror
        raise VisionError(f"cannot read the hole looks {path}: {reason}") from None
    if not path.is_file():
        raise VisionError(f"cannot read the hole looks {path}: not a regular file")


def _format(path: Path) -> object:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None  # HoleLooks.load names what is wrong with it
    return data.get("format") if isinstance(data, dict) else None


def _from_earlier(empty_path: Path, looks_path: Path) -> HoleLooks:
    """One model from an earlier version's empty board and learnt looks files."""
    looks = HoleLooks()
    for path, (_, expected) in ((looks_path, EARLIER_LOOKS), (empty_path, EARLIER_EMPTY)):
        if not path.is_file():
            continue
        read = _read_looks if expected == EARLIER_LOOKS[1] else _read_empty_board
        _read_file(path, expected, functools.partial(read, looks))
    return looks


def _read_file(path: Path, expected: str, fill: Callable[[JsonObject], None]) -> None:
    """``fill`` with the JSON object of ``path``, whose format must be ``expected``;
    :class:`VisionError` names a bad file and what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != expected:
            raise ValueError(f"format is not {expected!r}")
        fill(data)
    except KeyError as error:
        raise VisionError(f"cannot read the hole looks {path}: no {error} key") from None
    except RecursionError:
        raise VisionError(f"cannot read the hole looks {path}: nested too deep") from None
    except (OSError, ValueError, TypeError, AttributeError, OverflowError) as error:
        raise VisionError(f"cannot read the hole looks {path}: {error}") from None


def _read_empty_board(looks: HoleLooks, data: JsonObject) -> None:
    """An earlier version's empty board: its holes' empty looks where the model has
    none (unless taken in another view than the learnt looks'), when it was
    calibrated, where the grid stood and the disc colours."""
    features = _finite(data["features"], (CELLS, FEATURES), "features")
    corners = data.get("grid_corners")
    corners = None if corners is None else _finite(corners, (4, 2), "grid_corners")
    looks.discs = _discs(data.get("discs") or {})
    if corners is not None and looks.moved(corners):
        return  # calibrated in an earlier view: the learnt looks are of this one
    known = np.array(data["known"], bool).reshape(CELLS) & (looks.counts[:, 0] == 0)
    looks.means[known, 0] = features[known]
    looks.counts[known, 0] = 1
    looks.calibrated_at = _text(data.get("calibrated_at"), "calibrated_at")
    if looks.grid_corners is None:
        looks.grid_corners = corners


def kinds_of(grid: Sequence[str]) -> np.ndarray:
    """(42,) kind of each hole of ``grid`` (6 lines of ``.RY``, top first): 0, 1, 2."""
    cells = "".join(grid)
    if len(cells) != CELLS or set(cells) - set(KIND_OF):
        raise ValueError(f"expected 6 lines of 7 of '.RY', got {list(grid)!r}")
    return np.array([KIND_OF[cell] for cell in cells])


def _checked(features: np.ndarray) -> np.ndarray:
    features = np.asarray(features, np.float64)
    if features.shape != (CELLS, FEATURES) or not np.isfinite(features).all():
        raise ValueError(f"expected finite hole looks of shape ({CELLS}, {FEATURES}), "
                         f"got {features.shape}")
    return features


def _finite(value: object, shape: tuple[int, ...], name: str, nulls: str = "") -> np.ndarray:
    array = np.full(0, np.nan)  # not numbers: said below with the key's name
    if _only_numbers(value):
        with contextlib.suppress(ValueError, TypeError, OverflowError):  # e.g. 10 ** 400
            array = np.array(value, np.float64)
    if array.shape != shape or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite numbers{nulls} of shape {shape}")
    return array


def _only_numbers(value: object) -> bool:
    """Whether ``value`` is a number or nested lists of numbers (JSON's true, false and
    text are none)."""
    if isinstance(value, list):
        return all(_only_numbers(item) for item in value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _discs(data: object) -> dict[str, DiscColour]:
    if not isinstance(data, dict) or not set(data) <= set(COLOURS):
        raise ValueError(f"discs must map 'R' and 'Y' to disc colours, got {data!r}")
    return {key: DiscColour.from_dict(value) for key, value in data.items()}


def _text(value: object, name: str) -> str:
    """``value`` as text (None: ""), else :class:`ValueError` naming ``name``."""
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} must be a date and time in text, got {str(value)[:20]}")
    return value or ""
