"""This frame's own disc colours: which two hues are the discs here.

The colour reader names a pixel red or yellow by fixed hue bands measured on
common discs (:data:`~.disc_colours.RED_HUES`); a set of pink and orange
discs falls outside them (pink too pale, orange inside the red band). A
person meeting such a board reads its colours from the board itself: "the
pieces are of two colours; the pinker one plays red". So does this module,
from one frame, before the colour reader runs:

1. the cells the shape reader (the CNN) takes for discs, none covered, are
   measured like a calibrated disc (:func:`~.disc_colours.measure_discs`);
2. their hues along the warm arc (lilac and pink to yellow) are split where
   they lie furthest apart; each side needs :data:`MIN_CELLS` cells, and the
   gap between the sides :data:`MIN_SPLIT` degrees;
3. the two sides are this frame's red and yellow when they pass the same
   check as a calibrated pair (:func:`~.disc_colours.check_pair`: both warm,
   the red side nearer the red end by ``MIN_PAIR_GAP``) **and** the shape
   reader, on the whole, names them so (its red above its yellow on the red
   side, and the reverse): one colour's discs split by the light into two
   shades are never made a pair;
4. they are used only where the fixed bands do not already name them (a
   side's median hue outside its colour's fixed band, or paler than the
   colour reader's saturation floor): on common discs nothing changes;
5. each colour holds only its own discs' hues, and replaces the fixed band
   of that colour for this frame: as far as most of its discs' hues
   (:data:`SPREAD_PERCENTILE`) stray from their median, plus
   :data:`PIXEL_SPREAD` for a disc's own pixels, at most ``HUE_MARGIN`` (a
   yellow glimpsed behind an empty hole of a set of orange discs is not
   orange);
6. the frame is then *unfamiliar*: where the colour reader sees a disc, the
   CNN's "empty" is weighed as the colour reader's is (:mod:`.combine`).

Nothing is fitted across frames; a frame whose discs do not fall into two
such kinds (one colour only, too few discs) gets no colours and the fixed
bands read it. Calibrated colours (``c4pi calibrate --discs``) come first.
"""

from __future__ import annotations

import numpy as np

from c4game.exc import VisionError
from firmware_py.vision.colour_reader import MIN_SATURATION
from firmware_py.vision.disc_colours import (
    HUE_MARGIN,
    MIN_DISC_PIXELS,
    MIN_DISC_SATURATION,
    RED_HUES,
    WARM_ARC,
    YELLOW_HUES,
    DiscColour,
    along_warm_arc,
    check_pair,
    hue_distance,
    in_hue_ranges,
    measure_discs,
)

MIN_CELLS = 2  # discs each colour needs in the frame
MIN_SPLIT = 10.0  # degrees: the empty stretch of hue between the two colours' discs
SATURATION_PERCENTILE = 25.0  # of the discs' own low saturations: the colour's
# degrees a disc's pixels stray from its mean hue (90th percentile, median 2-5, at
# most 12 on the real photos, the composites and the renders)
PIXEL_SPREAD = 8.0
SPREAD_PERCENTILE = 75.0  # of the discs' hue distances from the median: their spread


def frame_disc_colours(crops: np.ndarray, shape_probs: np.ndarray,
                       covered: np.ndarray) -> dict[str, DiscColour]:
    """{"R": …, "Y": …} this frame's two disc colours, or {} when it shows no such pair
    or the fixed bands name its discs already.

    ``crops``: the 42 normalised BGR crops; ``shape_probs``: the CNN's (42, 3)
    probabilities (empty, red, yellow); ``covered``: the cells a hand hides.
    """
    cells = np.flatnonzero((shape_probs[:, 0] < 0.5) & ~np.asarray(covered, bool))
    alongs, hues, saturations, cells = _measured(crops, cells)
    if len(cells) < 2 * MIN_CELLS:
        return {}
    order = np.argsort(alongs)
    alongs, hues, saturations, cells = (x[order] for x in (alongs, hues, saturations, cells))
    gaps = np.diff(alongs)[MIN_CELLS - 1:len(alongs) - MIN_CELLS]
    split = int(np.argmax(gaps)) + MIN_CELLS
    if gaps.max() < MIN_SPLIT:
        return {}
    sides = slice(None, split), slice(split, None)
    lows = [float(np.percentile(saturations[side], SATURATION_PERCENTILE)) for side in sides]
    red, yellow = (_colour(alongs[side], hues[side], low)
                   for side, low in zip(sides, lows, strict=True))
    try:
        check_pair(red, yellow)
    except VisionError:
        return {}
    if not (_names(shape_probs, cells[:split], 1) and _names(shape_probs, cells[split:], 2)):
        return {}
    if all(_named_by_fixed_bands(colour.hue_deg, low, ranges) for colour, low, ranges
           in zip((red, yellow), lows, (RED_HUES, YELLOW_HUES), strict=True)):
        return {}
    return {"R": red, "Y": yellow}


def _measured(crops: np.ndarray, cells: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(degrees along the warm arc, hues, low saturations, cells) of the ``cells`` whose
    disc is warm, coloured and lit enough to measure (:func:`~.disc_colours.measure_discs`)."""
    hues, lows, lit = measure_discs(crops[cells])
    alongs = np.array([along_warm_arc(hue) for hue in hues], dtype=float)  # NaN: not warm
    keep = ((lit >= MIN_DISC_PIXELS) & (np.nan_to_num(lows) >= MIN_DISC_SATURATION)
            & np.isfinite(alongs))
    return alongs[keep], hues[keep], lows[keep], cells[keep]


def _colour(alongs: np.ndarray, hues: np.ndarray, low: float) -> DiscColour:
    """One side's colour: its median hue, its discs' low saturation ``low``, its discs'
    spread."""
    hue = (WARM_ARC[0] + float(np.median(alongs))) % 360.0
    spread = float(np.percentile(hue_distance(hues, hue), SPREAD_PERCENTILE)) + PIXEL_SPREAD
    return DiscColour(round(hue, 2) % 360.0, round(low, 4), min(HUE_MARGIN, round(spread, 2)))


def _names(shape_probs: np.ndarray, cells: np.ndarray, kind: int) -> bool:
    """Whether the shape reader, summed over ``cells``, names them ``kind`` over the other."""
    return float(shape_probs[cells, kind].sum()) > float(shape_probs[cells, 3 - kind].sum())


def _named_by_fixed_bands(hue: float, low_saturation: float,
                          ranges: tuple[tuple[float, float], ...]) -> bool:
    """Whether the colour reader's fixed band of this colour already names discs of this
    hue and low saturation (most of their pixels above its saturation floor)."""
    return bool(in_hue_ranges(hue, ranges)) and low_saturation >= MIN_SATURATION
