"""``python -m tools.scene MOVES -o FILE``: one frame of the 3-D scene generator."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import cv2
import numpy as np

from c4game.exc import PositionError
from tools.scene.render import SceneSpec, render_scene, scene_camera_matrix


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.scene", description=__doc__)
    parser.add_argument("moves", metavar="MOVES", help="move sequence, or - for the empty board")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="output image (.png, .jpg, ...)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="random details: loose discs behind the board, noise, per-disc "
                             "variation (default: no loose discs, noise of seed 0)")
    parser.add_argument("--random", action="store_true",
                        help="random pose, lights, room and colours from --seed")
    parser.add_argument("--grid", metavar="LINES",
                        help="render these 6 grid lines (top first, '/'-separated) instead of "
                             "MOVES; may be invalid, e.g. a floating disc")
    parser.add_argument("--size", default=None, metavar="WxH", help="frame size (1280x720)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = 0 if args.seed is None else args.seed
    changes: dict[str, Any] = {}  # Any: SceneSpec fields of several types
    if args.seed is None:  # the plain scene: no loose discs a newcomer's first read trips on
        changes["spare_discs"] = 0
    if args.size:
        width, _, height = args.size.lower().partition("x")
        changes["size"] = (int(width), int(height))
    spec = (SceneSpec.random(np.random.default_rng(seed), **changes) if args.random
            else SceneSpec(**changes))
    position = args.grid.split("/") if args.grid else ("" if args.moves == "-" else args.moves)
    try:
        frame = render_scene(position, spec, seed=seed)
    except (ValueError, PositionError) as error:
        print(f"tools.scene: {error}", file=sys.stderr)
        return 2
    if not cv2.imwrite(args.output, frame):
        print(f"tools.scene: cannot write {args.output!r}", file=sys.stderr)
        return 1
    k = scene_camera_matrix(spec)
    print(f"wrote {args.output} ({spec.size[0]}x{spec.size[1]}, tilt {spec.tilt_deg:.1f} deg); "
          f"camera fx={k[0, 0]:.1f} fy={k[1, 1]:.1f} cx={k[0, 2]:.1f} cy={k[1, 2]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
