"""Before the first board: what shows through a hole that cannot hold a disc is the room.

Until a board is committed, every frame teaches :class:`RoomLooks` the look of
the holes that gravity proves empty: each hole above a hole the readers are
at least :data:`EMPTY_SURE` nats sure is empty (no disc floats), with how
sure that proof is (the supporting hole's lead). A red wall seen through a
high hole from the first frame is then known for what it is: when the board
is read before anything is committed, every hole that still looks as it did
when it was proven empty gets that proof as evidence for "empty"
(:func:`hold_room`), even once discs stand below it and the readers, seeing
red, would make a legal board of it.

The proof is evidence, weighed against the readers', not an override: a
disc the readers are surer of than of the empty hole below it stays a disc
(a board of sticker discs the readers call empty with 2 nats, under a disc
they see with 5, is refused, not read empty: a seen disc is never deleted,
docs/vision.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.look_evidence import familiar

EMPTY_SURE = 2.0  # nats of "empty" over both disc colours


def proven_empty(log_probs: np.ndarray) -> np.ndarray:
    """(42,) for each hole, the nats by which gravity proves it empty: the lead of the
    surest empty hole below it when that is at least :data:`EMPTY_SURE`, else 0."""
    empty_lead = log_probs[:, 0] - np.maximum(log_probs[:, 1], log_probs[:, 2])
    proof = np.zeros(WIDTH * HEIGHT)
    for column in range(WIDTH):
        best = 0.0
        for line in range(HEIGHT - 1, -1, -1):  # bottom row first (lines run top first)
            cell = line * WIDTH + column
            proof[cell] = best
            if empty_lead[cell] >= EMPTY_SURE:
                best = max(best, float(empty_lead[cell]))
    return proof


@dataclass(frozen=True)
class RoomLooks:
    """The look of each hole when gravity proved it empty (NaN where never) and how
    sure that proof was (nats)."""

    looks: np.ndarray
    proof: np.ndarray

    @classmethod
    def empty(cls) -> RoomLooks:
        return cls(np.full((WIDTH * HEIGHT, 12), np.nan, np.float32), np.zeros(WIDTH * HEIGHT))

    def learn(self, looks: np.ndarray, log_probs: np.ndarray) -> RoomLooks:
        """Remember the looks of the holes this frame proves empty, first sight kept."""
        proof = proven_empty(log_probs)
        new = (proof > 0) & np.isnan(self.looks[:, 0])
        if not new.any():
            return self
        learnt, proofs = self.looks.copy(), self.proof.copy()
        learnt[new], proofs[new] = looks[new], proof[new]
        return RoomLooks(learnt, proofs)

    def still_room(self, looks: np.ndarray) -> np.ndarray:
        """(42,) True where a hole looks as it did when it was proven empty
        (:func:`~firmware_py.vision.look_evidence.familiar`)."""
        known = ~np.isnan(self.looks[:, 0])
        return known & familiar(looks, np.nan_to_num(self.looks))


def hold_room(log_probs: np.ndarray, room: RoomLooks, looks: np.ndarray) -> np.ndarray:
    """``log_probs`` with each hole that still shows the room its proof added to
    "empty" (:class:`RoomLooks`)."""
    held = np.array(log_probs, np.float64, copy=True)
    still = room.still_room(looks)
    held[still, 0] += room.proof[still]
    held[still] -= np.logaddexp.reduce(held[still], axis=1, keepdims=True)
    return held
