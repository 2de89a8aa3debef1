"""Benchmark the board found by its holes (no markers), on the real photographs as taken.

    .venv/bin/python -m tools.bench.holes          # real-dev-raw, and 100 renders a variant
    .venv/bin/python -m tools.bench.holes --renders 200 --json

Data: ``../shared/data/real-dev-raw`` (33 photographs of four boards, no
markers, each with its hand-fitted hole corners; never used to choose the
finder's constants beyond the development runs recorded in docs/vision.md).

Reported:

* **found**: the lattice found (sure) / refused; **wrong lattice**: found with
  a hole centre farther than 0.15 pitch from the hand-fitted one (must be 0);
  the worst hole error of the lattices found, in pitches.
* **reads** with ``[vision] board = "holes"`` (a fresh reader per photo, no
  empty board): legal boards read ``ok`` with the right grid, legal boards read
  wrong (must be 0), illegal boards (labelled ``invalid``) accepted (must be 0).
* **time**: a fresh find (median and worst, one core), and the reader's time
  per frame with the lattice kept (median of 20 reads of one photo).

Renders (``firmware_py/simtable/render.py`` without markers, held-out seeds
from 50,000; random legal positions, views up to 45°, lighting, clutter):
``plain``; ``hand`` (a hand over the grid); ``round things`` (a row of round
objects of the holes' size drawn beside the board); ``part out`` (the board
moved partly out of the picture). Per variant: read right, read wrong (must
be 0), the lattice found, a lattice found shifted by half a pitch or more
(must be 0).

``--stored N``: where ``c4pi calibrate`` found the holes, as the appliance
starts from it (held-out seeds from 63,000, random views up to 45°): each
view's empty board calibrated, then one frame of a random position with a
hand over the grid read by a fresh reader and by one starting from the
stored lattice; in the same view, and with the board moved by one pitch
across the picture since the calibration (the camera knocked while the appliance
was off). Read right / read wrong (must be 0) for each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from c4game.board import Board
from c4game.exc import VisionError
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.simtable.render import RenderSpec, render_frame
from firmware_py.simtable.render_spec import Hand, plane_to_image
from firmware_py.vision.calibrate import calibrate_empty_board
from firmware_py.vision.geometry import apply_homography, cell_centres
from firmware_py.vision.holes import Lattice, find_lattice
from firmware_py.vision.reader import BoardReader
from tools.bench.vision import pin_one_cpu
from tools.shared_data import missing_reason, shared_dir
from tools.train.real_composites import random_board

TOLERANCE_PITCH = 0.15
LATTICE = np.array([(i, j) for j in range(6) for i in range(7)], float)
KEPT_READS = 20


def raw_dir() -> Path:
    return shared_dir() / "data" / "real-dev-raw"


def hole_error_pitch(corners: list[list[float]], lattice: Lattice) -> float:
    """The farthest found hole centre from the hand-fitted one, in lattice pitches."""
    truth = cv2.getPerspectiveTransform(np.float32([[0, 0], [6, 0], [6, 5], [0, 5]]),
                                        np.float32(corners))
    back = cv2.perspectiveTransform(lattice.hole_centres().reshape(1, -1, 2),
                                    np.linalg.inv(truth)).reshape(-1, 2)
    return float(np.linalg.norm(back - LATTICE, axis=1).max())


def measure(folder: Path) -> dict[str, object]:
    rows = [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()
            if line.strip()]
    found = wrong_lattice = 0
    errors, find_ms, refusals = [], [], []
    legal = read_right = read_wrong = illegal = illegal_accepted = 0
    for row in rows:
        image = cv2.imread(str(folder / row["file"]))
        start = time.perf_counter()
        lattice = find_lattice(image)
        find_ms.append((time.perf_counter() - start) * 1000)
        if lattice.ok:
            found += 1
            error = hole_error_pitch(row["hole_corners"], lattice)
            errors.append(error)
            wrong_lattice += error >= TOLERANCE_PITCH
        else:
            refusals.append(f"{row['file']}: {lattice.reason}")
        reading = holes_reader().read(image)
        accepted = reading.status in ("ok", "finished")
        if row["status"] in ("ok", "finished"):
            legal += 1
            read_right += accepted and list(reading.grid or ()) == row["grid"]
            read_wrong += accepted and list(reading.grid or ()) != row["grid"]
        else:
            illegal += 1
            illegal_accepted += accepted
    return {"photos": len(rows), "found": found, "wrong_lattice": wrong_lattice,
            "worst_error_pitch": round(max(errors, default=0.0), 3),
            "legal": legal, "read_right": read_right, "read_wrong": read_wrong,
            "illegal": illegal, "illegal_accepted": illegal_accepted,
            "find_ms_median": round(statistics.median(find_ms), 1),
            "find_ms_worst": round(max(find_ms), 1),
            "kept_ms_median": round(kept_lattice_ms(folder / rows[0]["file"]), 1),
            "refused": refusals}


def render_variants(count: int, seed_base: int = 50_000) -> dict[str, dict[str, int]]:
    """The renders' figures per variant (see the module docstring)."""
    results = {}
    for variant in VARIANTS:
        counts = dict.fromkeys(("frames", "read_right", "read_wrong", "found", "shifted"), 0)
        for index in range(count):
            rng = np.random.default_rng(seed_base + index)
            board = random_board(rng)
            spec, frame = variant_frame(variant, board, rng, seed_base + index)
            analysis = holes_reader().analyse(frame)
            reading, fit = analysis.reading, analysis.fit
            accepted = reading.status in ("ok", "finished")
            right = list(reading.grid or ()) == board.grid_lines()
            counts["frames"] += 1
            counts["read_right"] += accepted and right
            counts["read_wrong"] += accepted and not right
            if fit.ok and fit.plane_to_image is not None:
                counts["found"] += 1
                truth = apply_homography(plane_to_image(spec), cell_centres())
                found = apply_homography(fit.plane_to_image, cell_centres())
                pitch = float(np.linalg.norm(truth[1] - truth[0]))
                off = float(np.linalg.norm(found - truth, axis=1).max())
                counts["shifted"] += off >= 0.5 * pitch
        results[variant] = counts
    return results


VARIANTS = ("plain", "hand", "round things", "part out")


def variant_frame(variant: str, board: Board, rng: np.random.Generator,
                  seed: int) -> tuple[RenderSpec, np.ndarray]:
    """One render of ``board`` without markers, as ``variant`` asks."""
    hand = (Hand(float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7)),
                 float(rng.uniform(-60, 60)), float(rng.uniform(0.08, 0.16)))
            if variant == "hand" else None)
    spec = RenderSpec.random(rng, max_tilt_deg=45.0, markers=False, hand=hand)
    if variant == "part out":
        spec = spec.replace(offset=(float(rng.choice([-0.5, 0.5])), spec.offset[1]))
    frame = render_frame(board, spec, seed=seed)
    if variant == "round things":
        height, width = frame.shape[:2]
        radius = max(6, int(apply_pitch_px(spec) * 0.35))
        y = int(rng.choice([radius * 2, height - radius * 2]))
        for k in range(8):
            cv2.circle(frame, (width // 8 + k * radius * 3, y), radius, (30, 40, 60), -1)
    return spec, frame


def stored_lattice_figures(count: int, seed_base: int = 63_000) -> dict[str, object]:
    """Read right / wrong by a fresh reader and by one starting from the stored lattice
    (see the module docstring), and the seeds of the wrong reads."""
    counts = dict.fromkeys(("views", "calibrated", "fresh_right", "fresh_wrong",
                            "stored_right", "stored_wrong", "moved_fresh_right",
                            "moved_fresh_wrong", "moved_stored_right",
                            "moved_stored_wrong"), 0)
    wrong_seeds: list[str] = []
    for index in range(count):
        seed = seed_base + index
        rng = np.random.default_rng(seed)
        board = random_board(rng)
        spec, frame = variant_frame("hand", board, rng, seed)
        counts["views"] += 1
        empty = render_frame("", spec.replace(hand=None), seed=seed)
        try:
            looks = calibrate_empty_board(holes_reader(), [empty] * 8)
        except VisionError:
            continue
        if looks.lattice is None:
            continue
        counts["calibrated"] += 1
        step = apply_pitch_px(spec) / frame.shape[1]
        moved_spec = spec.replace(offset=(spec.offset[0] + step, spec.offset[1]))
        for case, image in (("", frame), ("moved_", render_frame(board, moved_spec, seed=seed))):
            for how in ("fresh", "stored"):
                reader = holes_reader()
                if how == "stored":
                    reader.hole_locator.start_from(looks.lattice)
                reading = reader.read(image)
                if reading.status in ("ok", "finished"):
                    right = list(reading.grid or ()) == board.grid_lines()
                    counts[f"{case}{how}_{'right' if right else 'wrong'}"] += 1
                    if not right:
                        wrong_seeds.append(f"{case}{how} {seed}")
    return {**counts, "wrong_seeds": wrong_seeds}


def apply_pitch_px(spec: RenderSpec) -> float:
    """The hole pitch of a render, in frame pixels (at the grid's centre)."""
    centres = apply_homography(plane_to_image(spec), cell_centres())
    return float(np.linalg.norm(centres[18] - centres[17]))


def holes_reader() -> BoardReader:
    return BoardReader.from_config(VisionConfig(board="holes", remember_empty_board=False),
                                   CameraConfig(), first="red")  # the labels' rule (SPEC)


def kept_lattice_ms(path: Path) -> float:
    """Median time of the reader per frame once the lattice is found and kept."""
    reader, image = holes_reader(), cv2.imread(str(path))
    reader.read(image)  # finds and keeps the lattice
    times = []
    for _ in range(KEPT_READS):
        start = time.perf_counter()
        reader.read(image)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--renders", type=int, default=100, help="renders a variant (0: none)")
    parser.add_argument("--stored", type=int, default=0, metavar="N",
                        help="views read with and without the lattice c4pi calibrate stored")
    args = parser.parse_args(argv)
    folder = raw_dir()
    if not (folder / "labels.jsonl").is_file():
        print(missing_reason(folder))
        return 1
    pin_one_cpu()
    cv2.setNumThreads(1)
    result = measure(folder)
    result["renders"] = render_variants(args.renders) if args.renders else {}
    result["stored"] = stored_lattice_figures(args.stored) if args.stored else {}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"real-dev-raw ({result['photos']} photos, no markers)")
    print(f"  lattice found {result['found']}, wrong {result['wrong_lattice']}, "
          f"worst hole error {result['worst_error_pitch']} pitch")
    print(f"  legal boards read right {result['read_right']} of {result['legal']}, "
          f"read wrong {result['read_wrong']}; illegal accepted "
          f"{result['illegal_accepted']} of {result['illegal']}")
    print(f"  fresh find {result['find_ms_median']} ms median, {result['find_ms_worst']} ms "
          f"worst; a frame with the lattice kept {result['kept_ms_median']} ms median")
    for line in result["refused"]:  # type: ignore[union-attr]
        print(f"  refused {line}")
    for variant, counts in result["renders"].items():  # type: ignore[union-attr]
        print(f"renders, {variant}: read right {counts['read_right']} of {counts['frames']}, "
              f"read wrong {counts['read_wrong']}; lattice found {counts['found']}, "
              f"shifted {counts['shifted']}")
    if result["stored"]:
        print(f"stored lattice: {result['stored']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
