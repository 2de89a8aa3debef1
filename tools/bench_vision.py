#!/usr/bin/env python3
"""Benchmark the board reader on held-out rendered frames (accuracy and speed).

    .venv/bin/python tools/bench_vision.py               # 500 frames + side sets
    .venv/bin/python tools/bench_vision.py --frames 100 --json

Main set: ``--frames`` frames of random legal positions (random game lengths,
finished games included), random specs with oblique views up to 45°, varied
lighting, shadows, glare, blur, noise, JPEG; all four markers in view. Render
seeds start at ``--seed-base`` (default 20,000; the
classifier was trained on seeds >= 1,000,000). Reported:

* board-exact: frames whose grid equals the truth (any status);
* accepted-exact: frames read ``ok``/``finished`` with the right grid;
* wrong-ok: frames read ``ok``/``finished`` with a wrong grid (must be 0);
* per-cell accuracy, reasons of the rejected frames;
* time per frame of ``BoardReader.read`` (detect + fit + warp + classify),
  median / p90 / max, on one core: OpenCV with one thread, the TFLite
  interpreter with one thread, and the process pinned to one CPU where the OS
  allows it. Rendering is not timed. Besides wall time, the CPU time of the
  reading thread (``time.thread_time``) is reported: on a shared machine it
  is what one free core would take (everything runs on that one thread).

Side sets (each ``--frames / 10``): frames with one marker hidden by a hand,
read without and with the camera intrinsics (solvePnP); no-board frames (must
not be ok); hands over the grid (a wrong grid read ok is counted); boards with
a floating disc (must come out ``invalid``).
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_py.board import Board  # noqa: E402
from firmware_py.config import load_config  # noqa: E402
from firmware_py.vision.fit import BoardLocator, Intrinsics  # noqa: E402
from firmware_py.vision.reader import BoardReader  # noqa: E402
from firmware_py.vision.reading import FINISHED, INVALID, OK  # noqa: E402
from firmware_py.vision.render import (  # noqa: E402
    Hand,
    RenderSpec,
    camera_matrix,
    render_frame,
)


def random_board(rng: np.random.Generator) -> Board:
    """A random legal position: a random game stopped at a random length or at its end."""
    board = Board.empty()
    for _ in range(int(rng.integers(0, 43))):
        if board.is_finished:
            break
        board = board.play(int(rng.choice(board.legal_columns())))
    return board


def floating_grid(rng: np.random.Generator) -> list[str]:
    """A legal position with one disc lifted to float above an empty cell."""
    while True:
        board = random_board(rng)
        columns = [c for c in range(7) if len(board.columns[c]) <= 4]
        if columns:
            break
    lines = [list(line) for line in board.grid_lines()]
    column = int(rng.choice(columns))
    height = len(board.columns[column])
    row = int(rng.integers(height + 2, 7))  # leave at least one empty cell below
    lines[6 - row][column] = "R" if rng.random() < 0.5 else "Y"
    return ["".join(line) for line in lines]


def main_set(count: int, seed_base: int):  # noqa: ANN201
    for index in range(count):
        seed = seed_base + index
        rng = np.random.default_rng(seed)
        board = random_board(rng)
        spec = RenderSpec.random(rng, max_tilt_deg=45.0)
        yield board.grid_lines(), render_frame(board, spec, seed=seed)


def bench_main(reader: BoardReader, count: int, seed_base: int) -> dict:
    times, cpu_times, statuses = [], [], collections.Counter()
    exact = accepted_exact = wrong_ok = cells_right = cells_total = 0
    reasons: collections.Counter = collections.Counter()
    markers: collections.Counter = collections.Counter()
    for truth, frame in main_set(count, seed_base):
        start, cpu_start = time.perf_counter(), time.thread_time()
        reading = reader.read(frame)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.thread_time() - cpu_start)
        statuses[reading.status] += 1
        markers[reading.markers] += 1
        grid_ok = reading.grid is not None and list(reading.grid) == truth
        exact += grid_ok
        if reading.status in (OK, FINISHED):
            accepted_exact += grid_ok
            wrong_ok += not grid_ok
        else:
            reasons[reading.reason.split(":")[0]] += 1
        if reading.grid is not None:
            cells_right += sum(a == b for line, want in zip(reading.grid, truth, strict=True)
                               for a, b in zip(line, want, strict=True))
            cells_total += 42
    ms = sorted(t * 1000 for t in times)
    cpu_ms = sorted(t * 1000 for t in cpu_times)
    return {
        "frames": count, "board_exact": exact / count, "accepted_exact": accepted_exact / count,
        "wrong_ok": wrong_ok, "cell_accuracy": cells_right / max(cells_total, 1),
        "statuses": dict(statuses), "markers_used": dict(sorted(markers.items())),
        "rejected_reasons": dict(reasons.most_common(8)),
        "ms_median": statistics.median(ms), "ms_p90": ms[int(0.9 * (len(ms) - 1))],
        "ms_max": ms[-1], "cpu_ms_median": statistics.median(cpu_ms),
        "cpu_ms_p90": cpu_ms[int(0.9 * (len(cpu_ms) - 1))],
    }


def bench_hidden_marker(reader: BoardReader, count: int, seed_base: int) -> dict:
    """One marker covered by a hand: read with the homography and with solvePnP."""
    result = {"frames": count}
    for mode in ("homography", "intrinsics"):
        exact = accepted = wrong_ok = 0
        for index in range(count):
            rng = np.random.default_rng(seed_base + index)
            board = random_board(rng)
            spec = RenderSpec.random(rng, hide_markers=(int(rng.integers(0, 4)),))
            used = reader
            if mode == "intrinsics":
                k = camera_matrix(spec)
                locator = BoardLocator(intrinsics=Intrinsics(k),
                                       max_reprojection_px=reader.locator.max_reprojection_px)
                used = copy.copy(reader)  # the same reader, but fitting with solvePnP
                used.locator = locator
            reading = used.read(render_frame(board, spec, seed=seed_base + index))
            right = list(reading.grid or ()) == board.grid_lines()
            exact += right
            if reading.status in (OK, FINISHED):
                accepted += right
                wrong_ok += not right
        result[mode] = {"board_exact": exact / count, "accepted_exact": accepted / count,
                        "wrong_ok": wrong_ok}
    return result


def bench_side(reader: BoardReader, count: int, seed_base: int) -> dict:
    no_board_ok = hands_wrong_ok = hands_ok = floating_not_invalid = 0
    for index in range(count):
        rng = np.random.default_rng(seed_base + index)
        spec = RenderSpec.random(rng, board_visible=False)
        no_board_ok += reader.read(render_frame("", spec, seed=seed_base + index)).status == OK
        board = random_board(rng)
        hand = Hand(float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7)),
                    float(rng.uniform(-60, 60)), float(rng.uniform(0.08, 0.16)))
        spec = RenderSpec.random(rng, hand=hand)
        reading = reader.read(render_frame(board, spec, seed=seed_base + index))
        if reading.status in (OK, FINISHED):
            hands_ok += 1
            hands_wrong_ok += list(reading.grid or ()) != board.grid_lines()
        spec = RenderSpec.random(rng)
        reading = reader.read(render_frame(floating_grid(rng), spec, seed=seed_base + index))
        floating_not_invalid += reading.status != INVALID
    return {"frames_each": count, "no_board_read_ok": no_board_ok,
            "hand_over_grid_read_ok": hands_ok, "hand_over_grid_wrong_ok": hands_wrong_ok,
            "floating_disc_not_invalid": floating_not_invalid}


def stage_times(reader: BoardReader, count: int, seed_base: int) -> dict:
    """Median ms of each stage over ``count`` frames of the main set."""
    from firmware_py.vision.cells import blur_measure, cell_crops, to_model_input, warp_grid

    stages: dict[str, list[float]] = collections.defaultdict(list)

    def timed(name, fn):  # noqa: ANN001, ANN202
        start = time.perf_counter()
        out = fn()
        stages[name].append((time.perf_counter() - start) * 1000)
        return out

    for _, frame in main_set(count, seed_base):
        grey = timed("grey", lambda f=frame: cv2.cvtColor(f, cv2.COLOR_BGR2GRAY))
        markers = timed("detect", lambda g=grey: reader.detector.detect(g))
        fit = timed("fit", lambda m=markers, f=frame: reader.locator.locate(
            m, (f.shape[1], f.shape[0])))
        if not fit.ok:
            continue
        grid = timed("warp", lambda f=frame, ft=fit: warp_grid(f, ft, step=reader.warp_step))
        batch = timed("crops_hsv", lambda g=grid: to_model_input(cell_crops(g),
                                                                 upsample=reader.warp_step))
        timed("classify", lambda b=batch: reader.classifier.logits(b))
        timed("blur", lambda g=grid: blur_measure(g))
    return {name: round(statistics.median(values), 2) for name, values in stages.items()}


def pin_one_cpu() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=500)
    parser.add_argument("--seed-base", type=int, default=20_000)
    parser.add_argument("--model", default="", help="a .tflite (default: the config's)")
    parser.add_argument("--no-side", action="store_true", help="skip the side sets")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-flip-votes", action="store_true",
                        help="classify doubtful frames once (no flipped views)")
    parser.add_argument("--no-context", action="store_true",
                        help="no same-frame context for doubtful cells")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    pinned = pin_one_cpu()
    config = load_config(None)
    vision = config.vision
    if args.model:
        from dataclasses import replace
        vision = replace(vision, model=args.model)
    reader = BoardReader.from_config(vision, None, num_threads=1)
    if args.no_flip_votes:
        reader.flip_votes = False
    if args.no_context:
        reader.context_check = False
    reader.read(render_frame("", RenderSpec(), seed=0))  # warm-up
    result = {"setup": pinned, "main": bench_main(reader, args.frames, args.seed_base),
              "stages_ms": stage_times(reader, min(100, args.frames), args.seed_base)}
    if not args.no_side:
        side = max(1, args.frames // 10)
        result["hidden_marker"] = bench_hidden_marker(reader, side, args.seed_base + 40_000)
        result["side"] = bench_side(reader, side, args.seed_base + 50_000)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_summary(result)
    return 0 if result["main"]["wrong_ok"] == 0 else 1


def print_summary(result: dict) -> None:
    main = result["main"]
    print(f"{main['frames']} held-out frames ({result['setup']}):")
    print(f"  board-exact {main['board_exact']:.2%}, accepted-exact {main['accepted_exact']:.2%}, "
          f"wrong-ok {main['wrong_ok']}, cell accuracy {main['cell_accuracy']:.4%}")
    print(f"  statuses {main['statuses']}, markers used {main['markers_used']}")
    print(f"  rejected: {main['rejected_reasons']}")
    print(f"  ms per frame (wall): median {main['ms_median']:.2f}, p90 {main['ms_p90']:.2f}, "
          f"max {main['ms_max']:.2f}; CPU time of the reading thread: median "
          f"{main['cpu_ms_median']:.2f}, p90 {main['cpu_ms_p90']:.2f}")
    print(f"  stage medians (ms): {result['stages_ms']}")
    if "side" in result:
        print(f"  one marker hidden: {result['hidden_marker']}")
        print(f"  side sets: {result['side']}")


if __name__ == "__main__":
    sys.exit(main())
