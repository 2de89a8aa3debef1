"""Synthetic camera frames by per-pixel ray casting of a 3-D Connect Four scene.

An independent alternative to :mod:`render` (which paints the board face
top-down and warps it): every pixel's ray is intersected analytically with
the 3-D scene in vectorised float32 NumPy::

    from tools.scene.render import SceneSpec, render_scene
    spec = SceneSpec.random(np.random.default_rng(7))
    frame = render_scene("4453", spec, seed=7)   # 720 x 1280 x 3 uint8, BGR

The board is two plates with round holes (hole walls show at oblique views)
and ribs between the columns; its front face (depth 0) carries the SPEC §5
marker stickers. Discs are bevelled cylinders whose front faces lie
``disc_depth`` behind the front face, so they shift against the holes with
the view and the front plate hides and shadows their edges. The room
(:mod:`.room`: back wall, table, the board's feet, loose discs) shows
around the board and through empty holes, blurred with depth. Shading is
Blinn-Phong in linear light (ambient plus 1-4 coloured lights); a translucent
board lets what is behind it show through, tinted and blurred. The camera
then applies auto exposure (with an error), a white balance error,
vignetting, gamma, anti-aliasing and defocus blur, noise and JPEG.

:mod:`.spec` holds the spec and its exact geometry (camera matrix,
homographies of the front face and of the disc plane); :mod:`.core` the
rays, shading and disc geometry shared by the board and the room.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import cv2
import numpy as np

from c4game.board import Board
from firmware_py.simtable.render import grid_of
from firmware_py.simtable.sensor import add_noise, jpeg_round_trip
from tools.scene.core import (
    INF,
    Context,
    blur,
    cell_of,
    cylinder_hit,
    disc_normal,
    make_context,
    nearest_hole,
    pixel_rays,
    project,
    shade,
)
from tools.scene.room import room_layer
from tools.scene.spec import (
    MARKER_HALF,
    Light,
    SceneSpec,
    scene_camera_matrix,
    scene_disc_plane_to_image,
    scene_plane_to_image,
)

__all__ = ["Light", "SceneSpec", "render_scene", "scene_camera_matrix",
           "scene_disc_plane_to_image", "scene_plane_to_image"]

RIB_HALF = 0.035  # half thickness of the ribs between the column slots, P
PENUMBRA = 0.03  # soft edge of the front plate's shadow inside the holes, P
EXPOSURE_TARGET = 0.2  # mean linear luminance an auto-exposing camera aims at
AWB_STRENGTH = 0.85  # how far the auto white balance corrects the lights' colour
LUMA = np.array([0.114, 0.587, 0.299])  # BGR


def render_scene(position: Board | str | Sequence[str], spec: SceneSpec,
                 seed: int = 0) -> np.ndarray:
    """Render one BGR frame (height x width x 3, uint8) of ``position``.

    ``position`` is a Board, a move string or 6 grid lines (which may break
    gravity or parity). ``seed`` draws the textures, the disc jitter, the
    loose discs and the noise; the same arguments give the same frame.
    """
    grid = grid_of(position)
    ctx = make_context(spec, grid, np.random.default_rng(seed))
    image = room_layer(ctx)
    _board_layer(ctx, image)
    return _camera(image, spec, ctx.rng)


# ------------------------------------------------------------------ board


def _board_layer(ctx: Context, image: np.ndarray) -> None:
    """Cast the board's pixels at full resolution and draw them over ``image``."""
    rect = _board_rect(ctx)
    if rect is None:
        return
    index, rays = pixel_rays(ctx.spec, 1, rect)
    ok = np.flatnonzero(rays[2] > 1e-4)
    index, rays = index[ok], rays[:, ok]
    o = ctx.origin
    kx, ky = rays[0] / rays[2], rays[1] / rays[2]  # lateral slope per unit of depth
    x0, y0 = o[0] - o[2] * kx, o[1] - o[2] * ky  # where the ray meets the front face
    inside = ctx.outline_sdf(x0, y0) <= 0
    hx, hy = nearest_hole(x0, y0)
    in_hole = inside & ((x0 - hx) ** 2 + (y0 - hy) ** 2 < ctx.spec.hole_radius ** 2)
    flat = image.reshape(-1, 3)
    plastic = []
    for part, select in ((_face, inside & ~in_hole), (_holes, in_hole), (_sides, ~inside)):
        sub = np.flatnonzero(select)
        hit, radiance, is_plastic = part(ctx, rays[:, sub], x0[sub], y0[sub], kx[sub], ky[sub])
        flat[index[sub[hit]]] = radiance.T
        plastic.append(index[sub[hit[is_plastic]]])
    if ctx.spec.translucency > 0:
        _translucent(ctx, image, np.concatenate(plastic))


def _board_rect(ctx: Context) -> tuple[int, int, int, int] | None:
    """Pixel box holding the whole board body, or None when it is out of view."""
    x0, y0, x1, y1 = ctx.outline
    corners = np.array([(x, y, z) for x in (x0, x1) for y in (y0, y1)
                        for z in (0.0, ctx.spec.board_depth)])
    points = project(ctx.spec, corners)
    width, height = ctx.spec.size
    if points is None:
        return 0, 0, width, height
    low = np.maximum(np.floor(points.min(axis=0)) - 2, 0).astype(int)
    high = np.minimum(np.ceil(points.max(axis=0)) + 3, (width, height)).astype(int)
    if np.any(high <= low):
        return None
    return int(low[0]), int(low[1]), int(high[0]), int(high[1])


def _view(rays: np.ndarray) -> np.ndarray:
    return rays * (-1.0 / np.sqrt((rays * rays).sum(axis=0)))


def _face(ctx: Context, rays: np.ndarray, x: np.ndarray, y: np.ndarray, kx: np.ndarray,
          ky: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The front face: plastic, and the marker stickers on it."""
    spec = ctx.spec
    points = np.stack([x, y, np.zeros_like(x)])
    normal = np.array([[0.0], [0.0], [-1.0]], np.float32)
    albedo = np.repeat(ctx.board_albedo, len(x), axis=1)
    gloss = np.full(len(x), spec.board_gloss, np.float32)
    sticker = np.flatnonzero((np.abs(np.abs(x) - MARKER_HALF[0]) < 0.5)
                             & (np.abs(np.abs(y) - MARKER_HALF[1]) < 0.5))
    albedo[:, sticker] = _sticker_albedo(ctx, x[sticker], y[sticker])
    gloss[sticker] = 0.04
    radiance = shade(ctx, points, normal, _view(rays), albedo, gloss, 32)
    plastic = np.ones(len(x), bool)
    plastic[sticker] = False
    return np.arange(len(x)), radiance, plastic


def _sticker_albedo(ctx: Context, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Albedo (3, n) of sticker points: the AprilTag in a white margin."""
    size = ctx.spec.marker_size_pitch
    mx, my = np.sign(x) * MARKER_HALF[0], np.sign(y) * MARKER_HALF[1]
    marker = np.where(x < 0, np.where(y < 0, 0, 3), np.where(y < 0, 1, 2))
    tu, tv = (x - mx) / size + 0.5, (y - my) / size + 0.5  # 0..1 across the tag
    k = ctx.module_px
    atlas = _tag_atlas(k)
    map_x = (tu * 8 + 1) * k - 0.5 + marker * (10 * k)
    map_y = (tv * 8 + 1) * k - 0.5
    value = _lookup(atlas, map_x, map_y)
    pad = 1 / 8
    value[(np.abs(tu - 0.5) > 0.5 + pad) | (np.abs(tv - 0.5) > 0.5 + pad)] = 1.0
    paper = np.array([[0.78], [0.8], [0.8]], np.float32)
    return (0.018 + value * (paper - 0.018)).astype(np.float32)


@functools.lru_cache(maxsize=8)
def _tag_atlas(k: int) -> np.ndarray:
    """Tags 0-3 side by side, each with a one-module white margin, k px per module."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    tiles = []
    for marker in range(4):
        tag = cv2.aruco.generateImageMarker(dictionary, marker, 8 * k, borderBits=1)
        tiles.append(cv2.copyMakeBorder(tag, k, k, k, k, cv2.BORDER_CONSTANT, value=255))
    return (np.hstack(tiles) / 255.0).astype(np.float32)


def _lookup(texture: np.ndarray, map_x: np.ndarray, map_y: np.ndarray) -> np.ndarray:
    """Bilinear texture values at (n,) coordinates (cv2.remap wants short rows)."""
    n = len(map_x)
    rows = max(1, -(-n // 4096))
    grid_x = np.zeros(rows * 4096, np.float32)
    grid_y = np.zeros(rows * 4096, np.float32)
    grid_x[:n], grid_y[:n] = map_x, map_y
    values = cv2.remap(texture, grid_x.reshape(rows, -1), grid_y.reshape(rows, -1),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return values.reshape(rows * 4096, *texture.shape[2:])[:n]


# ------------------------------------------------------------------ holes


def _exit(qx: np.ndarray, qy: np.ndarray, kx: np.ndarray, ky: np.ndarray,
          radius: float) -> np.ndarray:
    """Depth travelled until a ray starting inside a circle (offset q) leaves it."""
    a = kx * kx + ky * ky
    b = 2 * (qx * kx + qy * ky)
    c = qx * qx + qy * qy - radius * radius
    den = -b - np.sqrt(np.maximum(b * b - 4 * a * c, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den < -1e-9, 2 * c / den, INF)


def _holes(ctx: Context, rays: np.ndarray, x0: np.ndarray, y0: np.ndarray, kx: np.ndarray,
           ky: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rays entering a hole: its wall, the ribs, a disc, the back plate, or nothing."""
    spec = ctx.spec
    front, back, r = spec.plate_thickness, spec.back_depth, spec.hole_radius
    hx, hy = nearest_hole(x0, y0)
    wall = _exit(x0 - hx, y0 - hy, kx, ky, r)
    wall = np.where(wall < front, wall, INF)
    with np.errstate(divide="ignore", invalid="ignore"):
        rib = (hx + np.sign(kx) * (0.5 - RIB_HALF) - x0) / kx
        floor = (np.where(ky > 0, ctx.slot_floor, -3.2) - y0) / ky
    rib = np.where((rib >= front) & (rib <= back), rib, INF)
    floor = np.where((floor >= front) & (floor <= back), floor, INF)
    disc, disc_cap, dx, dy, dhx, dhy = _board_discs(ctx, x0, y0, kx, ky, hx, hy)
    bx, by = x0 + kx * back, y0 + ky * back
    bhx, bhy = nearest_hole(bx, by)
    through = (bx - bhx) ** 2 + (by - bhy) ** 2 < r * r
    back_wall = back + _exit(bx - bhx, by - bhy, kx, ky, r)
    back_hit = np.where(through, np.where(back_wall < back + front, back_wall, INF), back)
    depths = np.stack([wall, rib, floor, disc, back_hit])
    kind = np.argmin(depths, axis=0)
    z = np.take_along_axis(depths, kind[None], 0)[0]
    hit = np.flatnonzero(z < INF)
    kind, z = kind[hit], z[hit]
    x, y = x0[hit] + kx[hit] * z, y0[hit] + ky[hit] * z
    is_disc = kind == 3
    normal, albedo, ao = _hole_surfaces(ctx, kind, np.stack([x, y, z]), kx[hit], ky[hit],
                                        (hx[hit], hy[hit]), (bhx[hit], bhy[hit]))
    disc_n = disc_normal(spec, dx[hit][is_disc], dy[hit][is_disc], disc_cap[hit][is_disc],
                         -1.0)
    normal[:, is_disc] = disc_n
    row, column = cell_of(dhx[hit][is_disc], dhy[hit][is_disc])
    albedo[:, is_disc] = ctx.disc_albedo[:, row, column]
    occluder_x = np.where(is_disc, dhx[hit], hx[hit])
    occluder_y = np.where(is_disc, dhy[hit], hy[hit])
    occluder = functools.partial(_plate_shadow, ctx, occluder_x, occluder_y) if (
        spec.shadows) else None
    gloss = np.where(is_disc, spec.disc_gloss, spec.board_gloss * ao).astype(np.float32)
    radiance = shade(ctx, np.stack([x, y, z]), normal, _view(rays[:, hit]), albedo, gloss,
                     ctx.disc_shine, ao, occluder)
    return hit, radiance, ~is_disc


def _hole_surfaces(ctx: Context, kind: np.ndarray, points: np.ndarray, kx: np.ndarray,
                   ky: np.ndarray, hole: tuple[np.ndarray, np.ndarray],
                   back_hole: tuple[np.ndarray, np.ndarray]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normals, albedo and ambient occlusion of the board's inner surfaces.

    ``kind``: 0 front hole wall, 1 rib, 2 slot floor or top, 3 disc (its normal
    is set by the caller), 4 back plate (its face, or its hole's wall).
    """
    spec = ctx.spec
    r = spec.hole_radius
    x, y, z = points
    behind = kind == 4
    back_wall = behind & (z > spec.back_depth + 1e-5)
    cx, cy = np.where(back_wall, back_hole[0], hole[0]), np.where(back_wall, back_hole[1], hole[1])
    wall = (kind == 0) | back_wall
    zero = np.zeros_like(x)
    nx = np.select([wall, kind == 1], [(cx - x) / r, -np.sign(kx)], zero)
    ny = np.select([wall, kind == 2], [(cy - y) / r, -np.sign(ky)], zero)
    nz = np.where(behind & ~back_wall, np.float32(-1), zero)
    inner = np.float32(0.35 + 0.55 * spec.translucency)
    ao = np.where(kind == 0, np.float32(0.85), np.where(kind == 3, np.float32(0.9), inner))
    albedo = np.repeat(ctx.board_albedo, len(x), axis=1)
    return np.stack([nx, ny, nz]).astype(np.float32), albedo, ao.astype(np.float32)


def _board_discs(ctx: Context, x0: np.ndarray, y0: np.ndarray, kx: np.ndarray,
                 ky: np.ndarray, hx: np.ndarray, hy: np.ndarray) -> tuple[np.ndarray, ...]:
    """Nearest disc hit among the hole's own cell and its neighbour in the column.

    Returns depth (inf: none), cap flag, hit offset from the disc axis (x, y) and
    the disc's hole centre.
    """
    spec = ctx.spec
    mid = spec.disc_depth + spec.disc_thickness
    best = (np.full_like(x0, INF), np.zeros(len(x0), bool), x0 * 0, y0 * 0, hx, hy)
    _, below = nearest_hole(x0 + kx * mid, y0 + ky * mid)
    for cell_y in (hy, below):
        row, column = cell_of(hx, cell_y)
        cx = hx + ctx.disc_offset[0, row, column]
        cy = cell_y + ctx.disc_offset[1, row, column]
        half = spec.disc_thickness / 2
        centre_z = spec.disc_depth + half
        origin = np.stack([x0 - cx, y0 - cy, np.full_like(x0, -centre_z)])
        direction = np.stack([kx, ky, np.ones_like(kx)])
        depth, cap = cylinder_hit(origin, direction, spec.disc_radius, half)
        depth = np.where(ctx.disc_present[row, column], depth, INF)
        nearer = depth < best[0]
        reach = np.where(nearer, depth, 0)
        best = tuple(np.where(nearer, new, old) for new, old in zip(
            (depth, cap, x0 - cx + kx * reach, y0 - cy + ky * reach, hx, cell_y), best,
            strict=True))
    return best


def _plate_shadow(ctx: Context, hx: np.ndarray, hy: np.ndarray, points: np.ndarray,
                  towards: np.ndarray) -> np.ndarray:
    """Light (0-1) reaching inner points through their hole in the front plate."""
    front, r = ctx.spec.plate_thickness, ctx.spec.hole_radius
    lz = towards[2]
    ahead = lz < -1e-3
    scale = np.where(ahead, -1.0 / np.where(ahead, lz, -1.0), 0)
    mx, my = towards[0] * scale, towards[1] * scale
    z = points[2]
    ax, ay = points[0] + mx * z - hx, points[1] + my * z - hy
    depth = np.maximum(z - front, 0)
    bx, by = points[0] + mx * depth - hx, points[1] + my * depth - hy
    far = np.maximum(ax * ax + ay * ay, np.where(z > front, bx * bx + by * by, 0))
    light = np.clip((r - np.sqrt(far)) / PENUMBRA + 0.5, 0, 1)
    return np.where(ahead, light, 0).astype(np.float32)


# ------------------------------------------------------------------ sides


def _sides(ctx: Context, rays: np.ndarray, x0: np.ndarray, y0: np.ndarray, kx: np.ndarray,
           ky: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The board's edges (an extruded rounded rectangle) seen at oblique views."""
    depth, nx, ny = _side_entry(ctx, x0, y0, kx, ky)
    hit = np.flatnonzero(depth < INF)
    z = depth[hit]
    points = np.stack([x0[hit] + kx[hit] * z, y0[hit] + ky[hit] * z, z])
    normal = np.stack([nx[hit], ny[hit], np.zeros_like(z)]).astype(np.float32)
    radiance = shade(ctx, points, normal, _view(rays[:, hit]), ctx.board_albedo,
                     np.float32(ctx.spec.board_gloss), 32, np.float32(0.9))
    return hit, radiance, np.ones(len(hit), bool)


def _side_entry(ctx: Context, x0: np.ndarray, y0: np.ndarray, kx: np.ndarray,
                ky: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Depth (inf: none) and normal (x, y) where rays enter the board's sides."""
    bx0, by0, bx1, by1 = ctx.outline
    rc = ctx.spec.corner_radius
    centre = ((bx0 + bx1) / 2, (by0 + by1) / 2)
    inner = ((bx1 - bx0) / 2 - rc, (by1 - by0) / 2 - rc)
    pos, slope = (x0, y0), (kx, ky)
    ones = np.ones_like(x0)
    found = []  # (depth, nx, ny) per straight side and rounded corner
    with np.errstate(divide="ignore", invalid="ignore"):
        for axis in (0, 1):
            for sign in (-1.0, 1.0):
                z = (centre[axis] + sign * (inner[axis] + rc) - pos[axis]) / slope[axis]
                across = pos[1 - axis] + slope[1 - axis] * z - centre[1 - axis]
                z = np.where(np.abs(across) <= inner[1 - axis], z, INF)
                found.append((z, ones * (sign * (axis == 0)), ones * (sign * (axis == 1))))
        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)) if rc > 0 else ():
            cx, cy = centre[0] + sx * inner[0], centre[1] + sy * inner[1]
            z = _entry(x0 - cx, y0 - cy, kx, ky, rc)
            px, py = x0 + kx * z - cx, y0 + ky * z - cy
            found.append((np.where((px * sx >= 0) & (py * sy >= 0), z, INF), px / rc, py / rc))
    depth, nx, ny = (np.stack(part) for part in zip(*found, strict=True))
    depth[~((depth > 0) & (depth <= ctx.spec.board_depth))] = INF
    pick = np.argmin(depth, axis=0)[None]
    return tuple(np.take_along_axis(part, pick, 0)[0] for part in (depth, nx, ny))


def _entry(qx: np.ndarray, qy: np.ndarray, kx: np.ndarray, ky: np.ndarray,
           radius: float) -> np.ndarray:
    """Depth at which a ray starting outside a circle (offset q) enters it (inf: never)."""
    a = kx * kx + ky * ky
    b = 2 * (qx * kx + qy * ky)
    c = qx * qx + qy * qy - radius * radius
    disc = b * b - 4 * a * c
    den = -b + np.sqrt(np.maximum(disc, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((disc >= 0) & (b < 0) & (c > 0) & (den > 1e-9), 2 * c / den, INF)


# ------------------------------------------------------------------ translucency, camera


def _translucent(ctx: Context, image: np.ndarray, plastic: np.ndarray) -> None:
    """Mix into the plastic what is behind it (room and hole contents), tinted and blurred."""
    spec = ctx.spec
    flat = image.reshape(-1, 3)
    behind = image.copy()
    behind.reshape(-1, 3)[plastic] = ctx.room_flat[plastic]
    pitch_px = ctx.pitch_px
    behind = blur(behind, 0.25 * pitch_px)
    tint = ctx.board_albedo[:, 0] / max(float(ctx.board_albedo.max()), 1e-3)
    tau = np.float32(spec.translucency)
    flat[plastic] = flat[plastic] * (1 - tau) + behind.reshape(-1, 3)[plastic] * (
        tau * 0.85 * tint)


def _camera(image: np.ndarray, spec: SceneSpec, rng: np.random.Generator) -> np.ndarray:
    """Linear radiance (H, W, 3) to a camera's uint8 BGR frame."""
    frame = _expose(image, spec)
    sigma = math.hypot(spec.antialias_px, spec.defocus_px)
    if sigma > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    frame = add_noise(frame, spec.noise_sigma, rng)
    frame = jpeg_round_trip(frame, spec.jpeg_quality)
    return frame


def _expose(image: np.ndarray, spec: SceneSpec) -> np.ndarray:
    """Auto exposure and white balance (with their errors), vignetting, tone curve, gamma."""
    height, width = image.shape[:2]
    small = cv2.resize(image, (max(width // 8, 1), max(height // 8, 1)),
                       interpolation=cv2.INTER_AREA)
    means = np.maximum(small.reshape(-1, 3).mean(axis=0), 1e-4)
    light = np.asarray(spec.ambient) + sum(np.asarray(lamp.colour) for lamp in spec.lights)
    balance = (light.mean() / np.maximum(light, 1e-3)) ** AWB_STRENGTH
    gain = np.clip(EXPOSURE_TARGET * spec.exposure / float(means @ (balance * LUMA)), 0.02, 100)
    image *= (gain * balance * np.asarray(spec.white_balance)).astype(np.float32)
    if spec.vignetting > 0:
        image *= 1 - np.float32(spec.vignetting) * _falloff(width, height)
    knee = np.maximum(image - 0.7, 0)  # a soft shoulder: highlights approach white
    image -= knee - knee / (1 + knee * (1 / 0.3))
    np.sqrt(np.clip(image, 0, 1, out=image), out=image)
    return cv2.convertScaleAbs(image, alpha=255.0)


@functools.lru_cache(maxsize=4)
def _falloff(width: int, height: int) -> np.ndarray:
    """Radial vignetting shape (H, W, 1): 0 at the centre, 1 in the corners."""
    x = (np.arange(width, dtype=np.float32) - width / 2) / (width / 2)
    y = (np.arange(height, dtype=np.float32) - height / 2) / (width / 2)
    r2 = (x[None, :] ** 2 + y[:, None] ** 2) / (1 + (height / width) ** 2)
    return (r2 * (2 - r2))[..., None].astype(np.float32)
