"""``c4pi calibrate-camera``: intrinsics of any camera from views of the ChArUco board."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config

if TYPE_CHECKING:
    import numpy as np

EX_NOINPUT = 66
MIN_MOVE_PX = 40.0  # a live view counts only when the board moved this far since the last


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate-camera", help="calibrate a camera with the printed ChArUco board",
        description="Find a camera's intrinsics (fx, fy, cx, cy, distortion) with OpenCV's "
                    "ChArUco calibration. Print the board with `c4pi markers --charuco -o "
                    "board.png`, glue it flat, and show it to the camera from different "
                    "angles (up to about 45 degrees) and places in the picture. Prints the "
                    "[camera] lines to put in the config, and the reprojection error. The Pi "
                    "camera modules need none of this: c4pi knows their intrinsics.")
    parser.add_argument("--source", default=None, metavar="SRC",
                        help="camera, usb:N, a video file or a folder of images "
                             "(default: [camera] source)")
    parser.add_argument("--views", type=int, default=15, metavar="N",
                        help="views to collect from a live camera (default 15)")
    parser.add_argument("--timeout", type=float, default=180.0, metavar="S",
                        help="give up on a live camera after S seconds (default 180)")
    parser.add_argument("-o", "--output", metavar="FILE.toml",
                        help="also write the [camera] lines to this file")
    parser.set_defaults(func=run, needs=("camera",))


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import CameraError, VisionError
    from firmware_py.vision.charuco import calibrate

    if args.views < 1:
        print("c4pi calibrate-camera: --views must be at least 1", file=sys.stderr)
        return 2
    try:
        views = collect_views(args.source or config.camera.source, config, args.views,
                              args.timeout)
        result = calibrate(views)
    except CameraError as error:
        print(f"c4pi calibrate-camera: {error}", file=sys.stderr)
        return EX_NOINPUT
    except VisionError as error:
        print(f"c4pi calibrate-camera: {error}", file=sys.stderr)
        return 3
    snippet = result.config_snippet()
    print(snippet, end="")
    if args.output:
        try:
            Path(args.output).write_text(snippet, encoding="utf-8")
        except OSError as error:
            print(f"c4pi calibrate-camera: cannot write {args.output}: {error.strerror}",
                  file=sys.stderr)
            return 1
    if result.rms_px > 1.0:
        print(f"c4pi calibrate-camera: RMS error {result.rms_px:.2f} px is high (blurred or "
              f"bent board?); values above 1 px are doubtful", file=sys.stderr)
    return 0


def collect_views(name: str, config: Config, wanted: int, timeout_s: float) -> list[np.ndarray]:
    """Frames to calibrate from: all of a file or folder; of a live camera, ``wanted``
    frames showing the board, each moved since the last."""
    import cv2
    import numpy as np

    from firmware_py.sources.factory import open_source
    from firmware_py.vision.charuco import board_points, charuco_board

    source = open_source(name, config.camera, strict_open=True)
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    views: list[np.ndarray] = []
    last: np.ndarray | None = None
    deadline = time.monotonic() + timeout_s
    source.open()
    try:
        while not source.live or (len(views) < wanted and time.monotonic() < deadline):
            frame = source.read()
            if frame is None:
                break
            if not source.live:
                views.append(frame.image)
                continue
            found = board_points(frame.image, detector, board)
            if found is None:
                continue
            centre = found[1].mean(axis=0)
            if last is None or float(np.linalg.norm(centre - last)) >= MIN_MOVE_PX:
                views.append(frame.image)
                last = centre
                print(f"view {len(views)} of {wanted}: {len(found[1])} corners", file=sys.stderr)
    finally:
        source.close()
    return views
