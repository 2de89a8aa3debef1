"""The cell classifier's training frames of other pieces (tools/train/pieces.py)."""

from __future__ import annotations

import cv2
import numpy as np

from firmware_py.simtable.render_spec import RenderSpec
from tools.train.cells_data import frame_crops
from tools.train.pieces import FIRST_HUES, SECOND_HUES, pieces_spec


def _hue(bgr: tuple[int, int, int]) -> float:
    pixel = np.array([[bgr]], np.uint8)
    return float(cv2.cvtColor(pixel, cv2.COLOR_BGR2HSV)[0, 0, 0])


def _within(hue: float, ranges: tuple[tuple[float, float], ...]) -> bool:
    return any(low - 1 <= hue <= high + 1 for low, high in ranges)  # 1: uint8 rounding


def test_each_players_pieces_keep_to_their_hue_rule_and_every_kind_is_drawn() -> None:
    rng = np.random.default_rng(5)
    kinds = set()
    for _ in range(300):
        spec = pieces_spec(RenderSpec.random(rng), rng)
        kinds.add(spec.pieces)
        assert _within(_hue(spec.red_colour), FIRST_HUES), spec.red_colour
        assert _within(_hue(spec.yellow_colour), SECOND_HUES), spec.yellow_colour
    assert kinds == {"disc", "sticker", "ball"}


def test_a_pieces_frame_gives_42_labelled_crops() -> None:
    crops, targets = frame_crops(("render-pieces", 3_000_007))
    assert crops.shape == (42, 32, 32, 3) and crops.dtype == np.uint8
    assert targets.shape == (42, 3)
    assert np.allclose(targets.sum(axis=1), 1.0)
