"""Synthetic camera frames of a Connect Four board (SPEC.md §5 geometry).

Used by the tests, by the simulated camera of the live pipeline and to make
the classifier's training data::

    from firmware_py.simtable.render import RenderSpec, render_frame
    spec = RenderSpec.random(np.random.default_rng(7))
    frame = render_frame("4453", spec, seed=7)   # 720 x 1280 x 3 uint8, BGR

The board face (plate, marker stickers, holes and discs) is drawn top-down in
the warp plane. What lies behind the face is drawn where the camera sees it
through the hole (parallax): a disc ``spec.disc_depth`` P behind the face
shows only where it overlaps its hole, and the back plate's hole
(:data:`PLATE_DEPTH_PITCH` behind) bounds what shows of the room. The face is
lit (smooth illumination field, cast shadow, glare), then
projected into the frame through the exact homography of the camera pose and
composited over a cluttered background that also shows through empty holes.
Hands, blur, sensor noise and JPEG artefacts follow.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import cv2
import numpy as np

from c4game.board import EMPTY, HEIGHT, RED, WIDTH, YELLOW, Board
from firmware_py.simtable.render_spec import (
    PLATE,
    Hand,
    RenderSpec,
    camera_matrix,
    plane_to_image,
    rotation,
    translation,
)
from firmware_py.simtable.sensor import add_noise, jpeg_round_trip
from firmware_py.vision.geometry import (
    MARKER_CENTRES,
    apply_homography,
    cell_rect,
    plane_homography,
)

__all__ = ["Hand", "RenderSpec", "camera_matrix", "grid_of", "plane_to_image", "render_frame"]

HOLE_RADIUS = 0.4 * 80  # plane units
DISC_RADIUS = 1.12 * HOLE_RADIUS  # a disc is larger than its hole, or it would fall out
TUBE_SHADE = 0.2  # a ball tube's wall: this share of the plastic's colour
PLATE_DEPTH_PITCH = 0.15  # gap between front and back plate, seen through empty holes


def grid_of(position: Board | str | Sequence[str]) -> list[str]:
    """Grid lines of a Board, a move string, or grid lines (any content, unchecked)."""
    if isinstance(position, Board):
        return position.grid_lines()
    if isinstance(position, str):
        return Board.from_moves(position).grid_lines()
    lines = [str(line) for line in position]
    if len(lines) != HEIGHT or any(len(line) != WIDTH for line in lines):
        raise ValueError(f"a grid needs {HEIGHT} lines of {WIDTH} characters, got {lines!r}")
    if bad := set("".join(lines)) - {EMPTY, RED, YELLOW}:
        raise ValueError(f"grid holds {sorted(bad)!r}; use '.', 'R' or 'Y'")
    return lines


def render_frame(position: Board | str | Sequence[str], spec: RenderSpec,
                 seed: int = 0) -> np.ndarray:
    """Render one BGR frame (height x width x 3, uint8) of ``position``.

    ``position`` is a Board, a move string or 6 grid lines (which may break
    gravity or parity, to make invalid boards). ``seed`` decides the random
    details (clutter, shadow shape, noise, per-disc variation).
    """
    grid = grid_of(position)
    rng = np.random.default_rng(seed)
    width, height = spec.size
    frame = _background(rng, spec)
    light = _light_field(rng, spec)
    homography = plane_to_image(spec)
    if spec.board_visible:
        face, alpha = _board_face(grid, spec, rng)
        # Texture pixel (i, j) covers plane [i + x0, i + x0 + 1) x [j + y0, j + y0 + 1).
        texture_to_image = homography @ _translate(PLATE[0] + 0.5, PLATE[1] + 0.5)
        _composite(frame, face, alpha, texture_to_image)
        for marker in spec.hide_markers:
            _draw_hand(frame, light, _hand_over_marker(spec, homography, marker, rng), spec, rng)
    if spec.hand is not None:
        _draw_hand(frame, light, spec.hand, spec, rng)
    if spec.auto_exposure:
        light *= _exposure_gain(frame, light, spec.light_gain)
    code = cv2.convertScaleAbs(light, alpha=128.0)
    frame = cv2.multiply(frame, cv2.cvtColor(code, cv2.COLOR_GRAY2BGR), scale=1 / 128)
    return _camera_effects(frame, spec, rng)


AUTO_EXPOSURE_MEAN = 115.0  # mean grey level an auto-exposing camera aims at
AUTO_EXPOSURE_RANGE = (0.4, 2.5)  # the gain it can apply


def _exposure_gain(frame: np.ndarray, light: np.ndarray, bias: float) -> float:
    """The gain that brings the mean grey level to the target times ``bias``."""
    small = (frame.shape[1] // 8, frame.shape[0] // 8)
    grey = cv2.cvtColor(cv2.resize(frame, small, interpolation=cv2.INTER_AREA),
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    mean = float((grey * cv2.resize(light, small, interpolation=cv2.INTER_AREA)).mean())
    return float(np.clip(AUTO_EXPOSURE_MEAN * bias / max(mean, 1.0), *AUTO_EXPOSURE_RANGE))


def _translate(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])


def _composite(frame: np.ndarray, face: np.ndarray, alpha: np.ndarray,
               texture_to_image: np.ndarray) -> None:
    """Project the board face into the frame (only its bounding box is warped)."""
    height, width = frame.shape[:2]
    th, tw = face.shape[:2]
    corners = apply_homography(texture_to_image, np.array([(0, 0), (tw, 0), (tw, th), (0, th)]))
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1, (width, height))
    if x1 <= x0 or y1 <= y0:
        return
    to_roi = _translate(-x0, -y0) @ texture_to_image
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(face, to_roi, size, flags=cv2.INTER_LINEAR, borderValue=0)
    weight = cv2.warpPerspective(alpha, to_roi, size, flags=cv2.INTER_LINEAR, borderValue=0)
    roi = frame[y0:y1, x0:x1]
    roi[:] = cv2.blendLinear(warped, roi, weight, 1.0 - weight)


# ------------------------------------------------------------------ background


def _background(rng: np.random.Generator, spec: RenderSpec) -> np.ndarray:
    """A smooth coloured backdrop with random shapes (uint8)."""
    width, height = spec.size
    base = np.asarray(spec.background_colour, np.float32)
    coarse = np.clip(base + rng.normal(0, 25, (5, 8, 3)), 0, 255).astype(np.float32)
    image = cv2.convertScaleAbs(_smooth_upscale(coarse, width, height))
    for _ in range(spec.clutter):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        x0, y0 = int(rng.integers(0, width)), int(rng.integers(0, height))
        w = int(rng.integers(width // 20, width // 3))
        h = int(rng.integers(height // 20, height // 3))
        if rng.random() < 0.5:
            cv2.rectangle(image, (x0, y0), (x0 + w, y0 + h), colour, -1)
        elif rng.random() < 0.5:
            cv2.ellipse(image, (x0, y0), (w // 2, h // 2), float(rng.uniform(0, 180)), 0, 360,
                        colour, -1, cv2.LINE_AA)
        else:
            cv2.line(image, (x0, y0), (x0 + w, y0 + h), colour, int(rng.integers(2, 12)),
                     cv2.LINE_AA)
    return image


def _smooth_upscale(coarse: np.ndarray, width: int, height: int) -> np.ndarray:
    """Upscale a tiny field smoothly (cubic to 1/8 size, then linear: fast)."""
    small = cv2.resize(coarse, (max(width // 8, 2), max(height // 8, 2)),
                       interpolation=cv2.INTER_CUBIC)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _light_field(rng: np.random.Generator, spec: RenderSpec) -> np.ndarray:
    """Per-pixel illumination gain (float32): gain, smooth variation, cast shadow."""
    width, height = spec.size
    coarse = 1.0 + spec.light_gradient * rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    field = _smooth_upscale(coarse * np.float32(spec.light_gain), width, height)
    if spec.shadow > 0:
        small = (width // 8, height // 8)
        shade = np.zeros((small[1], small[0]), np.float32)
        points = rng.uniform((0, 0), small, (5, 2)).astype(np.int32)
        cv2.fillPoly(shade, [cv2.convexHull(points)], 1.0)
        shade = cv2.resize(cv2.GaussianBlur(shade, (0, 0), 2), (width, height))
        field *= 1.0 - spec.shadow * shade
    return field


# ------------------------------------------------------------------ board face


def _board_face(grid: list[str], spec: RenderSpec,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The board face in plane units (1 px per unit, uint8) and its alpha (float32)."""
    x0, y0, x1, y1 = PLATE
    size = (int(y1 - y0), int(x1 - x0))
    board = np.asarray(spec.board_colour, np.float32)
    face = np.empty(size + (3,), np.uint8)
    face[:] = spec.board_colour
    for marker in range(4 if spec.markers else 0):
        _paste_marker(face, marker, spec.marker_size_pitch)
    hole_mask = np.zeros(size, np.uint8)
    see_through = np.zeros(size, np.uint8)
    back_plate, disc_plane = (behind_to_face(spec, depth)
                              for depth in (PLATE_DEPTH_PITCH, spec.disc_depth))
    for row in range(1, HEIGHT + 1):
        for column in range(1, WIDTH + 1):
            disc = grid[HEIGHT - row][column - 1]
            centre = _hole_centre(column, row)
            if disc == EMPTY:
                back = _shift(back_plate, centre)
                _empty_hole(face, hole_mask, see_through, centre, back, board,
                            deep=spec.pieces == "ball")
            else:
                colour = np.asarray(spec.red_colour if disc == RED else spec.yellow_colour,
                                    np.float32)
                shift = _shift(disc_plane, centre)
                if spec.pieces == "ball":
                    _ball(face, centre, shift, colour, board, rng)
                else:
                    sticker = (np.asarray(spec.sticker_colour, np.float32)
                               if spec.pieces == "sticker" else None)
                    _disc(face, centre, shift, colour, board, rng, sticker)
    if spec.glare > 0:
        _glare(face, spec.glare, rng)
    alpha = cv2.subtract(255, cv2.bitwise_and(hole_mask, see_through))
    return face, alpha.astype(np.float32) * np.float32(1 / 255)


def parallax_shift(spec: RenderSpec, centre: tuple[float, float],
                   depth: float) -> tuple[float, float]:
    """Where on the face (plane units, from ``centre``) the camera sees the point
    ``depth`` P behind face texture point ``centre``."""
    return _shift(behind_to_face(spec, depth), centre)


def behind_to_face(spec: RenderSpec, depth: float) -> np.ndarray:
    """Homography from the plane ``depth`` P behind the face to where the camera sees
    it on the face (both in plane units)."""
    behind = plane_homography(camera_matrix(spec), rotation(spec), translation(spec), depth)
    return np.linalg.inv(plane_to_image(spec)) @ behind


def _shift(matrix: np.ndarray, centre: tuple[float, float]) -> tuple[float, float]:
    plane = np.array([[centre[0] + PLATE[0] + 0.5, centre[1] + PLATE[1] + 0.5]])
    seen = apply_homography(matrix, plane)
    return float(seen[0, 0] - plane[0, 0]), float(seen[0, 1] - plane[0, 1])


def _hole_centre(column: int, row: int) -> tuple[float, float]:
    cx0, cy0, cx1, cy1 = cell_rect(column, row)
    return (cx0 + cx1) / 2 - PLATE[0] - 0.5, (cy0 + cy1) / 2 - PLATE[1] - 0.5


def _fixed(point: tuple[float, float]) -> tuple[int, int]:
    return int(round(point[0] * 16)), int(round(point[1] * 16))


def _bgr(colour: np.ndarray) -> tuple[int, int, int]:
    values = np.clip(colour, 0, 255)
    return int(values[0]), int(values[1]), int(values[2])


def _circle(image: np.ndarray, centre: tuple[float, float], radius: float,
            colour: object) -> None:
    cv2.circle(image, _fixed(centre), int(round(radius * 16)), colour, -1, cv2.LINE_AA, 4)


def _empty_hole(face: np.ndarray, hole_mask: np.ndarray, see_through: np.ndarray,
                centre: tuple[float, float], back: tuple[float, float],
                board: np.ndarray, deep: bool = False) -> None:
    """An empty hole: the back plate's wall shows on one side, the scene where the back
    plate's hole (seen ``back`` away by parallax) overlaps it. A ``deep`` hole (a tube
    for balls) is dark inside and shows the room only through its far end."""
    _circle(face, centre, HOLE_RADIUS, _bgr(board * (TUBE_SHADE if deep else 0.55)))
    _circle(hole_mask, centre, HOLE_RADIUS - 1.5, 255)
    far = (centre[0] + 3 * back[0], centre[1] + 3 * back[1]) if deep else (
        centre[0] + back[0], centre[1] + back[1])
    _circle(see_through, far, HOLE_RADIUS * (0.4 if deep else 1.0), 255)


def _disc(face: np.ndarray, centre: tuple[float, float], shift: tuple[float, float],
          colour: np.ndarray, board: np.ndarray, rng: np.random.Generator,
          sticker: np.ndarray | None = None) -> None:
    """A disc behind its hole, seen ``shift`` away from it by parallax: shaded body
    (larger than the hole), embossed ring, dark rim, a round centre ``sticker`` if
    given; only what the hole shows of it is drawn, and the slot's shaded plastic
    where the disc does not reach."""
    colour = colour + rng.normal(0, 6, 3)
    sag = (rng.normal(0, 1.0), abs(rng.normal(0, 1.5)))  # discs rest low in the slot
    window, local = _hole_window(face, centre)
    body = (local[0] + shift[0] + sag[0], local[1] + shift[1] + sag[1])
    drawn = window.copy()
    _circle(drawn, local, HOLE_RADIUS, _bgr(board * 0.55))
    _circle(drawn, body, DISC_RADIUS, _bgr(colour * 0.6))
    _circle(drawn, body, DISC_RADIUS - 2.5, _bgr(colour))
    ring = float(rng.uniform(0.5, 0.7)) * DISC_RADIUS
    cv2.circle(drawn, _fixed(body), int(ring * 16), _bgr(colour * 0.8),
               int(rng.integers(2, 4)), cv2.LINE_AA, 4)
    _circle(drawn, body, ring * 0.55, _bgr(colour * 1.08))
    if sticker is not None:
        _circle(drawn, body, float(rng.uniform(0.45, 0.62)) * DISC_RADIUS,
                _bgr(sticker + rng.normal(0, 5, 3)))
    _show_through_hole(window, drawn, local)


def _ball(face: np.ndarray, centre: tuple[float, float], shift: tuple[float, float],
          colour: np.ndarray, board: np.ndarray, rng: np.random.Generator) -> None:
    """A ball in a deep tube behind its hole, seen ``shift`` away by parallax: a shaded
    sphere (diffuse light from a random side, a specular highlight) a little smaller
    than the hole, the tube's dark wall around it."""
    colour = colour + rng.normal(0, 6, 3)
    window, local = _hole_window(face, centre)
    radius = float(rng.uniform(0.82, 0.95)) * HOLE_RADIUS
    ys, xs = np.mgrid[0:window.shape[0], 0:window.shape[1]].astype(np.float32)
    x = (xs - local[0] - shift[0]) / radius
    y = (ys - local[1] - shift[1]) / radius
    inside = np.clip(1.0 - x * x - y * y, 0.0, 1.0)
    z = np.sqrt(inside)
    light = rng.normal(0, 1, 3) * np.array([0.6, 0.6, 0.0]) + np.array([0.0, 0.0, 1.0])
    light /= np.linalg.norm(light)
    diffuse = np.clip(x * light[0] + y * light[1] + z * light[2], 0.0, 1.0)
    paint = (colour[None, None, :] * (0.25 + 0.75 * diffuse[..., None])
             + float(rng.uniform(60, 160)) * diffuse[..., None] ** 24)  # the highlight
    body = np.clip(inside * 40.0, 0.0, 1.0)[..., None]  # antialiased edge
    wall = (board * TUBE_SHADE)[None, None, :]
    drawn = np.clip(paint * body + wall * (1.0 - body), 0, 255).astype(np.uint8)
    _show_through_hole(window, drawn, local)


def _hole_window(face: np.ndarray,
                 centre: tuple[float, float]) -> tuple[np.ndarray, tuple[float, float]]:
    """The square of ``face`` around a hole (a view: drawing into it draws on the face)
    and the hole's centre in it."""
    reach = int(HOLE_RADIUS + 3)
    x0, y0 = int(centre[0]) - reach, int(centre[1]) - reach
    window = face[max(y0, 0):y0 + 2 * reach, max(x0, 0):x0 + 2 * reach]
    return window, (centre[0] - max(x0, 0), centre[1] - max(y0, 0))


def _show_through_hole(window: np.ndarray, drawn: np.ndarray,
                       local: tuple[float, float]) -> None:
    """Copy into ``window`` what its hole (centred at ``local``) shows of ``drawn``."""
    hole = np.zeros(window.shape[:2], np.uint8)
    _circle(hole, local, HOLE_RADIUS, 255)
    np.copyto(window, drawn, where=hole[..., None] > 127)


@functools.lru_cache(maxsize=16)
def _marker_sticker(marker: int, side_px: int) -> np.ndarray:
    """A white sticker (1 pitch square) with the AprilTag 36h11 ``marker`` in it."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    tag = cv2.aruco.generateImageMarker(dictionary, marker, side_px * 8, borderBits=1)
    tag = cv2.resize(tag, (side_px, side_px), interpolation=cv2.INTER_AREA)
    sticker = np.full((80, 80), 235, np.uint8)
    start = (80 - side_px) // 2
    sticker[start:start + side_px, start:start + side_px] = tag // 255 * 215 + 12
    return cv2.cvtColor(sticker, cv2.COLOR_GRAY2BGR)


def _paste_marker(face: np.ndarray, marker: int, size_pitch: float) -> None:
    side = int(round(size_pitch * 80))
    cx, cy = MARKER_CENTRES[marker]
    x, y = int(cx - 40 - PLATE[0]), int(cy - 40 - PLATE[1])
    face[y:y + 80, x:x + 80] = _marker_sticker(marker, side)


def _glare(face: np.ndarray, strength: float, rng: np.random.Generator) -> None:
    """Specular highlights: soft bright ellipses added to the face, in place."""
    height, width = face.shape[:2]
    glare = np.zeros((height // 4, width // 4), np.uint8)
    for _ in range(int(rng.integers(1, 4))):
        centre = (int(rng.integers(0, width // 4)), int(rng.integers(0, height // 4)))
        axes = (int(rng.integers(4, 30)), int(rng.integers(3, 14)))
        cv2.ellipse(glare, centre, axes, float(rng.uniform(0, 180)), 0, 360,
                    int(230 * strength), -1)
    glare = cv2.resize(cv2.GaussianBlur(glare, (0, 0), 1.5), (width, height))
    cv2.add(face, cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR), dst=face)


# ------------------------------------------------------------------ hands


def _hand_over_marker(spec: RenderSpec, homography: np.ndarray, marker: int,
                      rng: np.random.Generator) -> Hand:
    """A hand whose palm covers marker ``marker``, fingers pointing away from the grid."""
    centre, corner = apply_homography(homography, np.array(
        [(360.0, 280.0), MARKER_CENTRES[marker]]))
    away = corner - centre
    angle = math.degrees(math.atan2(away[1], away[0])) + 90 + rng.normal(0, 10)
    ends = apply_homography(homography, np.array(
        [MARKER_CENTRES[marker], MARKER_CENTRES[marker] + (64.0, 0.0)]))
    side = float(np.linalg.norm(ends[1] - ends[0]))
    width, height = spec.size
    size = max(1.6 * side / width, 0.06)
    return Hand(corner[0] / width, corner[1] / height, angle, size)


def _draw_hand(frame: np.ndarray, light: np.ndarray, hand: Hand, spec: RenderSpec,
               rng: np.random.Generator) -> None:
    """Draw a hand (palm, four fingers, thumb) and darken its shadow, in place."""
    width, height = spec.size
    palm = hand.size * width
    centre = np.array([hand.x * width, hand.y * height])
    angle = math.radians(hand.angle_deg)
    up = np.array([math.sin(angle), -math.cos(angle)])  # finger direction
    side = np.array([math.cos(angle), math.sin(angle)])
    skin = (int(rng.integers(90, 170)), int(rng.integers(120, 190)), int(rng.integers(170, 240)))
    parts = [("palm", centre, palm * 0.5)]
    for index, length in enumerate((0.8, 0.95, 0.9, 0.7)):
        base = centre + up * palm * 0.45 + side * palm * (index - 1.5) * 0.24
        parts.append(("finger", (base, base + up * palm * length), palm * 0.1))
    thumb = centre + side * palm * 0.45
    parts.append(("finger", (thumb, thumb + (side * 0.8 + up * 0.4) * palm * 0.6), palm * 0.11))
    shadow = np.zeros((height // 4, width // 4), np.float32)
    _hand_shape(shadow, parts, np.array([palm * 0.08, palm * 0.1]), 0.25, 1.0)
    shadow = cv2.resize(cv2.GaussianBlur(shadow, (0, 0), palm * 0.015 + 1), (width, height))
    light *= 1.0 - 0.45 * shadow
    _hand_shape(frame, parts, np.zeros(2), 1.0, skin)


def _hand_shape(image: np.ndarray, parts: list, offset: np.ndarray, scale: float,
                colour: object) -> None:
    """Draw the hand parts at ``scale`` (1 = frame pixels), shifted by ``offset``."""
    for kind, geometry, radius in parts:
        if kind == "palm":
            centre = (geometry + offset) * scale
            cv2.circle(image, _fixed(tuple(centre)), int(radius * scale * 16), colour, -1,
                       cv2.LINE_AA, 4)
        else:
            start, end = (geometry[0] + offset) * scale, (geometry[1] + offset) * scale
            cv2.line(image, _fixed(tuple(start)), _fixed(tuple(end)), colour,
                     max(1, int(radius * scale * 2)), cv2.LINE_AA, 4)


# ------------------------------------------------------------------ camera



def _camera_effects(frame: np.ndarray, spec: RenderSpec, rng: np.random.Generator) -> np.ndarray:
    """Blur, sensor noise and JPEG, as a camera would (uint8 in and out)."""
    if spec.blur_sigma > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), spec.blur_sigma)
    if spec.motion_blur_px > 1:
        length = spec.motion_blur_px
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rotate = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                         float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rotate, (length, length))
        frame = cv2.filter2D(frame, -1, kernel / max(kernel.sum(), 1e-6))
    frame = add_noise(frame, spec.noise_sigma, rng)
    frame = jpeg_round_trip(frame, spec.jpeg_quality)
    return frame
