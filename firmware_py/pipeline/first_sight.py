"""Before the first board: what shows through a hole that cannot hold a disc is the room.

Until a board is committed, every frame teaches :class:`RoomLooks` which holes
gravity proves empty, in two ways:

* each hole above the lowest one the readers are :data:`EMPTY_SURE` nats sure
  is empty (no disc floats); its look then is the room's;
* each hole that still looks as it did at first sight while a hole below it
  has changed into a disc the readers are :data:`EMPTY_SURE` nats sure of: a
  disc landed below it since (or the column was emptied, and it did not
  change), so it was empty at first sight and still is, whatever the readers
  take its look for. This holds only while the change below is seen.

A red wall seen through a high hole from the first frame is then known for
what it is: when the board is read before anything is committed, every hole
so proven empty is held empty (by the game filter, :mod:`.belief`), even once
discs stand below it and the readers, seeing red, would make a legal board of
it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.look_evidence import familiar

EMPTY_SURE = 2.0  # nats of "empty" over both disc colours (or of a disc over "empty")


def proven_empty(log_probs: np.ndarray) -> np.ndarray:
    """(42,) True for each hole above its column's lowest surely empty hole."""
    empty_lead = log_probs[:, 0] - np.maximum(log_probs[:, 1], log_probs[:, 2])
    return _above(empty_lead >= EMPTY_SURE)


def _above(marks: np.ndarray) -> np.ndarray:
    """(42,) True for each hole above the lowest marked hole of its column."""
    above = np.zeros(WIDTH * HEIGHT, bool)
    for column in range(WIDTH):
        for line in range(HEIGHT - 1, -1, -1):  # bottom row first (lines run top first)
            if marks[line * WIDTH + column]:
                above[column:line * WIDTH:WIDTH] = True  # every hole above it
                break
    return above


@dataclass(frozen=True)
class RoomLooks:
    """Each hole's look when gravity proved it empty, and at first sight (NaN where
    never)."""

    looks: np.ndarray
    first: np.ndarray

    @classmethod
    def empty(cls) -> RoomLooks:
        never = np.full((WIDTH * HEIGHT, 12), np.nan, np.float32)
        return cls(never, never)

    def learn(self, looks: np.ndarray, log_probs: np.ndarray) -> RoomLooks:
        """Remember the looks of the holes this frame proves empty, and of those seen for
        the first time; first sight kept."""
        new = proven_empty(log_probs) & np.isnan(self.looks[:, 0])
        unseen = np.isnan(self.first[:, 0])
        if not new.any() and not unseen.any():
            return self
        learnt, first = self.looks.copy(), self.first.copy()
        learnt[new] = looks[new]
        first[unseen] = looks[unseen]
        return RoomLooks(learnt, first)

    def still_room(self, looks: np.ndarray, log_probs: np.ndarray) -> np.ndarray:
        """(42,) True where a hole is proven empty: it looks as it did when it was proven
        empty, or as at first sight while a disc has come below it (module docstring)."""
        as_proven = ~np.isnan(self.looks[:, 0]) & familiar(looks, np.nan_to_num(self.looks))
        as_first = familiar(looks, self.first)
        disc_lead = np.maximum(log_probs[:, 1], log_probs[:, 2]) - log_probs[:, 0]
        landed = ~as_first & (disc_lead >= EMPTY_SURE)
        still: np.ndarray = as_proven | (as_first & _above(landed))
        return still
