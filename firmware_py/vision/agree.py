"""Two cell readers that fail differently, and what they agree on.

A reading may be trusted only where the CNN (shapes and textures, learnt)
and the colour reader (hue thresholds on the normalised image, with the
empty board of this installation) say the same. Per cell and class:

* ``consensus`` = the smaller of the two readers' probabilities: a class is
  as sure as its least sure reader. A cell's confidence is the consensus of
  its label, so a cell is confident only when both readers are.
* ``choices`` = per cell and class, whether it is one reader's most probable
  class: gravity may settle a disputed cell only to one of them
  (:func:`firmware_py.vision.postprocess.judge`) — but never to empty where
  a reader is at least :data:`SURE_DISC` sure of a disc (a disc the colour
  reader misses, pale or in shadow, is not explained away as a wall; the
  colour reader is never that sure, so a wall it sees high up still is).
* ``settle_choices`` = ``choices``, without empty where the reader that
  says empty is less than :data:`SURE_EMPTY` sure of it: gravity settles a
  disputed disc away only when one reader is sure the hole is empty (a
  disc jammed high in a column, seen by one reader, stays doubtful).
* ``disputed`` = the cells whose two most probable classes differ.
* ``best`` = the product of the two, normalised: the best guess of each cell's
  class, which decides the grid a reading reports (the more confident reader
  wins a dispute), never whether it is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.postprocess import cell_name

READER_NAMES = ("CNN", "colour")
MAX_LISTED = 3
SURE_DISC = 0.95
SURE_EMPTY = 0.8


@dataclass(frozen=True)
class Agreement:
    """The two readers' probabilities (42, 3) combined (see the module docstring)."""

    consensus: np.ndarray
    choices: np.ndarray  # (42, 3) bool
    settle_choices: np.ndarray  # (42, 3) bool
    best: np.ndarray
    disputed: np.ndarray  # cell indices
    reason: str  # "" when no cell is disputed


def agree(cnn: np.ndarray, colour: np.ndarray) -> Agreement:
    """Combine the CNN's and the colour reader's cell probabilities (42, 3) each."""
    cnn, colour = np.asarray(cnn, np.float64), np.asarray(colour, np.float64)
    if cnn.shape != colour.shape or cnn.ndim != 2 or cnn.shape[1] != len(CLASSES):
        raise ValueError(f"expected two (N, {len(CLASSES)}) probability arrays, "
                         f"got {cnn.shape} and {colour.shape}")
    cnn_labels, colour_labels = cnn.argmax(axis=1), colour.argmax(axis=1)
    disputed = np.flatnonzero(cnn_labels != colour_labels)
    product = cnn * colour + 1e-12
    choices = np.zeros(cnn.shape, bool)
    choices[np.arange(len(cnn)), cnn_labels] = True
    choices[np.arange(len(cnn)), colour_labels] = True
    sure_disc = np.maximum(cnn[:, 1:].max(axis=1), colour[:, 1:].max(axis=1)) >= SURE_DISC
    choices[sure_disc, 0] = False
    empty_claim = np.maximum(np.where(cnn_labels == 0, cnn[:, 0], 0.0),
                             np.where(colour_labels == 0, colour[:, 0], 0.0))
    settle_choices = choices.copy()
    settle_choices[empty_claim < SURE_EMPTY, 0] = False
    return Agreement(np.minimum(cnn, colour), choices, settle_choices,
                     product / product.sum(axis=1, keepdims=True), disputed,
                     _dispute_reason(disputed, cnn_labels, colour_labels))


def _dispute_reason(disputed: np.ndarray, cnn_labels: np.ndarray,
                    colour_labels: np.ndarray) -> str:
    if not disputed.size:
        return ""
    names = {".": "empty", "R": "red", "Y": "yellow"}
    listed = ", ".join(
        f"{cell_name(int(i))} ({READER_NAMES[0]} {names[CLASSES[cnn_labels[i]]]}, "
        f"{READER_NAMES[1]} {names[CLASSES[colour_labels[i]]]})" for i in disputed[:MAX_LISTED])
    more = f" and {disputed.size - MAX_LISTED} more" if disputed.size > MAX_LISTED else ""
    return f"the readers disagree: {listed}{more}"
