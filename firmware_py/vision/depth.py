"""The disc plane: where the discs are, behind the board's front face.

The markers are stuck on the board's front face, but a disc sits inside the
board, ``depth`` hole pitches P behind it (about 0.35 P on common boards).
Seen obliquely, the disc is shifted against its hole by up to
``depth * sin(view angle)``, a third of a cell at 45°. The reader therefore
warps the **disc plane**, the face moved ``depth`` along the board's normal,
not the marker plane.

What the camera sees of a disc is where the disc and its hole overlap: a
lens whose centre lies half-way between the hole's centre and the disc's
(both circles of about the same radius). So the reader warps the plane at
:data:`SEEN_DEPTH_SHARE` (half) of the disc depth: each crop is centred on
what shows of its disc, and an empty hole is off-centre by as little. Board
coordinates: x right and y down the face, z into
the board (away from the camera), so the disc plane is z = +depth::

        camera
          \\
           \\  face (markers)  z = 0      ───┬──┬──┬──
            \\                               │  │  │     holes
             \\  disc plane    z = depth  ───●──●──●──  discs

The disc plane's homography needs the camera: H_disc = K [r1 r2 t + d r3]
(K intrinsics; r1 r2 r3 t the board's pose). Three ways to get it, best first:

1. **pose** — the fit used configured or default intrinsics (solvePnP); the
   disc plane is projected through the pose itself, lens distortion included;
2. **estimated focal length** — no intrinsics: the marker homography
   determines the focal length when the principal point is the frame centre
   and pixels are square (true of camera modules and webcams that do not
   crop off-centre), from the two constraints that r1 and r2 are orthogonal
   and equally long (Zhang's plane calibration with one view). A near-frontal
   view does not determine it; :func:`focal_from_homography` then says so;
3. **none** — the marker plane is read as before (the disc shift of a
   near-frontal view is small).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import PX_PER_PITCH

MIN_FOV_DEG = 20.0  # focal lengths outside these horizontal fields of view are implausible
MAX_FOV_DEG = 130.0
SEEN_DEPTH_SHARE = 0.5  # what shows of a disc is centred half-way between hole and disc
MAX_FOCAL_SPREAD = 0.25  # the two constraints' estimates may differ by this fraction
POSE, ESTIMATED, NONE = "pose", "estimated focal length", "none"


def focal_from_homography(plane_to_image: np.ndarray,
                          frame_size: tuple[int, int]) -> float | None:
    """The focal length (px) that makes ``plane_to_image`` a rotation, or None.

    Principal point at the centre of ``frame_size`` (width, height), square
    pixels. None when the view is too frontal to determine it, or when the two
    constraints (orthogonal, equally long r1 and r2) disagree or give an
    implausible field of view.
    """
    width, height = frame_size
    centred = np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]])
    h = centred @ np.asarray(plane_to_image, np.float64)
    h = h / np.linalg.norm(h[:2, :2])
    (h11, h12), (h21, h22), (h31, h32) = h[0, :2], h[1, :2], h[2, :2]
    # a * w + b = 0 with w = 1 / f^2, one row per constraint
    a = np.array([h11 * h12 + h21 * h22, h11 ** 2 + h21 ** 2 - h12 ** 2 - h22 ** 2])
    b = np.array([h31 * h32, h31 ** 2 - h32 ** 2])
    estimates = [-bi / ai for ai, bi in zip(a, b, strict=True) if abs(ai) > 1e-9 and -bi / ai > 0]
    weight = float(a @ a)
    if weight < 1e-18:
        return None
    w = -float(a @ b) / weight
    if w <= 0:
        return None
    focal = 1.0 / math.sqrt(w)
    lowest = width / 2 / math.tan(math.radians(MAX_FOV_DEG) / 2)
    highest = width / 2 / math.tan(math.radians(MIN_FOV_DEG) / 2)
    if not lowest <= focal <= highest:
        return None
    focals = [1.0 / math.sqrt(e) for e in estimates]
    if len(focals) == 2 and abs(focals[0] - focals[1]) > MAX_FOCAL_SPREAD * focal:
        return None
    return focal


def disc_plane_homography(plane_to_image: np.ndarray, camera: np.ndarray,
                          depth_pitch: float) -> np.ndarray:
    """``plane_to_image`` of the marker plane moved ``depth_pitch`` P into the board,
    for a camera of intrinsics ``camera`` (3 x 3)."""
    to_pitches = np.diag([PX_PER_PITCH, PX_PER_PITCH, 1.0])
    scaled = np.linalg.solve(camera, np.asarray(plane_to_image, np.float64) @ to_pitches)
    scaled /= (np.linalg.norm(scaled[:, 0]) + np.linalg.norm(scaled[:, 1])) / 2
    if scaled[2, 2] < 0:  # the board is in front of the camera: t_z > 0
        scaled = -scaled
    left, _, right = np.linalg.svd(scaled[:, :2], full_matrices=False)
    r12 = left @ right  # the nearest pair of orthonormal columns
    normal = np.cross(r12[:, 0], r12[:, 1])
    moved = np.column_stack([r12, scaled[:, 2] + depth_pitch * normal])
    result = camera @ moved @ np.linalg.inv(to_pitches)
    return result / result[2, 2]


def seen_disc_fit(fit: BoardFit, disc_depth_pitch: float,
                  frame_size: tuple[int, int]) -> tuple[BoardFit, str]:
    """``fit`` moved to where the discs show (:data:`SEEN_DEPTH_SHARE` of
    ``disc_depth_pitch``), and how (see :func:`disc_plane_fit`)."""
    return disc_plane_fit(fit, disc_depth_pitch * SEEN_DEPTH_SHARE, frame_size)


def disc_plane_fit(fit: BoardFit, depth_pitch: float,
                   frame_size: tuple[int, int]) -> tuple[BoardFit, str]:
    """``fit`` moved ``depth_pitch`` into the board, and how (:data:`POSE`,
    :data:`ESTIMATED` or :data:`NONE`, the fit unchanged)."""
    if depth_pitch == 0 or not fit.ok or fit.plane_to_image is None:
        return fit, NONE
    marker_plane = fit.plane_to_image @ fit.calibration
    if fit.pose is not None:
        camera = fit.pose[2].matrix
        how = POSE
    else:
        focal = focal_from_homography(marker_plane, frame_size)
        if focal is None:
            return fit, NONE
        camera = np.array([[focal, 0.0, frame_size[0] / 2], [0.0, focal, frame_size[1] / 2],
                           [0.0, 0.0, 1.0]])
        how = ESTIMATED
    moved = disc_plane_homography(marker_plane, camera, depth_pitch)
    return replace(fit, plane_to_image=moved @ np.linalg.inv(fit.calibration),
                   depth=depth_pitch), how
