"""What each cell of this installation's board looks like empty.

Through an empty hole the camera sees whatever stands behind the board: a
red wall, a yellow cushion, spare discs. In one frame that can look like a
disc; a person settles it by remembering the empty board. The appliance sees
each game start on an empty board, so it can do the same:

* :meth:`EmptyBoard.learn` stores the cells' appearance from a frame read
  as the empty board (:func:`~firmware_py.vision.reader.remember`);
* :meth:`EmptyBoard.refresh` follows slow changes (light, a moved camera)
  from cells read empty with confidence, by an exponential moving average;
* :meth:`EmptyBoard.adjust` turns a reader's probabilities for a cell that
  still looks as it looked empty (closer than :data:`SAME_DISTANCE`) into
  "empty" (both readers': a flat red wall can fool the CNN as well). A disc
  looks like the room behind it only in front of a wall of its own colour;
  a disc missed so lower in a column leaves discs floating, and the rules
  reject it, but a missed disc on top of its column, of the colour that
  moved last, leaves a legal, wrong board (a known gap, ``docs/vision.md``);
* :meth:`EmptyBoard.save` / :meth:`EmptyBoard.load` keep it on disk (JSON),
  with when ``c4pi calibrate`` took it, where the grid's corners were in
  the frame then (to tell later whether the camera moved) and, after
  ``c4pi calibrate --discs``, this set's disc colours
  (:mod:`~firmware_py.vision.disc_colours`).

A cell's appearance (:func:`cell_features`) is the mean CIE Lab colour of four
concentric rings of its colour-normalised crop (centre, disc body, disc rim,
hole edge): 12 numbers, compared by Euclidean distance.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np

from c4game.exc import VisionError
from firmware_py.vision.disc_colours import COLOURS, DiscColour

CELLS = 42
FEATURES = 12
FEATURE_SIDE = 32
RING_EDGES = (5.0, 9.0, 13.0)  # ring radii in px of the 32 x 32 crop
SAME_DISTANCE = 12.0  # Lab units: closer than this to its empty look -> still empty
REFRESH_RATE = 0.2
FORMAT = "c4pi-empty-board-1"


@functools.cache
def _ring_weights() -> np.ndarray:
    """(S*S, 4) weights: column r averages the pixels of ring r."""
    centre = (FEATURE_SIDE - 1) / 2
    yy, xx = np.mgrid[0:FEATURE_SIDE, 0:FEATURE_SIDE]
    radius = np.hypot(yy - centre, xx - centre).ravel()
    edges = (0.0, *RING_EDGES, np.inf)
    rings = np.stack([(radius >= lo) & (radius < hi)
                      for lo, hi in zip(edges, edges[1:], strict=False)], axis=1)
    return (rings / rings.sum(axis=0)).astype(np.float32)


def cell_features(crops: np.ndarray) -> np.ndarray:
    """(N, 12) mean Lab colour of four rings of each BGR crop (N, S, S, 3) uint8."""
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise ValueError(f"expected (N, S, S, 3) uint8 crops, got {crops.shape} {crops.dtype}")
    if crops.shape[1:3] != (FEATURE_SIDE, FEATURE_SIDE):
        crops = np.array([cv2.resize(crop, (FEATURE_SIDE, FEATURE_SIDE),
                                     interpolation=cv2.INTER_AREA) for crop in crops])
    count = len(crops)
    lab = cv2.cvtColor(crops.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
    channels = lab.reshape(count, FEATURE_SIDE * FEATURE_SIDE, 3).transpose(0, 2, 1)
    rings = channels.reshape(count * 3, -1).astype(np.float32) @ _ring_weights()
    return rings.reshape(count, 3, -1).transpose(0, 2, 1).reshape(count, -1)


class EmptyBoard:
    """Per-cell empty appearance of one installation (see the module docstring)."""

    def __init__(self) -> None:
        self.features = np.zeros((CELLS, FEATURES), np.float64)
        self.known = np.zeros(CELLS, bool)
        self.calibrated_at = ""  # ISO 8601 UTC time of `c4pi calibrate`, "" if never
        self.grid_corners: np.ndarray | None = None  # (4, 2) frame px of the grid then
        self.discs: dict[str, DiscColour] = {}  # "R", "Y": calibrated disc colours, if any

    def learn(self, features: np.ndarray, cells: np.ndarray | None = None) -> None:
        """Take the appearance of ``cells`` (42 bools; default: every cell) from a
        frame of the empty board; other cells keep what they had."""
        features = _checked(features)
        cells = np.ones(CELLS, bool) if cells is None else np.asarray(cells, bool)
        self.features[cells] = features[cells]
        self.known |= cells

    def refresh(self, features: np.ndarray, empty_cells: np.ndarray) -> None:
        """Move known cells read empty towards their new look; learn unknown ones."""
        features = _checked(features)
        cells = np.asarray(empty_cells, bool)
        old = cells & self.known
        self.features[old] += REFRESH_RATE * (features[old] - self.features[old])
        new = cells & ~self.known
        self.features[new] = features[new]
        self.known |= cells

    def distances(self, features: np.ndarray) -> np.ndarray:
        """(42,) Lab distance of each cell from its empty look (inf where unknown)."""
        gaps = np.linalg.norm(_checked(features) - self.features, axis=1)
        return np.where(self.known, gaps, np.inf)

    def adjust(self, probabilities: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Colour-reader probabilities (42, 3) corrected by the empty look."""
        result = np.array(probabilities, np.float64, copy=True)
        distance = self.distances(features)
        result[distance < SAME_DISTANCE] = (0.96, 0.02, 0.02)
        return result

    def save(self, path: str | Path) -> None:
        """Write the empty look to ``path`` (JSON)."""
        data = {"format": FORMAT, "known": self.known.tolist(),
                "features": np.round(self.features, 3).tolist(),
                "calibrated_at": self.calibrated_at,
                "grid_corners": (None if self.grid_corners is None
                                 else np.round(self.grid_corners, 2).tolist()),
                "discs": {key: colour.to_dict() for key, colour in self.discs.items()}}
        Path(path).write_text(json.dumps(data) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> EmptyBoard:
        """Read an empty look written by :meth:`save`; VisionError names a bad file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, expected {FORMAT!r}")
            board = cls()
            board.features = _checked(np.array(data["features"], np.float64))
            board.known = np.array(data["known"], bool).reshape(CELLS)
            board.calibrated_at = str(data.get("calibrated_at") or "")
            corners = data.get("grid_corners")
            if corners is not None:
                board.grid_corners = np.array(corners, np.float64).reshape(4, 2)
            board.discs = _discs(data.get("discs") or {})
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise VisionError(f"cannot read the empty board file {path}: {error}") from None
        return board


def _checked(features: np.ndarray) -> np.ndarray:
    features = np.asarray(features, np.float64)
    if features.shape != (CELLS, FEATURES) or not np.isfinite(features).all():
        raise ValueError(f"expected finite cell features of shape ({CELLS}, {FEATURES}), "
                         f"got {features.shape}")
    return features


def _discs(data: object) -> dict[str, DiscColour]:
    if not isinstance(data, dict) or not set(data) <= set(COLOURS):
        raise ValueError(f"discs must map 'R' and 'Y' to disc colours, got {data!r}")
    return {key: DiscColour.from_dict(value) for key, value in data.items()}
