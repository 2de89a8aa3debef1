"""Benchmark the disc-depth correction: oblique frames read with and without it.

    .venv/bin/python -m tools.bench.depth                    # render 100 at 35-50°
    .venv/bin/python -m tools.bench.depth --generator scene --frames 60 \\
        --low 30 --high 50 --seed-base 60000 --empty-first

Frames of ``render`` (discs 0.2-0.4 P behind the face) or ``scene`` (0.1-0.45
P) with the view's tilt drawn between ``--low`` and ``--high`` degrees, each
read by a reader with ``[vision] disc_depth_pitch`` 0 (no correction) and the
configured depth. With ``--empty-first`` the reader has first followed a game
from the same view's empty board (as ``tools.bench.vision``'s ``render+empty``). Reported per depth:
board-exact and accepted-exact frames, confident wrong boards, frames the CNN
alone and the colour reader alone read right, and their wrong cells.
"""

from __future__ import annotations

import argparse
import collections
import math
import sys
from dataclasses import replace

import numpy as np

from firmware_py.config import load_config
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK
from tools.bench.installations import learn_in_view
from tools.train.real_composites import random_board


def oblique_frames(generator: str, count: int, seed_base: int, low: float, high: float):  # noqa: ANN201
    """(truth grid, frame, empty-board frame) of views tilted ``low``-``high`` degrees."""
    if generator == "scene":
        from tools.scene.render import render_scene as draw
        from tools.scene.spec import SceneSpec as Spec
    else:
        from firmware_py.simtable.render import RenderSpec as Spec
        from firmware_py.simtable.render import render_frame as draw
    for index in range(count):
        seed = seed_base + index
        rng = np.random.default_rng(seed)
        board = random_board(rng)
        tilt, direction = rng.uniform(low, high), rng.uniform(0, 2 * math.pi)
        spec = Spec.random(rng, max_tilt_deg=high, yaw_deg=tilt * math.cos(direction),
                           pitch_deg=tilt * math.sin(direction))
        yield board.grid_lines(), draw(board, spec, seed=seed), draw("", spec, seed=seed)


def read_all(reader: BoardReader, frames: list, empty_first: bool) -> collections.Counter:
    """The counts of the module docstring for one reader."""
    counts: collections.Counter = collections.Counter()
    for grid, frame, empty in frames:
        reader.hole_looks = None
        if empty_first:
            learn_in_view(reader, empty)
            counts["empty boards learnt"] += bool(reader.hole_looks.counts[:, 0].all())
        analysis = reader.analyse(frame)
        right = list(analysis.reading.grid or ()) == list(grid)
        accepted = analysis.reading.status in (OK, FINISHED)
        counts["board-exact"] += right
        counts["accepted-exact"] += right and accepted
        counts["wrong-ok"] += accepted and not right
        if analysis.cnn is None:
            continue
        truth = np.array([CLASSES.index(c) for line in grid for c in line])
        for name, probabilities in (("CNN", analysis.cnn), ("colour", analysis.colour)):
            wrong = int(np.sum(probabilities.argmax(axis=1) != truth))
            counts[f"{name} alone right"] += wrong == 0
            counts[f"{name} wrong cells"] += wrong
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generator", choices=("render", "scene"), default="render")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--seed-base", type=int, default=50_000)
    parser.add_argument("--low", type=float, default=35.0)
    parser.add_argument("--high", type=float, default=50.0)
    parser.add_argument("--empty-first", action="store_true")
    args = parser.parse_args()
    vision = replace(load_config(None).vision, remember_empty_board=False)
    frames = list(oblique_frames(args.generator, args.frames, args.seed_base,
                                 args.low, args.high))
    print(f"{args.generator}, {args.frames} frames at {args.low:g}-{args.high:g} degrees, "
          f"seeds {args.seed_base}+{', after the empty board' if args.empty_first else ''}")
    wrong = 0
    for depth in (0.0, vision.disc_depth_pitch):
        reader = BoardReader.from_config(replace(vision, disc_depth_pitch=depth))
        counts = read_all(reader, frames, args.empty_first)
        wrong += counts["wrong-ok"]
        print(f"disc depth {depth:g}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
