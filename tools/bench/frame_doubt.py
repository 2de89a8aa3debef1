"""How the doubt from this frame's own looks would act at other constants (needs ../shared/data).

Reads each source's frames without the doubt (``firmware_py/vision/frame_doubt.py``)
and, for every pair of ``ALIKE`` and ``NEARER`` asked, counts per source the boards
read right that the doubt would touch (a hole doubted: refused) and the boards read
wrong that it would catch (a misread hole doubted). The doubt's constants were chosen
with it on the sources other than ``look-orange-pink``: the largest pair that touches
no board read right there.

    .venv/bin/python -m tools.bench.frame_doubt --frames 200 \\
        --sources render scene composite look-navy look-orange-pink
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, replace

import numpy as np

from firmware_py.config import load_config
from firmware_py.vision import frame_doubt
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import CLASSES, FINISHED, OK
from tools.bench.vision import SOURCES


@dataclass(frozen=True)
class Frame:
    """One frame read without the doubt: whether it was read right or wrong, and for each
    hole whether it was misread and its nearest sure holes: empty, and the nearest sure
    disc where it was read empty (inf where it was read as a disc: never doubted)."""

    read_right: bool
    read_wrong: bool
    misread: np.ndarray  # (42,) bools
    own: np.ndarray  # (42,) distance to the nearest sure empty hole
    other: np.ndarray  # (42,) ... to the nearest sure disc, for the holes read empty


def measure(reader: BoardReader, frames) -> list[Frame]:  # noqa: ANN001
    """Each frame of a source (truth, status, frame, ...) read without the doubt."""
    measured = []
    for truth, _status, image, *_ in frames:
        analysis = reader.analyse(image)
        reading = analysis.reading
        if analysis.log_probs is None:
            continue
        accepted = reading.status in (OK, FINISHED)
        exact = reading.grid is not None and list(reading.grid) == list(truth)
        to_empty, to_disc, _ = frame_doubt.empty_holes_to_sure(
            analysis.log_probs, reading.cell_looks, reading.cell_covered)
        read = analysis.log_probs.argmax(axis=1)
        truth_kinds = np.array([CLASSES.index(char) for line in truth for char in line])
        measured.append(Frame(accepted and exact, accepted and not exact,
                              (truth_kinds != read) & ~reading.cell_covered, to_empty, to_disc))
    return measured


def sweep(frames: list[Frame], alikes: list[float], nearers: list[float]) -> list[dict]:
    """For each (alike, nearer): boards read right that it would refuse, boards read wrong
    that it would catch, of how many wrong."""
    rows = []
    for alike in alikes:
        for nearer in nearers:
            touched = [(f.other <= alike) & (f.other <= nearer * f.own) for f in frames]
            rows.append({"alike": alike, "nearer": nearer,
                         "right_refused": sum(f.read_right and bool(t.any())
                                              for f, t in zip(frames, touched, strict=True)),
                         "wrong_caught": sum(f.read_wrong and bool((t & f.misread).any())
                                             for f, t in zip(frames, touched, strict=True)),
                         "wrong": sum(f.read_wrong for f in frames)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed-base", type=int, default=20_000)
    parser.add_argument("--sources", nargs="+", choices=tuple(SOURCES),
                        default=("render", "scene", "composite", "look-orange-pink"))
    parser.add_argument("--alike", nargs="+", type=float, default=[20.0, 30.0, 40.0, 60.0])
    parser.add_argument("--nearer", nargs="+", type=float, default=[0.4, 0.5, 0.6])
    args = parser.parse_args()
    vision = replace(load_config(None).vision, remember_empty_board=False)
    reader = BoardReader.from_config(vision, None, num_threads=1)
    reader.frame_doubt = False
    result = {name: sweep(measure(reader, SOURCES[name](args.frames, args.seed_base)),
                          args.alike, args.nearer) for name in args.sources}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
