"""The description of one synthetic camera frame: pose, lighting, colours, defects.

:class:`RenderSpec` is a frozen dataclass; :meth:`RenderSpec.random` draws a
varied but plausible one (board fully in view, oblique up to ``max_tilt_deg``).
:func:`camera_matrix` and :func:`plane_to_image` give the exact ground-truth
geometry of a spec, so tests can compare a fitted homography with the truth.

Camera model: a pinhole camera with square pixels and the principal point at
the image centre. The board lies in the world plane Z = 0 with 1 unit = 1 hole
pitch, its centre (the centre of the marker rectangle) at the origin, x to the
right, y down. ``yaw`` turns the board about its vertical axis, ``pitch`` about
its horizontal axis, ``roll`` about the optical axis. ``distance`` is the
distance from the camera to the board centre along the optical axis, in
marker-rectangle widths (9 pitches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from firmware_py.config import VisionConfig
from firmware_py.vision.geometry import (
    apply_homography,
    board_translation,
    pinhole_matrix,
    plane_homography,
    pose_rotation,
)

Colour = tuple[int, int, int]  # BGR

BOARD_WIDTH_PITCH = 9.0
# The plate of the board, in warp-plane units (80 per pitch): wide enough to
# carry the white marker stickers (1 pitch square) around the marker centres.
PLATE = (-60.0, -60.0, 780.0, 620.0)
MAX_TILT_DEG = 45.0
PIECES = ("disc", "sticker", "ball")  # how the pieces look (RenderSpec.pieces)


@dataclass(frozen=True)
class Hand:
    """A hand-shaped occluder: centre (fractions of the frame), angle, palm width."""

    x: float
    y: float
    angle_deg: float = 0.0
    size: float = 0.15  # palm width as a fraction of the frame width


@dataclass(frozen=True)
class RenderSpec:
    """Everything that decides how a frame looks, apart from the position."""

    size: tuple[int, int] = (1280, 720)  # width, height
    fov_deg: float = 62.0  # horizontal field of view
    distance: float = 1.6
    yaw_deg: float = 0.0
    pitch_deg: float = 0.0
    roll_deg: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)  # board centre shift, fractions of the frame
    marker_size_pitch: float = VisionConfig.marker_size_pitch
    markers: bool = True  # the four marker stickers on the face (False: a board as sold)
    board_colour: Colour = (170, 70, 20)
    red_colour: Colour = (40, 30, 200)
    yellow_colour: Colour = (30, 200, 235)
    background_colour: Colour = (150, 160, 170)
    clutter: int = 6  # random shapes in the background
    light_gain: float = 1.0  # illumination; with auto_exposure, the exposure error
    auto_exposure: bool = True  # scale the frame to a mean grey of ~115 (gain 0.4-2.5)
    light_gradient: float = 0.25  # strength of the smooth illumination field
    shadow: float = 0.0  # 0..1 darkness of a cast shadow across the board
    glare: float = 0.0  # 0..1 strength of specular highlights
    noise_sigma: float = 2.0
    blur_sigma: float = 0.0
    motion_blur_px: int = 0
    jpeg_quality: int = 0  # 0 = no JPEG round trip
    hand: Hand | None = None
    hide_markers: tuple[int, ...] = ()  # hands placed over these markers
    board_visible: bool = True
    disc_depth: float = 0.0  # pitches between the board's face and its discs' faces
    pieces: str = "disc"  # PIECES: flat discs, discs with a centre sticker, balls in tubes
    sticker_colour: Colour = (200, 200, 40)  # the stickers' colour (pieces = "sticker")

    def __post_init__(self) -> None:
        width, height = self.size
        if width < 64 or height < 64:
            raise ValueError(f"frame size {self.size} is too small")
        if not 0.2 <= self.distance <= 20:
            raise ValueError(f"distance {self.distance} is out of range 0.2-20")
        if not 10 <= self.fov_deg <= 150:
            raise ValueError(f"fov_deg {self.fov_deg} is out of range 10-150")
        if bad := [m for m in self.hide_markers if m not in (0, 1, 2, 3)]:
            raise ValueError(f"hide_markers holds unknown marker ids {bad}")
        if not 0 <= self.disc_depth <= 1:
            raise ValueError(f"disc_depth {self.disc_depth} is out of range 0-1")
        if self.pieces not in PIECES:
            raise ValueError(f"pieces {self.pieces!r} is not one of {PIECES}")
        if not 0 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality {self.jpeg_quality} is out of range 0-100")

    @property
    def tilt_deg(self) -> float:
        """Angle between the board normal and the optical axis."""
        return tilt_of(self)

    def replace(self, **changes: Any) -> RenderSpec:  # Any: any of its fields
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def random(cls, rng: np.random.Generator, *, max_tilt_deg: float = MAX_TILT_DEG,
               **overrides: Any) -> RenderSpec:  # Any: any of its fields
        """A random plausible spec whose board lies wholly inside the frame.

        ``overrides`` fix fields (they are applied before the in-frame check).
        """
        for _ in range(200):
            spec = replace(_random_fields(rng, max_tilt_deg), **overrides)
            if not spec.board_visible or board_in_frame(spec, margin=0.02):
                return spec
        raise ValueError(f"no random pose keeps the board in frame with {overrides!r}")


def _random_fields(rng: np.random.Generator, max_tilt_deg: float) -> RenderSpec:
    tilt = max_tilt_deg * math.sqrt(rng.uniform(0, 1))
    direction = rng.uniform(0, 2 * math.pi)
    fov = rng.uniform(50, 75)
    distance = rng.uniform(1.15, 2.3)
    spread = max(0.0, 0.28 * (distance - 1.0))
    return RenderSpec(
        fov_deg=fov,
        distance=distance,
        yaw_deg=tilt * math.cos(direction),
        pitch_deg=tilt * math.sin(direction),
        roll_deg=rng.normal(0, 6),
        offset=(rng.uniform(-spread, spread), rng.uniform(-spread, spread) * 0.6),
        board_colour=_jitter(rng, _pick(rng, BOARD_COLOURS), 30),
        red_colour=_jitter(rng, _pick(rng, RED_COLOURS), 18),
        yellow_colour=_jitter(rng, _pick(rng, YELLOW_COLOURS), 18),
        background_colour=_muted_colour(rng),
        clutter=int(rng.integers(0, 12)),
        light_gain=float(np.exp(rng.normal(0, 0.25))),
        light_gradient=rng.uniform(0, 0.5),
        shadow=rng.uniform(0.2, 0.6) if rng.random() < 0.3 else 0.0,
        glare=rng.uniform(0.2, 1.0) if rng.random() < 0.4 else 0.0,
        noise_sigma=rng.uniform(0.5, 7),
        blur_sigma=rng.uniform(0.5, 1.8) if rng.random() < 0.4 else 0.0,
        motion_blur_px=int(rng.integers(2, 7)) if rng.random() < 0.1 else 0,
        jpeg_quality=int(rng.integers(45, 95)) if rng.random() < 0.5 else 0,
        disc_depth=rng.uniform(0.2, 0.4),
    )


# Typical colours (BGR): classic blue boards and other plastics; disc shades.
BOARD_COLOURS: tuple[Colour, ...] = (
    (170, 70, 20), (140, 40, 10), (200, 110, 40), (120, 60, 30), (60, 60, 60),
    (40, 120, 40), (210, 210, 210), (160, 100, 90), (30, 30, 30), (180, 130, 60),
)
RED_COLOURS: tuple[Colour, ...] = (
    (40, 30, 200), (30, 20, 170), (60, 40, 220), (50, 20, 140), (70, 60, 230), (80, 30, 190),
)
YELLOW_COLOURS: tuple[Colour, ...] = (
    (30, 200, 235), (20, 215, 250), (60, 220, 230), (10, 170, 220), (90, 230, 240),
    (40, 185, 200),
)


def _muted_colour(rng: np.random.Generator) -> Colour:
    """A room-like background colour: any hue, saturation at most 0.55."""
    import cv2

    hsv = np.array([[[rng.integers(0, 180), rng.uniform(0, 140), rng.uniform(40, 240)]]],
                   np.uint8)
    bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def _pick(rng: np.random.Generator, options: tuple[Colour, ...]) -> Colour:
    return options[int(rng.integers(len(options)))]


def _jitter(rng: np.random.Generator, colour: Colour, amount: int) -> Colour:
    values = np.clip(np.asarray(colour) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return tuple(int(v) for v in values)  # type: ignore[return-value]


# ------------------------------------------------------------------ geometry


class CameraPose(Protocol):
    """What the camera geometry needs of a spec (both generators' specs have it; read
    only: the specs are frozen dataclasses)."""

    @property
    def size(self) -> tuple[int, int]: ...
    @property
    def fov_deg(self) -> float: ...
    @property
    def distance(self) -> float: ...  # camera to board centre, marker-rectangle widths (9 P)
    @property
    def offset(self) -> tuple[float, float]: ...
    @property
    def yaw_deg(self) -> float: ...
    @property
    def pitch_deg(self) -> float: ...
    @property
    def roll_deg(self) -> float: ...


def rotation(spec: CameraPose) -> np.ndarray:
    """The board's rotation in camera coordinates (3 x 3)."""
    return pose_rotation(spec.yaw_deg, spec.pitch_deg, spec.roll_deg)


def tilt_of(spec: CameraPose) -> float:
    """Angle between the board normal and the optical axis, degrees."""
    normal = rotation(spec) @ np.array([0.0, 0.0, 1.0])
    return math.degrees(math.acos(min(1.0, abs(normal[2]))))


def focal_px(spec: CameraPose) -> float:
    """Focal length in pixels (square pixels)."""
    return float(camera_matrix(spec)[0, 0])


def camera_matrix(spec: CameraPose) -> np.ndarray:
    """The intrinsic matrix K of the simulated camera."""
    return pinhole_matrix(spec.size, spec.fov_deg)


def translation(spec: CameraPose) -> np.ndarray:
    """The board centre in camera coordinates, in pitches."""
    return board_translation(camera_matrix(spec), spec.size,
                             spec.distance * BOARD_WIDTH_PITCH, spec.offset)


def plane_to_image(spec: CameraPose) -> np.ndarray:
    """Ground-truth homography from the warp plane (80 px per pitch) to the frame."""
    return plane_homography(camera_matrix(spec), rotation(spec), translation(spec))


def camera_centre_plane(spec: RenderSpec) -> np.ndarray:
    """The camera position in board coordinates (pitches, z towards the camera)."""
    rot = rotation(spec)
    return -rot.T @ translation(spec)


def board_in_frame(spec: RenderSpec, margin: float = 0.0) -> bool:
    """True when the whole plate projects inside the frame (``margin``: fraction)."""
    x0, y0, x1, y1 = PLATE
    corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    centre = camera_centre_plane(spec)
    if centre[2] >= 0:  # the camera must be in front of the board (negative z side)
        return False
    points = apply_homography(plane_to_image(spec), corners)
    width, height = spec.size
    mx, my = margin * width, margin * height
    return bool(np.all((points[:, 0] >= mx) & (points[:, 0] <= width - mx)
                       & (points[:, 1] >= my) & (points[:, 1] <= height - my)))
