"""Train the cell classifier (firmware_py/vision/cells.tflite) on two generators' frames.

Dev-only: needs PyTorch to train and TensorFlow to export, neither of which
goes into the project's .venv. One environment outside the repository::

    python3 -m venv ../trainenv
    ../trainenv/bin/pip install torch==2.13.0 'tensorflow-cpu>=2.15' \\
        opencv-python-headless ai-edge-litert

Make the data once (cached as .npz), train, export::

    ../trainenv/bin/python -m tools.train.train_cells data --generator render \\
        --frames 6000 --seed-base 1000000 --workers 2 -o render.npz
    ../trainenv/bin/python -m tools.train.train_cells data --generator scene \\
        --frames 3000 --seed-base 2000000 --workers 2 -o scene.npz
    ../trainenv/bin/python -m tools.train.train_cells train render.npz scene.npz \\
        --epochs 12 --workers 2 --weights-out cells_weights.npz
    ../trainenv/bin/python -m tools.train.train_cells export cells_weights.npz \\
        --out firmware_py/vision/cells.tflite

The export rebuilds the network in Keras, loads the weights, checks that it
gives the trainer's logits on a stored batch, and converts it to a float32
.tflite with a fixed input [42, 32, 32, 3].

Data and augmentation: ``tools/train/cells_data.py``. Network
(``tools/train/train_cells_torch.py``): the HSV input scaled by 1/255, four 3x3
convolutions (16, 32, 48, 64 channels; the first three with stride 2) each
with batch normalisation and ReLU, global average pooling to 64 features per
cell, each cell's features beside the mean and maximum over its frame's 42
cells, a dense layer of 96 with ReLU and a dense layer to the 3 logits (empty,
red, yellow). Training batches are whole frames (``--batch`` is rounded down
to a multiple of 42) and the validation share is of frames.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from tools.shared_data import REPO
from tools.train.network import (
    BN_EPSILON,
    CHANNELS,
    CLASS_COUNT,
    CONTEXT_UNITS,
    INPUT_SHAPE,
    STRIDES,
)


def build_keras(tf, batch: int | None):  # noqa: ANN001, ANN201 (TensorFlow is optional)
    """The Keras network (layer names match the weight file of the trainer).

    The batch is one frame's 42 cells: after the convolutions each cell's
    features meet the frame's mean and maximum features, so a cell is read
    beside the others (a disc-coloured wall fills every empty hole alike).
    """
    layers = tf.keras.layers
    inputs = tf.keras.Input(shape=INPUT_SHAPE[1:], batch_size=batch)
    x = layers.Rescaling(1.0 / 255.0)(inputs)
    for index, (filters, stride) in enumerate(zip(CHANNELS, STRIDES, strict=True)):
        x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False,
                          name=f"conv{index}")(x)
        x = layers.BatchNormalization(epsilon=BN_EPSILON, name=f"bn{index}")(x)
        x = layers.ReLU()(x)
    cells = layers.GlobalAveragePooling2D()(x)
    frame = layers.Lambda(lambda e: tf.concat(
        [e, tf.broadcast_to(tf.reduce_mean(e, axis=0, keepdims=True), tf.shape(e)),
         tf.broadcast_to(tf.reduce_max(e, axis=0, keepdims=True), tf.shape(e))], axis=1),
        output_shape=(3 * CHANNELS[-1],), name="frame_context")(cells)
    x = layers.Dense(CONTEXT_UNITS, activation="relu", name="context")(frame)
    outputs = layers.Dense(CLASS_COUNT, name="dense")(x)
    return tf.keras.Model(inputs, outputs)


def load_weights(model, weights) -> None:  # noqa: ANN001
    """Set a Keras model's layers from a weight file (Keras layout)."""
    for index in range(len(CHANNELS)):
        model.get_layer(f"conv{index}").set_weights([weights[f"conv{index}/kernel"]])
        model.get_layer(f"bn{index}").set_weights(
            [weights[f"bn{index}/{name}"] for name in ("gamma", "beta", "mean", "var")])
    for name in ("context", "dense"):
        model.get_layer(name).set_weights([weights[f"{name}/kernel"], weights[f"{name}/bias"]])


def export_weights(path: Path, out: Path) -> None:
    """Load a weight file of the trainer, check it in Keras, write the .tflite."""
    import tensorflow as tf

    model = build_keras(tf, INPUT_SHAPE[0])
    weights = np.load(path)
    load_weights(model, weights)
    logits = model(weights["check/x"], training=False).numpy()
    difference = float(np.abs(logits - weights["check/logits"]).max())
    print(f"{path}: Keras vs trainer logits on the check batch: max difference {difference:.2e}")
    if difference > 1e-3:
        raise SystemExit(f"{path}: the rebuilt model disagrees with the trainer "
                         f"({difference:.3g}); not exporting")
    data = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes)", flush=True)


def make_data(args: argparse.Namespace) -> None:
    from tools.train.cells_data import make_dataset

    crops, targets = make_dataset(args.generator, args.seed_base, args.frames, args.workers)
    np.savez_compressed(args.output, crops=crops, targets=targets)
    print(f"wrote {args.output}: {len(crops)} cells", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data", help="render frames of one generator into cells (.npz)")
    data.add_argument("--generator", required=True,
                      choices=("render", "scene", "render-neutral", "scene-neutral",
                               "render-pieces"))
    data.add_argument("--frames", type=int, default=1000)
    data.add_argument("--seed-base", type=int, default=1_000_000)
    data.add_argument("--workers", type=int, default=1)
    data.add_argument("-o", "--output", required=True)
    train = commands.add_parser("train", help="train on cell files (PyTorch)")
    train.add_argument("data", nargs="+", help=".npz files of the data command")
    train.add_argument("--validation-share", type=float, default=0.05)
    train.add_argument("--epochs", type=int, default=12)
    train.add_argument("--batch", type=int, default=672,
                       help="cells per batch, rounded down to whole frames of 42")
    train.add_argument("--lr", type=float, default=3e-3)
    train.add_argument("--workers", type=int, default=1)
    train.add_argument("--seed", type=int, default=1)
    train.add_argument("--weights-out", default="cells_weights.npz")
    train.add_argument("--frozen-norms", action="store_true",
                       help="keep the normalisations' statistics (fine-tuning a .tflite's "
                       "weights from tools/train/from_tflite.py)")
    train.add_argument("--glimpses", type=float, default=0.0, metavar="SHARE",
                       help="share of the frames with discs that get a spare disc glimpsed "
                       "behind some empty holes (labelled empty; cells_data._glimpse)")
    train.add_argument("--stickers", action="store_true",
                       help="in the frames with glimpses, some discs show a sticker, a print "
                       "or glare rings in their middle (labelled as the disc: cells_data._sticker)")
    train.add_argument("--distil", nargs="?", const="always", choices=("always", "unless-wrong"),
                       help="targets: the --init network's own probabilities on each "
                       "augmented cell, except where the augmentation labelled the cell "
                       "(and, with unless-wrong, where that network is wrong); write "
                       "--distil=always or --distil=unless-wrong before the data files")
    train.add_argument("--truth", nargs="+", default=[], metavar="DATA",
                       help="data files (also given as data) taught their truth under --distil")
    train.add_argument("--init", metavar="WEIGHTS.npz",
                       help="start from a weight file of this trainer (fine-tuning)")
    export = commands.add_parser("export", help="convert a weight file to .tflite (TensorFlow)")
    export.add_argument("weights")
    export.add_argument("--out", default=str(REPO / "firmware_py" / "vision" / "cells.tflite"))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if args.command == "data":
        make_data(args)
    elif args.command == "train":
        from tools.train.train_cells_torch import train_torch

        train_torch(args)
    else:
        export_weights(Path(args.weights), Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
