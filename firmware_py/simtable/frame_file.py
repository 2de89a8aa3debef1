"""What the commands that write one synthetic frame share (``c4pi render``, and the
development tools' ``python -m tools.scene``): the position options, the frame
size option, and writing the frame with its one-line report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from c4game.exc import PositionError

if TYPE_CHECKING:  # numpy is imported by what draws, not by the command line's start
    import numpy as np

    # a frame, its spec (size, tilt_deg), its 3 x 3 camera matrix; Any: either generator's
    Drawn = tuple[np.ndarray, Any, np.ndarray]


def add_position_arguments(parser: argparse.ArgumentParser) -> None:
    """MOVES, ``-o FILE``, ``--seed``, ``--random``, ``--grid`` and ``--size``."""
    parser.add_argument("moves", metavar="MOVES", help="move sequence, or - for the empty board")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="output image (.png, .jpg, ...)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="random details: distractor objects in the background, noise, "
                             "per-disc variation (default: none of those objects, noise of "
                             "seed 0)")
    parser.add_argument("--random", action="store_true",
                        help="random pose, lighting and colours from --seed")
    parser.add_argument("--grid", metavar="LINES",
                        help="render these 6 grid lines (top first, '/'-separated) instead of "
                             "MOVES; may be invalid, e.g. a floating disc")


def position_of(args: argparse.Namespace) -> str | list[str]:
    """The moves, or the grid lines of ``--grid``."""
    if args.grid:
        return list(args.grid.split("/"))
    return "" if args.moves == "-" else str(args.moves)


def size_of(text: str) -> tuple[int, int]:
    """``WxH`` as (width, height)."""
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def write_frame(prog: str, path: str, draw: Callable[[], Drawn]) -> int:
    """Draw the frame and write it to ``path``, saying so; 2 for a bad position or
    option, 1 when the file cannot be written."""
    import cv2

    try:
        path.encode("utf-8")  # a byte that is no UTF-8 crashes OpenCV
    except UnicodeEncodeError:
        print(f"{prog}: {ascii(path)}: the name is not valid UTF-8 (rename it)",
              file=sys.stderr)
        return 2
    try:
        frame, spec, k = draw()
    except (ValueError, PositionError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    if not cv2.imwrite(path, frame):
        print(f"{prog}: cannot write {path!r}", file=sys.stderr)
        return 1
    print(f"wrote {path} ({spec.size[0]}x{spec.size[1]}, tilt {spec.tilt_deg:.1f} deg); "
          f"camera fx={k[0, 0]:.1f} fy={k[1, 1]:.1f} cx={k[0, 2]:.1f} cy={k[1, 2]:.1f}")
    return 0
