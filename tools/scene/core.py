"""The ray-casting core of :mod:`scene`: context, rays, shading, disc geometry.

Conventions: world coordinates of :mod:`.spec` (1 unit = 1 pitch, z into
the board); vectors and point sets are float32 arrays (3, n); colours are
linear BGR albedo (gamma 2 from the 0-255 spec colours); lights are
Blinn-Phong lamps with a hemispherical ambient term.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from c4game.board import EMPTY, HEIGHT, RED, WIDTH
from tools.scene.spec import (
    SceneSpec,
    board_outline,
    camera_position,
    focal_px,
    rotation,
    scene_camera_matrix,
    translation,
)

HOLE_ORIGIN = (-3.0, -2.5)  # centre of the top-left hole (column 1, row 6)
INF = np.float32(np.inf)
ONE = np.float32(1.0)
ENVIRONMENT = 0.6  # strength of the blurred room reflected by glossy plastic
Occluder = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Lamp:
    """A light in the renderer's form: float32 columns (3, 1)."""

    vector: np.ndarray
    colour: np.ndarray
    point: bool
    reference: float  # squared distance of a point light to the board centre


@dataclass
class Context:
    """What every part of one render needs: spec, camera, lights, discs."""

    spec: SceneSpec
    rng: np.random.Generator
    origin: np.ndarray
    lamps: list[Lamp]
    ambient: np.ndarray
    outline: tuple[float, float, float, float]
    board_albedo: np.ndarray
    disc_present: np.ndarray  # (6, 7) bool, top row first
    disc_albedo: np.ndarray  # (3, 6, 7)
    disc_offset: np.ndarray  # (2, 6, 7)
    pitch_px: float  # image pixels per pitch at the board
    room_flat: np.ndarray | None = None

    @property
    def table_y(self) -> float:
        return self.outline[3] + self.spec.table_gap

    @property
    def table_seen(self) -> bool:
        """A table is drawn only when the camera is above its top."""
        return self.spec.table and float(self.origin[1]) < self.table_y - 0.05

    @property
    def slot_floor(self) -> float:
        return 2.5 + self.spec.disc_radius + 0.02

    @property
    def disc_shine(self) -> int:
        return 64 if self.spec.disc_gloss > 0.3 else 16

    @property
    def module_px(self) -> int:
        """Texture pixels per tag module: about the image's."""
        return int(np.clip(round(1.2 * self.pitch_px * self.spec.marker_size_pitch / 8), 2, 16))

    def outline_sdf(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Signed distance to the board's rounded outline in the face plane (< 0 inside)."""
        x0, y0, x1, y1 = self.outline
        rc = self.spec.corner_radius
        qx = np.abs(x - (x0 + x1) / 2) - ((x1 - x0) / 2 - rc)
        qy = np.abs(y - (y0 + y1) / 2) - ((y1 - y0) / 2 - rc)
        outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
        return outside + np.minimum(np.maximum(qx, qy), 0) - rc


def linear(colour: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    """sRGB-like 0-255 colour to linear albedo (gamma 2), as a (3, 1) float32 column."""
    return ((np.asarray(colour, np.float32) / 255) ** 2).reshape(3, 1)


def make_context(spec: SceneSpec, grid: list[str], rng: np.random.Generator) -> Context:
    """Everything fixed for one render, the random details drawn from ``rng``."""
    present = np.array([[cell != EMPTY for cell in line] for line in grid])
    red = np.array([[cell == RED for cell in line] for line in grid])
    albedo = np.where(red, linear(spec.red_colour)[..., None],
                      linear(spec.yellow_colour)[..., None])
    albedo = albedo * np.exp(rng.normal(0, 0.04, (3, HEIGHT, WIDTH)))
    offset = rng.normal(0, spec.disc_jitter, (2, HEIGHT, WIDTH))
    offset[1] = np.abs(offset[1])  # discs sag in their slots
    lamps = [Lamp(np.asarray(light.vector, np.float32).reshape(3, 1)
                  / (1 if light.point else np.float32(np.linalg.norm(light.vector))),
                  np.asarray(light.colour, np.float32).reshape(3, 1), light.point,
                  float(np.dot(light.vector, light.vector))) for light in spec.lights]
    return Context(spec, rng, camera_position(spec).astype(np.float32), lamps,
                  np.asarray(spec.ambient, np.float32).reshape(3, 1), board_outline(spec),
                  linear(spec.board_colour), present, albedo.astype(np.float32),
                  offset.astype(np.float32), focal_px(spec) / float(translation(spec)[2]))


def nearest_hole(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centre of the hole nearest to each point of a plane parallel to the face."""
    column = np.clip(np.rint(x - HOLE_ORIGIN[0]), 0, WIDTH - 1)
    row = np.clip(np.rint(y - HOLE_ORIGIN[1]), 0, HEIGHT - 1)
    return column + np.float32(HOLE_ORIGIN[0]), row + np.float32(HOLE_ORIGIN[1])


def cell_of(hx: np.ndarray, hy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row from the top, column) indices, 0-based, of hole centres."""
    return (np.rint(hy - HOLE_ORIGIN[1]).astype(np.intp),
            np.rint(hx - HOLE_ORIGIN[0]).astype(np.intp))


# ------------------------------------------------------------------ rays and shading


def pixel_rays(spec: SceneSpec, scale: int,
               rect: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices and world ray directions (3, n; camera z = 1) of a pixel box.

    ``scale`` > 1 casts one ray per ``scale`` x ``scale`` block (a coarser grid
    of width ceil(W / scale)); ``rect`` is (x0, y0, x1, y1) on that grid.
    """
    x0, y0, x1, y1 = rect
    grid_width = -(-spec.size[0] // scale)
    offset = (scale - 1) / 2
    u = np.arange(x0, x1, dtype=np.float32) * scale + offset
    v = np.arange(y0, y1, dtype=np.float32) * scale + offset
    matrix = (rotation(spec).T @ np.linalg.inv(scene_camera_matrix(spec))).astype(np.float32)
    rays = np.empty((3, len(v) * len(u)), np.float32)
    for axis in range(3):
        a, b, c = matrix[axis]
        rays[axis] = (a * u[None, :] + (b * v + c)[:, None]).ravel()
    index = (np.arange(y0, y1)[:, None] * grid_width + np.arange(x0, x1)[None, :]).ravel()
    return index, rays


def project(spec: SceneSpec, points: np.ndarray) -> np.ndarray | None:
    """Pixel coordinates (n, 2) of world points (n, 3), or None if one is behind the camera."""
    camera = points @ rotation(spec).T + translation(spec)
    if np.any(camera[:, 2] < 0.1):
        return None
    image = camera @ scene_camera_matrix(spec).T
    return image[:, :2] / image[:, 2:]


def unit(vectors: np.ndarray) -> np.ndarray:
    return vectors * (1.0 / np.sqrt((vectors * vectors).sum(axis=0)))


def _power(x: np.ndarray, shine: int) -> np.ndarray:
    for _ in range(int(math.log2(shine))):
        x = x * x
    return x


def shade(ctx: Context, points: np.ndarray, normal: np.ndarray, view: np.ndarray,
          albedo: np.ndarray, gloss: np.ndarray | np.float32, shine: int,
          ao: np.ndarray | np.float32 = ONE,
          occluder: Occluder | None = None) -> np.ndarray:
    """Blinn-Phong radiance (3, n) of surface points under the ambient term and the lamps."""
    sky = (0.75 - 0.25 * normal[1]) * ao  # more ambient light on faces turned up (y is down)
    facing = (normal * view).sum(axis=0)
    up = view[1] - 2 * facing * normal[1]  # minus y of the mirror direction
    mirror = np.clip(0.4 + up, 0, 1.4) * (gloss * ENVIRONMENT) * ao  # the room reflected
    radiance = ctx.ambient * (albedo * sky + mirror)
    for lamp in ctx.lamps:
        if lamp.point:
            delta = lamp.vector - points
            squared = (delta * delta).sum(axis=0)
            towards = delta * (1 / np.sqrt(squared))
            strength = np.minimum(lamp.reference / squared, 4.0)
        else:
            towards, strength = lamp.vector, np.float32(1.0)
        lit = np.maximum((normal * towards).sum(axis=0), 0) * strength
        if occluder is not None:
            lit = lit * occluder(points, np.broadcast_to(towards, points.shape))
        half = unit(towards + view)
        sheen = _power(np.maximum((normal * half).sum(axis=0), 0), shine) * gloss * lit
        radiance += lamp.colour * (albedo * lit + sheen)
    return radiance.astype(np.float32)


def blur(image: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; large sigmas on a reduced copy (fast)."""
    if sigma < 0.3:
        return image
    factor = max(1, int(sigma // 3))
    if factor == 1:
        return cv2.GaussianBlur(image, (0, 0), sigma)
    height, width = image.shape[:2]
    small = cv2.resize(image, (max(width // factor, 1), max(height // factor, 1)),
                       interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def cylinder_hit(origin: np.ndarray, direction: np.ndarray, radius: float,
                 half: float) -> tuple[np.ndarray, np.ndarray]:
    """Entry parameter (inf: miss) of rays into a cylinder along z (|z| <= half).

    Also tells whether the ray enters through a flat cap (else the round side).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        towards = np.where(direction[2] > 0, -half, half)
        cap = (towards - origin[2]) / direction[2]
        cx, cy = origin[0] + cap * direction[0], origin[1] + cap * direction[1]
        on_cap = (cx * cx + cy * cy <= radius * radius) & (cap > 0)
        a = direction[0] ** 2 + direction[1] ** 2
        b = 2 * (origin[0] * direction[0] + origin[1] * direction[1])
        c = origin[0] ** 2 + origin[1] ** 2 - radius * radius
        disc = b * b - 4 * a * c
        side = (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a)
        z = origin[2] + side * direction[2]
        on_side = (disc > 0) & (side > 0) & (np.abs(z) <= half)
        hit = np.where(on_cap, cap, np.where(on_side, side, INF))
    return hit.astype(np.float32), on_cap


def disc_normal(spec: SceneSpec, lx: np.ndarray, ly: np.ndarray, cap: np.ndarray,
                facing: np.ndarray | float) -> np.ndarray:
    """Local normals (3, n) of a disc at offsets (lx, ly) from its axis.

    On a cap (``facing``: the sign of its normal's z) the normal tilts by the
    profile: rounded rim, concentric ridges, a raised ring or a dish.
    """
    r, bevel = spec.disc_radius, max(spec.disc_bevel, 1e-3)
    rho = np.sqrt(lx * lx + ly * ly) + np.float32(1e-6)
    ex, ey = lx / rho, ly / rho
    u = np.clip((rho - (r - bevel)) / bevel, 0, 0.92)
    tilt = u / np.sqrt(1 - u * u)
    if spec.disc_style == "ridges":
        band = (rho > 0.3 * r) & (rho < 0.8 * r)
        tilt = tilt + np.where(band, 0.35 * np.sin((rho / r - 0.3) * (8 * math.pi)), 0)
    elif spec.disc_style == "rim":
        w = (rho / r - 0.8) / 0.07
        tilt = tilt + 0.9 * w * np.exp(-w * w)
    elif spec.disc_style == "dish":
        tilt = tilt - 0.3 * rho / r
    nz = np.where(cap, facing, 0)
    tx, ty = np.where(cap, tilt * ex, ex), np.where(cap, tilt * ey, ey)
    return unit(np.stack([tx, ty, nz]).astype(np.float32))


