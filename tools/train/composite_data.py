"""Training cells cut from real-photo composites, by board appearance.

The issue on reading any board asks whether the generic reader learns other
boards from real material: the real cut-outs of :mod:`tools.train.real_composites`
restyled by :mod:`tools.train.appearances` (black board with balls, white,
navy, light blue, orange and pink pieces) or left as photographed
(``plain``). Each frame goes through the same stages as the generators' frames
(:func:`tools.train.cells_data.reader_crops`): colour reference from the
markers, the disc plane, the half-resolution warp jittered by up to 0.12 cell,
normalisation, 42 crops.

These frames come from the same photographs as the bench's ``composite`` and
``look-*`` sources (other seeds: use seeds of 5,000,000 and up), so a network
trained on an appearance has no held-out figure on it: measure one appearance
left out (train on the others, bench the one left out).

    PYTHONPATH=. ../trainenv/bin/python -m tools.train.composite_data \\
        --appearances white navy --frames 600 --seed-base 5000000 -o comp.npz
"""

from __future__ import annotations

import argparse
import functools

import numpy as np

from tools.train.appearances import APPEARANCES, AppearanceComposer
from tools.train.cells_data import grid_targets, map_frames, reader_crops
from tools.train.real_composites import Composite, default_composer

PLAIN = "plain"  # the composites as photographed, not restyled
KINDS = (PLAIN, *APPEARANCES)
ALL_MARKERS = (0, 1, 2, 3)


@functools.cache
def _appearance_composer() -> AppearanceComposer:
    return AppearanceComposer(default_composer())


def compose(appearance: str, seed: int) -> Composite:
    """One composite frame of ``appearance`` (:data:`KINDS`) drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    if appearance == PLAIN:
        return default_composer().compose(rng)
    return _appearance_composer().compose(rng, appearance)


def composite_crops(job: tuple[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Normalised crops (42, 32, 32, 3) and one-hot targets (42, 3) of one composite;
    empty arrays when its markers give no colour reference."""
    appearance, seed = job
    result = compose(appearance, seed)
    crops = reader_crops(result.frame, result.plane_to_image, ALL_MARKERS,
                         np.random.default_rng(seed + 1))
    if not len(crops):
        return crops, np.zeros((0, 3), np.float32)
    return crops, grid_targets(list(result.grid))


def make_dataset(appearances: list[str], first_seed: int, frames: int,
                 workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, 32, 32, 3) and targets (N, 3) of ``frames`` composites of each
    appearance, in whole frames of 42 cells."""
    unknown = [name for name in appearances if name not in KINDS]
    if unknown:
        raise ValueError(f"unknown appearance {unknown[0]!r}; expected one of {KINDS}")
    jobs = [(name, first_seed + index * len(KINDS) + KINDS.index(name))
            for index in range(frames) for name in appearances]
    default_composer()  # the photos cut once, before the workers fork
    return map_frames(composite_crops, jobs, workers, "+".join(appearances))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appearances", nargs="+", choices=KINDS, required=True)
    parser.add_argument("--frames", type=int, default=500, help="frames of each appearance")
    parser.add_argument("--seed-base", type=int, default=5_000_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    crops, targets = make_dataset(args.appearances, args.seed_base, args.frames, args.workers)
    np.savez_compressed(args.output, crops=crops, targets=targets)
    print(f"wrote {args.output}: {len(crops)} cells", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
