"""Training augmentation keeps frames whole: a camera's colour errors are the same
over a frame, so the network can compare a cell with the frame's others."""

from __future__ import annotations

import numpy as np

from firmware_py.vision.geometry import CROP_SIDE
from tools.train.cells_data import CELLS_PER_FRAME, augment


def test_colour_errors_are_drawn_per_frame_not_per_cell() -> None:
    frames = 6
    crops = np.empty((frames * CELLS_PER_FRAME, CROP_SIDE, CROP_SIDE, 3), np.uint8)
    crops[:] = (60, 110, 170)  # one plain colour everywhere, BGR
    targets = np.tile(np.eye(3, dtype=np.float32)[1], (len(crops), 1))  # red: no textures
    hsv, _ = augment(crops, targets, np.random.default_rng(3))
    centre = slice(CROP_SIDE // 4, 3 * CROP_SIDE // 4)
    value = hsv[:, centre, centre, 2].mean(axis=(1, 2)).reshape(frames, CELLS_PER_FRAME)
    hue = hsv[:, centre, centre, 0].mean(axis=(1, 2)).reshape(frames, CELLS_PER_FRAME)
    medians = np.median(value, axis=1)
    # within a frame most cells agree (glare and fingers touch a few) ...
    for row, median in zip(value, medians, strict=True):
        assert np.mean(np.abs(row - median) < 2.0) >= 0.75
    for row in hue:
        assert np.mean(np.abs(row - np.median(row)) < 1.0) >= 0.75
    # ... while frames differ from each other
    assert np.ptp(medians) > 5.0
