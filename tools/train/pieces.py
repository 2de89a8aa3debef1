"""Boards and pieces unlike the classic ones, for the cell classifier's training frames.

The ``render-pieces`` generator of :mod:`tools.train.cells_data`: the renderer's
random spec (:class:`firmware_py.simtable.render_spec.RenderSpec`) with

* **pieces** of three kinds, a third each: flat discs, discs with a round
  centre sticker of any colour (only a ring of the disc's own colour shows),
  and balls in deep dark tubes;
* **piece colours** beyond red and yellow, by one rule: the first player's
  pieces are the red-to-pink ones (hue 320°-16°), the second player's the
  orange-to-yellow ones (24°-64°); pale and dark shades of both;
* **board plastics** of any colour half the time (black, white, navy, light
  blue and the rest), the classic ones otherwise.

Never drawn from the real photographs or their restyles
(:mod:`tools.train.appearances`), which measure the reader.
"""

from __future__ import annotations

import cv2
import numpy as np

from firmware_py.simtable.render_spec import RenderSpec

Colour = tuple[int, int, int]
FIRST_HUES = ((160.0, 180.0), (0.0, 8.0))  # OpenCV hue (0-179): magenta-pink to red
SECOND_HUES = ((12.0, 32.0),)  # orange to lemon
PLASTICS = ((0.0, 180.0, 0.0, 0.25, 15.0, 60.0),  # black and dark grey: hue, saturation, value
            (0.0, 180.0, 0.0, 0.12, 190.0, 240.0),  # white and cream
            (105.0, 122.0, 0.6, 0.95, 50.0, 110.0),  # navy
            (95.0, 110.0, 0.35, 0.65, 150.0, 220.0),  # light blue
            (0.0, 180.0, 0.2, 0.9, 60.0, 220.0))  # anything


def hsv_to_bgr(hue: float, saturation: float, value: float) -> Colour:
    """BGR of an OpenCV HSV colour (hue 0-179, saturation 0-1, value 0-255)."""
    pixel = np.array([[[hue % 180.0, saturation * 255.0, value]]], np.float32)
    bgr = cv2.cvtColor(np.clip(pixel, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def piece_colour(rng: np.random.Generator, hues: tuple[tuple[float, float], ...]) -> Colour:
    """A piece colour of one player's hue ranges: vivid mostly, some pale or dark."""
    low, high = hues[int(rng.integers(len(hues)))]
    hue = rng.uniform(low, high)
    shade = rng.random()
    if shade < 0.2:  # pale (pink, cream-yellow)
        return hsv_to_bgr(hue, rng.uniform(0.3, 0.55), rng.uniform(200, 255))
    if shade < 0.35:  # dark (crimson, mustard)
        return hsv_to_bgr(hue, rng.uniform(0.7, 1.0), rng.uniform(110, 170))
    return hsv_to_bgr(hue, rng.uniform(0.6, 1.0), rng.uniform(170, 255))


def plastic_colour(rng: np.random.Generator) -> Colour:
    """A board plastic of any kind (:data:`PLASTICS`)."""
    hue_low, hue_high, sat_low, sat_high, val_low, val_high = PLASTICS[
        int(rng.integers(len(PLASTICS)))]
    return hsv_to_bgr(rng.uniform(hue_low, hue_high), rng.uniform(sat_low, sat_high),
                      rng.uniform(val_low, val_high))


def pieces_spec(spec: RenderSpec, rng: np.random.Generator) -> RenderSpec:
    """``spec`` with other pieces, piece colours and (half the time) board plastic."""
    pieces = ("disc", "sticker", "ball")[int(rng.integers(3))]
    changes: dict[str, object] = {
        "pieces": pieces,
        "red_colour": piece_colour(rng, FIRST_HUES),
        "yellow_colour": piece_colour(rng, SECOND_HUES),
        "sticker_colour": hsv_to_bgr(rng.uniform(0, 180), rng.uniform(0.0, 1.0),
                                     rng.uniform(120, 255)),
    }
    if rng.random() < 0.5:
        changes["board_colour"] = plastic_colour(rng)
    if pieces == "ball":
        changes["light_gain"] = float(spec.light_gain * rng.uniform(0.5, 1.0))  # dim rigs
    return spec.replace(**changes)
