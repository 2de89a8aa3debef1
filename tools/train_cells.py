#!/usr/bin/env python3
"""Train the cell classifier (firmware_py/vision/cells.tflite) on rendered frames.

Dev-only: needs TensorFlow, which must NOT go into the project's .venv (it pins
its own numpy). Use a separate environment with the repository on the path::

    python3 -m venv /work/tfenv
    /work/tfenv/bin/pip install 'tensorflow-cpu>=2.15' opencv-python-headless
    PYTHONPATH=. nice /work/tfenv/bin/python tools/train_cells.py \\
        --frames 4000 --epochs 24 --workers 2 --out firmware_py/vision/cells.tflite

The same network can be trained with PyTorch instead (much faster on a GPU or
a many-core machine; TensorFlow is then needed only for the final export)::

    python3 tools/train_cells.py --backend torch --frames 4000 --epochs 24 \\
        --workers 16 --weights-out cells_weights.npz
    PYTHONPATH=. /work/tfenv/bin/python tools/train_cells.py \\
        --export-from cells_weights.npz --out firmware_py/vision/cells.tflite

The export rebuilds the Keras model, loads the weights, checks that it gives
the trainer's logits on a stored batch, and converts it to a float32 .tflite
with a fixed input [42, 64, 64, 3].

Data and augmentation: see ``tools/cells_data.py``. Network: the HSV input
scaled by 1/255, 2x2 average pooling (64 -> 32 px), four 3x3 convolutions
(16, 24, 32, 48 channels; the first three with stride 2) each with batch
normalisation and ReLU, global average pooling and a dense layer to the 3
logits (empty, red, yellow): about 25 k parameters, ~100 KB as float32.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CHANNELS = (16, 24, 32, 48)
STRIDES = (2, 2, 2, 1)
BN_EPSILON = 1e-3
INPUT_SHAPE = (42, 64, 64, 3)
CLASS_COUNT = 3


def build_keras(tf, batch: int | None):  # noqa: ANN001, ANN201 (TensorFlow is optional)
    """The Keras network (layer names match the weight file of the exporter)."""
    layers = tf.keras.layers
    inputs = tf.keras.Input(shape=INPUT_SHAPE[1:], batch_size=batch)
    x = layers.Rescaling(1.0 / 255.0)(inputs)
    x = layers.AveragePooling2D(2)(x)
    for index, (filters, stride) in enumerate(zip(CHANNELS, STRIDES, strict=True)):
        x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False,
                          name=f"conv{index}")(x)
        x = layers.BatchNormalization(epsilon=BN_EPSILON, name=f"bn{index}")(x)
        x = layers.ReLU()(x)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(CLASS_COUNT, name="dense")(x)
    return tf.keras.Model(inputs, outputs)


def train_tf(args: argparse.Namespace) -> None:
    import tensorflow as tf
    from cells_data import augment, make_dataset, to_model_input

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed_base)
    crops, targets = make_dataset(args.seed_base, args.frames, "train", args.workers)
    val_crops, val_targets = make_dataset(args.seed_base + 500_000, args.eval_frames, "val",
                                          args.workers)
    val_x = to_model_input(val_crops)
    model = build_keras(tf, None)
    if args.init_from:
        load_weights(model, np.load(args.init_from))
        print(f"fine-tuning from {args.init_from}", flush=True)
    print(f"model: {model.count_params()} parameters", flush=True)
    steps = args.epochs * (len(crops) // args.batch)
    schedule = tf.keras.optimizers.schedules.CosineDecay(args.lr, steps, alpha=0.02)
    model.compile(optimizer=tf.keras.optimizers.Adam(schedule),
                  loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True,
                                                               label_smoothing=0.02),
                  metrics=["categorical_accuracy"])
    rng = np.random.default_rng(args.seed_base + 1)

    def batches():  # noqa: ANN202
        order = rng.permutation(len(crops))
        for start in range(0, len(order) - args.batch + 1, args.batch):
            index = np.sort(order[start:start + args.batch])
            yield augment(crops[index], targets[index], rng)

    signature = (tf.TensorSpec((None,) + INPUT_SHAPE[1:], tf.float32),
                 tf.TensorSpec((None, CLASS_COUNT), tf.float32))
    dataset = tf.data.Dataset.from_generator(batches, output_signature=signature)
    for epoch in range(args.epochs):
        start = time.time()
        history = model.fit(dataset.prefetch(4), epochs=1, verbose=0,
                            validation_data=(val_x, val_targets), validation_batch_size=512)
        logs = {k: round(float(v[-1]), 4) for k, v in history.history.items()}
        print(f"epoch {epoch + 1}/{args.epochs} {time.time() - start:.0f} s {logs}", flush=True)
    report(model.predict(val_x, batch_size=512, verbose=0), val_targets)
    export_model(tf, model, Path(args.out))


def report(logits: np.ndarray, targets: np.ndarray) -> None:
    """Print the accuracy on labelled validation cells and the worst error's confidence."""
    known = targets.max(axis=1) > 0.5
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    correct = probs.argmax(axis=1) == targets.argmax(axis=1)
    wrong = probs[known][~correct[known]]
    unknown = probs[~known].max(axis=1) if (~known).any() else np.zeros(1)
    print(f"validation cells: {int(known.sum())} labelled, accuracy "
          f"{correct[known].mean():.5f}, errors {len(wrong)}, max confidence of an error "
          f"{wrong.max(axis=1).max(initial=0):.3f}; unlabelled (occluded / no board): "
          f"{int((~known).sum())}, median confidence {np.median(unknown):.3f}", flush=True)


def export_model(tf, model, out: Path) -> None:  # noqa: ANN001
    """Convert a trained Keras model to the fixed-batch float32 .tflite."""
    fixed = build_keras(tf, INPUT_SHAPE[0])
    fixed.set_weights(model.get_weights())
    converter = tf.lite.TFLiteConverter.from_keras_model(fixed)
    data = converter.convert()
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes)", flush=True)


def load_weights(model, weights) -> None:  # noqa: ANN001
    """Set a Keras model's layers from a weight file (Keras layout, see the exporter)."""
    for index in range(len(CHANNELS)):
        model.get_layer(f"conv{index}").set_weights([weights[f"conv{index}/kernel"]])
        model.get_layer(f"bn{index}").set_weights(
            [weights[f"bn{index}/{name}"] for name in ("gamma", "beta", "mean", "var")])
    model.get_layer("dense").set_weights([weights["dense/kernel"], weights["dense/bias"]])


def export_weights(paths: list[Path], out: Path) -> None:
    """Load weight files (from the PyTorch trainer), check them, write the .tflite.

    With several files (fine-tunes of the same start) their weights are averaged
    first (a "model soup"); each file's own model is checked against its
    trainer's logits before the average is taken.
    """
    import tensorflow as tf

    model = build_keras(tf, INPUT_SHAPE[0])
    files = [np.load(path) for path in paths]
    for path, weights in zip(paths, files, strict=True):
        load_weights(model, weights)
        logits = model(weights["check/x"], training=False).numpy()
        difference = float(np.abs(logits - weights["check/logits"]).max())
        print(f"{path}: Keras vs trainer logits on the check batch: max difference "
              f"{difference:.2e}")
        if difference > 1e-3:
            raise SystemExit(f"{path}: the rebuilt model disagrees with the trainer "
                             f"({difference:.3g}); not exporting")
    if len(files) > 1:
        names = [name for name in files[0].files if not name.startswith("check/")]
        load_weights(model, {name: np.mean([f[name] for f in files], axis=0) for name in names})
        print(f"averaged the weights of {len(files)} files")
    export_model(tf, model, out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("tf", "torch"), default="tf")
    parser.add_argument("--frames", type=int, default=4000, help="training frames (x42 cells)")
    parser.add_argument("--eval-frames", type=int, default=200, help="validation frames")
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=2, help="TensorFlow threads")
    parser.add_argument("--workers", type=int, default=1, help="processes rendering frames")
    parser.add_argument("--seed-base", type=int, default=1_000_000)
    parser.add_argument("--out", default=str(ROOT / "firmware_py" / "vision" / "cells.tflite"))
    parser.add_argument("--weights-out", default="cells_weights.npz",
                        help="weight file written by the torch backend")
    parser.add_argument("--init-from", metavar="WEIGHTS",
                        help="fine-tune: start from a weight file (.npz, TensorFlow backend) "
                             "or a trained .tflite (torch backend)")
    parser.add_argument("--mined", nargs="+", metavar="MINED.npz",
                        help="torch backend: train on cells of tools/mine_cells.py instead "
                             "of --frames rendered frames")
    parser.add_argument("--hard-repeat", type=int, default=2,
                        help="with --mined: how often each hard cell is in an epoch")
    parser.add_argument("--export-from", metavar="WEIGHTS.npz", nargs="+",
                        help="only convert a weight file to --out (needs TensorFlow); "
                             "several files: their average")
    args = parser.parse_args()
    if args.mined and args.backend != "torch" and not args.export_from:
        parser.error("--mined needs --backend torch")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if args.export_from:
        export_weights([Path(path) for path in args.export_from], Path(args.out))
    elif args.backend == "torch":
        from train_cells_torch import train_torch

        train_torch(args)
    else:
        train_tf(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
