"""Training cells cut from real-photo composites, by board appearance.

The issue on reading any board asks whether the generic reader learns other
boards from real material: the real cut-outs of :mod:`tools.train.real_composites`
restyled by :mod:`tools.train.appearances` (black board with balls, white,
navy, light blue, orange and pink pieces) or left as photographed
(``plain``). Each frame goes through the same stages as the generators' frames
(:func:`tools.train.cells_data.frame_crops`): colour reference from the
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
import multiprocessing
import time

import cv2
import numpy as np

from firmware_py.vision.cells import cell_crops, warp_grid
from firmware_py.vision.colour import colour_reference
from firmware_py.vision.depth import seen_disc_fit
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import CROP_SIDE
from firmware_py.vision.reader import DEFAULT_DISC_DEPTH
from tools.train.appearances import APPEARANCES, AppearanceComposer
from tools.train.cells_data import grid_targets, jitter
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
    frame = result.frame
    exact = BoardFit(True, plane_to_image=result.plane_to_image, marker_ids=ALL_MARKERS)
    reference = colour_reference(frame, exact)
    if reference is None:
        return np.zeros((0, CROP_SIDE, CROP_SIDE, 3), np.uint8), np.zeros((0, 3), np.float32)
    seen, _ = seen_disc_fit(exact, DEFAULT_DISC_DEPTH, (frame.shape[1], frame.shape[0]))
    rng = np.random.default_rng(seed + 1)
    fit = BoardFit(True, plane_to_image=seen.plane_to_image @ jitter(rng, 0.12))
    crops = cell_crops(reference.normalise(warp_grid(frame, fit, step=2)))
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
    start = time.time()
    cv2.setNumThreads(1)
    default_composer()  # the photos cut once, before the workers fork
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(composite_crops, jobs, chunksize=4)
    else:
        parts = [composite_crops(job) for job in jobs]
    print(f"  {'+'.join(appearances)}: {len(jobs)} frames in {time.time() - start:.0f} s",
          flush=True)
    return np.concatenate([c for c, _ in parts]), np.concatenate([t for _, t in parts])


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
