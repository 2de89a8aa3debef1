"""Training data of the cell classifier: rendered cells and their augmentation.

Shared by ``tools/train_cells.py`` (TensorFlow) and ``tools/train_cells_torch.py``
(PyTorch). Needs only numpy and OpenCV besides the repository.
"""

from __future__ import annotations

import math
import multiprocessing
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_py.board import HEIGHT, WIDTH, Board  # noqa: E402
from firmware_py.vision.cells import cell_crops, to_model_input, warp_grid  # noqa: E402
from firmware_py.vision.classifier import CLASSES  # noqa: E402
from firmware_py.vision.fit import BoardFit  # noqa: E402
from firmware_py.vision.render import Hand, RenderSpec, plane_to_image, render_frame  # noqa: E402

HARD_NEGATIVE_SHARE = 0.12
HALF_RESOLUTION_SHARE = 0.5
COVERED_SHARE = 0.4  # a cell whose hole is this much under a hand has no label (uniform)
COVER_DIFFERENCE = 40  # grey levels: a pixel the hand changed
UNIFORM = np.full(len(CLASSES), 1.0 / len(CLASSES), np.float32)


def random_grid(rng: np.random.Generator) -> list[str]:
    """A legal position (70%) or an arbitrary grid (30%, any cell any class)."""
    if rng.random() < 0.7:
        board = Board.empty()
        for _ in range(int(rng.integers(0, 43))):
            if board.is_finished:
                break
            board = board.play(int(rng.choice(board.legal_columns())))
        return board.grid_lines()
    weights = rng.dirichlet([1.0, 1.0, 1.0])
    cells = rng.choice(list(".RY"), size=(HEIGHT, WIDTH), p=weights)
    return ["".join(row) for row in cells]


def jitter(rng: np.random.Generator, amount: float) -> np.ndarray:
    """A small plane-to-plane similarity about the grid centre (fit error model)."""
    shift = rng.uniform(-amount, amount, 2) * 80
    scale = 1 + rng.uniform(-0.05, 0.05)
    angle = math.radians(rng.uniform(-2, 2))
    c, s = scale * math.cos(angle), scale * math.sin(angle)
    centre = np.array([360.0, 280.0])
    move = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    move[:2, 2] = centre - move[:2, :2] @ centre + shift
    return move


def frame_crops(seed: int, jitter_amount: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    """BGR crops (42, 64, 64, 3) and one-hot/uniform targets (42, 3) of one frame.

    Half the frames are cut as the reader cuts them (``warp_grid(step=2)``, each
    pixel repeated 2 x 2, which commutes with the HSV conversion), half at full
    resolution.
    """
    rng = np.random.default_rng(seed)
    grid = random_grid(rng)
    no_board = rng.random() < 0.04
    hidden = tuple(int(m) for m in rng.choice(4, size=int(rng.integers(0, 2)), replace=False))
    spec = RenderSpec.random(rng, max_tilt_deg=50.0, hide_markers=hidden)
    spec = spec.replace(board_visible=not no_board)
    if rng.random() < HARD_NEGATIVE_SHARE:
        spec = spec.replace(**disc_like_background(rng, spec))
    frame = render_frame(grid, spec, seed=seed)
    fit = BoardFit(True, plane_to_image=plane_to_image(spec) @ jitter(rng, jitter_amount))
    crops = cut_crops(frame, fit, step=2 if rng.random() < HALF_RESOLUTION_SHARE else 1)
    if no_board:
        return crops, np.tile(UNIFORM, (len(crops), 1))
    return crops, grid_targets(grid)


def grid_targets(grid: list[str]) -> np.ndarray:
    """One-hot targets (42, 3) of a grid's cells, row by row."""
    labels = [CLASSES.index(ch) for line in grid for ch in line]
    return np.eye(len(CLASSES), dtype=np.float32)[labels]


def cut_crops(frame: np.ndarray, fit: BoardFit, step: int) -> np.ndarray:
    """The 42 crops (64 x 64) as the reader cuts them: ``step`` 2 warps at half
    resolution and repeats each pixel 2 x 2 (this commutes with the HSV
    conversion), ``step`` 1 at full resolution."""
    crops = cell_crops(warp_grid(frame, fit, step=step))
    return crops.repeat(step, axis=1).repeat(step, axis=2) if step > 1 else crops


def hand_frame_crops(seed: int, jitter_amount: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`frame_crops`, with a rendered hand over the grid.

    The frame is rendered twice, with and without the hand (same seed, so the
    same noise); a cell whose hole the hand changes over ``COVERED_SHARE`` of
    its area gets the uniform target: nothing there can be read. Partly
    covered cells keep their label.
    """
    rng = np.random.default_rng(seed)
    grid = random_grid(rng)
    spec = RenderSpec.random(rng, max_tilt_deg=50.0)
    if rng.random() < HARD_NEGATIVE_SHARE:
        spec = spec.replace(**disc_like_background(rng, spec))
    target = np.array([rng.uniform(80, 640), rng.uniform(40, 520), 1.0])  # a point of the grid
    image_point = plane_to_image(spec) @ target
    width, height = spec.size
    hand = Hand(float(image_point[0] / image_point[2] / width),
                float(image_point[1] / image_point[2] / height),
                float(rng.uniform(-80, 80)), float(rng.uniform(0.06, 0.18)))
    fit = BoardFit(True, plane_to_image=plane_to_image(spec) @ jitter(rng, jitter_amount))
    step = 2 if rng.random() < HALF_RESOLUTION_SHARE else 1
    bare, covered = (cut_crops(render_frame(grid, s, seed=seed), fit, step=step)
                     for s in (spec, spec.replace(hand=hand)))
    changed = np.abs(bare.astype(np.int16) - covered).max(axis=3) > COVER_DIFFERENCE
    rows, cols = np.mgrid[0:64, 0:64]
    hole = np.hypot(rows - 31.5, cols - 31.5) < 26
    hidden = changed[:, hole].mean(axis=1) >= COVERED_SHARE
    targets = grid_targets(grid)
    targets[hidden] = UNIFORM
    return covered, targets


def disc_like_background(rng: np.random.Generator, spec: RenderSpec) -> dict:
    """Hard negatives: a backdrop and clutter in disc colours, seen through empty holes."""
    colour = spec.red_colour if rng.random() < 0.5 else spec.yellow_colour
    shade = np.clip(np.asarray(colour) * rng.uniform(0.7, 1.2) + rng.integers(-25, 26, 3),
                    0, 255)
    return {"background_colour": tuple(int(v) for v in shade),
            "clutter": int(rng.integers(0, 16))}


def make_dataset(first_seed: int, count: int, label: str,
                 workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, 64, 64, 3) BGR uint8 and targets (N, 3) of ``count`` frames."""
    start = time.time()
    seeds = range(first_seed, first_seed + count)
    if workers > 1:
        cv2.setNumThreads(1)
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(frame_crops, seeds, chunksize=8)
    else:
        parts = [frame_crops(seed) for seed in seeds]
    print(f"  {label}: {count} frames in {time.time() - start:.0f} s", flush=True)
    return (np.concatenate([c for c, _ in parts]), np.concatenate([t for _, t in parts]))


# ------------------------------------------------------------------ augmentation


def augment(crops: np.ndarray, targets: np.ndarray,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Photometric and geometric augmentation of BGR crops; occluded ones -> uniform."""
    out = crops.astype(np.float32)
    n = len(out)
    gain = rng.normal(1.0, 0.08, (n, 1, 1, 3)) * np.exp(rng.normal(0, 0.25, (n, 1, 1, 1)))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.7, 1.3, (n, 1, 1, 1))
    out = ((out - mean) * contrast + mean) * gain
    gamma = np.exp(rng.normal(0, 0.2, (n, 1, 1, 1)))
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** gamma
    out += rng.uniform(0, 6, (n, 1, 1, 1)) * rng.standard_normal(out.shape, dtype=np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    targets = targets.copy()
    for i in range(n):
        out[i] = _geometric(out[i], rng)
        roll = rng.random()
        if roll < 0.08:
            _occlude(out[i], rng)
            targets[i] = UNIFORM
        elif roll < 0.16:
            _glare(out[i], rng)
    return _hue_nudge(out, rng), targets


def _geometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    if rng.random() < 0.5:
        return np.ascontiguousarray(crop)
    angle, scale = rng.uniform(-8, 8), rng.uniform(0.93, 1.07)
    matrix = cv2.getRotationMatrix2D((31.5, 31.5), angle, scale)
    matrix[:, 2] += rng.uniform(-5, 5, 2)
    out = cv2.warpAffine(np.ascontiguousarray(crop), matrix, (64, 64),
                         borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 2.0))
    return out


def _occlude(crop: np.ndarray, rng: np.random.Generator) -> None:
    """A finger or sleeve across the cell: a band from edge to edge, hiding rim and corners.

    A blob inside the hole would look like an empty hole showing a coloured
    background, so occluders always cross the whole crop.
    """
    if rng.random() < 0.7:
        colour = (int(rng.integers(60, 180)), int(rng.integers(90, 200)),
                  int(rng.integers(130, 250)))
    else:
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
    angle = rng.uniform(0, np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    centre = np.array([31.5, 31.5]) + rng.uniform(-8, 8, 2)
    ends = [tuple(int(v) for v in centre + sign * 60 * direction) for sign in (-1, 1)]
    cv2.line(crop, ends[0], ends[1], colour, int(rng.integers(40, 72)))


def _glare(crop: np.ndarray, rng: np.random.Generator) -> None:
    layer = np.zeros((64, 64), np.float32)
    centre = (int(rng.integers(0, 64)), int(rng.integers(0, 64)))
    cv2.ellipse(layer, centre, (int(rng.integers(4, 20)), int(rng.integers(3, 12))),
                float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    layer = cv2.GaussianBlur(layer, (0, 0), 3) * rng.uniform(80, 230)
    crop[:] = np.clip(crop + layer[..., None], 0, 255).astype(np.uint8)


def _hue_nudge(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Model input (HSV) with each crop's hue shifted by up to +-6 (of 180)."""
    hsv = to_model_input(crops)
    shift = rng.uniform(-6, 6, (len(crops), 1, 1))
    hsv[..., 0] = np.mod(hsv[..., 0] + shift, 180.0)
    return hsv


def batches(crops: np.ndarray, targets: np.ndarray, size: int, rng: np.random.Generator):  # noqa: ANN201
    """One epoch of augmented model-input batches, in random order."""
    order = rng.permutation(len(crops))
    for start in range(0, len(order) - size + 1, size):
        index = np.sort(order[start:start + size])
        yield augment(crops[index], targets[index], rng)


def augment_to_uint8(job: tuple[np.ndarray, np.ndarray, int]) -> tuple[np.ndarray, np.ndarray]:
    """Augment a chunk (for worker processes): model input rounded to uint8, targets."""
    crops, targets, seed = job
    x, y = augment(crops, targets, np.random.default_rng(seed))
    return np.clip(np.rint(x), 0, 255).astype(np.uint8), y


def augment_parallel(crops: np.ndarray, targets: np.ndarray, seed: int, workers: int,
                     chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """One augmented copy of the whole set, computed by ``workers`` processes."""
    jobs = [(crops[i:i + chunk], targets[i:i + chunk], seed * 1000 + i // chunk)
            for i in range(0, len(crops), chunk)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(augment_to_uint8, jobs)
    return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])
