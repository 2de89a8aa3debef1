"""What this installation's holes look like: empty, with a red disc, with a yellow disc.

The appliance watches one board for years, and every board it follows and
sees confirmed (the game went on from it by one legal move,
:class:`~firmware_py.pipeline.teach.LookTeacher`) labels all 42 holes in this
room's light. :class:`BoardLooks` keeps, for each hole and kind, the mean look
(:func:`~firmware_py.vision.empty_board.cell_features`, 12 numbers) of about
its last :data:`MEMORY` confirmed boards, and for each kind how far looks
stray from their hole's mean (the *spread*). :meth:`BoardLooks.evidence`
scores a frame's holes against them by the rule every model of looks shares
(:mod:`.look_evidence`), and the reader adds that to the generic readers'
opinion.

* A kind seen at a hole: that hole's mean and the kind's spread.
* A kind seen at :data:`MIN_HOLES` or more holes but never at this one: the
  kind's look over the board (the mean of its holes' means), its spread
  widened by how much those holes differ.
* Otherwise the kind has no look at that hole: no opinion on it.

It learns only what it is taught: never from a single frame's reading.
Bounded: 42 x 3 x 12 means and 3 x 12 spreads whatever the years; learning a
board costs microseconds. Forgotten (:meth:`BoardLooks.forget`) by ``c4pi
calibrate --force`` and when the grid stands more than
:data:`MOVED_PX` from where it stood when it
was learnt (the camera or the board moved): then it gives no evidence until
it is taught again in the new view.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from c4game.exc import VisionError
from firmware_py.vision.look_evidence import as_evidence, gaussian_logs

CELLS = 42
KINDS = 3  # empty, red, yellow (classifier.CLASSES)
FEATURES = 12
MEMORY = 8  # boards: a hole's look follows about its last 8 confirmed boards
MIN_HOLES = 3  # holes a kind must have been seen at to have a look over the board
FIRST_SPREAD = 25.0  # Lab units squared: the spread before any look was seen twice
MOVED_PX = 10.0  # the grid's corners moved more than this: the camera or board was moved
FORMAT = "c4pi-board-looks-1"
KIND_OF = {".": 0, "R": 1, "Y": 2}


class BoardLooks:
    """This installation's learnt look of each hole and kind (see the module docstring)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.means = np.zeros((CELLS, KINDS, FEATURES))
        self.counts = np.zeros((CELLS, KINDS))  # looks learnt, at most MEMORY
        self.squares = np.zeros((KINDS, FEATURES))  # summed squared strays from hole means
        self.strays = np.zeros(KINDS)  # how many looks those sums hold
        self.boards = 0  # confirmed boards learnt
        self.learnt_at = ""  # ISO 8601 UTC time of the latest, "" if never
        self.grid_corners: np.ndarray | None = None  # (4, 2) frame px of the grid then

    def learn(self, features: np.ndarray, grid: Sequence[str], *,
              covered: np.ndarray | None = None, grid_corners: np.ndarray | None = None,
              when: str = "") -> None:
        """Learn one confirmed board: ``grid`` (6 lines, top first) and its holes'
        ``features`` (42, 12); ``covered`` holes (a hand in front) teach nothing.
        A grid standing elsewhere in the frame than the learnt one's makes it
        forget first (the camera moved)."""
        features = _checked(features)
        kinds = kinds_of(grid)
        if grid_corners is not None and self.moved(grid_corners):
            self.forget()
        taught = np.ones(CELLS, bool) if covered is None else ~np.asarray(covered, bool)
        cells = np.flatnonzero(taught)
        kind = kinds[cells]
        count = self.counts[cells, kind]
        seen = count > 0
        stray = features[cells] - self.means[cells, kind]
        np.add.at(self.squares, kind[seen], stray[seen] ** 2)
        np.add.at(self.strays, kind[seen], 1.0)
        rate = 1.0 / np.minimum(count + 1, MEMORY)
        self.means[cells, kind] += rate[:, None] * stray
        self.counts[cells, kind] = np.minimum(count + 1, MEMORY)
        self.boards += 1
        self.learnt_at = when or self.learnt_at
        if grid_corners is not None:
            corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
            self.grid_corners = corners if self.grid_corners is None else (
                self.grid_corners + (corners - self.grid_corners) / min(self.boards, MEMORY))

    def forget(self) -> None:
        """Forget everything learnt (``c4pi calibrate --force``, a moved camera)."""
        self._reset()

    def moved(self, grid_corners: np.ndarray) -> bool:
        """True when the grid stands over :data:`MOVED_PX` from where it was learnt."""
        if self.grid_corners is None:
            return False
        corners = np.asarray(grid_corners, np.float64).reshape(4, 2)
        return float(np.linalg.norm(corners - self.grid_corners, axis=1).max()) > MOVED_PX

    def evidence(self, features: np.ndarray, *, covered: np.ndarray | None = None,
                 grid_corners: np.ndarray | None = None) -> np.ndarray:
        """(42, 3) log-evidence of each hole's kind from its look (zeros where the
        model has no opinion: nothing learnt, a covered hole, a moved grid)."""
        features = _checked(features)
        if self.boards == 0 or (grid_corners is not None and self.moved(grid_corners)):
            return np.zeros((CELLS, KINDS))
        means, variances, known = self._looks()
        result = as_evidence(gaussian_logs(features, means, variances), known)
        if covered is not None:
            result[np.asarray(covered, bool)] = 0.0
        return result

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
        if self.boards == 0:
            return "no board learnt yet"
        holes = (self.counts > 0).sum(axis=0)
        return (f"{self.boards} confirmed boards learnt (latest {self.learnt_at or '-'}); "
                f"holes seen empty {holes[0]}, red {holes[1]}, yellow {holes[2]} of {CELLS}")

    def save(self, path: str | Path) -> None:
        """Write the learnt looks to ``path`` (JSON, written whole then renamed)."""
        data = {"format": FORMAT, "boards": self.boards, "learnt_at": self.learnt_at,
                "means": np.round(self.means, 3).tolist(), "counts": self.counts.tolist(),
                "squares": np.round(self.squares, 3).tolist(), "strays": self.strays.tolist(),
                "grid_corners": (None if self.grid_corners is None
                                 else np.round(self.grid_corners, 2).tolist())}
        path = Path(path)
        partial = path.with_name(path.name + ".part")
        partial.write_text(json.dumps(data) + "\n", encoding="utf-8")
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> BoardLooks:
        """Read looks written by :meth:`save`; :class:`VisionError` names a bad file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f"format is not {FORMAT!r}")
            looks = cls()
            looks.means = _finite(data["means"], (CELLS, KINDS, FEATURES), "means")
            looks.counts = _finite(data["counts"], (CELLS, KINDS), "counts")
            looks.squares = _finite(data["squares"], (KINDS, FEATURES), "squares")
            looks.strays = _finite(data["strays"], (KINDS,), "strays")
            if (looks.counts < 0).any() or (looks.counts > MEMORY).any() or (
                    looks.strays < 0).any() or (looks.squares < 0).any():
                raise ValueError("counts, strays and squares must be within their ranges")
            looks.boards = int(data["boards"])
            if looks.boards < 0:
                raise ValueError(f"boards must be >= 0, got {looks.boards}")
            looks.learnt_at = str(data.get("learnt_at") or "")
            corners = data.get("grid_corners")
            if corners is not None:
                looks.grid_corners = _finite(corners, (4, 2), "grid_corners")
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise VisionError(f"cannot read the learnt board looks {path}: {error}") from None
        return looks


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


def _finite(value: object, shape: tuple[int, ...], name: str) -> np.ndarray:
    array = np.array(value, np.float64)
    if array.shape != shape or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite numbers of shape {shape}")
    return array
