"""Fakes for the pipeline: a solver and an announcer.

Explicitly chosen by tests and benchmarks, never a silent fallback (the
scene reader without pixels is the simulated table's,
:mod:`firmware_py.simtable.scene_reader`):

* :class:`FakeSolver` answers from the board alone (routing, not solving);
* :class:`RecordingAnnouncer` records the announcer calls.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from c4game.board import Board
from c4game.exc import SolveCancelled
from c4game.scores import pick_centre_first


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
