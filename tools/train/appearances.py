"""Composites of board appearances the reader was not built on, recoloured from real ones.

The real composites (:mod:`tools.train.real_composites`: a translucent
turquoise board and a navy one, red and yellow discs) are recoloured in the
image, after their camera changes, to measure the reader on unfamiliar
boards (never train on the bench's frames; :mod:`tools.train.composite_data`):

* ``white``, ``navy``, ``light-blue``: the plastic takes another colour. A
  pixel is plastic by its Lab distance to the local plastic colour (the cell
  corners, smoothed over the empty cells) and to what the holes show, inside
  the board's face but never within ``MARKER_KEEP_OUT`` of a marker; it
  becomes the target times its shading (luminance over the plastic's median).
  Targets are shares of the markers' white stickers (this frame's white).
* ``orange-pink``: in each disc cell the red pixels turn pink (hue ~338°,
  paler) and the yellow ones orange (hue ~30°), keeping their shading.
* ``black-balls``: a black board; every disc becomes a shaded ball (orange-red
  or yellow, Lambertian, a specular highlight, a random light) in a dark tube,
  empty holes are darkened (deep tubes), all drawn in the board plane and
  warped in; then the frame is dimmed (exposure 0.5-0.8: a dim webcam).

Target colours vary per frame (hue ±8°, lightness ±10%). When the four
markers are no longer found the restyle is redone milder (``STRENGTHS``);
when every try fails the frame is left unstyled (``camera["appearance"]``).

    .venv/bin/python -m tools.train.appearances --appearance all --count 10 --seed 1 \\
        --out /tmp/looks --sheet /tmp/looks_sheet.png
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.geometry import MARKER_CENTRES
from firmware_py.vision.markers import MarkerDetector
from tools.train import real_composites as rc
from tools.train.real_composites import CELL, EMPTY, Composer, Composite

APPEARANCES = ("black-balls", "white", "navy", "light-blue", "orange-pink")
# Board plastics: hue (degrees), saturation, luminance as a share of the stickers' white
PLASTICS = {"white": (45.0, 0.05, 0.85), "navy": (226.0, 0.78, 0.16),
            "light-blue": (206.0, 0.50, 0.58), "black": (220.0, 0.12, 0.07)}
PINK, ORANGE = (338.0, 0.55, 0.3), (30.0, 1.0, 0.95)  # hue, saturation factor, lightening
BALLS = {"R": (10.0, 0.92, 0.85), "Y": (52.0, 0.90, 0.95)}  # hue, saturation, share of white
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR
REGIONS = {"zam": (-40.0, 16.0, 760.0, 544.0)}  # plane box of the board face: x0, y0, x1, y1
DEFAULT_REGION = (52.0, 20.0, 668.0, 540.0)
MARKER_KEEP_OUT = 0.72  # pitches: half-side of the square left alone around each marker
PLASTIC_DISTANCE = (14.0, 30.0)  # Lab units: fully plastic below, not plastic above
HOLE_MARGIN = 4.0  # Lab units: plastic when this much nearer the plastic than the holes
FIELD_STEP = 10  # px per pitch of the interpolated colour fields
BLUR = 1.2  # px: sensor noise smoothed before telling plastic
SHADING_LIMITS = (0.2, 2.2)
STICKER_RING = (34.0, 38.0)  # plane px from a marker's centre: its sticker's white border
WHITE_LIMITS = (110.0, 240.0)
STRENGTHS = (1.0, 0.6, 0.3)  # of the restyle, on each try
SCALE = 2  # layer px per plane px
LAYER_BOX = (-80, -80, 800, 640)  # plane box of the drawn layers
LAYER_SHAPE = ((LAYER_BOX[3] - LAYER_BOX[1]) * SCALE, (LAYER_BOX[2] - LAYER_BOX[0]) * SCALE)


@dataclasses.dataclass
class Look:
    """One frame's drawn settings."""

    appearance: str
    strength: float
    white: np.ndarray  # BGR of a white surface here (:func:`white_level`)
    board: np.ndarray | None  # BGR float of the plastic, None: left as it was
    settings: dict


def smoothstep(low: float, high: float, value: np.ndarray) -> np.ndarray:
    t = np.clip((value - low) / (high - low), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def hsv_colour(hue: float, saturation: float, share: float, white: np.ndarray) -> np.ndarray:
    """BGR float (0-255) of a hue and saturation at ``share`` of the luminance of ``white``
    (a BGR), tinted as ``white`` is."""
    pure = cv2.cvtColor(np.float32([[[hue % 360.0, saturation, 1.0]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return np.clip(pure / float(pure @ LUMA) * share * white, 0.0, 255.0).astype(np.float32)


def layer_to_image(layer: np.ndarray, plane_to_image: np.ndarray, size: tuple[int, int],
                   border: float = 0.0, scale: float = SCALE,
                   mode: int = cv2.BORDER_CONSTANT) -> np.ndarray:
    """A layer drawn on ``LAYER_BOX`` at ``scale`` px per plane px warped into an image."""
    x0, y0 = LAYER_BOX[:2]
    to_layer = np.array([[scale, 0, -scale * x0 - 0.5], [0, scale, -scale * y0 - 0.5], [0, 0, 1]])
    return cv2.warpPerspective(layer, plane_to_image @ np.linalg.inv(to_layer), size,
                               flags=cv2.INTER_LINEAR, borderMode=mode,
                               borderValue=(border,) * 4)


@functools.lru_cache(maxsize=4)
def face_layer(source: str, keep_out: float) -> np.ndarray:
    """The board face's plane mask (soft edge), the markers' squares cut out."""
    ys, xs = np.mgrid[:LAYER_SHAPE[0], :LAYER_SHAPE[1]].astype(np.float32)
    xs, ys = (xs + 0.5) / SCALE + LAYER_BOX[0], (ys + 0.5) / SCALE + LAYER_BOX[1]
    x0, y0, x1, y1 = REGIONS.get(source, DEFAULT_REGION)
    inside = np.minimum(np.minimum(xs - x0, x1 - xs), np.minimum(ys - y0, y1 - ys))
    for cx, cy in MARKER_CENTRES:
        gap = np.maximum(abs(xs - cx), abs(ys - cy)) - keep_out * CELL
        inside = np.minimum(inside, np.maximum(gap, -1.0))
    return smoothstep(0.0, 6.0, inside).astype(np.float32)


def cell_window(line: int, column: int) -> tuple[tuple[slice, slice], np.ndarray, np.ndarray]:
    """Layer rows and columns around a hole centre (0.6 pitch each way), and the plane
    offsets x (1, S) and y (S, 1) of their pixels from that centre."""
    centre = ((120 + CELL * column - LAYER_BOX[0]) * SCALE,
              (80 + CELL * line - LAYER_BOX[1]) * SCALE)
    half = int(0.6 * CELL * SCALE)
    offsets = (np.arange(-half, half, dtype=np.float32) + 0.5) / SCALE
    window = (slice(centre[1] - half, centre[1] + half), slice(centre[0] - half, centre[0] + half))
    return window, offsets[None, :], offsets[:, None]


def ellipse_radius(x: np.ndarray, y: np.ndarray, axes: tuple[float, float]) -> np.ndarray:
    """Normalised radius (1 on the ellipse of semi-axes ``axes`` in pitches)."""
    return np.hypot(x / (axes[0] * CELL), y / (axes[1] * CELL))


def white_level(frame: np.ndarray, plane_to_image: np.ndarray) -> np.ndarray:
    """BGR (float) of the markers' white sticker borders, how white looks in this frame
    (its light and white balance): the mean of the two brightest (one may lie in a shadow)."""
    offsets = np.arange(-STICKER_RING[1], STICKER_RING[1] + 1, 1.0)
    dx, dy = np.meshgrid(offsets, offsets)
    ring = np.maximum(abs(dx), abs(dy)) >= STICKER_RING[0]
    values = []
    for cx, cy in MARKER_CENTRES:
        points = np.stack([dx[ring] + cx, dy[ring] + cy], axis=1)[:, None].astype(np.float64)
        pixels = np.round(cv2.perspectiveTransform(points, plane_to_image)[:, 0]).astype(int)
        inside = np.all((pixels >= 0) & (pixels < frame.shape[1::-1]), axis=1)
        if inside.any():
            values.append(np.median(frame[pixels[inside, 1], pixels[inside, 0]], axis=0))
    values.sort(key=lambda value: float(value @ LUMA))
    white = np.mean(values[-2:], axis=0) if values else np.full(3, 200.0)
    luminance = float(white @ LUMA)
    return (white * np.clip(luminance, *WHITE_LIMITS) / max(luminance, 1.0)).astype(np.float32)


def board_colours(composite: Composite) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell colours (6, 7, 3) of the board's plastic (cell corners) and of what the
    empty holes show (their centres), smoothed over the empty cells (``rc.empty_field``)."""
    patches = rc.cut_patches(composite.frame, composite.plane_to_image, 1)
    colours = np.array([[rc.cell_colours(patch, 1) for patch in line] for line in patches])
    return (rc.empty_field(colours[..., 0, :], composite.grid),
            rc.empty_field(colours[..., 1, :], composite.grid))


def field_to_image(field: np.ndarray, plane_to_image: np.ndarray,
                   size: tuple[int, int]) -> np.ndarray:
    """A per-cell field (6, 7, 3) interpolated between the hole centres (constant beyond
    them) and warped into an image of ``size``."""
    step = FIELD_STEP
    block = cv2.resize(field, (WIDTH * step, HEIGHT * step), interpolation=cv2.INTER_LINEAR)
    left, top = (CELL - LAYER_BOX[0]) * step // CELL, (40 - LAYER_BOX[1]) * step // CELL
    right = (LAYER_BOX[2] - LAYER_BOX[0]) * step // CELL - left - WIDTH * step
    bottom = (LAYER_BOX[3] - LAYER_BOX[1]) * step // CELL - top - HEIGHT * step
    layer = cv2.copyMakeBorder(block, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return layer_to_image(layer, plane_to_image, size, scale=step / CELL,
                          mode=cv2.BORDER_REPLICATE)


def lab_forms(colours: np.ndarray, lightness: float) -> tuple[np.ndarray, np.ndarray]:
    """Lab of BGR ``colours`` (lightness weighed 1 / 2.5) as it is, and with a* b* scaled
    to the lightness ``lightness`` (on the translucent board shaded plastic's chroma
    shrinks; on the navy one it stays)."""
    lab = cv2.cvtColor(colours.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
    scale = np.clip(lightness / np.maximum(lab[..., :1], 1.0), 0.5, 2.5)
    lightness_part = lab[..., :1] / 2.5
    return (np.concatenate([lightness_part, lab[..., 1:]], axis=2),
            np.concatenate([lightness_part, lab[..., 1:] * scale], axis=2))


def plastic_weight(frame: np.ndarray, plastic: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """How much each pixel (of the slightly blurred frame) is the board's plastic: near the
    local plastic colour (``PLASTIC_DISTANCE``, the nearer of both :func:`lab_forms`) and
    nearer it than the local hole colour."""
    lightness = float(np.median(cv2.cvtColor(plastic / 255.0, cv2.COLOR_BGR2LAB)[..., 0]))
    pixels = lab_forms(cv2.GaussianBlur(frame, (0, 0), BLUR), lightness)
    to_plastic, to_hole = (
        np.minimum(*(np.linalg.norm(form - ref, axis=2)
                     for form, ref in zip(pixels, lab_forms(reference, lightness), strict=True)))
        for reference in (plastic, hole))
    nearer = smoothstep(-HOLE_MARGIN, HOLE_MARGIN, to_hole - to_plastic)
    return (1.0 - smoothstep(*PLASTIC_DISTANCE, to_plastic)) * nearer


def recolour_board(frame: np.ndarray, composite: Composite, target: np.ndarray,
                   keep_out: float) -> np.ndarray:
    """``frame`` (float) with the board's plastic turned ``target``, keeping its shading
    (luminance over the plastic's median: lighting gradients stay)."""
    size, homography = frame.shape[1::-1], composite.plane_to_image
    plastic, hole = board_colours(composite)
    face = layer_to_image(face_layer(source_of(composite), keep_out), homography, size)
    weight = face * plastic_weight(frame, field_to_image(plastic, homography, size),
                                   field_to_image(hole, homography, size))
    median = max(float(np.median(plastic.reshape(-1, 3) @ LUMA)), 1.0)
    shading = np.clip(frame @ LUMA / median, *SHADING_LIMITS)
    new = np.clip(target * shading[..., None], 0.0, 255.0)
    return frame + weight[..., None] * (new - frame)


def source_of(composite: Composite) -> str:
    return composite.base.split("_", 1)[0]


def cells(composite: Composite) -> list[tuple[int, int, str]]:
    return [(line, column, char) for line, text in enumerate(composite.grid)
            for column, char in enumerate(text)]


def disc_layers(composite: Composite, grow: float = 0.05) -> np.ndarray:
    """Plane masks (H, W, 2) of the red and of the yellow disc cells."""
    axes = rc.MASKS.get(source_of(composite), rc.DEFAULT_MASK)
    layers = np.zeros(LAYER_SHAPE + (2,), np.float32)
    for line, column, char in cells(composite):
        if char != EMPTY:
            window, x, y = cell_window(line, column)
            radius = ellipse_radius(x, y, (axes[0] + grow, axes[1] + grow))
            layers[window + ("RY".index(char),)] = 1.0 - smoothstep(0.9, 1.0, radius)
    return layers


def recolour_discs(frame: np.ndarray, composite: Composite, look: Look) -> np.ndarray:
    """Red discs turned pink and yellow ones orange, keeping their shading."""
    masks = layer_to_image(disc_layers(composite), composite.plane_to_image, frame.shape[1::-1])
    hsv = cv2.cvtColor(np.clip(frame, 0, 255).astype(np.float32) / 255.0, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    vivid = smoothstep(0.2, 0.4, sat) * smoothstep(0.08, 0.18, val)
    red_hue = 1.0 - smoothstep(38.0, 46.0, np.minimum(abs(hue - 355.0), abs(hue + 5.0)))
    yellow_hue = 1.0 - smoothstep(22.0, 32.0, abs(hue - 55.0))  # with the greenish halos
    out = frame
    for mask, band, (new_hue, sat_factor, lighten) in (
            (masks[..., 0], red_hue, look.settings["pink"]),
            (masks[..., 1], yellow_hue, look.settings["orange"])):
        new_val = val + (1.0 - val) * lighten if lighten > 0 else val * (1.0 + lighten)
        changed = np.stack([np.full_like(hue, new_hue), np.clip(sat * sat_factor, 0, 1),
                            np.clip(new_val, 0, 1)], axis=2)
        changed = cv2.cvtColor(changed, cv2.COLOR_HSV2BGR) * 255.0
        weight = (mask * band * vivid)[..., None]
        out = out + weight * (changed - out)
    return out


def ball_layers(composite: Composite, look: Look) -> tuple[np.ndarray, ...]:
    """Colour (premultiplied), alpha and gain (empty holes) layers of the balls."""
    axes = rc.MASKS.get(source_of(composite), rc.DEFAULT_MASK)
    colour, alpha = np.zeros(LAYER_SHAPE + (3,), np.float32), np.zeros(LAYER_SHAPE, np.float32)
    gain = np.ones(LAYER_SHAPE, np.float32)
    light, radius, kept = (look.settings[key] for key in ("light", "radius", "hole_gain"))
    for line, column, char in cells(composite):
        window, x, y = cell_window(line, column)
        cover = ellipse_radius(x, y, (axes[0] + 0.03, axes[1] + 0.03))
        if char == EMPTY:
            darker = 1.0 - kept * (0.7 + 0.3 * (1.0 - np.minimum(cover, 1.0) ** 2))
            gain[window] -= (1.0 - smoothstep(0.85, 1.0, cover)) * darker
            continue
        ball = ellipse_radius(x, y, (radius * axes[0] / axes[1], radius))
        hue, saturation, share = BALLS[char]
        paint = shade_ball(ball, x, y, light, hsv_colour(hue, saturation, share, look.white))
        rim = (1.0 - smoothstep(0.85, 1.0, ball))[..., None]  # the ball's antialiased edge
        ring = look.board * 0.5 * smoothstep(1.0, 1.3, ball)[..., None]  # its shadow in the tube
        here = 1.0 - smoothstep(0.92, 1.0, cover)
        colour[window] += here[..., None] * (rim * paint + (1.0 - rim) * ring)
        alpha[window] += here
    return colour, np.minimum(alpha, 1.0), gain


def shade_ball(radius: np.ndarray, x: np.ndarray, y: np.ndarray, light: np.ndarray,
               base: np.ndarray) -> np.ndarray:
    """A Lambertian sphere with a specular highlight (BGR float) inside ``radius`` < 1."""
    r = np.clip(radius, 0.0, 0.999)
    norm = np.maximum(np.hypot(x, y), 1e-6)
    nx, ny, nz = x / norm * r, y / norm * r, np.sqrt(1.0 - r * r)
    diffuse = np.clip(nx * light[0] + ny * light[1] + nz * light[2], 0.0, 1.0)
    half = light + np.array([0.0, 0.0, 1.0])
    half /= np.linalg.norm(half)
    specular = np.clip(nx * half[0] + ny * half[1] + nz * half[2], 0.0, 1.0) ** 40
    occlusion = 0.55 + 0.45 * np.sqrt(nz)
    shade = (0.12 + 0.95 * diffuse) * occlusion
    return (base * shade[..., None] + 220.0 * 0.7 * specular[..., None]).astype(np.float32)


def draw_balls(frame: np.ndarray, composite: Composite, look: Look) -> np.ndarray:
    """Balls and darkened empty holes warped into ``frame`` (float)."""
    colour, alpha, gain = ball_layers(composite, look)
    size, h = frame.shape[1::-1], composite.plane_to_image
    colour = layer_to_image(colour, h, size)
    alpha = layer_to_image(alpha, h, size)[..., None]
    gain = layer_to_image(gain, h, size, border=1.0)[..., None]
    return frame * gain * (1.0 - alpha) + colour


def draw_look(rng: np.random.Generator, appearance: str, strength: float,
              white: np.ndarray) -> Look:
    """Random target colours and settings of one try."""
    def plastic(name: str) -> np.ndarray:
        hue, sat, share = PLASTICS[name]
        return hsv_colour(hue + rng.uniform(-8, 8), min(sat * rng.uniform(0.9, 1.1), 1.0),
                          share * rng.uniform(0.9, 1.1), white)

    settings: dict = {}
    if appearance == "orange-pink":
        settings["pink"] = (PINK[0] + rng.uniform(-8, 8), PINK[1] * rng.uniform(0.9, 1.1),
                            PINK[2] * rng.uniform(0.9, 1.1))
        settings["orange"] = (ORANGE[0] + rng.uniform(-5, 5), ORANGE[1], -0.05)
        return Look(appearance, strength, white, None, settings)
    name = "black" if appearance == "black-balls" else appearance
    look = Look(appearance, strength, white, plastic(name), settings)
    if appearance == "black-balls":
        azimuth, elevation = rng.uniform(0, 2 * np.pi), rng.uniform(0.6, 1.2)
        settings["light"] = np.array([np.cos(elevation) * np.cos(azimuth),
                                      np.cos(elevation) * np.sin(azimuth), np.sin(elevation)])
        settings["radius"] = rng.uniform(0.38, 0.42)
        settings["hole_gain"] = rng.uniform(0.35, 0.6)
        settings["exposure"] = 1.0 - strength * (1.0 - rng.uniform(0.5, 0.8))
    return look


def apply_look(composite: Composite, look: Look) -> np.ndarray:
    """The restyled frame (uint8) of one try."""
    frame = composite.frame.astype(np.float32)
    keep_out = MARKER_KEEP_OUT + (1.0 - look.strength) * 0.3
    if look.board is not None:
        frame = recolour_board(frame, composite, look.board, keep_out)
    if look.appearance == "orange-pink":
        frame = recolour_discs(frame, composite, look)
    if look.appearance == "black-balls":
        frame = draw_balls(frame, composite, look) * look.settings["exposure"]
    return np.clip(frame + 0.5, 0, 255).astype(np.uint8)


@functools.cache
def detector() -> MarkerDetector:
    return MarkerDetector()


def restyle(composite: Composite, appearance: str, rng: np.random.Generator) -> Composite:
    """``composite`` with its frame recoloured to ``appearance`` (see the module docstring).

    Same grid, status and homography; ``camera["appearance"]`` records the try
    that kept all four markers findable (``fallback``: none did, frame unstyled).
    """
    if appearance not in APPEARANCES:
        raise ValueError(f"unknown appearance {appearance!r}; choose from {APPEARANCES}")
    white = white_level(composite.frame, composite.plane_to_image)
    for attempt, strength in enumerate(STRENGTHS):
        look = draw_look(rng, appearance, strength, white)
        frame = apply_look(composite, look)
        if rc.locate(frame, detector()) is not None:
            record = {"name": appearance, "strength": strength, "retries": attempt,
                      "fallback": False, "white": [round(float(v), 1) for v in white]}
            if look.board is not None:
                record["board"] = [round(float(v), 1) for v in look.board]
            return dataclasses.replace(composite, frame=frame, jpeg=None, camera={
                **composite.camera, "appearance": record})
    record = {"name": appearance, "retries": len(STRENGTHS), "fallback": True}
    return dataclasses.replace(composite, camera={**composite.camera, "appearance": record})


class AppearanceComposer:
    """Real composites (a :class:`Composer`) restyled to an appearance, with a tally per
    appearance: ``retried`` (frames that needed a milder try, fallbacks included) and
    ``fallbacks`` (frames left unstyled)."""

    def __init__(self, composer: Composer) -> None:
        self.composer = composer
        self.retried = dict.fromkeys(APPEARANCES, 0)
        self.fallbacks = dict.fromkeys(APPEARANCES, 0)

    def compose(self, rng: np.random.Generator, appearance: str,
                source: str | None = None) -> Composite:
        """One composite of board ``source`` (random when None) restyled to ``appearance``."""
        result = restyle(self.composer.compose(rng, source), appearance, rng)
        record = result.camera["appearance"]
        self.retried[appearance] += record["retries"] > 0
        self.fallbacks[appearance] += record["fallback"]
        return result


def appearance_sheet(results: list[Composite], columns: int = 2) -> np.ndarray:
    """Contact sheet (``rc.sheet_tile``) with each tile's appearance written on it."""
    tiles = []
    for result in results:
        tile = rc.sheet_tile(result)
        cv2.putText(tile, result.camera.get("appearance", {}).get("name", "?"), (100, 420),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
        tiles.append(tile)
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[k:k + columns]) for k in range(0, len(tiles), columns)])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appearance", choices=(*APPEARANCES, "all"), default="all",
                        help="one appearance, or all in turn")
    parser.add_argument("--count", type=int, default=10, help="frames in all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shared", type=Path, default=None)
    parser.add_argument("--source", choices=("zam", "res"), default=None)
    parser.add_argument("--sheet", type=Path, default=None, help="contact sheet (PNG)")
    parser.add_argument("--sheet-count", type=int, default=10)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (rc.real_dev_dir(args.shared) / "labels.jsonl").is_file():
        print(f"no labelled photos in {rc.real_dev_dir(args.shared)}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    composer = AppearanceComposer(Composer(rc.PatchLibrary.load(args.shared)))
    looks = APPEARANCES if args.appearance == "all" else (args.appearance,)
    sources = composer.composer.library.sources
    rng, shown = np.random.default_rng(args.seed), []
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for index in range(args.count):
            appearance = looks[index * len(looks) // args.count]  # in blocks, for the sheet
            source = args.source or sources[index % len(sources)]  # the boards in turn
            result, name = composer.compose(rng, appearance, source), f"{index:04d}.jpg"
            cv2.imwrite(str(args.out / name), result.frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
            label = rc.label_line(name, result)
            label["tags"].append(f"appearance-{appearance}")
            labels.write(json.dumps(label) + "\n")
            if len(shown) < args.sheet_count:
                shown.append(result)
    if args.sheet and shown:
        cv2.imwrite(str(args.sheet), appearance_sheet(shown))
    print(f"wrote {args.count} frames to {args.out}; retried {composer.retried}, "
          f"fell back {composer.fallbacks}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
