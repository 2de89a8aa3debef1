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
   the board's plastic by more than :data:`~.colour_reader.COVERED_CHROMA`, lit enough to carry a
   hue (HSV value at least :data:`~.disc_colours.VALUE_FLOOR`: the shadowed
   wall of a deep hole at a steep view has no chromaticity to compare):
   something lies on the face beside the hole; and
2. the middle of the hole (radius :data:`CENTRE_RADIUS`) looks like those
   pixels: within :data:`COVER_MATCH` of their mean (Lab, lightness
   included): the same thing lies over the hole.

The plastic is the per-channel median of the 42 cells' median corner
chromaticity (dark pixels counted: a dark board's lit corners are mostly
a hand). A hand over more than half of them would become that median, so
there are other candidates, and a hole hidden from any is hidden (which
one is the plastic is not known; a visible hole's middle mostly shows a
disc or the room, not the plastic): where :data:`SECOND_PLASTIC_SHARE`
or more of all corner pixels (dark ones too) are foreign to that median,
their own median; and the face's border round the grid
(:func:`border_plastic`: the median of a band :data:`BORDER_OFFSET`
outside the outer holes' cells, where no hole is, dark pixels too), where
it differs from every other candidate by more than
:data:`~.colour_reader.COVERED_CHROMA` (a palm over the grid and not round it). A wrong
candidate hides the holes whose middle looks like the true plastic (a
white board before a white wall with a palm over 40 % of it; a border
band of another colour than the face between the holes): refused, not
misread.

A finger beside a disc fails the second test (the disc's colour is not the
finger's), so the disc is read; a hand over an empty hole is hidden too (its
emptiness is not seen either). Neither reader has an opinion on a hidden
hole (:func:`~.combine.combine`): gravity may still settle it (a hole above
an empty one is empty); otherwise the board is refused, naming the hole.

What it cannot see: a cover within :data:`~.colour_reader.COVERED_CHROMA` of the plastic's
chromaticity or a dark one (a beige hand on pale plastic, a hand in shadow
or in light of the board's colour), which differs from the plastic mostly
in lightness (the plastic's own chromaticity varies about as much over a
restyled or unevenly lit board: a cut of 15 units with a second plastic
from 15 % of the corners refused 9 of the 195 navy restyles read before);
a palm shaded so that its middle is darker than its
edge by more than :data:`COVER_MATCH`; a palm over nearly the whole grid
and the border round it. Glare that runs over a hole and its rim
counts as a cover: a board read before from a disc the CNN half saw under
it is refused now.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np

from firmware_py.vision.cells import corner_mask
from firmware_py.vision.colour_reader import COVERED_CHROMA, plastic_chroma
from firmware_py.vision.disc_colours import VALUE_FLOOR
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import GRID_CORNERS

HIDDEN_SHARE = 0.2  # of a crop's corner pixels not the plastic: something lies beside the hole
CENTRE_RADIUS = 8.0  # px of the 32 px crop: the middle of the hole (0.2 pitch)
COVER_MATCH = 15.0  # OpenCV 8-bit Lab units from that thing: it lies over the hole
SECOND_PLASTIC_SHARE = 0.4  # of all corner pixels foreign: the other may be the plastic
MIN_PIXELS = 5  # corner pixels not the plastic needed to say what lies there
BORDER_OFFSET = 12.0  # plane px (0.15 pitch) outside the grid: the face's border
BORDER_SAMPLES = 24  # points a side of that band
MIN_BORDER_SAMPLES = 16  # points in the frame needed to name the border's plastic


def hidden_holes(crops: np.ndarray, border: np.ndarray | None = None) -> np.ndarray:
    """(N,) True where something lies over the hole itself (see the module docstring);
    ``crops`` (N, S, S, 3) BGR uint8: the face's crops, normalised, all cells of one
    board; ``border``: the a*b* of the face round the grid (:func:`border_plastic`)."""
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8 or not len(crops):
        raise ValueError(f"expected (N, S, S, 3) uint8 crops, got {crops.shape} {crops.dtype}")
    count, side = crops.shape[0], crops.shape[1]
    corner_pixels, middle_pixels = _sample_indices(side)
    pixels = crops.reshape(count, side * side, 3)[:, np.r_[corner_pixels, middle_pixels]]
    lab = cv2.cvtColor(pixels.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(count, -1, 3).astype(np.float32)
    corners, middle = lab[:, :len(corner_pixels)], lab[:, len(corner_pixels):].mean(axis=1)
    lit = pixels[:, :len(corner_pixels)].max(axis=2) >= VALUE_FLOOR * 255  # (N, K)
    hidden = np.zeros(count, bool)
    candidates = _plastics(corners[..., 1:])
    if border is not None and all(np.linalg.norm(border - plastic) > COVERED_CHROMA
                                  for plastic in candidates):
        candidates.append(border)  # another plastic than the corners' (a palm over them)
    for plastic in candidates:
        foreign = lit & (np.linalg.norm(corners[..., 1:] - plastic, axis=2) > COVERED_CHROMA)
        hidden |= _covered_over(corners, middle, foreign)
    return hidden


def border_plastic(frame: np.ndarray, fit: BoardFit,
                   normalise: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    """The median a*b* of the face in a band round the grid, normalised as the crops
    (``normalise``), from the band's points inside ``frame``; None where too few."""
    points = np.rint(fit.project(_border_points())).astype(int)
    height, width = frame.shape[:2]
    inside = ((points >= 0) & (points < (width, height))).all(axis=1)
    if inside.sum() < MIN_BORDER_SAMPLES:
        return None
    pixels = normalise(np.ascontiguousarray(frame[points[inside, 1], points[inside, 0]][None]))
    lab = cv2.cvtColor(pixels, cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    return np.median(lab[:, 1:], axis=0)  # dark pixels too, as the corners' median


@functools.cache
def _border_points() -> np.ndarray:
    """(4 n, 2) plane points on the band :data:`BORDER_OFFSET` outside the grid."""
    (left, top), (right, bottom) = GRID_CORNERS[0], GRID_CORNERS[2]
    left, top, right, bottom = (left - BORDER_OFFSET, top - BORDER_OFFSET,
                                right + BORDER_OFFSET, bottom + BORDER_OFFSET)
    across = np.linspace(left, right, BORDER_SAMPLES)
    down = np.linspace(top, bottom, BORDER_SAMPLES)
    points = np.concatenate([np.column_stack([across, np.full_like(across, top)]),
                             np.column_stack([across, np.full_like(across, bottom)]),
                             np.column_stack([np.full_like(down, left), down]),
                             np.column_stack([np.full_like(down, right), down])])
    points.flags.writeable = False
    return points


def _plastics(chroma: np.ndarray) -> list[np.ndarray]:
    """The plastic's a*b* candidates: the median of the cells' median corner chroma (dark
    pixels too: a dark board's plastic is mostly dark), and where a share of
    :data:`SECOND_PLASTIC_SHARE` of the corner pixels is foreign to it, those pixels'
    own median."""
    first = plastic_chroma(chroma)
    pixels = chroma.reshape(-1, 2)
    foreign = np.linalg.norm(pixels - first, axis=1) > COVERED_CHROMA
    if foreign.mean() < SECOND_PLASTIC_SHARE:
        return [first]
    return [first, np.median(pixels[foreign], axis=0)]


def _covered_over(corners: np.ndarray, middle: np.ndarray, foreign: np.ndarray) -> np.ndarray:
    """(N,) holes with enough foreign corner pixels whose middle looks like them."""
    counts = foreign.sum(axis=1)
    cover = (corners * foreign[..., None]).sum(axis=1) / np.maximum(counts, 1)[:, None]
    beside = (counts >= MIN_PIXELS) & (foreign.mean(axis=1) >= HIDDEN_SHARE)
    return beside & (np.linalg.norm(middle - cover, axis=1) <= COVER_MATCH)


@functools.cache
def _sample_indices(side: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat pixel indices of a crop's corners and of the middle of its hole (read-only)."""
    yy, xx = np.mgrid[0:side, 0:side]
    centre = (side - 1) / 2
    middle = np.hypot(yy - centre, xx - centre) < CENTRE_RADIUS * side / 32
    indices = np.flatnonzero(corner_mask(side)), np.flatnonzero(middle)
    for array in indices:
        array.flags.writeable = False
    return indices
