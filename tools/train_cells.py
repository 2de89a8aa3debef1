#!/usr/bin/env python3
"""Train the cell classifier (firmware_py/vision/cells.tflite) on rendered frames.

Dev-only: needs TensorFlow, which must NOT go into the project's .venv (it pins
its own numpy). Use a separate environment, with the repository on the path::

    python3 -m venv /work/tfenv
    /work/tfenv/bin/pip install 'tensorflow-cpu>=2.15' opencv-python-headless
    PYTHONPATH=. nice /work/tfenv/bin/python tools/train_cells.py \\
        --frames 1600 --epochs 10 --out firmware_py/vision/cells.tflite

Data: frames rendered by :mod:`firmware_py.vision.render` from random positions
(legal games of random length, plus arbitrary grids for class balance) and
random specs (oblique up to 50°, lighting, shadows, glare, noise, blur, JPEG,
board/disc/background colours). Render seeds start at ``--seed-base``
(default 1,000,000), far from the seeds the tests and the benchmark use
(< 100,000). Cells are cut through the exact homography of each frame,
jittered (shift up to 0.15 cell, scale 5%, rotation 2°) to cover fit errors.

Augmentation per epoch, on the BGR crops before the HSV conversion: per-channel
gain and brightness/contrast, gamma, hue nudge, Gaussian blur, noise, shifts,
specular glare, and occluders (skin-coloured blobs, random clutter) which get a
uniform target (1/3 each), so that covered or unreadable cells come out with
low confidence. Crops of frames without a board get the uniform target too.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_py.board import HEIGHT, WIDTH, Board  # noqa: E402
from firmware_py.vision.cells import cell_crops, to_model_input, warp_grid  # noqa: E402
from firmware_py.vision.classifier import CLASSES, INPUT_SHAPE  # noqa: E402
from firmware_py.vision.fit import BoardFit  # noqa: E402
from firmware_py.vision.render import RenderSpec, plane_to_image, render_frame  # noqa: E402

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
    """BGR crops (42, 64, 64, 3) and one-hot/uniform targets (42, 3) of one frame."""
    rng = np.random.default_rng(seed)
    grid = random_grid(rng)
    no_board = rng.random() < 0.04
    hidden = tuple(int(m) for m in rng.choice(4, size=int(rng.integers(0, 2)), replace=False))
    spec = RenderSpec.random(rng, max_tilt_deg=50.0, hide_markers=hidden)
    spec = spec.replace(board_visible=not no_board)
    frame = render_frame(grid, spec, seed=seed)
    fit = BoardFit(True, plane_to_image=plane_to_image(spec) @ jitter(rng, jitter_amount))
    crops = cell_crops(warp_grid(frame, fit))
    if no_board:
        return crops, np.tile(UNIFORM, (len(crops), 1))
    labels = [CLASSES.index(ch) for line in grid for ch in line]
    return crops, np.eye(len(CLASSES), dtype=np.float32)[labels]


def make_dataset(first_seed: int, count: int, label: str) -> tuple[np.ndarray, np.ndarray]:
    crops, targets = [], []
    start = time.time()
    for index in range(count):
        c, t = frame_crops(first_seed + index)
        crops.append(c)
        targets.append(t)
        if (index + 1) % 200 == 0:
            print(f"  {label}: {index + 1}/{count} frames, {time.time() - start:.0f} s",
                  flush=True)
    return np.concatenate(crops), np.concatenate(targets)


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
    """Cover most of the hole with a skin-coloured or random blob."""
    if rng.random() < 0.6:
        colour = (int(rng.integers(60, 180)), int(rng.integers(90, 200)),
                  int(rng.integers(130, 250)))
    else:
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
    centre = (int(rng.integers(16, 48)), int(rng.integers(16, 48)))
    axes = (int(rng.integers(26, 48)), int(rng.integers(20, 40)))
    cv2.ellipse(crop, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)


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


# ------------------------------------------------------------------ model


def build_model(tf, batch: int | None):  # noqa: ANN001, ANN201 (TensorFlow is optional)
    layers = tf.keras.layers
    inputs = tf.keras.Input(shape=INPUT_SHAPE[1:], batch_size=batch)
    x = layers.Rescaling(1.0 / 255.0)(inputs)
    x = layers.AveragePooling2D(2)(x)  # 64 -> 32 px: colour and ring shape survive
    for filters, stride in ((16, 2), (24, 2), (32, 2), (48, 1)):  # 32 -> 16 -> 8 -> 4 -> 4
        x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(len(CLASSES))(x)
    return tf.keras.Model(inputs, outputs)


def train(args: argparse.Namespace) -> None:
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed_base)
    print(f"rendering {args.frames} training frames ...", flush=True)
    crops, targets = make_dataset(args.seed_base, args.frames, "train")
    print(f"rendering {args.eval_frames} validation frames ...", flush=True)
    val_crops, val_targets = make_dataset(args.seed_base + 500_000, args.eval_frames, "val")
    val_x = to_model_input(val_crops)
    model = build_model(tf, None)
    print(f"model: {model.count_params()} parameters", flush=True)
    steps = args.epochs * math.ceil(len(crops) / args.batch)
    schedule = tf.keras.optimizers.schedules.CosineDecay(args.lr, steps, alpha=0.02)
    model.compile(optimizer=tf.keras.optimizers.Adam(schedule),
                  loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True,
                                                               label_smoothing=0.02),
                  metrics=["categorical_accuracy"])
    rng = np.random.default_rng(args.seed_base + 1)
    signature = (tf.TensorSpec((None,) + INPUT_SHAPE[1:], tf.float32),
                 tf.TensorSpec((None, len(CLASSES)), tf.float32))
    dataset = tf.data.Dataset.from_generator(
        lambda: batches(crops, targets, args.batch, rng), output_signature=signature)
    for epoch in range(args.epochs):
        start = time.time()
        history = model.fit(dataset.prefetch(4), epochs=1, verbose=0,
                            validation_data=(val_x, val_targets), validation_batch_size=512)
        logs = {k: round(float(v[-1]), 4) for k, v in history.history.items()}
        print(f"epoch {epoch + 1}/{args.epochs} {time.time() - start:.0f} s {logs}", flush=True)
    report(model, val_x, val_targets)
    export(tf, model, Path(args.out))


def report(model, x: np.ndarray, targets: np.ndarray) -> None:  # noqa: ANN001
    logits = model.predict(x, batch_size=512, verbose=0)
    known = targets.max(axis=1) > 0.5
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    correct = probs.argmax(axis=1) == targets.argmax(axis=1)
    print(f"validation cells: {known.sum()} labelled, accuracy {correct[known].mean():.5f}, "
          f"errors {int((~correct[known]).sum())}, max confidence of an error "
          f"{probs[known][~correct[known]].max(axis=1).max(initial=0):.3f}")


def export(tf, model, out: Path) -> None:  # noqa: ANN001
    fixed = build_model(tf, INPUT_SHAPE[0])
    fixed.set_weights(model.get_weights())
    converter = tf.lite.TFLiteConverter.from_keras_model(fixed)
    converter.optimizations = []
    data = converter.convert()
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=1600, help="training frames (x42 cells)")
    parser.add_argument("--eval-frames", type=int, default=150, help="validation frames")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed-base", type=int, default=1_000_000)
    parser.add_argument("--out", default=str(ROOT / "firmware_py" / "vision" / "cells.tflite"))
    args = parser.parse_args()
    cv2.setNumThreads(1)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
