"""A reader of the simulated table's scenes, without pixels (fast pipeline tests).

Explicitly chosen by tests and benchmarks, never a silent fallback:
:class:`SceneReader` reads a :class:`~firmware_py.simtable.script.Scene` the
way a fallible camera would.
"""

from __future__ import annotations

import math
import random

from c4game.board import HEIGHT, WIDTH, Board
from c4game.exc import InvalidGridError
from firmware_py.simtable.script import Scene
from firmware_py.vision.geometry import MARKER_CENTRES, cell_centres
from firmware_py.vision.reading import FINISHED, INVALID, NO_BOARD, OK, Expectation, Reading

CENTRES = cell_centres()  # 42 x 2, top row first


class SceneReader:
    """Reads a simulator scene the way a fallible camera would (no pixels involved).

    * board out of view, or a hand near a marker: no board;
    * cells under a hand (palm plus fingers) read at random, confidence 0.4;
    * strong flicker: each disc misread with probability ``flicker_error``,
      confidence 0.65 (confident mistakes: the game filter must outlast them).

    The board confidence is the lowest cell confidence (the real reader's is the
    probability of the board it decided: :attr:`Reading.confidence`).
    """

    def __init__(self, seed: int = 0, flicker_error: float = 0.15, first: str = "red") -> None:
        self.rng = random.Random(seed)
        self.flicker_error = flicker_error
        self.first = first  # who may start ([game] first), without an expectation

    def read_scene(self, scene: Scene, expectation: Expectation | None = None) -> Reading:
        """The scene as a fallible camera sees it; its board checked under the game
        filter's ``expectation``'s rule of who started (``first`` without one)."""
        if not scene.visible or _hand_hides_a_marker(scene):
            return Reading(NO_BOARD, reason="markers not found")
        cells = [char for line in scene.grid for char in line]
        confidence = [0.95] * len(cells)
        for index in _covered_cells(scene):
            cells[index] = self.rng.choice(".RY")
            confidence[index] = 0.4
        if abs(scene.light - 1.0) > 0.25:
            for index, char in enumerate(cells):
                if char != "." and self.rng.random() < self.flicker_error:
                    cells[index] = self.rng.choice(".RY".replace(char, ""))
                    confidence[index] = min(confidence[index], 0.65)
        grid = tuple("".join(cells[row * WIDTH:(row + 1) * WIDTH]) for row in range(HEIGHT))
        cell_confidence = tuple(confidence)
        lowest = min(cell_confidence)
        try:
            board = Board.from_grid(grid, expectation.rule if expectation else self.first)
        except InvalidGridError as error:
            return Reading(INVALID, grid, None, lowest, cell_confidence, markers=4,
                           reason=str(error))
        return Reading(FINISHED if board.is_finished else OK, grid, board, lowest,
                       cell_confidence, markers=4)


def _hand_geometry(scene: Scene) -> tuple[tuple[float, float], tuple[float, float], float]:
    hand = scene.hand
    radius = hand.size_pitch * 40.0
    angle = math.radians(hand.angle_deg)
    tip = (hand.x + 1.8 * radius * math.sin(angle), hand.y - 1.8 * radius * math.cos(angle))
    return (hand.x, hand.y), tip, radius


def _distance_to_segment(point: tuple[float, float], start: tuple[float, float],
                         end: tuple[float, float]) -> float:
    px, py = point
    (ax, ay), (bx, by) = start, end
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1.0)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _covered_cells(scene: Scene) -> list[int]:
    if scene.hand is None:
        return []
    start, end, radius = _hand_geometry(scene)
    return [index for index, centre in enumerate(CENTRES)
            if _distance_to_segment(tuple(centre), start, end) < radius]


def _hand_hides_a_marker(scene: Scene) -> bool:
    if scene.hand is None:
        return False
    start, end, radius = _hand_geometry(scene)
    return any(_distance_to_segment(tuple(m), start, end) < radius + 20 for m in MARKER_CENTRES)
