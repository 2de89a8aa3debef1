"""Before the first board: what shows through a hole that cannot hold a disc is the room.

Until a board is committed, every frame teaches :class:`RoomLooks` the look of
the holes that gravity proves empty: each hole above the lowest one the
readers are :data:`EMPTY_SURE` nats sure is empty (no disc floats). A red
wall seen through a high hole from the first frame is then known for what it
is: these looks are the game filter's expectation before anything is
committed (:func:`~.belief.expectation_of`), so the reader holds empty every
hole that still looks as it did when it was proven empty, even once discs
stand below it and the readers, seeing red, would make a legal board of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from c4game.board import HEIGHT, WIDTH

EMPTY_SURE = 2.0  # nats of "empty" over both disc colours
LOOK_FEATURES = 12  # numbers of a hole's look (vision.cells.cell_features)


def proven_empty(log_probs: np.ndarray) -> np.ndarray:
    """(42,) True for each hole above its column's lowest surely empty hole."""
    empty_lead = log_probs[:, 0] - np.maximum(log_probs[:, 1], log_probs[:, 2])
    sure = empty_lead >= EMPTY_SURE
    proven = np.zeros(WIDTH * HEIGHT, bool)
    for column in range(WIDTH):
        for line in range(HEIGHT - 1, -1, -1):  # bottom row first (lines run top first)
            if sure[line * WIDTH + column]:
                proven[column:line * WIDTH:WIDTH] = True  # every hole above it
                break
    return proven


@dataclass(frozen=True)
class RoomLooks:
    """The look of each hole when gravity proved it empty (NaN where never)."""

    looks: np.ndarray

    @classmethod
    def empty(cls) -> RoomLooks:
        return cls(np.full((WIDTH * HEIGHT, LOOK_FEATURES), np.nan, np.float32))

    def learn(self, looks: np.ndarray, log_probs: np.ndarray) -> RoomLooks:
        """Remember the looks of the holes this frame proves empty, first sight kept."""
        new = proven_empty(log_probs) & np.isnan(self.looks[:, 0])
        if not new.any():
            return self
        learnt = self.looks.copy()
        learnt[new] = looks[new]
        return RoomLooks(learnt)
