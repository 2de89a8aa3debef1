"""``c4pi markers``: write the printable marker sheet (SPEC.md §5), or the ChArUco
calibration board (``--charuco``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config

if TYPE_CHECKING:
    import numpy as np


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "markers", help="write the printable sheet of the four board markers",
        description="Write an A4 PNG (with its dpi recorded) holding the four AprilTag 36h11 "
                    "markers at true size for a board of the given hole pitch, with cut lines "
                    "and placement instructions. Print it at 100 percent (no scaling).")
    parser.add_argument("-o", "--output", required=True, metavar="FILE.png",
                        help="output PNG file")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--pitch-mm", type=float, metavar="N",
                      help="hole pitch of the board (centre to centre), in mm")
    what.add_argument("--charuco", action="store_true",
                      help="write the ChArUco board of `c4pi calibrate-camera` instead "
                           "(A4 landscape)")
    parser.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    parser.add_argument("--marker-size-pitch", type=float, default=None, metavar="F",
                        help="marker side in pitches (default: [vision] marker_size_pitch)")
    parser.set_defaults(func=run, needs=("camera",))


def run(args: argparse.Namespace, config: Config) -> int:
    from firmware_py.vision.sheet import marker_sheet

    output = Path(args.output)
    if output.suffix.lower() != ".png":
        print(f"c4pi markers: {output}: only PNG output is supported (use a .png name)",
              file=sys.stderr)
        return 2
    if args.charuco:
        return _write_charuco(output, args.dpi)
    size = args.marker_size_pitch or config.vision.marker_size_pitch
    return _write_sheet(lambda: marker_sheet(args.pitch_mm, size, args.dpi), output, args.dpi,
                        f"A4 at {args.dpi} dpi, pitch {args.pitch_mm:g} mm, "
                        f"markers {size * args.pitch_mm:.1f} mm")


def _write_charuco(output: Path, dpi: int) -> int:
    from firmware_py.vision.charuco import SQUARE_MM, SQUARES, charuco_sheet

    return _write_sheet(lambda: charuco_sheet(dpi), output, dpi,
                        f"ChArUco board {SQUARES[0]} x {SQUARES[1]} squares of {SQUARE_MM:g} "
                        f"mm, A4 landscape at {dpi} dpi; print at 100% and glue it flat")


def _write_sheet(make: Callable[[], np.ndarray], output: Path, dpi: int, summary: str) -> int:
    """Make a sheet (ValueError: exit 2) and write it as PNG (OSError: exit 1)."""
    from firmware_py.vision.sheet import png_bytes

    try:
        sheet = make()
    except ValueError as error:
        print(f"c4pi markers: {error}", file=sys.stderr)
        return 2
    try:
        output.write_bytes(png_bytes(sheet, dpi))
    except OSError as error:
        print(f"c4pi markers: cannot write {output}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {output}: {summary}")
    return 0
