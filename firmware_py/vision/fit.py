"""Locate the board plane from its markers: homography or solvePnP, with checks.

Every detected marker gives four corners whose positions on the board plane
are known (SPEC.md §5), so two or more markers (8+ point pairs) determine the
plane-to-image homography without intrinsics (``cv2.findHomography``, least
squares over all corners). With camera intrinsics (``[camera] fx fy``) the pose
is found with ``cv2.solvePnP`` (SQPNP, refined by Levenberg-Marquardt), which
also handles lens distortion.

A fit is accepted only when the mean reprojection error of the marker corners
is at most ``max_reprojection_px``, the projected grid is a convex, correctly
oriented (not mirrored) quadrilateral lying inside the frame, and its cells are
not too small to read. With fewer than four markers the fit is also checked
for sensitivity: it is refitted with the corners jittered by the typical
corner noise (0.5 px, fixed pseudo-random patterns) and rejected when a cell
centre would move by more than a tenth of a cell. This is what rejects most
two-marker fits (the grid is extrapolated far from two small squares) while
keeping close, sharp ones. With three or four markers and too large an error,
each subset without one marker is tried (a misdetected or bent marker is
dropped) and the best acceptable subset is used.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from firmware_py.config import VisionConfig
from firmware_py.vision.geometry import (
    GRID_CORNERS,
    MARKER_IDS,
    PX_PER_PITCH,
    apply_homography,
    calibration_homography,
    cell_centres,
    marker_corners,
)
from firmware_py.vision.markers import Marker

MIN_MARKERS = 2
MIN_CELL_PX = 12.0  # a grid cell narrower than this (in the frame) is not read
# how far (pitches) the outer cells may reach past the picture's edge: a hole (about
# 0.8 pitch across) then keeps 7/8 of itself in view on an edge, 3/4 in a corner (a board
# that fills the picture edge to edge); the cells outside are read from the edge's pixels
OUT_PITCH = 0.25
CORNER_SIGMA_PX = 0.5  # assumed corner noise for the sensitivity check
SENSITIVITY_TRIALS = 6
MAX_CELL_SHIFT = 0.1  # largest tolerated predicted shift of a cell centre, in cells


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole camera intrinsics (pixels) and optional distortion coefficients."""

    matrix: np.ndarray
    distortion: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def from_values(cls, fx: float, fy: float, cx: float, cy: float,
                    distortion: Sequence[float] = ()) -> Intrinsics:
        matrix = np.array([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
        return cls(matrix, np.asarray(list(distortion), np.float64))


@dataclass(frozen=True)
class BoardFit:
    """Where the board plane is in the frame, or why it was not found.

    ``plane_to_image`` maps the (calibrated) SPEC §5 warp plane to undistorted
    frame pixels; ``pose`` is ``(rvec, tvec, intrinsics)`` when solvePnP was
    used, so that distortion can be applied when sampling the frame.
    """

    ok: bool
    reason: str = ""
    plane_to_image: np.ndarray | None = None
    markers: int = 0
    marker_ids: tuple[int, ...] = ()
    reprojection_px: float = 0.0
    pose: tuple[np.ndarray, np.ndarray, Intrinsics] | None = None
    calibration: np.ndarray = field(default_factory=lambda: np.eye(3))
    depth: float = 0.0  # pitches behind the front face (the disc plane, :mod:`.depth`)
    found_by: str = "markers"  # or "holes" (:mod:`.hole_locator`)

    def project(self, plane_points: np.ndarray) -> np.ndarray:
        """Frame pixels (distorted when the pose is known) of plane points (N, 2)."""
        if self.plane_to_image is None:
            raise ValueError("no board was found: nothing to project")
        if self.pose is None:
            return apply_homography(self.plane_to_image, plane_points)
        nominal = apply_homography(np.linalg.inv(self.calibration), plane_points)
        return _project_pose(self.pose, nominal, self.depth)


class BoardLocator:
    """Fits the board plane to detected markers (see the module docstring)."""

    def __init__(self, *, marker_size_pitch: float = VisionConfig.marker_size_pitch,
                 calibration: Sequence[float] = (0.0,) * 8,
                 max_reprojection_px: float = VisionConfig.max_reprojection_px,
                 intrinsics: Intrinsics | None = None) -> None:
        self.marker_size_pitch = marker_size_pitch
        self.calibration = calibration_homography(calibration)
        self.max_reprojection_px = max_reprojection_px
        self.intrinsics = intrinsics

    def locate(self, markers: dict[int, Marker], frame_size: tuple[int, int]) -> BoardFit:
        """Fit the plane to ``markers`` (by id) seen in a frame of ``(width, height)``."""
        if len(markers) < MIN_MARKERS:
            return BoardFit(False, f"{len(markers)} marker(s) visible, need {MIN_MARKERS}",
                            markers=len(markers), marker_ids=tuple(markers))
        best = self._fit_subset(markers, tuple(markers), frame_size)
        if best.ok or len(markers) <= MIN_MARKERS:
            return best
        for size in range(len(markers) - 1, MIN_MARKERS - 1, -1):
            tries = [self._fit_subset(markers, ids, frame_size)
                     for ids in itertools.combinations(sorted(markers), size)]
            good = [fit for fit in tries if fit.ok]
            if good:
                return min(good, key=lambda fit: fit.reprojection_px)
        return best

    def _fit_subset(self, markers: dict[int, Marker], ids: tuple[int, ...],
                    frame_size: tuple[int, int]) -> BoardFit:
        plane = np.concatenate([marker_corners(i, self.marker_size_pitch) for i in ids])
        image = np.concatenate([markers[i].corners for i in ids])
        pose: tuple[np.ndarray, np.ndarray, Intrinsics] | None = None
        if self.intrinsics is None:
            fitted = _fit_homography(plane, image)
        else:
            posed = _fit_pose(plane, image, self.intrinsics)
            fitted, pose = (None, None) if posed is None else posed
        base = BoardFit(False, markers=len(ids), marker_ids=ids, calibration=self.calibration)
        if fitted is None:
            return replace(base, reason="the marker corners admit no plane fit")
        predicted = (_project_pose(pose, plane) if pose is not None
                     else apply_homography(fitted, plane))
        error = float(np.mean(np.linalg.norm(predicted - image, axis=1)))
        plane_to_image = fitted @ np.linalg.inv(self.calibration)
        fit = replace(base, ok=True, plane_to_image=plane_to_image, reprojection_px=error,
                      pose=pose)
        if error > self.max_reprojection_px:
            return _reject(fit, f"marker reprojection error {error:.1f} px exceeds "
                                f"{self.max_reprojection_px:g} px")
        problem = grid_problem(fit, frame_size)
        if not problem and len(ids) < len(MARKER_IDS):
            problem = self._sensitivity_problem(fit, plane, image)
        return _reject(fit, problem) if problem else fit

    def _sensitivity_problem(self, fit: BoardFit, plane: np.ndarray, image: np.ndarray) -> str:
        """Why the fit is too sensitive to corner noise ("" when it is not)."""
        centres = fit.project(cell_centres())
        quad = fit.project(GRID_CORNERS)
        cell_px = min(np.linalg.norm(quad[1] - quad[0]) / 7, np.linalg.norm(quad[3] - quad[0]) / 6)
        rng = np.random.default_rng(len(image))
        worst = 0.0
        for _ in range(SENSITIVITY_TRIALS):
            noisy = image + rng.normal(0.0, CORNER_SIGMA_PX, image.shape)
            if self.intrinsics is None:
                matrix, pose = _fit_homography(plane, noisy), None
            else:
                fitted = _fit_pose(plane, noisy, self.intrinsics)
                matrix, pose = (None, None) if fitted is None else fitted
            if matrix is None:
                return "the marker fit is unstable"
            trial = BoardFit(True, plane_to_image=matrix @ np.linalg.inv(self.calibration),
                             pose=pose, calibration=self.calibration)
            worst = max(worst, float(np.linalg.norm(trial.project(cell_centres()) - centres,
                                                    axis=1).max()))
        if worst > MAX_CELL_SHIFT * cell_px:
            return (f"{len(plane) // 4} markers locate the grid too loosely "
                    f"(cells could shift {worst / cell_px:.0%} of a cell)")
        return ""


def _reject(fit: BoardFit, reason: str) -> BoardFit:
    return replace(fit, ok=False, reason=reason)


def grid_problem(fit: BoardFit, frame_size: tuple[int, int]) -> str:
    """Why the projected grid cannot be read ("" when it can)."""
    quad = fit.project(GRID_CORNERS)
    if not np.all(np.isfinite(quad)):
        return "the grid projects to infinity"
    contour = quad.astype(np.float32).reshape(-1, 1, 2)
    if not cv2.isContourConvex(contour):
        return "the projected grid is not convex"
    if _signed_area(quad) <= 0:
        return "the projected grid is mirrored (board seen from behind?)"
    width, height = frame_size
    inset = OUT_PITCH * PX_PER_PITCH * np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)])
    inner = fit.project(GRID_CORNERS + inset)
    if (np.any(inner < -0.5) or np.any(inner[:, 0] > width - 0.5)
            or np.any(inner[:, 1] > height - 0.5)):
        return "the grid is partly outside the frame"
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    shortest_cell = min(sides[[0, 2]].min() / 6, sides[[1, 3]].min() / 7)
    if shortest_cell < MIN_CELL_PX:
        return f"the grid is too small in the frame ({shortest_cell:.0f} px per cell)"
    return ""


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _fit_homography(plane: np.ndarray, image: np.ndarray) -> np.ndarray | None:
    matrix, _ = cv2.findHomography(plane, image, 0)
    if matrix is None or not np.all(np.isfinite(matrix)) or abs(matrix[2, 2]) < 1e-12:
        return None
    return matrix / matrix[2, 2]


def _plane_to_world(points: np.ndarray, depth: float = 0.0) -> np.ndarray:
    """Plane units (80 per pitch) to board coordinates in pitches, Z = ``depth``."""
    world = np.full((len(points), 3), float(depth))
    world[:, :2] = points / PX_PER_PITCH
    return world


def _fit_pose(plane: np.ndarray, image: np.ndarray, intrinsics: Intrinsics
              ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, Intrinsics]] | None:
    world = _plane_to_world(plane)
    ok, rvec, tvec = cv2.solvePnP(world, image, intrinsics.matrix, intrinsics.distortion,
                                  flags=cv2.SOLVEPNP_SQPNP)
    if not ok:
        return None
    rvec, tvec = cv2.solvePnPRefineLM(world, image, intrinsics.matrix, intrinsics.distortion,
                                      rvec, tvec)
    rotation, _ = cv2.Rodrigues(rvec)
    if tvec[2, 0] <= 0:
        return None
    extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], tvec[:, 0]])
    scale = np.diag([1 / PX_PER_PITCH, 1 / PX_PER_PITCH, 1.0])
    matrix = intrinsics.matrix @ extrinsic @ scale
    return matrix / matrix[2, 2], (rvec, tvec, intrinsics)


def _project_pose(pose: tuple[np.ndarray, np.ndarray, Intrinsics],
                  plane: np.ndarray, depth: float = 0.0) -> np.ndarray:
    rvec, tvec, intrinsics = pose
    points, _ = cv2.projectPoints(_plane_to_world(plane, depth), rvec, tvec, intrinsics.matrix,
                                  intrinsics.distortion)
    return points.reshape(-1, 2)
