"""Games filmed from real photographs: live sequences with a real board's appearance.

No licensed video of a real game exists, so a game is composed move by move
from the labelled photos of ``<shared>/data/real-dev`` (as
:mod:`tools.train.real_composites` composes stills): one base photo, and for
each cell and class one real cut-out chosen once per film (the same disc
looks the same in every frame, as on a real table), brought to the base's
lighting and pasted where the position differs from the photo.

A film is a list of :class:`Step`: the board standing on the table after the
step (any grid: cheats and illegal boards too), how long it is held, and
optionally a disc falling through the holes above its landing cell and a
hand over the grid before it lands. Every frame then gets a camera: one
white balance per film, an exposure that drifts slowly (+-8 % over about
20 s), sensor noise and JPEG, as a webcam at a table.

Frames come with the truth: the grid standing on the table (the falling
disc has not landed; the hand hides what stands).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH, Board
from tools.train.real_composites import (
    DEFAULT_MASK,
    EMPTY,
    MASKS,
    Composer,
    Photo,
    paste,
    read_scaled,
    recolour,
)

Grid = tuple[str, ...]
SKIN_BGR = (110, 140, 196)


@dataclass(frozen=True)
class Step:
    """The board on the table after this step, held ``hold_s`` seconds.

    ``fall``: a disc falls through the holes of this column (1-7) above its
    landing cell before it lands; ``hand_s``: a hand is over the grid that
    long first (at plane height ``hand_y``).
    """

    grid: Grid
    hold_s: float = 2.0
    fall: int | None = None
    hand_s: float = 0.0
    hand_y: float = 280.0


@dataclass(frozen=True)
class FilmFrame:
    """One frame, its time, the grid standing on the table, whether it just landed,
    and whether the board stands still in it (no hand, no falling disc)."""

    image: np.ndarray
    t: float
    truth: Grid
    landed: bool = False
    settled: bool = False


def game_steps(moves: str, *, hold_s: float = 2.0, hand_every: int = 0,
               start: Board | None = None) -> list[Step]:
    """The empty board (or ``start``), then each move of ``moves`` falling in.

    With ``hand_every`` = n, every n-th move has a hand over the grid first.
    """
    board = start or Board.empty()
    steps = [Step(tuple(board.grid_lines()), hold_s)]
    for index, char in enumerate(moves, start=1):
        if board.is_finished:
            raise ValueError(f"the game {moves!r} is over before move {index}")
        board = board.play(int(char))
        hand = 0.8 if hand_every and index % hand_every == 0 else 0.0
        steps.append(Step(tuple(board.grid_lines()), hold_s, fall=int(char), hand_s=hand,
                          hand_y=80.0 + 60.0 * (index % 7)))
    return steps


class Film:
    """Composes the frames of a film on one base photo (see the module docstring)."""

    def __init__(self, composer: Composer, base: Photo, seed: int, *, fps: float = 10.0,
                 long_side: int = 960) -> None:
        self.composer, self.base, self.fps = composer, base, fps
        self.rng = np.random.default_rng(seed)
        self.frame, self.homography = read_scaled(base, long_side)
        self._patches: dict[tuple[int, int, str], np.ndarray] = {}
        self._composed: dict[Grid, np.ndarray] = {}
        self.gains = np.exp(self.rng.uniform(np.log(0.9), np.log(1.1), 3)).astype(np.float32)
        self.drift_phase = float(self.rng.uniform(0, 2 * math.pi))

    def frames(self, steps: list[Step]) -> Iterator[FilmFrame]:
        """Every frame of ``steps``, in order (lazy)."""
        count = 0
        previous: Grid | None = None
        for step in steps:
            standing = previous if previous is not None else step.grid
            for _ in range(round(step.hand_s * self.fps)):
                image = self._hand(self.compose(standing), step.hand_y, count)
                yield FilmFrame(self._camera(image, count), count / self.fps, standing)
                count += 1
            for grid in self._falling(standing, step):
                yield FilmFrame(self._camera(self.compose(grid), count), count / self.fps,
                                standing)
                count += 1
            for index in range(max(1, round(step.hold_s * self.fps))):
                yield FilmFrame(self._camera(self.compose(step.grid), count),
                                count / self.fps, step.grid, landed=index == 0, settled=True)
                count += 1
            previous = step.grid

    def compose(self, grid: Grid) -> np.ndarray:
        """The photo with ``grid`` in its holes (cached per grid)."""
        if grid not in self._composed:
            cells = {(line, column): self._patch(line, column, grid[line][column])
                     for line in range(HEIGHT) for column in range(WIDTH)
                     if grid[line][column] != self.base.grid[line][column]}
            image = self.frame
            if cells:
                image = paste(image, self.homography, cells, self.composer.library.scale,
                              MASKS.get(self.base.source, DEFAULT_MASK))
            self._composed[grid] = image
        return self._composed[grid]

    def share_room(self, other: Film) -> None:
        """Show through each empty hole what it showed in ``other``: another game on
        the same board photo in the same room (the wall behind a hole stays; the
        discs dropped are other cut-outs). Call it before composing any frame."""
        if other.base is not self.base or self._composed:
            raise ValueError("share a room with a film of the same photo, before composing")
        for key, patch in other._patches.items():
            if key[2] == EMPTY:
                self._patches.setdefault(key, patch)

    def _patch(self, line: int, column: int, wanted: str) -> np.ndarray:
        key = (line, column, wanted)
        if key not in self._patches:
            photo, i, j = self.composer.library.donor(self.rng, self.base, line, column, wanted)
            self._patches[key] = recolour(photo.patches[i, j], [
                (photo.plastic[i, j], self.base.plastic[line, column]),
                (photo.hole[i, j], self.base.hole[line, column])])
        return self._patches[key]

    def _falling(self, standing: Grid, step: Step) -> list[Grid]:
        """The grids of a disc falling through the holes above its landing cell."""
        if step.fall is None:
            return []
        column = step.fall - 1
        landing = next((line for line in range(HEIGHT) if standing[line][column] == "."
                        and step.grid[line][column] != "."), None)
        if landing is None:
            return []
        colour = step.grid[landing][column]
        grids = []
        for line in range(landing):
            lines = list(standing)
            lines[line] = lines[line][:column] + colour + lines[line][column + 1:]
            grids.append(tuple(lines))
        return grids

    def _hand(self, image: np.ndarray, y: float, count: int) -> np.ndarray:
        """A forearm and hand over the grid, coming in from the right at plane height ``y``."""
        x = 640.0 - 18.0 * (count % 12)
        palm = cv2.ellipse2Poly((int(x), int(y)), (70, 55), 0, 0, 360, 10)
        arm = np.array([[x, y - 40], [900, y - 70], [900, y + 70], [x, y + 40]])
        out = image.copy()
        for polygon in (palm.astype(np.float64), arm):
            points = cv2.perspectiveTransform(polygon.reshape(-1, 1, 2), self.homography)
            cv2.fillPoly(out, [np.round(points).astype(np.int32)], SKIN_BGR, cv2.LINE_AA)
        return out

    def _camera(self, image: np.ndarray, count: int) -> np.ndarray:
        """White balance, slowly drifting exposure, sensor noise, JPEG."""
        exposure = 1.0 + 0.08 * math.sin(2 * math.pi * count / (20 * self.fps)
                                         + self.drift_phase)
        noisy = image.astype(np.float32) * (self.gains * np.float32(exposure))
        noisy += self.rng.standard_normal(noisy.shape, np.float32) * np.float32(2.5)
        encoded = cv2.imencode(".jpg", np.clip(noisy, 0, 255).astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, 85])[1]
        return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


def emptiest(photos: list[Photo]) -> Photo:
    """The photo with the fewest discs (the base that needs the fewest cut-outs)."""
    return min(photos, key=lambda photo: (photo.discs, photo.name))
