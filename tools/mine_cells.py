#!/usr/bin/env python3
"""Mine hard training cells for fine-tuning the cell classifier.

Renders training frames exactly as ``tools/cells_data.py`` does (same specs,
jitter and half-resolution share), classifies their 42 cells with a given
``.tflite`` and keeps every labelled cell the model gives less than
``--hard-below`` for its true class, plus a random ``--easy-share`` of the
other cells (so that fine-tuning still sees the common case). Writes an
``.npz`` with ``crops`` (N, 64, 64, 3) BGR uint8, ``targets`` (N, 3), ``hard``
(N,) bool and ``p_true`` (N,)::

    .venv/bin/python tools/mine_cells.py --frames 24000 --seed-base 7000000 -o mined.npz

With ``--hands`` each frame has a rendered hand over the grid
(``cells_data.hand_frame_crops``): cells the hand hides are unlabelled
(uniform target) and count as hard when the model is sure of any class.

``tools/train_cells.py --backend torch --mined mined.npz`` fine-tunes on it.
Runs with the project's ``.venv`` (numpy, OpenCV, the TFLite runtime).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cells_data import ROOT, frame_crops, hand_frame_crops, to_model_input  # noqa: E402

from firmware_py.vision.classifier import TFLiteCellClassifier, softmax  # noqa: E402

_worker: dict = {}
UNSURE_BELOW = 0.6  # the reader's min_cell_confidence: a covered cell must read below it


def _init(model: str, hard_below: float, easy_share: float, hands: bool) -> None:
    cv2.setNumThreads(1)
    _worker.update(classifier=TFLiteCellClassifier(model, num_threads=1),
                   hard_below=hard_below, easy_share=easy_share,
                   render=hand_frame_crops if hands else frame_crops)


def mine_frame(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kept crops, targets, hard flags and true-class probabilities of one frame.

    A labelled cell is hard when the model gives its class less than
    ``--hard-below``; an unlabelled (covered) cell when the model is sure of
    any class (top probability >= ``UNSURE_BELOW``): it cannot know.
    """
    crops, targets = _worker["render"](seed)
    probabilities = softmax(_worker["classifier"].logits(to_model_input(crops)))
    labelled = targets.max(axis=1) > 0.5
    p_true = (probabilities * targets).sum(axis=1)
    hard = np.where(labelled, p_true < _worker["hard_below"],
                    probabilities.max(axis=1) >= UNSURE_BELOW)
    easy = ~hard & (np.random.default_rng(seed + 17).random(len(crops)) < _worker["easy_share"])
    keep = hard | easy
    return crops[keep], targets[keep], hard[keep], p_true[keep]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=24000)
    parser.add_argument("--seed-base", type=int, default=7_000_000)
    parser.add_argument("--model", default=str(ROOT / "firmware_py" / "vision" / "cells.tflite"))
    parser.add_argument("--hard-below", type=float, default=0.9,
                        help="a labelled cell is hard below this probability of its class")
    parser.add_argument("--easy-share", type=float, default=0.12,
                        help="share of the other cells kept")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hands", action="store_true",
                        help="frames with a hand over the grid (covered cells unlabelled)")
    parser.add_argument("-o", "--out", required=True)
    args = parser.parse_args()
    start = time.time()
    seeds = range(args.seed_base, args.seed_base + args.frames)
    setup = (args.model, args.hard_below, args.easy_share, args.hands)
    with multiprocessing.get_context("fork").Pool(args.workers, _init, setup) as pool:
        parts = pool.map(mine_frame, seeds, chunksize=16)
    crops, targets, hard, p_true = (np.concatenate(column) for column in zip(*parts, strict=True))
    np.savez(args.out, crops=crops, targets=targets, hard=hard, p_true=p_true)
    labelled = targets.max(axis=1) > 0.5
    print(f"{args.frames} frames in {time.time() - start:.0f} s: kept {len(crops)} cells, "
          f"{int(hard.sum())} hard, {int((hard & labelled & (p_true < 0.5)).sum())} of them "
          f"misread, {int((hard & ~labelled).sum())} covered cells read with confidence "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
