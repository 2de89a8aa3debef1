"""python -m tools.scene MOVES -o FILE: one frame of the 3-D scene generator."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from firmware_py.simtable.frame_file import (
    add_position_arguments,
    position_of,
    size_of,
    write_frame,
)
from tools.scene.render import SceneSpec, render_scene, scene_camera_matrix

if TYPE_CHECKING:
    from firmware_py.simtable.frame_file import Drawn


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.scene", description=__doc__)
    add_position_arguments(parser)
    parser.add_argument("--size", default=None, metavar="WxH", help="frame size (1280x720)")
    return parser.parse_args(argv)


def draw(args: argparse.Namespace) -> Drawn:
    """The scene's frame, its spec and camera matrix (no loose discs without --seed)."""
    seed = 0 if args.seed is None else args.seed
    changes: dict[str, Any] = {}  # Any: SceneSpec fields of several types
    if args.seed is None:  # the plain scene: no loose discs a newcomer's first read trips on
        changes["spare_discs"] = 0
    if args.size:
        changes["size"] = size_of(args.size)
    spec = (SceneSpec.random(np.random.default_rng(seed), **changes) if args.random
            else SceneSpec(**changes))
    return render_scene(position_of(args), spec, seed=seed), spec, scene_camera_matrix(spec)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return write_frame("tools.scene", args.output, functools.partial(draw, args))


if __name__ == "__main__":
    sys.exit(main())
