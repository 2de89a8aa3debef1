"""The second opinion: a cell reader that looks at colour only, no learning.

It works on the colour-normalised crops (:mod:`firmware_py.vision.colour`), so
"red" and "yellow" mean the colours a person would name under neutral light.
A disc fills its hole with one colour; what is seen through an empty hole
(the room, the table, a spare disc lying behind the board) rarely fills it
all. For each crop:

1. every pixel is classed red-ish, yellow-ish or neither by hue, saturation
   and value (:data:`RED_HUES`, :data:`YELLOW_HUES`, :data:`MIN_SATURATION`,
   :data:`MIN_VALUE`, HSV in degrees and 0-1);
2. the share of each colour inside a disc-sized circle (radius
   :data:`PROBE_RADIUS`, 0.275 P) is taken at the centre and at the offsets
   :data:`PROBE_OFFSETS` (a disc behind the face shifts at oblique views),
   keeping the best-filled position;
3. the shares become probabilities by soft thresholds: a colour filling at
   least :data:`DISC_SHARE` of the probe is that disc, a share below
   :data:`EMPTY_SHARE` for both colours is empty, and in between the reader
   is unsure.

A cell whose corners (outside the hole, where the board's plastic shows)
differ in chromaticity from the board's plastic — the median over all cells —
by more than :data:`COVERED_CHROMA` is covered (a hand, a sleeve): the
reader is unsure of it, whatever shows in the hole.

Given this installation's empty looks
(:meth:`~firmware_py.vision.hole_looks.HoleLooks.empty_looks`), a cell that no
longer looks as it looked empty (by :data:`CHANGED_DISTANCE`) holds
something, and is read as a disc when a disc hue fills
:data:`CHANGED_DISC_SHARE` of its probe at the lower saturation
:data:`CHANGED_MIN_SATURATION` and value :data:`CHANGED_MIN_VALUE` (a pale,
washed-out, shaded or dimly lit disc that colour alone would call empty). A
cell that still looks as it looked empty is the memory's to read
(:mod:`~firmware_py.vision.hole_looks`), not this reader's: it does not count
the empty look a second time.

Its mistakes are not the CNN's: it knows nothing of shapes, textures or the
renderer's style, and the CNN knows nothing of hue thresholds. The reader
weighs both (:mod:`firmware_py.vision.combine`).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from firmware_py.vision.cells import cell_features, corner_mask, crops_lab
from firmware_py.vision.disc_colours import (
    RED_HUES,
    VALUE_FLOOR,
    YELLOW_HUES,
    DiscColour,
    disc_masks,
    in_hue_ranges,
    nearer_own_disc,
)
from firmware_py.vision.look_evidence import CHANGED_DISTANCE

MIN_SATURATION = 0.55  # real discs, normalised: >= 0.7; beige and wood walls: less
MIN_VALUE = VALUE_FLOOR  # 0.22: darker pixels carry no hue
PROBE_RADIUS = 11.0  # px of the 32 px crop (0.275 P): inside a disc, wider than a glimpse
PROBE_OFFSETS = (-3, 0, 3)  # px, each way in x and y
DISC_SHARE = 0.8
EMPTY_SHARE = 0.6
SOFTNESS = 0.04
COVERED_CHROMA = 25.0  # Lab a*b* distance: real boards <= 15, hands 25-70
CHANGED_MIN_SATURATION = 0.25  # a disc seen where the hole has changed may be this pale
CHANGED_MIN_VALUE = 0.1  # ... or this dark (a dim room: the disc's body near the floor)
CHANGED_DISC_SHARE = 0.45  # ... and fill only this much of the probe (dark rims, highlights)
UNSURE = (0.34, 0.33, 0.33)
UNSURE_FLOOR = 0.04  # colour alone is never surer than ~0.92: the CNN may outweigh it


@functools.cache
def _probes(side: int) -> np.ndarray:
    """(side * side, 9) the disc-sized probe (radius :data:`PROBE_RADIUS`, weights summing
    to 1) at the crop's centre moved by each pair of :data:`PROBE_OFFSETS`: a crop's
    flattened mask times it gives the share of each probe position."""
    centre = (side - 1) // 2
    reach = int(PROBE_RADIUS)
    whole = np.count_nonzero(np.hypot(*np.mgrid[-reach:reach + 1, -reach:reach + 1])
                             <= PROBE_RADIUS)  # a probe past a small crop's edge sees nothing
    yy, xx = np.mgrid[0:side, 0:side]
    probes = []
    for dy in PROBE_OFFSETS:
        for dx in PROBE_OFFSETS:
            disc = np.hypot(yy - centre - dy, xx - centre - dx) <= PROBE_RADIUS
            probes.append(disc.ravel() / whole)
    matrix = np.stack(probes, axis=1).astype(np.float32)
    matrix.flags.writeable = False
    return matrix


def colour_shares(crops: np.ndarray, min_saturation: float = MIN_SATURATION,
                  discs: dict[str, DiscColour] | None = None,
                  min_value: float = MIN_VALUE, fixed_bands: bool = True) -> np.ndarray:
    """(N, 2) best share of red and of yellow pixels in a disc-sized probe of each crop.

    A pixel counts when it lies in the colour's fixed band at a saturation of at
    least ``min_saturation`` (0-1), or in the band of the disc of that colour
    given (``discs``: this installation's calibrated ones, or this frame's own,
    :mod:`~firmware_py.vision.disc_colours`). Without ``fixed_bands`` only the
    given discs' bands count (this frame's discs are not the fixed bands' colours,
    :mod:`~firmware_py.vision.frame_discs`).
    """
    count, side = crops.shape[0], crops.shape[1]
    hsv = cv2.cvtColor(crops.reshape(count * side, side, 3), cv2.COLOR_BGR2HSV_FULL)
    hue = hsv[..., 0].astype(np.float32) * (360.0 / 256.0)
    lit = hsv[..., 2] >= min_value * 255
    bright = (hsv[..., 1] >= min_saturation * 255) & lit
    calibrated = (disc_masks(hue, hsv[..., 1] / 255.0, discs) if discs else (None, None))
    own_side = nearer_own_disc(hue, discs or {})
    shares = np.empty((count, 2), np.float32)
    for index, ranges in enumerate((RED_HUES, YELLOW_HUES)):
        mask = bright & in_hue_ranges(hue, ranges) & own_side[index] & fixed_bands
        if calibrated[index] is not None:
            mask |= calibrated[index] & lit
        filled = mask.reshape(count, side * side).astype(np.float32) @ _probes(side)
        shares[:, index] = filled.max(axis=1)
    return shares


def covered_cells(crops: np.ndarray, lab: np.ndarray | None = None) -> np.ndarray:
    """(N,) True where a crop's corners are not the board's plastic (see the module
    docstring); ``lab``: the crops already in Lab (:func:`~.cells.crops_lab`)."""
    count, side = crops.shape[0], crops.shape[1]
    lab = crops_lab(crops) if lab is None else lab
    corners = lab.reshape(count, side, side, 3)[:, corner_mask(side), 1:].astype(np.float32)
    chroma = np.median(corners, axis=1)  # (N, 2): a*, b* of each cell's surround
    return np.linalg.norm(chroma - plastic_chroma(corners), axis=1) > COVERED_CHROMA


def plastic_chroma(corner_chroma: np.ndarray) -> np.ndarray:
    """(2,) the board plastic's a*b*: the median over the cells of each cell's median
    corner chroma (``corner_chroma``: (N, K, 2), K corner pixels of each of N cells)."""
    median: np.ndarray = np.median(np.median(corner_chroma, axis=1), axis=0)
    return median


def _soft(value: np.ndarray, edge: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(value - edge) / SOFTNESS))


def shares_to_probabilities(shares: np.ndarray) -> np.ndarray:
    """(N, 3) probabilities (empty, red, yellow) from the colour shares (N, 2)."""
    red, yellow = shares[:, 0].astype(np.float64), shares[:, 1].astype(np.float64)
    evidence = np.stack([_soft(-np.maximum(red, yellow), -EMPTY_SHARE),
                         _soft(red, DISC_SHARE), _soft(yellow, DISC_SHARE)], axis=1)
    evidence += UNSURE_FLOOR
    return evidence / evidence.sum(axis=1, keepdims=True)


class ColourCellReader:
    """Cell probabilities from colour alone (see the module docstring)."""

    def probabilities(self, crops: np.ndarray, covered: np.ndarray | None = None, *,
                      discs: dict[str, DiscColour] | None = None,
                      empty_looks: np.ndarray | None = None,
                      features: np.ndarray | None = None,
                      fixed_bands: bool = True) -> np.ndarray:
        """(42, 3) probabilities of normalised BGR crops (42, S, S, 3) uint8.

        ``covered`` is the explicit mask of the cells the reader has no opinion on
        (:func:`covered_cells`, computed when not given): they get :data:`UNSURE`.
        ``discs``: this set's calibrated disc colours, or this frame's own (then
        without ``fixed_bands``, :func:`colour_shares`); ``empty_looks`` (42, 12, NaN
        where unknown): each hole's empty look, with the crops'
        :func:`~firmware_py.vision.cells.cell_features` (``features``,
        computed when not given).
        """
        probabilities = shares_to_probabilities(
            colour_shares(crops, discs=discs, fixed_bands=fixed_bands))
        covered = covered_cells(crops) if covered is None else np.asarray(covered, bool)
        probabilities[covered] = UNSURE
        if empty_looks is None or not np.isfinite(empty_looks[:, 0]).any():
            return probabilities
        if features is None:
            features = cell_features(crops)
        known = np.isfinite(empty_looks[:, 0])
        distance = np.linalg.norm(features - np.nan_to_num(empty_looks), axis=1)
        changed = known & (distance >= CHANGED_DISTANCE) & ~covered
        if changed.any():
            probabilities[changed] = _changed_cell_probabilities(
                crops[changed], probabilities[changed], empty_looks[changed], discs,
                fixed_bands)
        return probabilities


def _changed_cell_probabilities(crops: np.ndarray, probabilities: np.ndarray,
                                empty_looks: np.ndarray,
                                discs: dict[str, DiscColour] | None,
                                fixed_bands: bool = True) -> np.ndarray:
    """Cells no longer as they looked empty: a disc when filled with a paler disc hue.

    Something now stands in such a hole. Filled with a disc's hue (at least
    :data:`CHANGED_DISC_SHARE` of the probe, at a saturation of at least
    :data:`CHANGED_MIN_SATURATION` and a value of :data:`CHANGED_MIN_VALUE`:
    a pale, washed-out or dim disc), it is read as that disc, unless the hole
    showed that hue empty (a wood or beige wall, seen again after the camera or
    the light moved); otherwise the reading stands. The shares are scaled so
    that :data:`CHANGED_DISC_SHARE` takes the place of :data:`DISC_SHARE`.
    """
    shares = colour_shares(crops, CHANGED_MIN_SATURATION, discs, CHANGED_MIN_VALUE,
                           fixed_bands)
    shares = np.minimum(shares * (DISC_SHARE / CHANGED_DISC_SHARE), 1.0)
    loose = shares_to_probabilities(np.where(_pale_disc_hues(empty_looks), 0.0, shares))
    disc = loose[:, 1:].max(axis=1) > probabilities[:, 1:].max(axis=1)
    return np.where(disc[:, None], loose, probabilities)


def _pale_disc_hues(empty_looks: np.ndarray) -> np.ndarray:
    """(N, 2) whether each cell's empty look (its 12 features) is red-ish, yellow-ish
    at :data:`CHANGED_MIN_SATURATION` (the mean colour of its two inner rings)."""
    lab = empty_looks.reshape(len(empty_looks), -1, 3)[:, :2].mean(axis=1)
    bgr = cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8)[None], cv2.COLOR_LAB2BGR)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV_FULL)[0].astype(np.float32)
    hue = hsv[:, 0] * (360.0 / 256.0)
    tinted = ((hsv[:, 1] >= CHANGED_MIN_SATURATION * 255)
              & (hsv[:, 2] >= CHANGED_MIN_VALUE * 255))
    return np.stack([tinted & in_hue_ranges(hue, RED_HUES),
                     tinted & in_hue_ranges(hue, YELLOW_HUES)], axis=1)
