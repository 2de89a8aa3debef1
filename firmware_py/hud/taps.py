"""Where the HUD takes its inputs: the board reader and the solver worker.

* :class:`AnalysingReader` wraps a board reader for the frame loop: it
  reads each frame as before and hands the frame, the reading and the
  reader's analysis (markers, grid, cells: the overlay) to the hub.
* :class:`WorkerAnalyst` solves the HUD's positions (the reply to the
  recommended move, the review of a finished game) on the shared solver
  worker below the vision loop's priority, so the HUD never delays a
  recommendation or a robot's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from c4game.board import Board

if TYPE_CHECKING:
    import numpy as np

    from firmware_py.hud.hub import HudHub, Solved
    from firmware_py.vision.reader import BoardReader
    from firmware_py.vision.reading import Expectation, Reading

HUD_PRIORITY = -10  # below the vision loop (0) and the serial link (10)


class AnalysingReader:
    """A board reader whose every frame also goes to ``hub.on_frame``."""

    def __init__(self, reader: BoardReader, hub: HudHub) -> None:
        self.reader = reader
        self.hub = hub

    def read(self, image: np.ndarray, expectation: Expectation | None = None) -> Reading:
        analyse = getattr(self.reader, "analyse", None)
        if analyse is None:
            reading, analysis = self.reader.read(image, expectation), None
        else:
            analysis = analyse(image, expectation)
            reading = analysis.reading
        self.hub.on_frame(image, reading, analysis)
        return reading


class Submits(Protocol):
    """What the HUD needs of the solver worker (:class:`firmware_py.worker.SolverWorker`)."""

    def submit(self, board: Board, *, priority: int, tag: str,
               on_done: Callable[[Board, Solved | None, BaseException | None], None],
               scores: bool = False) -> object:
        """Queue ``board``; ``on_done(board, answer, error)`` later (with ``scores``,
        the answer holds every column's score)."""


class WorkerAnalyst:
    """Solves on a :class:`firmware_py.worker.SolverWorker` at :data:`HUD_PRIORITY`."""

    def __init__(self, worker: Submits) -> None:
        self.worker = worker

    def solve(self, board: Board, on_done: Callable[[Solved | None], None], *,
              tag: str = "hud") -> None:
        def done(_board: Board, answer: Solved | None, error: BaseException | None) -> None:
            on_done(answer if error is None else None)

        try:
            self.worker.submit(board, priority=HUD_PRIORITY, tag=tag, on_done=done)
        except Exception:  # a stopped worker: the HUD just has no answer
            on_done(None)
