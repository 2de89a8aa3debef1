"""Warp the grid top-down and cut the 42 cell crops the readers see.

The warp is the SPEC.md §5 plane (80 px per pitch) restricted to the grid:
560 x 480 px, pixel (i, j) of the warp covering plane square [i + 80, i + 81) x
[j + 40, j + 41). Each cell is 80 x 80 px; a 10% inset leaves a 64 x 64 crop
centred on the hole.

The reader warps at half that resolution (``step=2``: 280 x 240 px, one
pixel sampled at the centre of each 2 x 2 block of the plane), so its crops
are 32 x 32 (:data:`CROP_SIDE` of the classifier).

A hole's *look* (:func:`cell_features`, compared by
:mod:`~firmware_py.vision.look_evidence`): the mean CIE Lab colour of four
concentric rings of its colour-normalised crop, 12 numbers.

Model input: the colour-normalised crops in HSV as OpenCV computes it for
8-bit images (H 0-179, S and V 0-255) with the hue rotated by 90
(H' = (H + 90) mod 180), so that red, which straddles H = 0, becomes one
contiguous range around 90 (yellow ~ 118, the usual blue board ~ 30); the
discontinuity moves to cyan. Float32, shape (42, 32, 32, 3), top row first,
left to right.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import (
    CELL_PX,
    CROP_PX,
    CROP_SIDE,
    GRID_ORIGIN,
    GRID_SIZE,
    INSET_PX,
    grid_translation,
)

HUE_SHIFT = 90
MAP_STEP = 8  # distortion maps are computed every MAP_STEP px and interpolated
FEATURE_SIDE = 32  # px: looks are taken of crops this size
RING_EDGES = (5.0, 9.0, 13.0)  # ring radii in px of the 32 x 32 crop


def warp_grid(frame: np.ndarray, fit: BoardFit, *, step: int = 1) -> np.ndarray:
    """The grid region of the top-down warp, BGR uint8.

    ``step`` 1: 480 x 560 x 3, one pixel per plane pixel; ``step`` 2: 240 x 280
    x 3, one pixel per 2 x 2 plane pixels, sampled at their centre.
    """
    if fit.plane_to_image is None:
        raise ValueError("cannot warp: the fit holds no board")
    if step not in (1, 2):
        raise ValueError(f"warp step must be 1 or 2, got {step}")
    size = (GRID_SIZE[0] // step, GRID_SIZE[1] // step)
    if fit.pose is None or fit.pose[2].distortion.size == 0 or not fit.pose[2].distortion.any():
        scale = np.diag([1.0 / step, 1.0 / step, 1.0])
        shift = np.array([[1.0, 0.0, 0.5 - step / 2], [0.0, 1.0, 0.5 - step / 2], [0, 0, 1.0]])
        image_to_grid = scale @ shift @ grid_translation() @ np.linalg.inv(fit.plane_to_image)
        return cv2.warpPerspective(frame, image_to_grid, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
    return _remap_distorted(frame, fit, step)


def _remap_distorted(frame: np.ndarray, fit: BoardFit, step: int) -> np.ndarray:
    """Sample the frame through the pose, lens distortion included."""
    width, height = GRID_SIZE[0] // step, GRID_SIZE[1] // step
    xs = np.arange(0, width + MAP_STEP, MAP_STEP, dtype=np.float64)
    ys = np.arange(0, height + MAP_STEP, MAP_STEP, dtype=np.float64)
    grid_x, grid_y = np.meshgrid(xs * step + GRID_ORIGIN[0] + step / 2,
                                 ys * step + GRID_ORIGIN[1] + step / 2)
    points = fit.project(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    coarse = points.reshape(len(ys), len(xs), 2).astype(np.float32)
    # Resize so that coarse node k lands on fine pixel k * MAP_STEP exactly.
    full = cv2.resize(coarse, ((len(xs) - 1) * MAP_STEP + 1, (len(ys) - 1) * MAP_STEP + 1),
                      interpolation=cv2.INTER_LINEAR)[:height, :width]
    map_x = np.ascontiguousarray(full[..., 0])
    map_y = np.ascontiguousarray(full[..., 1])
    return cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def cell_crops(grid: np.ndarray) -> np.ndarray:
    """The 42 inset crops of a warped grid, top row first.

    (42, 64, 64, 3) from a full 560 x 480 warp, (42, 32, 32, 3) from a
    half-resolution 280 x 240 one (``warp_grid(..., step=2)``).
    """
    for step in (1, 2):
        if grid.shape[:2] == (GRID_SIZE[1] // step, GRID_SIZE[0] // step):
            break
    else:
        raise ValueError(f"expected a {GRID_SIZE[0]} x {GRID_SIZE[1]} (or half that) warped "
                         f"grid, got {grid.shape[1]} x {grid.shape[0]}")
    cell, crop, inset = CELL_PX // step, CROP_PX // step, INSET_PX // step
    cells = grid.reshape(HEIGHT, cell, WIDTH, cell, -1).swapaxes(1, 2)
    inner = cells[:, :, inset:inset + crop, inset:inset + crop]
    return np.ascontiguousarray(inner).reshape(HEIGHT * WIDTH, crop, crop, -1)


@functools.lru_cache(maxsize=1)
def _hue_lut() -> np.ndarray:
    lut = np.tile(np.arange(256, dtype=np.uint8)[:, None], (1, 3))
    lut[:180, 0] = (np.arange(180) + HUE_SHIFT) % 180
    return lut.reshape(1, 256, 3)


def to_model_input(crops: np.ndarray) -> np.ndarray:
    """BGR crops (N, 32, 32, 3) uint8 to the classifier's float32 HSV input (same shape)."""
    side = CROP_SIDE
    if crops.ndim != 4 or crops.shape[1:] != (side, side, 3) or crops.dtype != np.uint8:
        raise ValueError(f"expected (N, {side}, {side}, 3) uint8 crops, got {crops.shape} "
                         f"{crops.dtype}")
    count = crops.shape[0]
    tall = crops.reshape(count * side, side, 3)
    hsv = cv2.LUT(cv2.cvtColor(tall, cv2.COLOR_BGR2HSV), _hue_lut())
    return hsv.reshape(count, side, side, 3).astype(np.float32)


def blur_measure(grid: np.ndarray) -> float:
    """Sharpness of the warped grid: variance of the Laplacian of its grey image."""
    grey = cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY) if grid.ndim == 3 else grid
    _, std = cv2.meanStdDev(cv2.Laplacian(grey, cv2.CV_16S))
    return float(std[0, 0]) ** 2


@functools.cache
def corner_mask(side: int) -> np.ndarray:
    """(side, side) True at a crop's corners, outside the hole: the plastic round it."""
    yy, xx = np.mgrid[0:side, 0:side]
    mask = np.hypot(yy - (side - 1) / 2, xx - (side - 1) / 2) > side * 0.58
    mask.flags.writeable = False  # shared by every caller (cached)
    return mask


@functools.cache
def _ring_weights() -> np.ndarray:
    """(S*S, 4) weights: column r averages the pixels of ring r."""
    centre = (FEATURE_SIDE - 1) / 2
    yy, xx = np.mgrid[0:FEATURE_SIDE, 0:FEATURE_SIDE]
    radius = np.hypot(yy - centre, xx - centre).ravel()
    edges = (0.0, *RING_EDGES, np.inf)
    rings = np.stack([(radius >= lo) & (radius < hi)
                      for lo, hi in zip(edges, edges[1:], strict=False)], axis=1)
    return (rings / rings.sum(axis=0)).astype(np.float32)


def crops_lab(crops: np.ndarray) -> np.ndarray:
    """BGR crops (N, S, S, 3) uint8 in OpenCV's 8-bit Lab, the same shape: converted
    once a frame for :func:`cell_features` and the covered test."""
    count, side = crops.shape[0], crops.shape[1]
    lab = cv2.cvtColor(crops.reshape(count * side, side, 3), cv2.COLOR_BGR2LAB)
    return lab.reshape(crops.shape)


def cell_features(crops: np.ndarray, lab: np.ndarray | None = None) -> np.ndarray:
    """(N, 12) mean Lab colour of four rings of each BGR crop (N, S, S, 3) uint8;
    ``lab``: the crops already in Lab (:func:`crops_lab`), when at hand."""
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise ValueError(f"expected (N, S, S, 3) uint8 crops, got {crops.shape} {crops.dtype}")
    if crops.shape[1:3] != (FEATURE_SIDE, FEATURE_SIDE):
        crops = np.array([cv2.resize(crop, (FEATURE_SIDE, FEATURE_SIDE),
                                     interpolation=cv2.INTER_AREA) for crop in crops])
        lab = None  # resized: the Lab given was of the crops as they were
    count = len(crops)
    lab = crops_lab(crops) if lab is None else lab
    channels = lab.reshape(count, FEATURE_SIDE * FEATURE_SIDE, 3).transpose(0, 2, 1)
    rings = channels.reshape(count * 3, -1).astype(np.float32) @ _ring_weights()
    return rings.reshape(count, 3, -1).transpose(0, 2, 1).reshape(count, -1)
