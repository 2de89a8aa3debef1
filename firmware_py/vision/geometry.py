"""Board geometry of SPEC.md §5, in the top-down warp plane.

The warp plane has 80 px per hole pitch P. The marker centres lie at
(0, 0), (720, 0), (720, 560), (0, 560) (ids 0 top-left, 1 top-right,
2 bottom-right, 3 bottom-left). Cell (column c, row r), both 1-based with row 1
at the bottom, covers x in [80c, 80c + 80) and y in [40 + 80(6 - r),
120 + 80(6 - r)). So the grid spans x in [80, 640) and y in [40, 520).

The reader warps only the grid rectangle (560 x 480 px, the same pixels as the
full 720 x 560 plane, shifted by ``GRID_ORIGIN``; see :func:`grid_translation`)
and cuts the 42 cells from it; a 10% inset on each side of an 80 px cell leaves
exactly 64 x 64 px.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from c4game.board import HEIGHT, WIDTH

PX_PER_PITCH = 80.0
PLANE_SIZE = (720, 560)  # width, height of the SPEC warp plane
MARKER_IDS = (0, 1, 2, 3)
MARKER_CENTRES = np.array([(0.0, 0.0), (720.0, 0.0), (720.0, 560.0), (0.0, 560.0)])
GRID_ORIGIN = (80, 40)  # top-left corner of the grid in the plane
GRID_SIZE = (WIDTH * 80, HEIGHT * 80)  # 560 x 480
GRID_CORNERS = np.array([(80.0, 40.0), (640.0, 40.0), (640.0, 520.0), (80.0, 520.0)])
CELL_PX = 80
CROP_PX = 64
INSET_PX = (CELL_PX - CROP_PX) // 2  # 8 px = 10% of a cell
CROP_SIDE = CROP_PX // 2  # the reader's crops, cut from the half-resolution warp


def cell_rect(column: int, row: int) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` of cell (column, row), 1-based, in the warp plane."""
    if not (1 <= column <= WIDTH and 1 <= row <= HEIGHT):
        raise ValueError(f"cell ({column}, {row}) is outside the 7 x 6 grid")
    x0 = 80.0 * column
    y0 = 40.0 + 80.0 * (HEIGHT - row)
    return x0, y0, x0 + 80.0, y0 + 80.0


def cell_centres() -> np.ndarray:
    """The 42 cell centres in the plane, top row first, left to right: (42, 2)."""
    centres = []
    for row in range(HEIGHT, 0, -1):
        for column in range(1, WIDTH + 1):
            x0, y0, x1, y1 = cell_rect(column, row)
            centres.append(((x0 + x1) / 2, (y0 + y1) / 2))
    return np.array(centres)


def marker_corners(marker_id: int, marker_size_pitch: float) -> np.ndarray:
    """The four corners of marker ``marker_id`` in the plane, (4, 2).

    Order as OpenCV's ArUco detector reports them for an upright marker:
    top-left, top-right, bottom-right, bottom-left.
    """
    half = marker_size_pitch * PX_PER_PITCH / 2
    cx, cy = MARKER_CENTRES[marker_id]
    return np.array([(cx - half, cy - half), (cx + half, cy - half),
                     (cx + half, cy + half), (cx - half, cy + half)])


def calibration_homography(calibration: Sequence[float]) -> np.ndarray:
    """The plane-to-plane homography that moves the four warp destinations.

    ``calibration`` holds 8 numbers, (dx, dy) per marker centre in order
    top-left, top-right, bottom-right, bottom-left, in cell fractions (1 = 80 px).
    All zeros give the identity.
    """
    offsets = np.asarray(calibration, dtype=np.float64)
    if offsets.shape != (8,):
        raise ValueError(f"calibration needs 8 numbers, got {len(offsets)}")
    if not offsets.any():
        return np.eye(3)
    moved = MARKER_CENTRES + offsets.reshape(4, 2) * PX_PER_PITCH
    return perspective_transform(MARKER_CENTRES, moved)


def perspective_transform(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The exact homography taking 4 points ``src`` to ``dst`` (float64)."""
    import cv2

    return cv2.getPerspectiveTransform(np.asarray(src, np.float32),
                                       np.asarray(dst, np.float32)).astype(np.float64)


def pose_rotation(yaw_deg: float, pitch_deg: float, roll_deg: float) -> np.ndarray:
    """A board's rotation in camera coordinates (3 x 3): yaw about its vertical axis,
    then pitch about its horizontal axis, then roll about the optical axis."""
    yaw, pitch, roll = (math.radians(a) for a in (yaw_deg, pitch_deg, roll_deg))
    ry = np.array([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0],
                   [-math.sin(yaw), 0, math.cos(yaw)]])
    rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)],
                   [0, math.sin(pitch), math.cos(pitch)]])
    rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0],
                   [0, 0, 1]])
    return rz @ rx @ ry


def pinhole_matrix(size: tuple[int, int], fov_deg: float) -> np.ndarray:
    """Intrinsics K of a pinhole camera: square pixels, principal point at the centre."""
    focal = size[0] / 2 / math.tan(math.radians(fov_deg) / 2)
    return np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])


def board_translation(matrix: np.ndarray, size: tuple[int, int], depth: float,
                      offset: tuple[float, float]) -> np.ndarray:
    """The board centre in camera coordinates (pitches): ``depth`` along the optical axis,
    shifted by ``offset`` (fractions of the frame ``size``) as the camera ``matrix`` sees it."""
    focal = matrix[0, 0]
    return np.array([offset[0] * size[0] * depth / focal, offset[1] * size[1] * depth / focal,
                     depth])


def plane_homography(matrix: np.ndarray, rotation: np.ndarray, translation: np.ndarray,
                     depth: float = 0.0) -> np.ndarray:
    """Homography from the warp plane (80 px per pitch, centred on the marker rectangle),
    moved ``depth`` pitches behind the board's face, to the frame."""
    extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1],
                                 translation + depth * rotation[:, 2]])
    centre = MARKER_CENTRES[2] / 2 / PX_PER_PITCH
    plane_to_world = np.array([[1 / PX_PER_PITCH, 0, -centre[0]],
                               [0, 1 / PX_PER_PITCH, -centre[1]], [0, 0, 1.0]])
    result = matrix @ extrinsic @ plane_to_world
    return result / result[2, 2]


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (N, 2) points through a 3 x 3 homography."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(matrix, np.float64).T
    return homog[:, :2] / homog[:, 2:3]


def grid_translation() -> np.ndarray:
    """Homography from the SPEC plane to pixel coordinates of the grid-only warp.

    Pixel (i, j) of the grid warp covers the plane square [i + 80, i + 81) x
    [j + 40, j + 41); its centre (OpenCV's integer coordinate) is plane point
    (i + 80.5, j + 40.5).
    """
    return np.array([[1.0, 0.0, -GRID_ORIGIN[0] - 0.5], [0.0, 1.0, -GRID_ORIGIN[1] - 0.5],
                     [0.0, 0.0, 1.0]])
