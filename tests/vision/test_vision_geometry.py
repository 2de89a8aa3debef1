"""Warp-plane geometry against SPEC §5, cell crops and the model input encoding."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_py.vision.cells import cell_crops, to_model_input
from firmware_py.vision.geometry import (
    GRID_CORNERS,
    MARKER_CENTRES,
    apply_homography,
    calibration_homography,
    cell_centres,
    cell_rect,
    grid_translation,
    marker_corners,
)


def test_marker_centres_and_cells_follow_spec() -> None:
    assert MARKER_CENTRES.tolist() == [[0, 0], [720, 0], [720, 560], [0, 560]]
    # SPEC: cell (c, r) covers x in [80c, 80c+80), y in [40+80(6-r), 120+80(6-r)).
    for c in range(1, 8):
        for r in range(1, 7):
            assert cell_rect(c, r) == (80 * c, 40 + 80 * (6 - r), 80 * c + 80, 120 + 80 * (6 - r))
    # The grid is 1 pitch inside the marker centres left/right, 0.5 pitch top/bottom.
    assert GRID_CORNERS.tolist() == [[80, 40], [640, 40], [640, 520], [80, 520]]
    with pytest.raises(ValueError, match="outside"):
        cell_rect(8, 1)


def test_cell_centres_order_top_row_first() -> None:
    centres = cell_centres()
    assert centres.shape == (42, 2)
    assert centres[0].tolist() == [120, 80]     # column 1, row 6
    assert centres[6].tolist() == [600, 80]     # column 7, row 6
    assert centres[41].tolist() == [600, 480]   # column 7, row 1


def test_marker_corners_are_square_of_configured_size() -> None:
    corners = marker_corners(2, 0.8)
    side = 0.8 * 80
    assert np.allclose(corners.mean(axis=0), (720, 560))
    assert np.allclose(np.linalg.norm(np.diff(corners, axis=0, append=corners[:1]), axis=1), side)
    assert corners[0].tolist() == [720 - side / 2, 560 - side / 2]  # top-left first


def test_calibration_moves_the_warp_destinations() -> None:
    assert np.allclose(calibration_homography([0.0] * 8), np.eye(3))
    offsets = [0.1, -0.05, 0.0, 0.2, -0.1, 0.0, 0.05, 0.05]
    matrix = calibration_homography(offsets)
    moved = apply_homography(matrix, MARKER_CENTRES)
    assert np.allclose(moved, MARKER_CENTRES + np.reshape(offsets, (4, 2)) * 80)
    with pytest.raises(ValueError):
        calibration_homography([0.0] * 7)


def test_cell_crops_cut_each_cell_with_ten_percent_inset() -> None:
    # Paint each cell of a 560 x 480 warp with its own index; leave an 8 px frame dark.
    grid = np.zeros((480, 560, 3), np.uint8)
    for index in range(42):
        row, col = divmod(index, 7)
        grid[row * 80:(row + 1) * 80, col * 80:(col + 1) * 80] = 255  # frame (inset) bright
        grid[row * 80 + 8:row * 80 + 72, col * 80 + 8:col * 80 + 72] = index
    crops = cell_crops(grid)
    assert crops.shape == (42, 64, 64, 3)
    for index in range(42):
        assert np.all(crops[index] == index)
    with pytest.raises(ValueError):
        cell_crops(np.zeros((100, 100, 3), np.uint8))


def test_grid_translation_puts_cell_centres_at_crop_centres() -> None:
    # Plane cell centre -> grid-warp pixel coordinate (pixel centres at integers):
    # the centre of an 80 px cell lies between pixels 39 and 40 of that cell.
    warp = apply_homography(grid_translation(), cell_centres())
    assert np.allclose(warp[0], (39.5, 39.5))
    assert np.allclose(warp[41], (6 * 80 + 39.5, 5 * 80 + 39.5))


def test_model_input_is_hsv_with_rotated_hue() -> None:
    rng = np.random.default_rng(1)
    crops = rng.integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    encoded = to_model_input(crops)
    assert encoded.dtype == np.float32 and encoded.shape == crops.shape
    for index in range(3):
        hsv = cv2.cvtColor(crops[index], cv2.COLOR_BGR2HSV).astype(np.float32)
        assert np.array_equal(encoded[index, ..., 1:], hsv[..., 1:])
        assert np.array_equal(encoded[index, ..., 0], (hsv[..., 0] + 90) % 180)
    # Pure red (hue 0) becomes 90; pure yellow (hue 30) becomes 120.
    pure = np.zeros((2, 32, 32, 3), np.uint8)
    pure[0] = (0, 0, 255)
    pure[1] = (0, 255, 255)
    hues = to_model_input(pure)[:, 0, 0, 0]
    assert hues.tolist() == [90.0, 120.0]
    with pytest.raises(ValueError):
        to_model_input(np.zeros((2, 64, 64, 3), np.uint8))


def test_half_resolution_crops_cut_the_same_cells() -> None:
    grid = np.zeros((240, 280, 3), np.uint8)
    for index in range(42):
        row, col = divmod(index, 7)
        grid[row * 40:(row + 1) * 40, col * 40:(col + 1) * 40] = 255
        grid[row * 40 + 4:row * 40 + 36, col * 40 + 4:col * 40 + 36] = index
    crops = cell_crops(grid)
    assert crops.shape == (42, 32, 32, 3)
    assert all(np.all(crops[index] == index) for index in range(42))


def test_half_resolution_warp_samples_block_centres_of_the_full_warp() -> None:
    # A smooth frame and a known board pose: the step-2 warp must equal the full
    # warp averaged over 2 x 2 blocks (bilinear sampling of a linear image is exact).
    from firmware_py.vision.cells import warp_grid
    from firmware_py.vision.fit import BoardFit

    ys, xs = np.mgrid[0:720, 0:1280].astype(np.float64)
    frame = np.clip(np.dstack([xs * 0.15, ys * 0.3, 40 + 0 * xs]), 0, 255).astype(np.float32)
    plane_to_image = np.array([[1.1, 0.1, 200.0], [0.05, 1.0, 60.0], [0.0, 0.0, 1.0]])
    fit = BoardFit(ok=True, plane_to_image=plane_to_image, markers=4)
    full = warp_grid(frame, fit).astype(np.float64)
    half = warp_grid(frame, fit, step=2).astype(np.float64)
    assert full.shape == (480, 560, 3) and half.shape == (240, 280, 3)
    blocks = full.reshape(240, 2, 280, 2, 3).mean(axis=(1, 3))
    assert np.abs(half - blocks).max() < 0.05
    with pytest.raises(ValueError):
        warp_grid(frame, fit, step=3)
