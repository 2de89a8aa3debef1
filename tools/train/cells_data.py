"""Training data of the cell classifier: cells of two generators and their augmentation.

Each training frame comes from one of two generators written independently:
``render`` (:mod:`firmware_py.simtable.render`, a board face drawn top-down and
warped) and ``scene`` (:mod:`tools.scene.render`, a 3-D scene ray-cast
per pixel: discs behind the face, translucent boards, rooms seen through the
holes, coloured light). Before the reader's stages run, the frame gets a
camera's white-balance and exposure error. The cells are then cut exactly as
the reader cuts them: the markers' white and black give the colour reference
(:mod:`firmware_py.vision.colour`), the grid is warped at half resolution
through the true homography moved to where the discs show (the reader's
default disc depth, :mod:`firmware_py.vision.depth`) and jittered to cover
fit errors, normalised, and cut into 42 crops of 32 x 32. Frames of the
real-photo composites and the real photographs are never used here: they
measure generalisation.

Needs only numpy and OpenCV besides the repository.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH, Board
from firmware_py.vision.cells import cell_crops, to_model_input, warp_grid
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.colour import colour_reference
from firmware_py.vision.depth import seen_disc_fit
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import CROP_SIDE
from firmware_py.vision.reader import DEFAULT_DISC_DEPTH

HARD_NEGATIVE_SHARE = 0.15
TEXTURED_FRAME_SHARE = 0.3  # frames whose room shows a texture through the empty holes
TEXTURED_HOLE_SHARE = 0.5  # of those frames' empty holes
NO_BOARD_SHARE = 0.03
GLIMPSE_FRAME_SHARE = 0.0  # frames with a spare disc glimpsed behind holes (train --glimpses)
GLIMPSE_HOLE_SHARE = 0.3  # of those frames' empty holes
STICKER_DISC_SHARE = 0.4  # of the discs of a frame with glimpses: a sticker or glare rings
CELLS_PER_FRAME = 42  # the crops of one frame, in order; augmentation keeps frames whole
UNIFORM = np.full(len(CLASSES), 1.0 / len(CLASSES), np.float32)
GENERATORS = ("render", "scene")
VARIANTS = ("-neutral", "-pieces")  # beige rooms; other pieces and boards (tools/train/pieces.py)
# Rooms that fooled the first model: beige, cream, wood and grey-yellow backdrops
# (hue of yellow, saturation below a disc's) and spare discs behind the board.
NEUTRAL_HUES = (10, 35)  # OpenCV hue (0-179): orange-beige to olive-beige


def random_grid(rng: np.random.Generator) -> list[str]:
    """70 % legal games of random length, 30 % arbitrary grids (class balance)."""
    if rng.random() < 0.7:
        board = Board.empty()
        for _ in range(int(rng.integers(0, 43))):
            if board.is_finished:
                break
            board = board.play(int(rng.choice(board.legal_columns())))
        return board.grid_lines()
    weights = rng.dirichlet((1.0, 1.0, 1.0))
    cells = rng.choice(list(CLASSES), size=(HEIGHT, WIDTH), p=weights)
    return ["".join(row) for row in cells]


def jitter(rng: np.random.Generator, amount: float) -> np.ndarray:
    """A plane homography: shift up to ``amount`` cells, scale +-4 %, rotation +-2 deg."""
    angle = np.radians(rng.uniform(-2, 2))
    scale = rng.uniform(0.96, 1.04)
    shift = rng.uniform(-amount, amount, 2) * 80
    centre = np.array([360.0, 280.0])
    rot = scale * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    matrix = np.eye(3)
    matrix[:2, :2] = rot
    matrix[:2, 2] = centre - rot @ centre + shift
    return matrix


def camera_error(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A white-balance and exposure error of a real camera, on the whole frame."""
    gains = rng.uniform(0.75, 1.3, 3) * np.exp(rng.normal(0, 0.2))
    lut = np.clip(np.arange(256)[:, None] * gains[None, :], 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut.reshape(1, 256, 3))


def neutral_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A beige, cream, wood or khaki BGR colour: yellow-ish hue, a disc's saturation never."""
    hsv = np.array([[[rng.integers(*NEUTRAL_HUES), rng.uniform(25, 120), rng.uniform(90, 250)]]],
                   np.uint8)
    bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(bgr[0]), int(bgr[1]), int(bgr[2])


def _render_frame(seed: int, rng: np.random.Generator, grid: list[str],
                  variant: str = ""):  # noqa: ANN202
    from firmware_py.simtable.render import RenderSpec, plane_to_image, render_frame
    from tools.train.pieces import pieces_spec

    hidden = tuple(int(m) for m in rng.choice(4, size=int(rng.integers(0, 2)), replace=False))
    spec = RenderSpec.random(rng, max_tilt_deg=50.0, hide_markers=hidden)
    if variant == "-pieces":
        spec = pieces_spec(spec, rng)
    elif variant == "-neutral":
        spec = spec.replace(background_colour=neutral_colour(rng),
                            clutter=int(rng.integers(0, 16)))
    elif rng.random() < HARD_NEGATIVE_SHARE:
        colour = spec.red_colour if rng.random() < 0.5 else spec.yellow_colour
        shade = np.clip(np.asarray(colour) * rng.uniform(0.7, 1.2)
                        + rng.integers(-25, 26, 3), 0, 255)
        spec = spec.replace(background_colour=tuple(int(v) for v in shade),
                            clutter=int(rng.integers(0, 16)))
    visible = tuple(m for m in range(4) if m not in hidden)
    return render_frame(grid, spec, seed=seed), plane_to_image(spec), visible


def _scene_frame(seed: int, rng: np.random.Generator, grid: list[str],
                 variant: str = ""):  # noqa: ANN202
    from tools.scene.render import render_scene
    from tools.scene.spec import SceneSpec, scene_plane_to_image

    if variant == "-pieces":
        raise ValueError("the scene has no other pieces; use render-pieces")
    spec = SceneSpec.random(rng, size=(960, 540))
    if variant == "-neutral":
        spec = spec.replace(wall_colour=neutral_colour(rng), table_colour=neutral_colour(rng),
                            spare_discs=int(rng.integers(0, 8)))
    return render_scene(grid, spec, seed=seed), scene_plane_to_image(spec), (0, 1, 2, 3)


def frame_crops(job: tuple[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Normalised crops (42, 32, 32, 3) and targets (42, 3) of one frame of a generator.

    ``generator`` is ``render`` or ``scene``, with ``-neutral`` for backdrops of
    :func:`neutral_colour` (and spare discs, in the scene) or (``render`` only)
    ``-pieces`` for the pieces and boards of :mod:`tools.train.pieces`. Returns empty
    arrays when the frame's markers give no colour reference.
    """
    generator, seed = job
    rng = np.random.default_rng(seed)
    grid = random_grid(rng)
    make = _render_frame if generator.startswith("render") else _scene_frame
    variant = _variant(generator)
    frame, plane_to_image, visible = make(seed, rng, grid, variant)
    frame = camera_error(frame, rng)
    crops = reader_crops(frame, plane_to_image, visible, rng)
    return crops, (grid_targets(grid) if len(crops) else np.zeros((0, 3), np.float32))


def reader_crops(frame: np.ndarray, plane_to_image: np.ndarray, marker_ids: tuple[int, ...],
                 rng: np.random.Generator) -> np.ndarray:
    """The 42 normalised crops the reader's stages cut from ``frame`` given its true
    plane (colour reference from the markers ``marker_ids``, the disc plane, the
    half-resolution warp jittered by up to 0.12 cell); empty (0 crops) when the
    markers give no colour reference."""
    exact = BoardFit(True, plane_to_image=plane_to_image, marker_ids=marker_ids)
    reference = colour_reference(frame, exact)
    if reference is None:
        return np.zeros((0, CROP_SIDE, CROP_SIDE, 3), np.uint8)
    seen, _ = seen_disc_fit(exact, DEFAULT_DISC_DEPTH, (frame.shape[1], frame.shape[0]))
    fit = BoardFit(True, plane_to_image=seen.plane_to_image @ jitter(rng, 0.12))
    return cell_crops(reference.normalise(warp_grid(frame, fit, step=2)))


def _variant(generator: str) -> str:
    """The generator name's variant suffix (:data:`VARIANTS`), or ""."""
    return next((v for v in VARIANTS if generator.endswith(v)), "")


def grid_targets(grid: list[str]) -> np.ndarray:
    """One-hot targets (42, 3) of a grid's cells, row by row."""
    labels = [CLASSES.index(ch) for line in grid for ch in line]
    return np.eye(len(CLASSES), dtype=np.float32)[labels]


def make_dataset(generator: str, first_seed: int, count: int,
                 workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, 32, 32, 3) BGR uint8 and targets (N, 3) of ``count`` frames."""
    if generator.removesuffix(_variant(generator)) not in GENERATORS:
        raise ValueError(f"unknown generator {generator!r}; expected one of {GENERATORS}")
    jobs = [(generator, seed) for seed in range(first_seed, first_seed + count)]
    return map_frames(frame_crops, jobs, workers, generator)


def map_frames(crops_of: Callable[[Any], tuple[np.ndarray, np.ndarray]], jobs: list,
               workers: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``crops_of`` over ``jobs`` (one frame each) in ``workers`` processes: the crops
    and targets concatenated, in whole frames."""
    start = time.time()
    cv2.setNumThreads(1)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(crops_of, jobs, chunksize=4)
    else:
        parts = [crops_of(job) for job in jobs]
    print(f"  {name}: {len(jobs)} frames in {time.time() - start:.0f} s", flush=True)
    return np.concatenate([c for c, _ in parts]), np.concatenate([t for _, t in parts])


# ------------------------------------------------------------------ augmentation


def augment(crops: np.ndarray, targets: np.ndarray, rng: np.random.Generator,
            glimpses: float = GLIMPSE_FRAME_SHARE, stickers: bool = False
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Model input (HSV float32) of augmented BGR crops, whole frames of 42 cells in
    order; occluded cells get uniform targets. Also says which cells the augmentation
    itself labelled (a finger over the cell, a spare disc glimpsed behind an empty hole,
    a disc with a sticker or glare rings in its middle).

    What is left after the normalisation: a residual colour cast, exposure,
    contrast, gamma and hue error (each the same over a frame, as a camera makes
    them: the network compares a cell with the frame's others), and per cell
    noise, blur, flips, small rotations and shifts (a disc behind the face is
    seen off-centre), glare, fingers over the cell, and room textures through
    empty holes; with ``glimpses`` (a share of the frames with discs) spare discs
    glimpsed behind empty holes, and with ``stickers`` also stickered discs in those
    frames. Without them the random stream is as it was before they existed.
    """
    out = crops.astype(np.float32)
    n = len(out)
    frames = n // CELLS_PER_FRAME

    def per_frame(values: np.ndarray) -> np.ndarray:
        return np.repeat(values, CELLS_PER_FRAME, axis=0)

    gain = per_frame(rng.normal(1.0, 0.06, (frames, 1, 1, 3))
                     * np.exp(rng.normal(0, 0.15, (frames, 1, 1, 1))))
    mean = per_frame(out.reshape(frames, -1).mean(axis=1).reshape(frames, 1, 1, 1))
    out = ((out - mean) * per_frame(rng.uniform(0.75, 1.25, (frames, 1, 1, 1))) + mean) * gain
    gamma = per_frame(np.exp(rng.normal(0, 0.15, (frames, 1, 1, 1))))
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** gamma
    out += per_frame(rng.uniform(0, 5, (frames, 1, 1, 1))) * rng.standard_normal(
        out.shape, dtype=np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    targets = targets.copy()
    empty = targets[:, 0] > 0.5
    textured = per_frame(rng.random(frames) < TEXTURED_FRAME_SHARE)
    glimpsed = (_glimpsed_cells(targets, rng, glimpses) if glimpses > 0
                else np.zeros(n, bool))
    # the frame's discs as they were, for the glimpses (a finger changes targets below)
    sources, labels = (out.copy(), targets.copy()) if glimpsed.any() else (out, targets)
    stickered = np.zeros(n, bool)
    if stickers and glimpsed.any():
        stickered = ((targets[:, 1:].max(axis=1) > 0.5)
                     & per_frame(glimpsed.reshape(frames, -1).any(axis=1))
                     & (rng.random(n) < STICKER_DISC_SHARE))
    labelled = glimpsed | stickered
    for i in range(n):
        if empty[i] and textured[i] and rng.random() < TEXTURED_HOLE_SHARE:
            _room_texture(out[i], rng)
        if glimpsed[i]:  # marked only where a glimpse was drawn
            labelled[i] = _glimpse(out[i], sources[glimpsed_source(labels, i, rng)], rng)
        if stickered[i]:
            _sticker(out[i], rng)
        out[i] = _geometric(out[i], rng)
        roll = rng.random()
        if roll < 0.06:
            _occlude(out[i], rng)
            targets[i] = UNIFORM
            labelled[i] = True
        elif roll < 0.14:
            _glare(out[i], rng)
    return _hue_nudge(out, per_frame(rng.uniform(-5, 5, (frames, 1, 1)))), targets, labelled


def _glimpsed_cells(targets: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """Empty cells that get a spare disc glimpsed behind them: in ``share`` of the
    frames that hold discs, each empty hole with :data:`GLIMPSE_HOLE_SHARE`."""
    frames = len(targets) // CELLS_PER_FRAME
    per_frame = targets.reshape(frames, CELLS_PER_FRAME, -1)
    has_discs = (per_frame[..., 1:].max(axis=2) > 0.5).any(axis=1)
    chosen = np.repeat(has_discs & (rng.random(frames) < share), CELLS_PER_FRAME)
    return chosen & (targets[:, 0] > 0.5) & (rng.random(len(targets)) < GLIMPSE_HOLE_SHARE)


def glimpsed_source(targets: np.ndarray, cell: int, rng: np.random.Generator) -> int:
    """A disc cell of the same frame as ``cell`` (the spare disc is one of the game's)."""
    first = cell // CELLS_PER_FRAME * CELLS_PER_FRAME
    discs = np.flatnonzero(targets[first:first + CELLS_PER_FRAME, 1:].max(axis=1) > 0.5)
    return first + int(rng.choice(discs))


def _glimpse(crop: np.ndarray, disc: np.ndarray, rng: np.random.Generator) -> bool:
    """A spare disc lying behind the board, seen through an empty hole: the frame's own
    disc crop moved off the hole (mostly downwards), squashed as a tilted disc is, in
    the board's shadow, covering part of the hole and never all of it (the label stays
    empty; a disc in the hole fills it). Says whether it drew one (a draw outside 10-70 %
    of the hole draws nothing)."""
    side = crop.shape[0]
    centre = (side - 1) / 2
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    hole = (np.hypot(yy - centre, xx - centre) < side * 0.48) & ~_board_face(crop)
    angle = rng.normal(np.pi / 2, 0.7)  # image y grows downwards: below the hole mostly
    grow = rng.uniform(1.3, 2.5)  # near the hole, larger than it; its own middle only
    squash = rng.uniform(0.8, 1.0) * grow  # tilted
    shift = side * (0.32 * grow + rng.uniform(-0.2, 0.25))  # its edge across the hole
    matrix = np.array([[grow, 0.0, centre * (1 - grow) + shift * np.cos(angle)],
                       [0.0, squash, centre * (1 - squash) + shift * np.sin(angle)]], np.float32)
    moved = cv2.warpAffine(np.ascontiguousarray(disc), matrix, (side, side),
                           borderMode=cv2.BORDER_REPLICATE)
    disc_mask = (np.hypot(yy - centre, xx - centre) < side * 0.32).astype(np.float32)
    mask = cv2.warpAffine(disc_mask, matrix, (side, side)) > 0.5
    covered = mask & hole
    if not 0.1 * hole.sum() < covered.sum() < 0.7 * hole.sum():
        return False
    shade = rng.uniform(0.45, 1.05)
    crop[covered] = np.clip(moved[covered].astype(np.float32) * shade, 0, 255).astype(np.uint8)
    return True


def _room_texture(crop: np.ndarray, rng: np.random.Generator) -> None:
    """What a room shows through an empty hole: a grille, a lattice, stripes, print or
    noise in muted colours, blended into the hole (the label stays empty)."""
    side = crop.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    period = rng.uniform(2.5, 9.0)
    angle = rng.uniform(0, np.pi)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    v = -xx * np.sin(angle) + yy * np.cos(angle)
    kind = int(rng.integers(4))
    if kind == 0:    # lattice / grille
        pattern = np.maximum(np.cos(2 * np.pi * u / period), np.cos(2 * np.pi * v / period))
    elif kind == 1:  # stripes
        pattern = np.cos(2 * np.pi * u / period)
    elif kind == 2:  # checks
        pattern = np.sign(np.cos(2 * np.pi * u / period) * np.cos(2 * np.pi * v / period))
    else:            # print, foliage, clutter
        pattern = cv2.GaussianBlur(rng.standard_normal((side, side)).astype(np.float32),
                                   (0, 0), rng.uniform(0.6, 2.5))
        pattern /= max(float(np.abs(pattern).max()), 1e-6)
    light, dark = neutral_colour(rng), neutral_colour(rng)
    mix = (pattern[..., None] + 1) / 2
    texture = mix * np.array(light, np.float32) + (1 - mix) * np.array(dark, np.float32)
    texture = (texture + texture.mean(axis=2, keepdims=True)) / 2  # half a neutral's colour
    centre = (side - 1) / 2 + rng.uniform(-2, 2, 2)
    hole = np.hypot(yy - centre[0], xx - centre[1]) < side * rng.uniform(0.38, 0.5)
    alpha = rng.uniform(0.6, 1.0)
    crop[hole] = np.clip(alpha * texture[hole] + (1 - alpha) * crop[hole], 0, 255)


def _sticker(crop: np.ndarray, rng: np.random.Generator) -> None:
    """A disc that shows something else in its middle, with its own colour all round
    (unlike a glimpse): a sticker of any colour, a print, or glare's white rings."""
    side = crop.shape[0]
    centre = (side - 1) / 2 + rng.uniform(-1.5, 1.5, 2)
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    radius = np.hypot(yy - centre[0], xx - centre[1])
    kind = rng.random()
    if kind < 0.4:  # glare rings
        for ring in rng.uniform(0.08, 0.36, int(rng.integers(2, 5))) * side:
            band = np.clip(1.2 - np.abs(radius - ring), 0, 1)[..., None] * rng.uniform(0.5, 1)
            crop[:] = np.clip(crop * (1 - band) + 250 * band, 0, 255).astype(np.uint8)
        return
    middle = radius < side * rng.uniform(0.12, 0.32)
    if kind < 0.8:  # a sticker
        crop[middle] = tuple(int(v) for v in rng.integers(0, 256, 3))
    else:  # a print
        texture = crop.copy()
        _room_texture(texture, rng)
        crop[middle] = texture[middle]


def _board_face(crop: np.ndarray) -> np.ndarray:
    """Pixels of a crop like its corners (the board's face around the hole)."""
    corners = np.concatenate([crop[:4, :4], crop[:4, -4:], crop[-4:, :4], crop[-4:, -4:]])
    face = np.median(corners.reshape(-1, 3), axis=0)
    return np.asarray(np.abs(crop.astype(np.float32) - face).max(axis=2) < 30)


def _geometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    if rng.random() < 0.4:
        return np.ascontiguousarray(crop)
    side = crop.shape[0]
    centre = (side - 1) / 2
    matrix = cv2.getRotationMatrix2D((centre, centre), rng.uniform(-8, 8), rng.uniform(0.93, 1.07))
    matrix[:, 2] += rng.uniform(-3.5, 3.5, 2)
    out = cv2.warpAffine(np.ascontiguousarray(crop), matrix, (side, side),
                         borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.2))
    return out


def _occlude(crop: np.ndarray, rng: np.random.Generator) -> None:
    """A finger or sleeve across the cell: a band from edge to edge (a blob inside
    the hole would look like an empty hole showing a coloured background)."""
    if rng.random() < 0.7:
        colour = (int(rng.integers(60, 180)), int(rng.integers(90, 200)),
                  int(rng.integers(130, 250)))
    else:
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
    side = crop.shape[0]
    angle = rng.uniform(0, np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    centre = np.full(2, (side - 1) / 2) + rng.uniform(-4, 4, 2)
    ends = [tuple(int(v) for v in centre + sign * side * direction) for sign in (-1, 1)]
    cv2.line(crop, ends[0], ends[1], colour, int(rng.integers(side * 5 // 8, side)))


def _glare(crop: np.ndarray, rng: np.random.Generator) -> None:
    side = crop.shape[0]
    layer = np.zeros((side, side), np.float32)
    centre = (int(rng.integers(0, side)), int(rng.integers(0, side)))
    cv2.ellipse(layer, centre, (int(rng.integers(2, 10)), int(rng.integers(2, 6))),
                float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    layer = cv2.GaussianBlur(layer, (0, 0), 1.5) * rng.uniform(80, 230)
    crop[:] = np.clip(crop + layer[..., None], 0, 255).astype(np.uint8)


def _hue_nudge(crops: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Model input (HSV) with each crop's hue shifted by ``shift`` (of 180)."""
    hsv = to_model_input(crops)
    hsv[..., 0] = np.mod(hsv[..., 0] + shift, 180.0)
    return hsv


def augment_to_uint8(job: tuple[np.ndarray, np.ndarray, int, float, bool]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Augment a chunk (for worker processes): model input rounded to uint8, targets,
    the cells the augmentation labelled."""
    crops, targets, seed, glimpses, stickers = job
    x, y, labelled = augment(crops, targets, np.random.default_rng(seed), glimpses, stickers)
    return np.clip(np.rint(x), 0, 255).astype(np.uint8), y, labelled


def augment_parallel(crops: np.ndarray, targets: np.ndarray, seed: int, workers: int,
                     chunk: int = 98 * CELLS_PER_FRAME, glimpses: float = GLIMPSE_FRAME_SHARE,
                     stickers: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One augmented copy of the whole set, computed by ``workers`` processes."""
    jobs = [(crops[i:i + chunk], targets[i:i + chunk], seed * 1000 + i // chunk, glimpses,
             stickers)
            for i in range(0, len(crops), chunk)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(augment_to_uint8, jobs)
    x, y, labelled = zip(*parts, strict=True)
    return np.concatenate(x), np.concatenate(y), np.concatenate(labelled)
