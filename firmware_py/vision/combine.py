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

The colour reader may also be blind to one colour of this set altogether
(pale pink, dark or sticker discs: no pixel in its bands), and then its
"empty" says nothing against that colour anywhere in the frame. The frame
itself shows it (:func:`colour_blindness`): among the cells the CNN is sure
hold a disc of a colour (:data:`BLIND_SURE`), none hidden, the share the
colour reader calls empty, counted against :data:`BLIND_PRIOR` more cells
(one such disc is weak evidence). By that share its "empty" is moved
towards no opinion between empty and that colour, in every cell of the
frame; where it sees the discs the CNN is sure of, nothing changes.

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
BLIND_SURE = 0.9  # the CNN's probability of a disc that makes a cell a test of the colour
BLIND_PRIOR = 1.0  # cells: the colour reader's blindness is counted against this many more
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
    hidden = np.zeros(len(cnn), bool) if hidden is None else np.asarray(hidden, bool)
    colour = _blind_softened(colour, colour_blindness(cnn, colour, hidden))
    cnn, colour = np.clip(cnn, TINY, 1.0), np.clip(colour, TINY, 1.0)
    if unfamiliar:  # no veto of a disc the colour reader sees in this frame's colours
        cnn = np.where((colour.argmax(axis=1) > 0)[:, None], _trusted(cnn), cnn)
    product = cnn * _trusted(colour)
    product /= product.sum(axis=1, keepdims=True)
    product[hidden] = 1.0 / 3
    return np.log((1.0 - FLOOR) * product + FLOOR / 3)


def colour_blindness(cnn: np.ndarray, colour: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """(N, 3) how blind the colour reader is to each class in this frame, for each cell
    (0 for empty): of the *other* cells the CNN is sure hold a disc of that colour
    (:data:`BLIND_SURE`), not hidden, where the colour reader has an opinion, the share
    it calls empty, counted against :data:`BLIND_PRIOR` more cells. A cell is never
    evidence for itself: a disc the CNN alone sees does not excuse its own colour."""
    has_opinion = (colour.max(axis=1) > 0.5) & ~hidden
    says_empty = colour.argmax(axis=1) == 0
    blindness = np.zeros(cnn.shape)
    for kind in (1, 2):
        tests = has_opinion & (cnn[:, kind] >= BLIND_SURE)
        missed = tests & says_empty
        blindness[:, kind] = ((np.count_nonzero(missed) - missed)
                              / (np.count_nonzero(tests) - tests + BLIND_PRIOR))
    return blindness


def _blind_softened(colour: np.ndarray, blindness: np.ndarray) -> np.ndarray:
    """The colour reader's probabilities, its "empty" moved by ``blindness`` (N, 3)
    towards no opinion between empty and each colour it is blind to."""
    if not blindness.any():
        return colour
    says_empty = colour.argmax(axis=1) == 0
    softened = colour + says_empty[:, None] * blindness * (colour[:, :1] - colour)
    return softened / softened.sum(axis=1, keepdims=True)


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
