"""The room of :mod:`scene`: back wall, table, the board's feet, loose discs.

The room is cast at 1 / ``ROOM_SCALE`` resolution (it is out of focus, and
the board is drawn over it at full resolution): a back wall ``wall_distance``
behind the board's front face (textured: colour patches, shelves, stripes,
soft blobs, gradients), a table under the board (wood grain, planks) in
front and behind, the board's two feet, and loose discs lying or standing
behind the board. The board casts its shadow on them (light passes through
its empty holes). Depth of field blurs each pixel by its distance from the
focused board.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from tools.scene.core import (
    INF,
    ONE,
    Context,
    blur,
    cell_of,
    cylinder_hit,
    disc_normal,
    linear,
    nearest_hole,
    pixel_rays,
    project,
    shade,
    unit,
)
from tools.scene.spec import translation

ROOM_SCALE = 2


@dataclass(frozen=True)
class Body:
    """A loose disc (or a stack of them) in the room: a cylinder along local z."""

    centre: np.ndarray  # (3,)
    axes: np.ndarray  # (3, 3): columns are the local axes in world coordinates
    half: float  # half height of the cylinder
    albedo: np.ndarray  # (3, 1)


# ------------------------------------------------------------------ room


def room_layer(ctx: Context) -> np.ndarray:
    """The room's linear radiance at full resolution (H, W, 3); keeps a copy in ctx."""
    spec = ctx.spec
    width, height = spec.size
    cols, rows = -(-width // ROOM_SCALE), -(-height // ROOM_SCALE)
    _, rays = pixel_rays(spec, ROOM_SCALE, (0, 0, cols, rows))
    depth, normal, albedo, gloss = _room_hits(ctx, rays, cols, rows, _loose_discs(ctx))
    points = ctx.origin[:, None] + rays * depth
    occluder = functools.partial(_board_shadow, ctx) if spec.shadows else None
    radiance = shade(ctx, points, normal, unit(-rays), albedo, gloss, 32,
                     _contact_shadow(ctx, points), occluder)
    image = np.ascontiguousarray(radiance.T).reshape(rows, cols, 3)
    image = _defocus(ctx, image, depth.reshape(rows, cols))
    full = cv2.resize(image, (width, height), interpolation=cv2.INTER_LINEAR)
    ctx.room_flat = full.reshape(-1, 3).copy()
    return full


def _room_hits(ctx: Context, rays: np.ndarray, cols: int, rows: int,
               bodies: list[Body]) -> tuple[np.ndarray, ...]:
    """Depth, normal, albedo and gloss of the nearest room surface per ray."""
    spec = ctx.spec
    o = ctx.origin
    angle = math.radians(spec.wall_angle_deg)
    wall_n = np.array([math.sin(angle), 0, math.cos(angle)], np.float32)
    denom = wall_n @ rays
    far = np.float32(6 * (spec.wall_distance + np.linalg.norm(o)))
    with np.errstate(divide="ignore"):
        depth = np.where(denom > 1e-6, (spec.wall_distance * math.cos(angle) - wall_n @ o)
                         / denom, far)
    depth = np.where((depth > 0) & (depth < far), depth, far).astype(np.float32)
    hit = o[:, None] + rays * depth
    u = hit[0] * math.cos(angle) - hit[2] * math.sin(angle)
    albedo = _texture_at(_wall_texture(ctx, u, hit[1]), u, hit[1], rows, cols)
    normal = np.repeat(-wall_n[:, None], len(depth), axis=1)
    gloss = np.zeros(len(depth), np.float32)
    if ctx.table_seen:
        with np.errstate(divide="ignore"):
            table = np.where(rays[1] > 1e-6, (ctx.table_y - o[1]) / rays[1], INF)
        on = table < depth
        depth = np.where(on, table, depth)
        reach = np.where(on, table, 0)
        x, z = o[0] + rays[0] * reach, o[2] + rays[2] * reach
        albedo = np.where(on, _texture_at(_table_texture(ctx), x, z, rows, cols, 24.0), albedo)
        normal[:, on] = np.array([[0], [-1], [0]], np.float32)
        gloss[on] = 0.12
    for body in bodies + _feet(ctx):
        _add_body(ctx, body, rays, cols, rows, depth, normal, albedo, gloss)
    return depth, normal, albedo, gloss


def _texture_at(texture: np.ndarray | tuple, u: np.ndarray, v: np.ndarray, rows: int,
                cols: int, res: float | None = None) -> np.ndarray:
    """Albedo (3, n) at plane coordinates (u, v): a texture, or (texture, origin, px per P).

    A bare texture repeats, mirrored, from the origin (24 px per P).
    """
    if isinstance(texture, tuple):
        texture, (u0, v0), res = texture
        map_x, map_y = (u - u0) * res - 0.5, (v - v0) * res - 0.5
    else:
        map_x, map_y = _mirror(u * res, texture.shape[1]), _mirror(v * res, texture.shape[0])
    shape = (rows, cols)
    map_x = np.nan_to_num(map_x, nan=0, posinf=0, neginf=0).astype(np.float32).reshape(shape)
    map_y = np.nan_to_num(map_y, nan=0, posinf=0, neginf=0).astype(np.float32).reshape(shape)
    values = cv2.remap(texture, np.clip(map_x, -1, texture.shape[1]),
                       np.clip(map_y, -1, texture.shape[0]), cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(values.reshape(-1, 3).T)


def _mirror(coordinate: np.ndarray, size: int) -> np.ndarray:
    """Texture coordinates that repeat a texture of ``size`` px, mirrored."""
    with np.errstate(invalid="ignore"):
        folded = np.abs(((coordinate + size) % (2 * size)) - size)
    return folded - 0.5


def _wall_texture(ctx: Context, u: np.ndarray, v: np.ndarray) -> tuple:
    """A wall texture covering the visible (u, v) range: (image, origin, px per P)."""
    spec, rng = ctx.spec, ctx.rng
    u0, u1 = np.clip([float(u.min()), float(u.max())], -80, 80)
    v0, v1 = np.clip([float(v.min()), float(v.max())], -80, 80)
    res = float(min(512 / max(u1 - u0, 1), 512 / max(v1 - v0, 1), 24))
    width, height = int((u1 - u0) * res) + 2, int((v1 - v0) * res) + 2
    image = np.empty((height, width, 3), np.uint8)
    image[:] = spec.wall_colour
    style = spec.wall_style
    for _ in range(int(rng.integers(4, 14)) if style in ("patches", "blobs") else 0):
        _wall_shape(image, rng, _room_colour(rng, spec.wall_colour), res, style == "blobs")
    if style == "stripes":
        period = rng.uniform(0.4, 2.5) * res
        colour = _room_colour(rng, spec.wall_colour)
        across = np.arange(width if rng.random() < 0.7 else height)
        on = (across % period) < period * rng.uniform(0.3, 0.7)
        if len(across) == width:
            image[:, on] = colour
        else:
            image[on] = colour
    elif style == "gradient":
        ramp = np.linspace(0, 1, width, dtype=np.float32)[None, :, None]
        image[:] = (image * (1 - ramp) + np.float32(_room_colour(rng, spec.wall_colour))
                    * ramp).astype(np.uint8)
    texture = _gamma_lut()[image] * _low_frequency(rng, height, width, 0.15)
    if style == "blobs":
        texture = cv2.GaussianBlur(texture, (0, 0), 0.3 * res + 0.5)
    return texture, (float(u0), float(v0)), res


def _wall_shape(image: np.ndarray, rng: np.random.Generator, colour: tuple[int, ...],
                res: float, round_only: bool) -> None:
    """One thing on the wall: a poster or piece of furniture, a shelf, a round blob."""
    height, width = image.shape[:2]
    x, y = int(rng.uniform(0, width)), int(rng.uniform(0, height))
    w, h = (rng.uniform(0.5, 6, 2) * res).astype(int) + 1
    kind = 2 if round_only else int(rng.integers(0, 3))
    if kind == 0:
        cv2.rectangle(image, (x, y), (x + w, y + int(1.5 * h)), colour, -1)
    elif kind == 1:
        cv2.line(image, (x, y), (x + 3 * w, y + int(rng.normal(0, 0.1) * w)), colour,
                 max(1, int(rng.uniform(0.05, 0.4) * res)), cv2.LINE_AA)
    else:
        cv2.ellipse(image, (x, y), (w // 2, int(w * rng.uniform(0.3, 0.6))),
                    float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)


def _room_colour(rng: np.random.Generator, base: tuple[int, int, int]) -> tuple[int, ...]:
    """A colour for a wall detail: a shade of the wall, or any colour."""
    if rng.random() < 0.4:
        return tuple(int(c) for c in np.clip(np.asarray(base) * rng.uniform(0.5, 1.3), 0, 255))
    hsv = np.array([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(30, 250)]]],
                   np.uint8)
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


@functools.lru_cache(maxsize=1)
def _gamma_lut() -> np.ndarray:
    return ((np.arange(256, dtype=np.float32) / 255) ** 2).astype(np.float32)


def _low_frequency(rng: np.random.Generator, height: int, width: int,
                   amount: float, cells: tuple[int, int] = (4, 6)) -> np.ndarray:
    """A smooth random gain field (H, W, 1) around 1."""
    coarse = (1 + amount * rng.uniform(-1, 1, cells)).astype(np.float32)
    return cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)[..., None]


def _table_texture(ctx: Context) -> np.ndarray:
    """Wood (planks along x, grain) or a plain top: 12 x 12 P at 24 px per P."""
    spec, rng = ctx.spec, ctx.rng
    size = 288
    base = _gamma_lut()[np.asarray(spec.table_colour, np.uint8)]
    z = np.arange(size, dtype=np.float32)[:, None]
    wobble = cv2.resize(rng.uniform(-1, 1, (24, 3)).astype(np.float32), (size, size),
                        interpolation=cv2.INTER_CUBIC)
    grain = 0.5 + 0.5 * np.sin(z * rng.uniform(0.3, 0.8) + 6 * wobble)
    saturation = float(np.ptp(spec.table_colour)) / 255  # wood is coloured; plain tops are not
    plank = rng.uniform(1.5, 4) * 24
    seam = np.abs(((z + size) % plank) - plank / 2) > plank / 2 - 1.2
    tone = 1 - min(1.0, 2 * saturation) * 0.35 * grain ** 3 - 0.35 * seam
    planks = 1 + 0.12 * rng.uniform(-1, 1, 16)[(z // plank).astype(int) % 16]
    return (base * (tone * planks)[..., None]).astype(np.float32)


def _contact_shadow(ctx: Context, points: np.ndarray) -> np.ndarray:
    """Ambient occlusion on the table under and around the board."""
    if not ctx.table_seen:
        return ONE
    x0, _, x1, _ = ctx.outline
    near_table = np.abs(points[1] - ctx.table_y) < 0.02
    gap = np.maximum(np.maximum(-points[2], points[2] - ctx.spec.board_depth), 0)
    across = np.maximum(np.maximum(x0 - points[0], points[0] - x1), 0)
    strength = 0.55 * math.exp(-ctx.spec.table_gap / 0.8)
    return (1 - near_table * strength * np.exp(-(gap + across) / 0.5)).astype(np.float32)


def _board_shadow(ctx: Context, points: np.ndarray, towards: np.ndarray) -> np.ndarray:
    """Light (0-1) that the board lets through towards each room point."""
    spec = ctx.spec
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (spec.board_depth / 2 - points[2]) / towards[2]
    ok = np.isfinite(t) & (t > 0)
    t = np.where(ok, t, 0)
    x, y = points[0] + towards[0] * t, points[1] + towards[1] * t
    penumbra = 0.03 + 0.03 * t
    block = np.clip(0.5 - ctx.outline_sdf(x, y) / penumbra, 0, 1)
    hx, hy = nearest_hole(x, y)
    row, column = cell_of(hx, hy)
    hole = spec.hole_radius - np.sqrt((x - hx) ** 2 + (y - hy) ** 2)
    block *= 1 - np.clip(0.5 + hole / penumbra, 0, 1) * ~ctx.disc_present[row, column]
    return (1 - block * ok * (1 - 0.6 * spec.translucency)).astype(np.float32)


def _defocus(ctx: Context, image: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Blur each pixel by its distance from the focused board (two-level mix)."""
    scale = ctx.spec.dof_px * ctx.spec.size[0] / 1280 / ROOM_SCALE
    focus = float(translation(ctx.spec)[2])
    sigma = scale * np.abs(1 - focus / np.maximum(depth, 0.1))
    top = float(min(sigma.max(), scale))
    if top < 0.3:
        return image
    weight = np.clip(sigma / top, 0, 1)[..., None]
    return image + (blur(image, top) - image) * weight


# ------------------------------------------------------------------ bodies


def _loose_discs(ctx: Context) -> list[Body]:
    """Spare discs behind the board: flat stacks on the table or discs on edge."""
    spec, rng = ctx.spec, ctx.rng
    x0, y0, x1, y1 = ctx.outline
    bodies = []
    for _ in range(spec.spare_discs):
        colour = spec.red_colour if rng.random() < 0.5 else spec.yellow_colour
        x = rng.uniform(x0, x1)
        z = spec.board_depth + rng.uniform(0.5, min(4.0, spec.wall_distance - spec.board_depth))
        floating = not ctx.table_seen or rng.random() < 0.3  # on a shelf or a stand
        if not floating and rng.random() < 0.6:
            count = int(rng.integers(1, 4))
            half = count * spec.disc_thickness / 2
            centre, axes = (x, ctx.table_y - half, z), np.array([[1, 0, 0], [0, 0, 1],
                                                                  [0, -1, 0]], float)
        else:
            half = spec.disc_thickness / 2
            y = rng.uniform(y0, y1) if floating else ctx.table_y - spec.disc_radius
            turn = math.radians(rng.uniform(-35, 35))
            centre = (x, y, z)
            axes = np.array([[math.cos(turn), 0, math.sin(turn)], [0, 1, 0],
                             [-math.sin(turn), 0, math.cos(turn)]])
        bodies.append(Body(np.array(centre, np.float32), axes.astype(np.float32), half,
                           linear(colour)))
    return bodies


def _feet(ctx: Context) -> list[tuple[np.ndarray, np.ndarray]]:
    """The two stands under the board, as boxes (low corner, high corner)."""
    spec = ctx.spec
    if not ctx.table_seen or spec.table_gap < 0.05:
        return []
    x0, _, x1, y1 = ctx.outline
    reach = 0.9 if ctx.origin[1] < y1 - 0.2 else 0.0  # seen from below they would poke out
    z0, z1 = -reach, spec.board_depth + reach
    return [(np.array([x, y1, z0], np.float32), np.array([x + 0.8, ctx.table_y, z1], np.float32))
            for x in (x0 + 0.1, x1 - 0.9)]


def _add_body(ctx: Context, body: Body | tuple, rays: np.ndarray, cols: int, rows: int,
              depth: np.ndarray, normal: np.ndarray, albedo: np.ndarray,
              gloss: np.ndarray) -> None:
    """Cast the rays of a body's pixel box at it; keep nearer hits (in place)."""
    if isinstance(body, Body):
        corners = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        extent = np.array([ctx.spec.disc_radius, ctx.spec.disc_radius, body.half])
        corners = (corners * extent) @ body.axes.T + body.centre
    else:
        low, high = body
        corners = np.array([(x, y, z) for x in (low[0], high[0]) for y in (low[1], high[1])
                            for z in (low[2], high[2])])
    points = project(ctx.spec, corners)
    box = (0, 0, cols, rows)
    if points is not None:
        low_px = np.maximum(np.floor((points.min(axis=0) - 0.5) / ROOM_SCALE) - 1, 0)
        high_px = np.minimum(np.ceil((points.max(axis=0) - 0.5) / ROOM_SCALE) + 2, (cols, rows))
        if np.any(high_px <= low_px):
            return
        box = (int(low_px[0]), int(low_px[1]), int(high_px[0]), int(high_px[1]))
    index = (np.arange(box[1], box[3])[:, None] * cols + np.arange(box[0], box[2])).ravel()
    sub = rays[:, index]
    if isinstance(body, Body):
        hit, n, colour, shine = _body_hit(ctx, body, sub)
    else:
        hit, n = _box_hit(ctx.origin, sub, *body)
        colour, shine = ctx.board_albedo, ctx.spec.board_gloss
    nearer = np.flatnonzero(hit < depth[index])
    target = index[nearer]
    depth[target] = hit[nearer]
    normal[:, target] = n[:, nearer]
    albedo[:, target] = np.broadcast_to(colour, (3, len(hit)))[:, nearer]
    gloss[target] = shine


def _body_hit(ctx: Context, body: Body, rays: np.ndarray) -> tuple:
    """A loose disc: entry depth, world normal, albedo (with stack seams), gloss."""
    origin = body.axes.T @ (ctx.origin - body.centre)
    local = body.axes.T @ rays
    hit, cap = cylinder_hit(origin[:, None], local, ctx.spec.disc_radius, body.half)
    with np.errstate(invalid="ignore"):
        lx, ly, lz = (origin[:, None] + local * np.where(hit < INF, hit, 0))
    facing = -np.sign(local[2])
    n = body.axes @ disc_normal(ctx.spec, lx, ly, cap, facing)
    seams = (np.abs(((lz + body.half) / ctx.spec.disc_thickness + 0.5) % 1 - 0.5) * (
        ctx.spec.disc_thickness) < 0.01) & ~cap
    colour = body.albedo * (1 - 0.6 * seams)
    return hit, n, colour, ctx.spec.disc_gloss


def _box_hit(origin: np.ndarray, rays: np.ndarray, low: np.ndarray,
             high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entry depth (inf: miss) and normal of rays into an axis-aligned box."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = 1 / rays
        t1 = (low[:, None] - origin[:, None]) * inverse
        t2 = (high[:, None] - origin[:, None]) * inverse
    near, far = np.minimum(t1, t2), np.maximum(t1, t2)
    axis = np.argmax(near, axis=0)
    enter = np.take_along_axis(near, axis[None], 0)[0]
    hit = np.where((enter < far.min(axis=0)) & (enter > 0), enter, INF).astype(np.float32)
    normal = np.zeros_like(rays)
    columns = np.arange(rays.shape[1])
    normal[axis, columns] = -np.sign(rays[axis, columns])
    return hit, normal
