"""Teach this installation's hole looks from the boards the game confirmed.

While a board is committed, the latest frame the game filter found
``unchanged`` (:mod:`.belief`: every hole looks as it did at the commit)
holds that board's looks. When the next board committed is that board plus
one disc, the game went on from it: the board is **confirmed**, and its 42
holes are learnt (:meth:`~firmware_py.vision.hole_looks.HoleLooks.learn`;
holes a hand covered in that frame teach nothing). A board left any other
way (cleared, a cheat, read again, the board taken away for good) is never
learnt, and neither is a single frame's reading: a wrong board, even one
shown for a moment, cannot teach a wrong look.

One lesson comes before confirmation: the empty board a game starts from
teaches its empty holes when it is committed (:meth:`LookTeacher._start`),
because the first disc is seen by how its hole changed from the empty look
(a pale pink disc the generic readers call empty). Only the holes the
readers favour empty in the committing frame: the start prior may have read
the board empty over a disc, whose look must never be learnt as the empty
hole's. (The frame's evidence is as the reader gave it, under the game's
expectation: a hole gravity proved empty that still shows what it showed then
is held empty and taught so, a red wall behind it included, as ``c4pi
calibrate`` would.) The first disc then confirms the whole board, as any other.

``on_learnt`` hears of each board learnt (the screen's status line). The
looks are stored (``store``) every :data:`STORE_EVERY` boards learnt and
at :meth:`LookTeacher.close`, so that an SD card is not written every move.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from c4game.board import Board
from firmware_py.pipeline.belief import UNCHANGED
from firmware_py.succession import is_next
from firmware_py.vision.hole_looks import HoleLooks
from firmware_py.vision.reading import Reading

log = logging.getLogger(__name__)

STORE_EVERY = 10  # boards learnt between two writes of the looks


@dataclass(frozen=True)
class _Seen:
    """A committed board and its looks in the latest ``unchanged`` frame."""

    board: Board
    looks: np.ndarray
    covered: np.ndarray | None
    grid_corners: np.ndarray | None


def utc_now() -> str:
    """The time now, ISO 8601 UTC to the second."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


class LookTeacher:
    """Feeds confirmed boards to a :class:`HoleLooks` (see the module docstring)."""

    def __init__(self, looks: HoleLooks, *,
                 store: Callable[[HoleLooks], None] | None = None,
                 on_learnt: Callable[[HoleLooks], None] | None = None,
                 clock: Callable[[], str] = utc_now) -> None:
        self.looks = looks
        self.store = store
        self.on_learnt = on_learnt
        self.clock = clock
        self._committed: Board | None = None
        self._seen: _Seen | None = None
        self._unstored = 0

    def observe(self, committed: Board | None, frame_kind: str, reading: Reading) -> bool:
        """One frame: the committed board after it, the game filter's kind of frame
        and the reading. True when a board was learnt."""
        learnt = False
        if committed is not self._committed:
            seen = self._seen
            if seen is not None and committed is not None and is_next(seen.board, committed):
                self._learn(seen)
                learnt = True
            if committed is not None and committed.n_discs == 0:
                self._start(reading)
            self._committed, self._seen = committed, None
        if (committed is not None and frame_kind == UNCHANGED
                and reading.cell_looks is not None):
            self._seen = _Seen(committed, reading.cell_looks, reading.cell_covered,
                               reading.grid_corners)
        return learnt

    def close(self) -> None:
        """Store what was learnt since the last write."""
        if self._unstored:
            self._store()

    def _start(self, reading: Reading) -> None:
        """The empty board a game starts from, committed: its holes the readers favour
        empty (nothing covered) taught as empty (see the module docstring)."""
        log_probs = reading.cell_log_probs
        if reading.cell_looks is None or log_probs is None:
            return
        empty = log_probs[:, 0] > log_probs[:, 1:].max(axis=1)  # favoured, not tied
        if reading.cell_covered is not None:
            empty &= ~np.asarray(reading.cell_covered, bool)
        self.looks.teach(reading.cell_looks, np.zeros(len(empty), int), empty,
                         reading.grid_corners)

    def _learn(self, seen: _Seen) -> None:
        self.looks.learn(seen.looks, seen.board.grid_lines(), covered=seen.covered,
                         grid_corners=seen.grid_corners, when=self.clock())
        self._unstored += 1
        if self._unstored >= STORE_EVERY:
            self._store()
        if self.on_learnt is not None:
            self.on_learnt(self.looks)

    def _store(self) -> None:
        self._unstored = 0
        if self.store is None:
            return
        try:
            self.store(self.looks)
        except OSError as error:  # a full or read-only disk: keep learning in memory
            log.warning("cannot store the hole looks: %s", error)
