"""The lattice found by its holes, kept between frames and checked each frame.

The camera of an installation rarely moves, so a lattice found
(:func:`~firmware_py.vision.holes.find_lattice`, tens of milliseconds) is kept.
Each frame checks it cheaply: the colours of the board's face midway between
four holes, inside the grid and along its four edges (:data:`FACE_POINTS`:
discs come and go in the holes, the face stays), are compared with those of
the frame it was found in, after one exposure gain (:func:`same_view`). Each
edge must still match: a board moved by one pitch shows the room where one
edge of face stood. Where its face reaches more than a pitch past the holes
that edge still shows face, and the holes tell instead: the outer holes that
stood out from the face around them when the lattice was found must not now
look like that face (a board moved by one pitch puts face where a row or a
column of holes was). When they no longer match (the camera or the board moved,
the board was taken away, or a hand covers it) the lattice is looked for
again at once; until it is confirmed or found anew the board is "not found",
never read through a stale lattice (a hand that covers the board and leaves
it leaves the lattice as it was). While the frames go on not matching, the
next find is made :data:`RETRY_FRAMES` frames after the last (a hand moving
over the board costs a find twice a second, not every frame). A find after
a change that confirms the kept lattice (within :data:`STILL_PITCH`) keeps
the view it was found with and also accepts what this frame shows (the
"lately" view: the hand where it is, a lamp switched on), so the frames
that show either are read without another find, and the frame after the
hand leaves is read at once; the first frame that shows the view it was
found with again forgets the "lately" view (a view with a hand in it
cannot testify for the holes the hand covers: kept, it would later pass a
board slid by one pitch under a hand in the same place). A confirmed
lattice is found again every :data:`REFIND_FRAMES` frames: a sure one that
lies within :data:`STILL_PITCH` of it keeps the kept lattice (the holes'
learnt looks stay where they were) with this frame's view as its own, one
farther replaces it.

A fixed installation starts from where ``c4pi calibrate`` found its board
(:class:`~.hole_looks.StoredLattice`: the lattice and what its points showed
in that one frame, :meth:`HoleLocator.start_from`). The first frame finds
the lattice afresh as well: a sure find within :data:`STILL_PITCH` keeps the
stored lattice, one farther replaces it (the camera moved while the
appliance was off); when that find is not sure (a full board, a dark board)
the stored lattice is read through only while its points show what they
showed at calibration, as any kept lattice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.fit import BoardFit, grid_problem
from firmware_py.vision.geometry import GRID_CORNERS
from firmware_py.vision.hole_looks import StoredLattice
from firmware_py.vision.holes import HOLE_POINTS, Lattice, find_lattice

REFIND_FRAMES = 50  # a kept lattice is found again this often (about every 5 s at 10 fps)
RETRY_FRAMES = 5  # while the kept view is not seen, finds are this many frames apart
MIN_SAME = 0.75  # share of the face points of each part (inside, each edge) that must match
FACE_TOLERANCE = 30.0  # grey levels a face point's colour may move (after the gain)
GAIN_RANGE = (0.5, 2.0)  # exposure change taken as the same view
# a lattice found again this close (every hole, in pitches) is the kept one: above the
# finder's own jitter on a still view (at most 0.09 pitch: docs/vision.md)
STILL_PITCH = 0.15
HOLE_AS_FACE = 10.0  # grey levels (after the gain) within which a hole looks like its face
HOLES_AS_FACE = 0.5  # share of an edge's outer holes looking like face that fails the edge
# lattice points (i, j) midway between four holes: the face, inside the grid and along
# its edges (half a pitch past the outer holes' centres)
FACE_POINTS = np.array([(i + 0.5, j + 0.5) for j in range(-1, HEIGHT) for i in range(-1, WIDTH)])
_I, _J = FACE_POINTS[:, 0], FACE_POINTS[:, 1]
FACE_PARTS = (  # inside, top, bottom, left and right edges
    (_I > 0) & (_I < WIDTH - 1) & (_J > 0) & (_J < HEIGHT - 1),
    _J < 0, _J > HEIGHT - 1, _I < 0, _I > WIDTH - 1)
_HI, _HJ = HOLE_POINTS[:, 0], HOLE_POINTS[:, 1]
HOLE_EDGES = (_HJ == 0, _HJ == HEIGHT - 1, _HI == 0, _HI == WIDTH - 1)  # the outer holes
# (42, 56): the four face points around each hole
_AROUND = ((np.abs(_I[None, :] - _HI[:, None]) == 0.5)
           & (np.abs(_J[None, :] - _HJ[:, None]) == 0.5))


@dataclass(frozen=True)
class View:
    """What a lattice's points show in one frame."""

    face: np.ndarray  # (56, 3) colours at FACE_POINTS (black past the frame's edge)
    hole_contrast: np.ndarray  # (42,) each hole from the face around it; NaN past the edge


@dataclass(frozen=True)
class _Kept:
    lattice: Lattice
    view: View  # what its points showed when it was found (or found again on schedule)
    fit: BoardFit  # the lattice as the reader's board fit (the same every frame)
    # what they showed in the frame of a find after a change that confirmed the lattice
    # (a hand where it is, a lamp on); forgotten once a frame shows ``view`` again
    lately: View | None = None

    def shows(self, now: View) -> tuple[bool, bool]:
        """Whether ``now`` is what the lattice's points showed when found, and whether it
        is what they showed lately."""
        if same_view(now, self.view):
            return True, False
        return False, self.lately is not None and same_view(now, self.lately)


class HoleLocator:
    """Finds the board by its holes and keeps what it found (see the module docstring);
    ``find`` is :func:`find_lattice` (tests pass another)."""

    def __init__(self, find: Callable[[np.ndarray], Lattice] = find_lattice, *,
                 refind_frames: int = REFIND_FRAMES) -> None:
        self.find = find
        self.refind_frames = refind_frames
        self._kept: _Kept | None = None
        self._age = 0  # frames since the last find
        self._failed = False  # the last find found no sure lattice
        self._why = "the holes were not looked for yet"
        self._start: StoredLattice | None = None  # kept from the next frame on
        self._changed = False  # the frame before did not show the kept lattice's view

    def start_from(self, stored: StoredLattice) -> None:
        """Start from ``stored`` (see the module docstring): kept from the next frame, which
        also finds the lattice afresh."""
        self._kept, self._start = None, stored

    def stored(self, frame: np.ndarray) -> StoredLattice | None:
        """The kept lattice and what its points show in ``frame`` (what ``c4pi calibrate``
        stores); None when none is kept."""
        if self._kept is None:
            return None
        lattice = self._kept.lattice
        assert lattice.lattice_to_image is not None
        view = view_at(frame, lattice)
        return StoredLattice(np.array(lattice.lattice_to_image, np.float64),
                             self._kept.fit.project(GRID_CORNERS), view.face, view.hole_contrast)

    def locate(self, frame: np.ndarray) -> BoardFit:
        """The board plane of ``frame`` (BGR) from its hole lattice."""
        self._age += 1
        if self._start is not None:
            self._kept, self._age = self._from_stored(self._start, frame), self.refind_frames
            self._start = None
        kept = self._kept
        as_found, as_lately = kept.shows(view_at(frame, kept.lattice)) if kept else (False, False)
        if as_found and kept is not None and kept.lately is not None:
            kept = self._kept = replace(kept, lately=None)  # the hand gone: forget its view
        same = as_found or as_lately
        first_change = kept is not None and not self._changed
        self._changed = kept is not None and not same  # stays so after a find it makes
        due = (self._age >= self.refind_frames if same
               else first_change or (kept is None and not self._failed)
               or self._age >= RETRY_FRAMES)
        if due:
            found = self._refind(frame, on_schedule=as_found)
            if found is not None:
                kept, same = found, True
        if kept is not None and same:
            return kept.fit
        if kept is not None:
            return BoardFit(False, "the view changed since the holes were found (a hand over "
                            "the board, or the camera moved): finding them again",
                            found_by="holes")
        why = self._why if due else f"{self._why} (looked for every {RETRY_FRAMES} frames)"
        return BoardFit(False, why, found_by="holes")

    @staticmethod
    def _from_stored(stored: StoredLattice, frame: np.ndarray) -> _Kept:
        lattice = Lattice(True, lattice_to_image=np.asarray(stored.lattice_to_image))
        return _Kept(lattice, View(np.asarray(stored.face), np.asarray(stored.hole_contrast)),
                     as_board_fit(lattice, (frame.shape[1], frame.shape[0])))

    def _refind(self, frame: np.ndarray, *, on_schedule: bool = False) -> _Kept | None:
        """A fresh find: kept when it is sure (None when it is not). The same lattice
        found after a change (``on_schedule`` False: a hand, the light) keeps the view
        it was found with, and also takes this frame's as what it showed lately."""
        self._age = 0
        lattice = self.find(frame)
        self._failed = not lattice.ok
        if not lattice.ok:
            self._why = f"no sure lattice of holes: {lattice.reason}"
            return None
        kept = self._kept
        if kept is not None and _moved_pitch(kept.lattice, lattice) <= STILL_PITCH:
            if not on_schedule:
                self._kept = replace(kept, lately=view_at(frame, kept.lattice))
                return self._kept
            lattice = kept.lattice  # the same lattice: the holes' looks stay where they were
        self._kept = _Kept(lattice, view_at(frame, lattice),
                           as_board_fit(lattice, (frame.shape[1], frame.shape[0])))
        return self._kept


def as_board_fit(lattice: Lattice, frame_size: tuple[int, int]) -> BoardFit:
    """A sure lattice as the reader's board fit (refused when its grid cannot be read)."""
    fit = BoardFit(True, plane_to_image=lattice.plane_to_image(), found_by="holes",
                   reprojection_px=0.0)
    problem = grid_problem(fit, frame_size)
    return BoardFit(False, problem, fit.plane_to_image, found_by="holes") if problem else fit


def view_at(frame: np.ndarray, lattice: Lattice) -> View:
    """What ``frame`` (BGR) shows at the lattice's face points and holes (bilinear)."""
    assert lattice.lattice_to_image is not None
    points = np.concatenate([FACE_POINTS, HOLE_POINTS])
    image = cv2.perspectiveTransform(points.reshape(1, -1, 2), lattice.lattice_to_image)
    maps = image.astype(np.float32)
    values = cv2.remap(frame, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    colours = values.reshape(-1, 3).astype(np.float64)
    height, width = frame.shape[:2]
    xy = image.reshape(-1, 2)
    inside = (xy[:, 0] >= 0) & (xy[:, 0] <= width - 1) & (xy[:, 1] >= 0) & (xy[:, 1] <= height - 1)
    face, holes = colours[:len(FACE_POINTS)], colours[len(FACE_POINTS):]
    around = _AROUND & inside[None, :len(FACE_POINTS)]
    counts = around.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        face_around = (around @ face) / counts[:, None]
    contrast = np.abs(holes - face_around).max(axis=1)
    contrast[(counts == 0) | ~inside[len(FACE_POINTS):]] = np.nan
    return View(face, contrast)


def _moved_pitch(kept: Lattice, found: Lattice) -> float:
    """How far the found lattice's holes lie from the kept one's, at most, in pitches."""
    centres = kept.hole_centres()
    pitch = float(np.median(np.linalg.norm(np.diff(centres.reshape(HEIGHT, WIDTH, 2),
                                                    axis=1), axis=2)))
    return float(np.linalg.norm(found.hole_centres() - centres, axis=1).max()) / pitch


def same_view(now: View, kept: View) -> bool:
    """Whether the lattice's points still show the kept view: after one exposure gain,
    at least :data:`MIN_SAME` of the face points inside and of each edge within
    :data:`FACE_TOLERANCE`, and on no edge :data:`HOLES_AS_FACE` or more of the outer
    holes that stood out from their face (by :data:`FACE_TOLERANCE`) now within
    :data:`HOLE_AS_FACE` of it (at least two such holes; an edge with fewer is not
    asked)."""
    gains = (now.face.mean(axis=1) + 1.0) / (kept.face.mean(axis=1) + 1.0)
    gain = float(np.median(gains))
    if not GAIN_RANGE[0] <= gain <= GAIN_RANGE[1]:
        return False
    matches = np.abs(now.face - gain * kept.face).max(axis=1) <= FACE_TOLERANCE
    if not all(matches[part].mean() >= MIN_SAME for part in FACE_PARTS):
        return False
    stood_out = kept.hole_contrast > FACE_TOLERANCE  # NaN (past the edge): False
    for edge in HOLE_EDGES:
        asked = edge & stood_out & ~np.isnan(now.hole_contrast)
        if asked.sum() >= 2 and (now.hole_contrast[asked] <= HOLE_AS_FACE * gain).mean() \
                >= HOLES_AS_FACE:
            return False
    return True
