"""Two readers' cell probabilities combined into one opinion per cell.

The CNN (shapes and textures, learnt) and the colour reader (hue on the
normalised image, told which holes no longer look empty) fail differently, so
their opinions are combined as independent evidence: per cell, the product
of the two probabilities, normalised over the three classes (empty, red,
yellow). A reader that cannot see a cell (a hand beside the hole: the colour
reader abstains) gives it flat probabilities and so does not sway it; where
something lies over the hole itself (:mod:`.hidden`) neither reader sees
it, and the cell is flat whatever the CNN made of the cover; a reader sure
of what the other doubts decides it; two sure readers that disagree leave
the cell doubtful.

One claim is weighed at half (:data:`COLOUR_EMPTY_TRUST`): the colour
reader's "empty". No disc hue in a hole is what it sees of an empty hole,
but also of a hand over a disc, a pale or a dark disc; counted in full, it
outvoted a CNN that half saw a disc under a hand, and the board without
that disc was committed in live games (``tools/bench/pipeline.py --views
random``). A disc hue it sees stays strong evidence: it vetoes with what it
can see, not with what it cannot.

On a set whose discs are not the colours the CNN learnt (this frame's own
disc colours are in use, :mod:`.frame_discs`: pink and orange discs, say)
the CNN's "empty" is weighed the same way: it cannot see a pale disc of a
colour it never met (a muted pink disc called empty at 0.96), so it vetoes
no disc the colour reader sees in this frame's colours: there the cell
stays doubtful and the board is refused rather than read without that
disc. Where both call a hole empty, the CNN's "empty" counts in full.

Measured on the labelled real cells (``firmware_py/vision/MODEL.md``), the
plain product means what it says on the sources with plain discs and on the
real-photo composites (expected calibration error 0.001-0.007); the colour
reader alone is underconfident (never above 0.93), the CNN alone slightly
so. A floor of :data:`FLOOR` keeps any one cell from outweighing the whole
board (no pair of readers is surer than 1 in 3,000 of a cell's class).
"""

from __future__ import annotations

import numpy as np

from firmware_py.vision.reading import CLASS_NAMES

FLOOR = 1e-3  # the combined probability of a class never falls below FLOOR / 3
COLOUR_EMPTY_TRUST = 0.5  # weight of the colour reader's "empty" (the rest: no opinion)
TINY = 1e-12


def combine(cnn: np.ndarray, colour: np.ndarray, unfamiliar: bool = False,
            hidden: np.ndarray | None = None) -> np.ndarray:
    """(42, 3) log-probabilities of each cell's class from both readers' (42, 3);
    ``unfamiliar``: this frame's discs are not the colours the CNN learnt (its "empty"
    is then weighed as the colour reader's is where the colour reader sees a disc);
    ``hidden`` (42 bools): holes neither reader sees (:mod:`.hidden`), flat."""
    cnn, colour = np.asarray(cnn, np.float64), np.asarray(colour, np.float64)
    if cnn.shape != colour.shape or cnn.ndim != 2 or cnn.shape[1] != 3:
        raise ValueError(f"expected two (N, 3) probability arrays, got {cnn.shape} and "
                         f"{colour.shape}")
    cnn, colour = np.clip(cnn, TINY, 1.0), np.clip(colour, TINY, 1.0)
    if unfamiliar:  # no veto of a disc the colour reader sees in this frame's colours
        cnn = np.where((colour.argmax(axis=1) > 0)[:, None], _trusted(cnn), cnn)
    product = cnn * _trusted(colour)
    product /= product.sum(axis=1, keepdims=True)
    if hidden is not None:
        product[np.asarray(hidden, bool)] = 1.0 / 3
    return np.log((1.0 - FLOOR) * product + FLOOR / 3)


def _trusted(colour: np.ndarray) -> np.ndarray:
    """The colour reader's probabilities, its claims of an empty hole flattened toward
    uniform by :data:`COLOUR_EMPTY_TRUST`: no disc hue in a hole is what it sees of an
    empty hole, but also of a hand over a disc, a pale or dark disc (it cannot see
    those, so it must not veto them); a disc hue it sees is strong evidence."""
    says_empty = colour.argmax(axis=1) == 0
    trust = np.where(says_empty, COLOUR_EMPTY_TRUST, 1.0)[:, None]
    return trust * colour + (1.0 - trust) / 3


def readers_differ(cnn: np.ndarray, colour: np.ndarray, cell: int) -> str:
    """"CNN red, colour empty" where the two readers' best classes for ``cell`` differ, else ""."""
    mine, theirs = int(np.argmax(cnn[cell])), int(np.argmax(colour[cell]))
    return "" if mine == theirs else f"CNN {CLASS_NAMES[mine]}, colour {CLASS_NAMES[theirs]}"
