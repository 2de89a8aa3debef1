"""Holes hidden from both readers: something over the hole itself (a hand, a sleeve).

A person reading a board with a hand over part of it says "I cannot see
those holes", not "those holes are empty". The readers judged each crop
alone: the colour reader abstains where a crop's surround is not the
board's plastic (:func:`~.colour_reader.covered_cells`), but the CNN, which
learnt fingers over a cell, never met a whole palm over a hole: a flat
skin-coloured crop is what it knows of an empty hole with a wall behind,
and it called discs under a hand empty at 0.95-0.98. With a hand over the
top discs of their columns the board without them is legal, and it was
read, a wrong board (renders with a hand, ``docs/vision.md``).

It looks at the crops of the board's face (the face warped top-down, not
the disc plane the readers' crops are cut from: at a steep view the disc
plane moves a crop's corners into the holes, where the room shows), and a
hole is *hidden* when the cover runs over it:

1. at least :data:`HIDDEN_SHARE` of its crop's corner pixels (the plastic
   round the hole, :func:`~.cells.corner_mask`) differ in chromaticity from
   the board's plastic (the median over all cells' corners) by
   :data:`FOREIGN_CHROMA`, lit enough to carry a hue (HSV value at least
   :data:`~.disc_colours.VALUE_FLOOR`: the shadowed wall of a deep hole
   at a steep view has no chromaticity to compare): something lies on the
   face beside the hole; and
2. the middle of the hole (radius :data:`CENTRE_RADIUS`) looks like those
   pixels, within :data:`CONTINUOUS` Lab units of their mean: the same thing
   lies over the hole.

A finger beside a disc fails the second test (the disc's colour is not the
finger's), so the disc is read; a hand over an empty hole is hidden too (its
emptiness is not seen either). Neither reader has an opinion on a hidden
hole (:func:`~.combine.combine`): gravity may still settle it (a hole above
an empty one is empty); otherwise the board is refused, naming the hole.

What it cannot see: a cover of the plastic's own chromaticity or a dark one
(a hand in shadow, or in light of the board's colour), which differs from
the plastic only in lightness; and glare over a hole is hidden as a hand
is (neither reader sees the disc under it).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from firmware_py.vision.cells import corner_mask
from firmware_py.vision.disc_colours import VALUE_FLOOR

FOREIGN_CHROMA = 25.0  # a*b* units from the plastic: not the plastic (as covered_cells)
HIDDEN_SHARE = 0.2  # of a crop's corner pixels not the plastic: something lies beside the hole
CENTRE_RADIUS = 8.0  # px of the 32 px crop: the middle of the hole (0.2 pitch)
CONTINUOUS = 15.0  # OpenCV 8-bit Lab units (as the looks) from that thing: it lies over the hole
MIN_PIXELS = 5  # corner pixels not the plastic needed to say what lies there


def hidden_holes(crops: np.ndarray) -> np.ndarray:
    """(N,) True where something lies over the hole itself (see the module docstring);
    ``crops`` (N, S, S, 3) BGR uint8: the face's crops, normalised, all cells of one
    board."""
    count, side = crops.shape[0], crops.shape[1]
    corner_pixels, middle_pixels = _sample_indices(side)
    pixels = crops.reshape(count, side * side, 3)[:, np.r_[corner_pixels, middle_pixels]]
    lab = cv2.cvtColor(pixels.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(count, -1, 3).astype(np.float32)
    corners, middle = lab[:, :len(corner_pixels)], lab[:, len(corner_pixels):].mean(axis=1)
    lit = pixels[:, :len(corner_pixels)].max(axis=2) >= VALUE_FLOOR * 255  # (N, K)
    plastic = np.median(np.median(corners[..., 1:], axis=1), axis=0)
    foreign = lit & (np.linalg.norm(corners[..., 1:] - plastic, axis=2) > FOREIGN_CHROMA)
    counts = foreign.sum(axis=1)
    cover = (corners * foreign[..., None]).sum(axis=1) / np.maximum(counts, 1)[:, None]
    lies_beside = (counts >= MIN_PIXELS) & (foreign.mean(axis=1) >= HIDDEN_SHARE)
    return lies_beside & (np.linalg.norm(middle - cover, axis=1) <= CONTINUOUS)


@functools.cache
def _sample_indices(side: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat pixel indices of a crop's corners and of the middle of its hole."""
    yy, xx = np.mgrid[0:side, 0:side]
    centre = (side - 1) / 2
    middle = np.hypot(yy - centre, xx - centre) < CENTRE_RADIUS * side / 32
    return np.flatnonzero(corner_mask(side)), np.flatnonzero(middle)
