"""Benchmark the board reader, one line per data source (accuracy and speed).

    .venv/bin/python -m tools.bench.vision                 # 300 frames a source + side sets
    .venv/bin/python -m tools.bench.vision --frames 100 --json

Sources, each on its own line (the data behind every figure):

* ``render``: frames of ``firmware_py/simtable/render.py`` (our 2-D renderer,
  in training), held-out seeds from ``--seed-base`` (default 20,000; training
  uses seeds >= 1,000,000): random legal positions, oblique views up to 45°,
  lighting, shadows, glare, blur, noise, JPEG. Also timed.
* ``scene``: frames of ``tools/scene/render.py`` (the 3-D ray-cast
  scene, in training), held-out seeds from ``--seed-base``.
* ``composite``: real-photo composites of ``tools/train/real_composites.py`` (cells
  cut from real photographs pasted into real photographs): kept out of
  training up to the network's step 7; step 8 trains on other seeds of it
  (``MODEL.md``), so for step 8 a development figure.
* ``real-dev``: the labelled real photographs of ``../shared/data/real-dev``
  (their cut-outs are in step 8's training).
* ``look-NAME`` (``black-balls``, ``white``, ``navy``, ``light-blue``,
  ``orange-pink``): the composites restyled to a board or pieces the reader
  was not built on (``tools/train/appearances.py``); ``look-illegal``: illegal
  boards (an extra disc, a wrong colour, Yellow first, two fours) on the black
  board with balls, ``look-illegal-NAME`` the same on each other appearance.
* ``render+empty``, ``scene+empty``: the same frames as ``render`` and
  ``scene``, read by an installation that has seen the same view's empty
  board first (its empty board learnt as in the live appliance).
* ``render+discs``: the same frames, read by an installation that ran
  ``c4pi calibrate --discs`` in the same view (the empty board, then a red
  disc in column 1 and a yellow in column 7); where calibration fails, the
  empty board is learnt as in ``render+empty``.
* ``render+calibrated``, ``scene+calibrated``: the same frames, read by an
  installation whose owner ran ``c4pi calibrate --force`` in the same view
  (the empty board learnt whatever the readers say of it). The other sources are read
  without any empty board.

Reported per source: board-exact (grid equals the truth, any status),
accepted-exact (read ``ok``/``finished`` with the right grid), wrong-ok
(read ``ok``/``finished`` with a wrong grid: a confident wrong board, must be
0), illegal boards accepted (labelled invalid, read ok: must be 0), per-cell
accuracy, reasons of the rejected frames.

Time per frame of ``BoardReader.read`` (markers to reading, everything on)
on the ``render`` frames at 1280 x 720, on one core: OpenCV and TFLite
single-threaded, the process pinned to one CPU where the OS allows it.
Besides wall time, the CPU time of the reading thread (``time.thread_time``).

Side sets (``render``, each ``--frames / 10``): one marker hidden by a hand
(homography and solvePnP), no-board frames, hands over the grid, floating discs.
"""

from __future__ import annotations

import argparse
import collections
import copy
import functools
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from c4game.board import Board
from c4game.exc import InvalidGridError
from firmware_py.config import load_config
from firmware_py.simtable.render import (
    Hand,
    RenderSpec,
    camera_matrix,
    render_frame,
)
from firmware_py.vision.fit import BoardLocator, Intrinsics
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, INVALID, OK
from tools.bench.installations import SETUPS
from tools.bench.vision_sources import appearance_source, illegal_composite_source
from tools.train.appearances import APPEARANCES
from tools.train.real_composites import random_board


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


def render_source(count: int, seed_base: int, empty_first: bool = False,  # noqa: ANN201
                  discs: bool = False):
    """(truth grid, label status, frame[, setup frames]) of held-out frames of our 2-D
    renderer; with ``empty_first`` also the same view of the empty board, with
    ``discs`` also of it with a red disc in column 1 and then a yellow in column 7
    (``c4pi calibrate --discs``)."""
    for index in range(count):
        seed = seed_base + index
        rng = np.random.default_rng(seed)
        board = random_board(rng)
        spec = RenderSpec.random(rng, max_tilt_deg=45.0)
        frame = render_frame(board, spec, seed=seed)
        setup = []
        if empty_first or discs:
            setup.append(render_frame("", spec, seed=seed))
        if discs:
            setup += [render_frame("1", spec, seed=seed), render_frame("17", spec, seed=seed)]
        yield board.grid_lines(), _status(board), frame, *setup


def scene_source(count: int, seed_base: int, empty_first: bool = False):  # noqa: ANN201
    """(truth grid, label status, frame[, empty board frame]) of held-out frames of the
    3-D scene generator."""
    from tools.scene.render import render_scene
    from tools.scene.spec import SceneSpec

    for index in range(count):
        seed = seed_base + index
        rng = np.random.default_rng(seed)
        board = random_board(rng)
        spec = SceneSpec.random(rng)
        frame = render_scene(board, spec, seed=seed)
        if empty_first:
            yield board.grid_lines(), _status(board), frame, render_scene("", spec, seed=seed)
        else:
            yield board.grid_lines(), _status(board), frame


def composite_source(count: int, seed_base: int):  # noqa: ANN201
    """(truth grid, label status, frame) of real-photo composites (seeds apart from
    step 8's training seeds, 5,000,000 up)."""
    from tools.train.real_composites import compose

    for index in range(count):
        frame, grid, status = compose(np.random.default_rng(seed_base + index))
        yield list(grid), status, frame


def real_source(count: int, seed_base: int, folder: str = "real-dev"):  # noqa: ANN201, ARG001
    """(truth grid, label status, frame, origin) of the labelled real photographs."""
    from tools.train.real_composites import real_dev_frames

    for _, frame, label in real_dev_frames(folder=folder):
        yield label["grid"], label["status"], frame, label["tags"][0]


def _status(board: Board) -> str:
    return FINISHED if board.is_finished else OK


SOURCES = {"render": render_source, "scene": scene_source, "composite": composite_source,
           "illegal-composite": illegal_composite_source,
           **{f"look-{name}": functools.partial(appearance_source, appearance=name)
              for name in APPEARANCES},
           "look-illegal": functools.partial(appearance_source, appearance="black-balls",
                                             illegal=True),
           **{f"look-illegal-{name}": functools.partial(appearance_source, appearance=name,
                                                        illegal=True)
              for name in APPEARANCES if name != "black-balls"},
           "real-dev": real_source,
           "real-dev2": functools.partial(real_source, folder="real-dev2"),
           "render+empty": functools.partial(render_source, empty_first=True),
           "scene+empty": functools.partial(scene_source, empty_first=True),
           "render+discs": functools.partial(render_source, discs=True),
           "render+calibrated": functools.partial(render_source, empty_first=True),
           "scene+calibrated": functools.partial(scene_source, empty_first=True)}


def status_under(truth: list[str], label_status: str, rule: str) -> str:
    """A label's status under ``rule`` (who may start): the labels are Red-first, so a
    board labelled invalid that ``rule`` allows (Yellow started) is legal there."""
    if label_status != INVALID or rule == "red":
        return label_status
    try:
        board = Board.from_grid(list(truth), rule)
    except InvalidGridError:
        return label_status
    return FINISHED if board.is_finished else OK


def bench_source(reader: BoardReader, frames, setup=None) -> dict:  # noqa: ANN001
    """Accuracy (and time) of ``reader`` over (truth, status, frame, *setup frames);
    ``setup(reader, *setup frames)`` sets the installation up first (:data:`SETUPS`)
    and says whether it calibrated. A real photograph's last item is its origin."""
    times, cpu_times, statuses = [], [], collections.Counter()
    tally = Tally()
    origins: dict[str, Tally] = collections.defaultdict(Tally)
    calibrated = 0
    for truth, label_status, frame, *extra in frames:
        label_status = status_under(truth, label_status, reader.first)
        origin = extra.pop() if extra and isinstance(extra[-1], str) else None
        if setup is not None:
            calibrated += setup(reader, *extra)
        start, cpu_start = time.perf_counter(), time.thread_time()
        reading = reader.read(frame)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.thread_time() - cpu_start)
        statuses[reading.status] += 1
        tally.add(reading, truth, label_status)
        if origin:
            origins[origin].add(reading, truth, label_status)
    ms = sorted(t * 1000 for t in times) or [0.0]
    cpu_ms = sorted(t * 1000 for t in cpu_times) or [0.0]
    reader.hole_looks = None
    return {
        **tally.summary(), "statuses": dict(statuses), "calibrated": calibrated,
        "origins": {name: line.summary() for name, line in sorted(origins.items())},
        "ms_median": statistics.median(ms), "ms_p90": ms[int(0.9 * (len(ms) - 1))],
        "ms_max": ms[-1], "cpu_ms_median": statistics.median(cpu_ms),
        "cpu_ms_p90": cpu_ms[int(0.9 * (len(cpu_ms) - 1))],
    }


@dataclass
class Tally:
    """What a player sees of one source: a legal board is *read* when accepted
    (``ok``/``finished``) with the exact grid; refused, it is a miss (``guess_right``
    counts the misses whose shown grid was right); an accepted wrong grid is *wrong*;
    an illegal board must be refused."""

    frames: int = 0
    legal: int = 0
    read: int = 0
    guess_right: int = 0
    wrong: int = 0
    illegal: int = 0
    illegal_refused: int = 0
    illegal_seen_exact: int = 0  # refused, showing exactly the illegal grid the camera saw
    cells_right: int = 0
    cells_total: int = 0
    reasons: collections.Counter = field(default_factory=collections.Counter)

    def add(self, reading, truth: list[str], label_status: str) -> None:  # noqa: ANN001
        self.frames += 1
        accepted = reading.status in (OK, FINISHED)
        exact = reading.grid is not None and list(reading.grid) == list(truth)
        if label_status == INVALID:
            self.illegal += 1
            self.illegal_refused += not accepted
            self.illegal_seen_exact += not accepted and exact
        else:
            self.legal += 1
            self.read += accepted and exact
            self.guess_right += not accepted and exact
        self.wrong += accepted and not exact
        if not accepted:
            self.reasons[reading.reason.split(":")[0]] += 1
        if reading.grid is not None:
            self.cells_right += sum(a == b for line, want in zip(reading.grid, truth, strict=True)
                                    for a, b in zip(line, want, strict=True))
            self.cells_total += 42

    def summary(self) -> dict:
        return {"frames": self.frames, "legal": self.legal, "read": self.read,
                "read_share": self.read / max(self.legal, 1),
                "refused_guess_right": self.guess_right, "wrong": self.wrong,
                "illegal": self.illegal, "illegal_refused": self.illegal_refused,
                "illegal_seen_exact": self.illegal_seen_exact,
                "cell_accuracy": self.cells_right / max(self.cells_total, 1),
                "rejected_reasons": dict(self.reasons.most_common(6))}


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
    """Median ms of each stage over ``count`` frames of the render source."""
    from firmware_py.vision.cells import cell_crops, cell_features, to_model_input, warp_grid
    from firmware_py.vision.classifier import softmax
    from firmware_py.vision.colour import colour_reference
    from firmware_py.vision.colour_reader import covered_cells
    from firmware_py.vision.combine import combine
    from firmware_py.vision.decide import decide
    from firmware_py.vision.frame_discs import frame_disc_colours
    from firmware_py.vision.frame_doubt import doubt
    from firmware_py.vision.frame_fit import frame_evidence
    from firmware_py.vision.hidden import border_plastic, hidden_holes

    stages: dict[str, list[float]] = collections.defaultdict(list)

    def timed(name, fn):  # noqa: ANN001, ANN202
        start = time.perf_counter()
        out = fn()
        stages[name].append((time.perf_counter() - start) * 1000)
        return out

    for _, _, frame in render_source(count, seed_base):  # type: ignore[misc]
        grey = timed("grey", lambda f=frame: cv2.cvtColor(f, cv2.COLOR_BGR2GRAY))
        markers = timed("detect", lambda g=grey: reader.detector.detect(g))
        fit = timed("fit", lambda m=markers, f=frame: reader.locator.locate(
            m, (f.shape[1], f.shape[0])))
        reference = fit.ok and timed("reference", lambda f=frame, ft=fit: colour_reference(f, ft))
        if not reference:
            continue
        crops = timed("warp_normalise_crops", lambda f=frame, ft=fit, r=reference: cell_crops(
            r.normalise(warp_grid(f, ft, step=2))))
        features = timed("features", lambda c=crops: cell_features(c))
        hidden = timed("hidden", lambda c=crops, f=frame, ft=fit, r=reference: hidden_holes(
            c, border_plastic(f, ft, r.normalise)))  # the markers' fit: the face's crops
        cnn = timed("cnn", lambda c=crops: softmax(reader.classifier.logits(to_model_input(c))))
        discs = timed("frame_discs", lambda c=crops, p=cnn: frame_disc_colours(
            c, p, covered_cells(c)))
        colour = timed("colour", lambda c=crops, fe=features, d=discs: reader.colour_reader
                       .probabilities(c, features=fe, discs=d or None, fixed_bands=not d))
        combined = timed("combine", lambda a=cnn, b=colour, d=discs, h=hidden: combine(
            a, b, unfamiliar=bool(d), hidden=h))
        covered = covered_cells(crops) | hidden
        timed("doubt", lambda lp=combined, fe=features, cv=covered: doubt(lp, fe, cv))
        evidence = timed("frame_fit", lambda lp=combined, fe=features, cv=covered: frame_evidence(
            lp, fe, covered=cv))
        timed("decide", lambda lp=combined, ev=evidence: decide(lp + ev, reader.margin))
    return {name: round(statistics.median(values), 2) for name, values in stages.items()}


def without_reader(reader: BoardReader, name: str) -> None:
    """Make the CNN or the colour reader of ``reader`` say nothing (flat probabilities):
    what the other reader, and the frame fit, read alone."""
    if name == "cnn":
        reader.classifier.logits = lambda batch: np.zeros((len(batch), 3), np.float32)
    else:
        reader.colour_reader.probabilities = (
            lambda crops, *_, **__: np.full((len(crops), 3), 1 / 3))


def pin_one_cpu() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=300, help="frames per generated source")
    parser.add_argument("--seed-base", type=int, default=20_000)
    parser.add_argument("--sources", nargs="+", choices=tuple(SOURCES), default=tuple(SOURCES))
    parser.add_argument("--timing-frames", type=int, default=100,
                        help="render frames timed stage by stage")
    parser.add_argument("--model", default="", help="a .tflite (default: the config's)")
    parser.add_argument("--margin", type=float,
                        help="[vision] accept_margin to use (default: the config's)")
    parser.add_argument("--disc-depth", type=float,
                        help="[vision] disc_depth_pitch to use (default: the config's)")
    parser.add_argument("--first", choices=("red", "yellow", "either"), default="either",
                        help="who may start ([game] first; default either)")
    parser.add_argument("--frame-fit", action="store_true",
                        help="with the frame's own looks (vision/frame_fit.py; off live)")
    parser.add_argument("--no-frame-discs", action="store_true",
                        help="without this frame's own disc colours (vision/frame_discs.py)")
    parser.add_argument("--no-frame-doubt", action="store_true",
                        help="no doubt from this frame's own looks (vision/frame_doubt.py)")
    parser.add_argument("--without", choices=("cnn", "colour"),
                        help="one generic reader left out (it says nothing: flat)")
    parser.add_argument("--no-side", action="store_true", help="skip the side sets")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    pinned = pin_one_cpu()
    vision = replace(load_config(None).vision, remember_empty_board=False)
    if args.model:
        vision = replace(vision, model=args.model)
    if args.margin is not None:
        vision = replace(vision, accept_margin=args.margin)
    if args.disc_depth is not None:
        vision = replace(vision, disc_depth_pitch=args.disc_depth)
    reader = BoardReader.from_config(vision, None, num_threads=1)
    reader.frame_fit = args.frame_fit
    reader.frame_discs = not args.no_frame_discs
    reader.frame_doubt = not args.no_frame_doubt
    reader.first = args.first
    if args.without:
        without_reader(reader, args.without)
    reader.read(render_frame("", RenderSpec(), seed=0))  # warm-up
    result: dict = {"setup": pinned, "sources": {}}
    for name in args.sources:
        frames = SOURCES[name](args.frames, args.seed_base)
        result["sources"][name] = bench_source(reader, frames, SETUPS.get(name))
    result["stages_ms"] = stage_times(reader, args.timing_frames, args.seed_base)
    if not args.no_side:
        side = max(1, args.frames // 10)
        result["hidden_marker"] = bench_hidden_marker(reader, side, args.seed_base + 40_000)
        result["side"] = bench_side(reader, side, args.seed_base + 50_000)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_summary(result)
    wrong = sum(source["wrong"] for source in result["sources"].values())
    return 0 if wrong == 0 else 1


def print_summary(result: dict) -> None:
    print(f"model and reader as configured; {result['setup']}")
    print(f"{'source':<18} {'frames':>6} {'read (of legal)':>17} {'refused':>7} {'wrong':>5} "
          f"{'illegal refused (seen exact)':>28} {'cells':>8}  ms median/p90")
    for name, line in result["sources"].items():
        _print_line(name, line, f"  {line['ms_median']:.1f}/{line['ms_p90']:.1f}")
        for origin, sub in line["origins"].items():
            _print_line(f"  {origin}", sub, "")
    for name, line in result["sources"].items():
        calibrated = f", calibrated {line['calibrated']}" if line["calibrated"] else ""
        print(f"  {name}: statuses {line['statuses']}, refused {line['rejected_reasons']}, "
              f"refused with the right guess {line['refused_guess_right']}{calibrated}")
    print(f"  stage medians (ms, render frames): {result['stages_ms']}")
    if "side" in result:
        print(f"  one marker hidden: {result['hidden_marker']}")
        print(f"  side sets: {result['side']}")


def _print_line(name: str, line: dict, times: str) -> None:
    read = f"{line['read']}/{line['legal']} {line['read_share']:.1%}" if line["legal"] else "-"
    illegal = (f"{line['illegal_refused']}/{line['illegal']} ({line['illegal_seen_exact']})"
               if line["illegal"] else "-")
    print(f"{name:<18} {line['frames']:>6} {read:>17} {line['legal'] - line['read']:>7} "
          f"{line['wrong']:>5} {illegal:>28} {line['cell_accuracy']:>8.3%}{times}")


if __name__ == "__main__":
    sys.exit(main())
