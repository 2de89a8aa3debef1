"""Fakes for the pipeline: a scene-based reader, a solver, an announcer.

Explicitly chosen by tests and benchmarks, never a silent fallback:

* :class:`SceneReader` reads a simulator :class:`~firmware_py.sources.sim_script.Scene`
  the way a fallible camera would, without pixels (fast pipeline tests);
* :class:`FakeSolver` answers from the board alone (routing, not solving);
* :class:`RecordingAnnouncer` records the announcer calls.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass

from firmware_py.board import HEIGHT, WIDTH, Board
from firmware_py.exc import InvalidGridError, SolveCancelled
from firmware_py.scores import pick_centre_first
from firmware_py.sources.sim_script import Scene
from firmware_py.vision.geometry import MARKER_CENTRES, cell_centres
from firmware_py.vision.reading import FINISHED, INVALID, NO_BOARD, OK, Reading

CENTRES = cell_centres()  # 42 x 2, top row first


class SceneReader:
    """Reads a simulator scene the way a fallible camera would (no pixels involved).

    * board out of view, or a hand near a marker: no board;
    * cells under a hand (palm plus fingers) read at random, confidence 0.4;
    * strong flicker: each disc misread with probability ``flicker_error``,
      confidence 0.65 (confident mistakes: the voter must outvote them).

    The board confidence is the lowest cell confidence, as the real reader's.
    """

    def __init__(self, seed: int = 0, flicker_error: float = 0.15) -> None:
        self.rng = random.Random(seed)
        self.flicker_error = flicker_error

    def read_scene(self, scene: Scene) -> Reading:
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
            board = Board.from_grid(grid)
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


@dataclass(frozen=True)
class FakeAnswer:
    column: int
    score: int
    plies: int
    scores: tuple = ()
    nodes: int = 0
    ms: float = 0.0
    n_discs: int = 0


def fake_answer(board: Board) -> FakeAnswer:
    """A made-up answer that depends only on the board (to check routing, not solving)."""
    column = pick_centre_first(board.legal_columns())
    return FakeAnswer(column=column, score=0, plies=42 - board.n_discs, n_discs=board.n_discs)


class FakeSolver:
    """Answers with :func:`fake_answer`; records boards; optionally blocks until released."""

    def __init__(self, block: bool = False) -> None:
        self.boards: list[Board] = []
        self.block = block
        self.release = threading.Event()
        self.started = threading.Event()
        self._cancelled = threading.Event()

    def best(self, position, tie_break="centre", rng=None, *, scores=False):
        self.boards.append(position)
        self.started.set()
        if self.block:
            while not self.release.wait(0.005):
                if self._cancelled.is_set():
                    self._cancelled.clear()
                    raise SolveCancelled("cancelled")
        return fake_answer(position)

    def cancel(self) -> None:
        self._cancelled.set()


class RecordingAnnouncer:
    """Records the announcer calls (docs/speech.md API)."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def show_recommendation(self, player, column, outcome, plies):
        self.calls.append(("recommend", player, column, outcome, plies))

    def show_finished(self, winner, key=None):
        self.calls.append(("finished", winner))

    def show_scanning(self):
        self.calls.append(("scanning",))

    def show_board_lost(self):
        self.calls.append(("lost",))

    def say(self, clips, key=None):
        self.calls.append(("say", tuple(clips)))

    def start(self):
        return self

    def say_startup(self):
        self.calls.append(("startup",))

    def close(self):
        self.calls.append(("close",))
