"""The description of one ray-cast synthetic frame (:mod:`tools.scene.render`).

:class:`SceneSpec` is a frozen dataclass of everything that decides how a
frame looks apart from the position and the seed (which draws the textures,
the disc jitter and the noise). :meth:`SceneSpec.random` draws a varied but
plausible one whose whole board (front face with its marker stickers) lies in
the frame. The geometry helpers give the exact ground truth of a spec.

World (board) coordinates, 1 unit = 1 hole pitch P: the origin is the centre
of the marker rectangle on the board's FRONT face, x to the right, y down, z
into the board (the camera is on the front side, z < 0). Along z: the front
plate fills [0, plate_thickness], the discs' front faces lie at
``disc_depth``, the back plate starts at :attr:`SceneSpec.back_depth`, the
back wall of the room at ``wall_distance``. The pose follows
:mod:`render_spec`: ``yaw`` turns the board about its vertical axis, ``pitch``
about its horizontal axis, ``roll`` about the optical axis; ``distance`` is the
camera-to-board-centre distance along the optical axis in marker-rectangle
widths (9 P); ``offset`` shifts the board centre by fractions of the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from firmware_py.config import VisionConfig
from firmware_py.simtable.render_spec import (
    camera_matrix,
    focal_px,  # noqa: F401 (part of this module's geometry API)
    rotation,
    tilt_of,
    translation,
)
from firmware_py.vision.geometry import (
    PX_PER_PITCH,
    apply_homography,
    plane_homography,
)

Colour = tuple[int, int, int]  # BGR, 0-255 (sRGB-like)
Gains = tuple[float, float, float]  # BGR, linear

MARKER_HALF = (4.5, 3.5)  # half width and height of the marker rectangle, P
STICKER_HALF = 0.5  # white sticker: 1 P square around each marker centre
DISC_CLEARANCE = 0.03  # between a disc's back face and the back plate, P
DISC_STYLES = ("ridges", "rim", "dish", "flat")
WALL_STYLES = ("plain", "patches", "stripes", "blobs", "gradient")


@dataclass(frozen=True)
class Light:
    """A directional light (``vector`` points towards it) or a point light at ``vector``."""

    vector: tuple[float, float, float] = (-0.4, -0.8, -1.0)
    colour: Gains = (1.0, 1.0, 1.0)  # linear BGR intensity
    point: bool = False


@dataclass(frozen=True)
class SceneSpec:
    """Camera, board, discs, room, light and camera defects of one frame."""

    # camera pose and optics
    size: tuple[int, int] = (1280, 720)  # width, height
    fov_deg: float = 60.0  # horizontal field of view
    distance: float = 1.8
    yaw_deg: float = 0.0
    pitch_deg: float = 0.0
    roll_deg: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)
    # board
    marker_size_pitch: float = VisionConfig.marker_size_pitch
    board_colour: Colour = (170, 75, 20)
    translucency: float = 0.0  # 0 opaque .. 0.9: how much of what is behind shows through
    board_gloss: float = 0.35  # specular strength of the plastic
    board_margin: tuple[float, float, float, float] = (0.15, 0.15, 0.15, 0.4)  # l, t, r, b
    corner_radius: float = 0.3
    plate_thickness: float = 0.12
    hole_radius: float = 0.38
    # discs
    disc_radius: float = 0.44  # larger than the hole: it holds the disc in
    disc_thickness: float = 0.18
    disc_depth: float = 0.2  # front face of the discs behind the board's front face
    disc_bevel: float = 0.04
    disc_style: str = "ridges"
    disc_gloss: float = 0.5
    red_colour: Colour = (40, 30, 200)
    yellow_colour: Colour = (30, 200, 235)
    disc_jitter: float = 0.02  # random offset of each disc in its slot, P
    # room
    wall_distance: float = 8.0  # back wall behind the front face, P
    wall_angle_deg: float = 0.0  # the wall turned about the vertical axis
    wall_colour: Colour = (150, 160, 170)
    wall_style: str = "patches"
    table: bool = True
    table_colour: Colour = (60, 110, 160)
    table_gap: float = 0.3  # from the board's bottom edge down to the table top, P
    spare_discs: int = 0  # loose discs behind the board
    dof_px: float = 3.0  # defocus blur (sigma, px at 1280 px width) of things far away
    # light (linear BGR)
    ambient: Gains = (0.3, 0.3, 0.3)
    lights: tuple[Light, ...] = (Light(),)
    shadows: bool = True
    # camera defects
    exposure: float = 1.0  # error factor of the auto exposure
    white_balance: Gains = (1.0, 1.0, 1.0)  # per-channel gains (auto white balance error)
    vignetting: float = 0.2
    defocus_px: float = 0.0  # Gaussian blur of the whole frame
    antialias_px: float = 0.6
    noise_sigma: float = 2.0
    jpeg_quality: int = 0  # 0 = no JPEG round trip

    def __post_init__(self) -> None:
        for name, low, high in _RANGES:
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} {value} is out of range {low}-{high}")
        width, height = self.size
        if width < 64 or height < 64:
            raise ValueError(f"frame size {self.size} is too small")
        if self.disc_depth < self.plate_thickness:
            raise ValueError(f"disc_depth {self.disc_depth} is less than plate_thickness "
                             f"{self.plate_thickness}: the discs would cut the front plate")
        if self.disc_style not in DISC_STYLES:
            raise ValueError(f"disc_style {self.disc_style!r} is not one of {DISC_STYLES}")
        if self.wall_style not in WALL_STYLES:
            raise ValueError(f"wall_style {self.wall_style!r} is not one of {WALL_STYLES}")
        if min(self.board_margin) < 0:
            raise ValueError(f"board_margin {self.board_margin} must not be negative")
        if self.wall_distance < self.back_depth + self.plate_thickness + 0.5:
            raise ValueError(f"wall_distance {self.wall_distance} leaves no room behind the board")
        if not 1 <= len(self.lights) <= 4:
            raise ValueError(f"lights holds {len(self.lights)} lights; use 1-4")
        if min(self.ambient) < 0 or min(self.white_balance) <= 0 or any(
                min(light.colour) < 0 for light in self.lights):
            raise ValueError("ambient, white_balance and light colours must be positive")
        if any(math.hypot(*light.vector) < 1e-6 for light in self.lights):
            raise ValueError("a light's vector (direction or position) must not be zero")

    @property
    def back_depth(self) -> float:
        """Depth of the back plate's front face (behind the discs), P."""
        return self.disc_depth + self.disc_thickness + DISC_CLEARANCE

    @property
    def board_depth(self) -> float:
        """Depth of the board's back face, P."""
        return self.back_depth + self.plate_thickness

    @property
    def tilt_deg(self) -> float:
        """Angle between the board normal and the optical axis."""
        return tilt_of(self)

    def replace(self, **changes: Any) -> SceneSpec:  # Any: any of its fields
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def random(cls, rng: np.random.Generator, *, max_tilt_deg: float = 50.0,
               **overrides: Any) -> SceneSpec:  # Any: any of its fields
        """A random plausible spec whose whole board lies inside the frame.

        ``overrides`` fix fields (they are applied before the in-frame check).
        """
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown SceneSpec fields {sorted(unknown)}")
        for _ in range(300):
            spec = replace(_random_spec(rng, max_tilt_deg), **overrides)
            if board_in_frame(spec, margin=0.02):
                return spec
        raise ValueError(f"no random pose keeps the board in frame with {overrides!r}")


_RANGES = (
    ("fov_deg", 10.0, 150.0), ("distance", 0.2, 20.0), ("marker_size_pitch", 0.3, 0.95),
    ("translucency", 0.0, 0.9), ("board_gloss", 0.0, 2.0), ("corner_radius", 0.0, 1.0),
    ("plate_thickness", 0.02, 0.4), ("hole_radius", 0.2, 0.49), ("disc_radius", 0.2, 0.49),
    ("disc_thickness", 0.05, 0.5), ("disc_depth", 0.0, 1.0), ("disc_bevel", 0.0, 0.15),
    ("disc_gloss", 0.0, 2.0), ("disc_jitter", 0.0, 0.1), ("wall_distance", 1.0, 200.0),
    ("wall_angle_deg", -60.0, 60.0), ("table_gap", 0.0, 5.0), ("spare_discs", 0, 12),
    ("dof_px", 0.0, 30.0), ("exposure", 0.2, 5.0), ("vignetting", 0.0, 0.9),
    ("defocus_px", 0.0, 10.0), ("antialias_px", 0.0, 3.0), ("noise_sigma", 0.0, 40.0),
    ("jpeg_quality", 0, 100),
)


# ------------------------------------------------------------------ random specs

BOARD_COLOURS: tuple[Colour, ...] = (
    (170, 75, 20), (150, 60, 15), (200, 110, 40), (90, 40, 20), (110, 45, 25),  # blues, navy
    (50, 130, 40), (30, 90, 30), (30, 30, 30), (130, 130, 130), (215, 215, 210),  # green ...
    (225, 170, 100), (185, 170, 40), (170, 160, 30), (40, 40, 180), (70, 190, 220),
)
RED_COLOURS: tuple[Colour, ...] = (
    (50, 20, 180), (40, 25, 200), (60, 40, 220), (40, 30, 150), (20, 60, 225), (30, 80, 235),
)
YELLOW_COLOURS: tuple[Colour, ...] = (
    (40, 225, 250), (20, 210, 245), (60, 220, 230), (20, 170, 215), (40, 160, 195),
    (60, 175, 200),
)
TABLE_COLOURS: tuple[Colour, ...] = (
    (60, 110, 160), (40, 80, 130), (90, 145, 195), (30, 55, 90), (120, 160, 190),
    (205, 205, 200), (50, 50, 50), (110, 115, 120),
)
LIGHT_TINTS: tuple[Gains, ...] = (
    (0.45, 0.72, 1.0), (0.62, 0.82, 1.0), (0.85, 0.93, 1.0), (1.0, 0.97, 0.92),
    (1.0, 0.93, 0.82),  # tungsten, halogen, neutral, daylight, cool sky
)


def _random_spec(rng: np.random.Generator, max_tilt_deg: float) -> SceneSpec:
    fov = rng.uniform(45, 75)
    span = rng.uniform(0.35, 0.9)  # marker rectangle width / frame width
    tilt = max_tilt_deg * math.sqrt(rng.uniform(0, 1))
    turn = rng.uniform(0, 2 * math.pi)
    narrowing = math.cos(math.radians(tilt * math.cos(turn)))  # yaw foreshortens the width
    distance = narrowing / (2 * span * math.tan(math.radians(fov) / 2))
    board = _jitter(rng, _pick(rng, BOARD_COLOURS), 25) if rng.random() < 0.85 else _any_hue(
        rng, (60, 255), (40, 230))
    clear = 0.35 if board[0] > 150 and board[1] > 120 and board[2] < 150 else 0.08
    hole = rng.uniform(0.33, 0.42)
    # a disc is larger than its hole (or it would fall out) and fits its slot
    disc_radius = float(np.clip(hole * rng.uniform(1.08, 1.22), 0.37, 0.46))
    plate = rng.uniform(0.08, 0.15)
    flat = rng.random() < 0.2
    return SceneSpec(
        fov_deg=fov, distance=distance, yaw_deg=tilt * math.cos(turn),
        pitch_deg=tilt * math.sin(turn), roll_deg=float(np.clip(rng.normal(0, 3.5), -8, 8)),
        offset=(rng.uniform(-0.5, 0.5) * (1 - span), rng.uniform(-0.25, 0.25) * (1 - span)),
        board_colour=board,
        translucency=rng.uniform(0.3, 0.7) if rng.random() < clear else 0.0,
        board_gloss=rng.uniform(0.1, 0.8),
        board_margin=tuple(float(m) for m in rng.uniform(0.02, 0.5, 4) * (1, 1, 1, 1.6)),
        corner_radius=rng.uniform(0.0, 0.5), plate_thickness=plate, hole_radius=hole,
        disc_radius=disc_radius, disc_thickness=rng.uniform(0.12, 0.25),
        disc_depth=max(plate + 0.02, rng.uniform(0.1, 0.45)), disc_bevel=rng.uniform(0.01, 0.06),
        disc_style="flat" if flat else DISC_STYLES[int(rng.integers(0, 3))],
        disc_gloss=rng.uniform(0.0, 0.2) if flat else rng.uniform(0.2, 0.9),
        red_colour=_jitter(rng, _pick(rng, RED_COLOURS), 15),
        yellow_colour=_jitter(rng, _pick(rng, YELLOW_COLOURS), 15),
        wall_distance=float(np.exp(rng.uniform(math.log(2.0), math.log(30)))),
        wall_angle_deg=rng.normal(0, 12), wall_colour=_wall_colour(rng),
        wall_style=WALL_STYLES[int(rng.integers(len(WALL_STYLES)))],
        table=rng.random() < 0.85, table_colour=_jitter(rng, _pick(rng, TABLE_COLOURS), 15),
        table_gap=rng.uniform(0.0, 1.2), spare_discs=int(rng.integers(1, 6)) * (rng.random() < 0.4),
        dof_px=rng.uniform(0.0, 8.0),
        ambient=_tint(rng, rng.uniform(0.12, 0.45)), lights=_random_lights(rng),
        shadows=rng.random() < 0.85, exposure=float(np.exp(rng.normal(0, 0.25))),
        white_balance=(rng.uniform(0.75, 1.3), rng.uniform(0.9, 1.1), rng.uniform(0.75, 1.3)),
        vignetting=rng.uniform(0, 0.5), defocus_px=rng.uniform(0.3, 1.3) * (rng.random() < 0.4),
        antialias_px=rng.uniform(0.5, 0.7), noise_sigma=rng.uniform(0.5, 6),
        jpeg_quality=int(rng.integers(50, 96)) * (rng.random() < 0.5),
    )


def _random_lights(rng: np.random.Generator) -> tuple[Light, ...]:
    lights = []
    for index in range(int(rng.integers(1, 4))):
        behind = index > 0 and rng.random() < 0.25  # a window behind the board
        towards = np.array([rng.uniform(-1.2, 1.2), rng.uniform(-1.6, -0.1),
                            rng.uniform(0.3, 1.5) * (1 if behind else -1)])
        towards /= np.linalg.norm(towards)
        point = rng.random() < 0.5
        vector = towards * rng.uniform(8, 30) if point else towards
        strength = rng.uniform(0.9, 1.8) if index == 0 else rng.uniform(0.25, 1.0)
        lights.append(Light(tuple(float(v) for v in vector), _tint(rng, strength), point))
    return tuple(lights)


def _tint(rng: np.random.Generator, strength: float) -> Gains:
    tint = np.asarray(LIGHT_TINTS[int(rng.integers(len(LIGHT_TINTS)))]) * strength
    return tuple(float(v) for v in tint)  # type: ignore[return-value]


def _wall_colour(rng: np.random.Generator) -> Colour:
    """Mostly muted room colours; sometimes a strong red, orange or yellow wall."""
    if rng.random() < 0.2:
        return _any_hue(rng, (170, 255), (120, 240), hues=(0, 32))
    return _any_hue(rng, (0, 140), (50, 240))


def _any_hue(rng: np.random.Generator, saturation: tuple[int, int], value: tuple[int, int],
             hues: tuple[int, int] = (0, 180)) -> Colour:
    import cv2

    hue = rng.integers(*hues)
    hsv = np.array([[[hue % 180, rng.integers(*saturation), rng.integers(*value)]]], np.uint8)
    bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def _pick(rng: np.random.Generator, options: tuple[Colour, ...]) -> Colour:
    return options[int(rng.integers(len(options)))]


def _jitter(rng: np.random.Generator, colour: Colour, amount: int) -> Colour:
    values = np.clip(np.asarray(colour) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return int(values[0]), int(values[1]), int(values[2])


# ------------------------------------------------------------------ geometry


def scene_camera_matrix(spec: SceneSpec) -> np.ndarray:
    """The intrinsic matrix K (principal point at the frame centre)."""
    return camera_matrix(spec)


def camera_position(spec: SceneSpec) -> np.ndarray:
    """The camera centre in board coordinates (z < 0: in front of the board)."""
    return -rotation(spec).T @ translation(spec)


def depth_plane_to_image(spec: SceneSpec, depth: float) -> np.ndarray:
    """Homography from the SPEC warp plane (80 px per P), moved to ``depth``, to the frame."""
    return plane_homography(scene_camera_matrix(spec), rotation(spec), translation(spec), depth)


def scene_plane_to_image(spec: SceneSpec) -> np.ndarray:
    """Exact homography from the warp plane of the board's front face to the frame."""
    return depth_plane_to_image(spec, 0.0)


def scene_disc_plane_to_image(spec: SceneSpec) -> np.ndarray:
    """Exact homography from the warp plane of the discs' front faces to the frame."""
    return depth_plane_to_image(spec, spec.disc_depth)


def board_outline(spec: SceneSpec) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` of the board's face in world units (stickers and margins)."""
    left, top, right, bottom = spec.board_margin
    x_half, y_half = MARKER_HALF[0] + STICKER_HALF, MARKER_HALF[1] + STICKER_HALF
    return -x_half - left, -y_half - top, x_half + right, y_half + bottom


def board_in_frame(spec: SceneSpec, margin: float = 0.0) -> bool:
    """True when the whole front face projects inside the frame (``margin``: fraction)."""
    if camera_position(spec)[2] >= -1.0:
        return False
    x0, y0, x1, y1 = board_outline(spec)
    corners = (np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]) + MARKER_HALF) * PX_PER_PITCH
    points = apply_homography(scene_plane_to_image(spec), corners)
    width, height = spec.size
    mx, my = margin * width, margin * height
    return bool(np.all((points[:, 0] >= mx) & (points[:, 0] <= width - mx)
                       & (points[:, 1] >= my) & (points[:, 1] <= height - my)))
