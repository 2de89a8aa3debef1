"""What this installation's red and yellow discs look like (``c4pi calibrate --discs``).

The colour reader names a pixel red or yellow by fixed bands of hue and
saturation measured on common discs (:mod:`.colour_reader`). A set whose
discs are paler, more orange or more pink than those is read by its own
colours once they are calibrated: the owner drops one red disc, then one
yellow disc, into the empty board; the cell each lands in (the lowest cell
of a column that no longer looks as it did empty) gives that disc's hue and
saturation in this room's light, normalised like every crop.

The colour reader then also counts as that colour a pixel whose hue lies
within :data:`HUE_MARGIN` of the disc's (never past half-way to the other
disc's hue) at no less than :data:`SATURATION_SHARE` of the disc's own low
saturation. The bands are kept with the hole looks (:mod:`.hole_looks`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from c4game.exc import VisionError

HUE_MARGIN = 15.0  # degrees each side of a calibrated disc's hue
SATURATION_SHARE = 0.7  # of the disc's 20th-percentile saturation
MIN_DISC_SATURATION = 0.15  # a calibrated disc paler than this is no colour at all
# degrees along the warm arc from the red disc to the yellow: the real sets measured lie
# 30-55 apart (the navy board's 18 and 49, the turquoise board's 357 and 46, a pink and
# orange restyle's 335 and 28), two discs of one colour within about 15
MIN_PAIR_GAP = 20.0
BODY_RADIUS = 9.0  # px of the 32 px crop: well inside the disc
MIN_DISC_PIXELS = 10  # lit body pixels a disc needs to be measured
VALUE_FLOOR = 0.22  # pixels darker than this carry no hue
# The disc hues, in one place (degrees). The fixed bands name a pixel red or yellow
# when no disc was calibrated (``colour_reader``). A calibrated disc's own hue may lie
# anywhere in the warm arc that holds both bands, from lilac and magenta-pink through red and
# orange to yellow (``c4pi calibrate --discs``: an orange-red or a mustard disc is
# still a disc, a green or a blue one is not); of the two, the red disc is the one
# nearer the arc's red end (a set of pink and orange discs: the pink one plays red).
RED_HUES = ((0.0, 32.0), (315.0, 360.0))  # crimson to orange-red (~28)
YELLOW_HUES = ((37.0, 68.0),)  # olive and lime walls lie beyond 68
# degrees: from its red end to its yellow end. It starts at violet, 270: a pale pink
# disc measures 286-300 on the navy board once the markers' white balances the frame
# (docs/vision.md); board plastics (navy 226, light blue 206) and blue discs lie short of it
WARM_ARC = (270.0, 90.0)
COLOURS = ("R", "Y")


@dataclass(frozen=True)
class DiscColour:
    """One disc colour: its median hue (degrees), low saturation (0-1) and how far
    (degrees) a pixel's hue may stray from it (a calibrated disc's is
    :data:`HUE_MARGIN`; a colour found in one frame is held to its discs' own spread,
    :mod:`.frame_discs`)."""

    hue_deg: float
    saturation: float
    hue_margin: float = HUE_MARGIN

    def to_dict(self) -> dict[str, float]:
        return {"hue_deg": round(self.hue_deg, 2), "saturation": round(self.saturation, 4)}

    @classmethod
    def from_dict(cls, data: object) -> DiscColour:
        """A disc colour from :meth:`to_dict`'s output; ValueError names what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a disc colour must be an object, got {data!r}")
        hue, saturation = data.get("hue_deg"), data.get("saturation")
        if not isinstance(hue, int | float) or not 0 <= hue < 360:
            raise ValueError(f"hue_deg must be a number in [0, 360), got {hue!r}")
        if not isinstance(saturation, int | float) or not 0 < saturation <= 1:
            raise ValueError(f"saturation must be a number in (0, 1], got {saturation!r}")
        return cls(float(hue), float(saturation))


def in_hue_ranges(hue: np.ndarray | float,
                  ranges: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Where ``hue`` (degrees) lies in one of the half-open ``ranges``."""
    hue = np.asarray(hue)
    found = np.zeros(hue.shape, bool)
    for low, high in ranges:
        found |= (hue >= low) & (hue < high)
    return found


def hue_distance(first: np.ndarray | float, second: float) -> np.ndarray:
    """Circular distance in degrees between hues."""
    gap = np.abs(np.asarray(first, np.float64) - second) % 360.0
    return np.minimum(gap, 360.0 - gap)


@functools.cache
def _body_mask(side: int) -> np.ndarray:
    yy, xx = np.mgrid[0:side, 0:side] - (side - 1) / 2
    return np.hypot(yy, xx) <= BODY_RADIUS * side / 32


def measure_disc(crop: np.ndarray) -> DiscColour:
    """The colour of the disc filling a normalised BGR crop (S, S, 3) uint8."""
    hues, lows, lit = measure_discs(crop[None])
    if lit[0] < MIN_DISC_PIXELS:
        raise VisionError("the disc is too dark to measure: light the board")
    return DiscColour(round(float(hues[0]), 2) % 360.0, round(float(lows[0]), 4))


def measure_discs(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hues, low saturations, lit pixels) of the discs filling normalised BGR crops
    (N, S, S, 3) uint8: the saturation-weighted mean hue (degrees) of the body's lit
    pixels, their 20th-percentile saturation (0-1; NaN where none is lit), their count."""
    count, side = crops.shape[0], crops.shape[1]
    if not count:
        return np.empty(0), np.empty(0), np.empty(0, int)
    hsv = cv2.cvtColor(crops.reshape(count * side, side, 3), cv2.COLOR_BGR2HSV_FULL)
    body = hsv.reshape(count, side, side, 3)[:, _body_mask(side)].astype(np.float64)
    lit = body[..., 2] >= VALUE_FLOOR * 255
    angles = np.deg2rad(body[..., 0] * (360.0 / 256.0))
    weights = (body[..., 1] + 1e-6) * lit
    hues = np.rad2deg(np.arctan2((np.sin(angles) * weights).sum(axis=1),
                                 (np.cos(angles) * weights).sum(axis=1))) % 360.0
    return hues, _lit_percentile(body[..., 1], lit, 20.0) / 255.0, lit.sum(axis=1)


def _lit_percentile(values: np.ndarray, lit: np.ndarray, percent: float) -> np.ndarray:
    """Per row, the ``percent`` percentile (linear, as :func:`numpy.percentile`) of the
    ``values`` where ``lit``; NaN in a row with none lit."""
    ordered = np.sort(np.where(lit, values, np.inf), axis=1)
    last = np.maximum(lit.sum(axis=1) - 1, 0)
    position = percent / 100.0 * last
    below = np.floor(position).astype(int)
    above = np.minimum(below + 1, last)
    rows = np.arange(len(values))
    share = position - below
    with np.errstate(invalid="ignore"):  # inf * 0 in a row with none lit
        found = ordered[rows, below] * (1 - share) + ordered[rows, above] * share
    return np.where(lit.any(axis=1), found, np.nan)


def along_warm_arc(hue: float) -> float | None:
    """Degrees from the :data:`WARM_ARC`'s red end to ``hue``; None outside the arc."""
    start, end = WARM_ARC
    along = (hue - start) % 360.0
    return along if along <= (end - start) % 360.0 else None


def check_pair(red: DiscColour, yellow: DiscColour) -> None:
    """VisionError unless ``red`` and ``yellow`` look like this set's red and yellow
    discs: both in the warm arc, not grey, and the red one nearer its red end by
    :data:`MIN_PAIR_GAP` or more."""
    for name, colour in (("red", red), ("yellow", yellow)):
        if along_warm_arc(colour.hue_deg) is None:
            raise VisionError(f"the {name} disc's hue measured {colour.hue_deg:.0f} degrees: "
                              f"not a red, pink, lilac, orange or yellow (expected "
                              f"{WARM_ARC[0]:.0f}-{WARM_ARC[1]:.0f}); check the light")
        if colour.saturation < MIN_DISC_SATURATION:
            raise VisionError(f"the {name} disc measured almost grey (saturation "
                              f"{colour.saturation:.2f}): check the light")
    gap = (along_warm_arc(yellow.hue_deg) or 0.0) - (along_warm_arc(red.hue_deg) or 0.0)
    if gap <= -MIN_PAIR_GAP:
        raise VisionError(f"the red disc's hue measured {red.hue_deg:.0f} degrees, yellower "
                          f"than the yellow disc's {yellow.hue_deg:.0f}: not a red; was it "
                          f"the other colour?")
    if gap < MIN_PAIR_GAP:
        raise VisionError(f"the red and the yellow disc have about the same hue here "
                          f"({red.hue_deg:.0f} and {yellow.hue_deg:.0f} degrees): two discs "
                          f"of one colour? check the discs and the light")


def nearer_own_disc(hue: np.ndarray, discs: dict[str, DiscColour]) -> tuple[np.ndarray, ...]:
    """Per colour (red, yellow), where ``hue`` lies no nearer the other colour's calibrated
    disc than its own (everywhere when the pair is not calibrated): with this set's two
    discs known, a pixel of the fixed red band nearer the calibrated yellow is not red
    (an orange disc playing yellow, hue 28, lies in the fixed red band)."""
    if len(discs) < 2:
        every = np.ones(np.shape(hue), bool)
        return every, every
    to_red, to_yellow = (hue_distance(hue, discs[key].hue_deg) for key in COLOURS)
    return to_red <= to_yellow, to_yellow <= to_red


def disc_masks(hue: np.ndarray, saturation: np.ndarray,
               discs: dict[str, DiscColour]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Per calibrated colour (red, yellow; None if not calibrated), the pixels in its band.

    ``hue`` in degrees, ``saturation`` 0-1, any shape (too dark a pixel is the
    caller's to leave out).
    """
    half_gap = float("inf")  # one disc: nothing to keep half-way to
    if len(discs) == 2:
        half_gap = float(hue_distance(discs["R"].hue_deg, discs["Y"].hue_deg)) / 2
    masks = []
    for key in COLOURS:
        colour = discs.get(key)
        if colour is None:
            masks.append(None)
            continue
        margin = min(colour.hue_margin, half_gap)
        masks.append((hue_distance(hue, colour.hue_deg) < margin)
                     & (saturation >= SATURATION_SHARE * colour.saturation))
    return masks[0], masks[1]
