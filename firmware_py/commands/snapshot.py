"""``c4pi snapshot``: one frame from the camera, optionally with what the reader saw on it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config
from firmware_py.vision.remedy import remedy

if TYPE_CHECKING:
    import numpy as np

    from firmware_py.frames import Frame, FrameSource

EX_NOINPUT = 66
LIVE_SETTLE_FRAMES = 10  # a live camera's exposure and white balance settle first


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "snapshot", help="save one camera frame, with the reader's findings drawn on it",
        description="Save one frame of the configured camera (or any source `watch` takes) "
                    "as an image. With --annotate, the markers found (ids), the fitted grid, "
                    "each cell's reading and confidence, and why the frame is not ok are "
                    "drawn on it: the aiming aid when setting the camera up over SSH. "
                    "Prints the reading's status; exits 0 when the image is written.")
    parser.add_argument("output", metavar="OUT.png", help="image to write (.png or .jpg)")
    parser.add_argument("--source", default=None, metavar="SRC",
                        help="camera, sim, usb:N, a picture, a video file or a folder of "
                             "images (default: [camera] source)")
    parser.add_argument("--annotate", action="store_true",
                        help="draw markers, grid, cell readings and the status")
    parser.add_argument("--frame", type=int, default=None, metavar="N",
                        help=f"take frame N of the source (default: {LIVE_SETTLE_FRAMES} "
                             f"for a live camera, else 0)")
    parser.set_defaults(func=run, needs=("camera",))


def run(args: argparse.Namespace, config: Config) -> int:
    import cv2

    from c4game.exc import CameraError, ModelError, VisionError
    from firmware_py.sources.picture import opencv_name

    try:
        output = Path(opencv_name(args.output))
    except CameraError as error:
        print(f"c4pi snapshot: {error}", file=sys.stderr)
        return 2
    if output.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        print(f"c4pi snapshot: {output}: use a .png or .jpg name", file=sys.stderr)
        return 2
    source_name = args.source or config.camera.source
    if _inside_source(output, Path(source_name)):
        print(f"c4pi snapshot: {output} is the source picture or lies in the source "
              "folder: write it elsewhere", file=sys.stderr)
        return 2
    if args.frame is not None and args.frame < 0:
        print("c4pi snapshot: --frame must be 0 or more", file=sys.stderr)
        return 2
    try:
        frame, source = grab_frame(source_name, config, args.frame)
        image = frame.image
        line = ""
        if args.annotate:
            image, line = annotated(frame.image, config, source)
    except CameraError as error:
        print(f"c4pi snapshot: {error}", file=sys.stderr)
        return EX_NOINPUT
    except (ModelError, VisionError) as error:  # no model; a frame too small to read
        print(f"c4pi snapshot: {error}", file=sys.stderr)
        return 2
    if not cv2.imwrite(str(output), image):
        print(f"c4pi snapshot: cannot write {output}", file=sys.stderr)
        return 1
    print(f"wrote {output} ({image.shape[1]}x{image.shape[0]})" + (f": {line}" if line else ""))
    return 0


def _inside_source(output: Path, source: Path) -> bool:
    """Whether writing ``output`` would overwrite the picture ``source`` or a picture
    of the folder ``source``."""
    if not source.exists():
        return False  # sim, camera, usb:N
    if source.is_dir():
        return output.resolve().parent == source.resolve()
    return output.exists() and output.samefile(source)  # links and ./ spellings too


def grab_frame(name: str, config: Config, index: int | None) -> tuple[Frame, FrameSource]:
    """Frame ``index`` of source ``name`` (opened and closed here), and the source."""
    from c4game.exc import CameraError
    from firmware_py.sources.factory import open_source

    source = open_source(name, config.camera, fast=True, strict_open=True)
    wanted = index if index is not None else (LIVE_SETTLE_FRAMES if source.live else 0)
    source.open()
    try:
        frame = source.read()
        for _ in range(wanted):
            if frame is None:
                break
            frame = source.read()
    finally:
        source.close()
    if frame is None:
        raise CameraError(f"source {name!r} ended before frame {wanted}")
    return frame, source


def annotated(image: np.ndarray, config: Config, source: FrameSource) -> tuple[np.ndarray, str]:
    """``image`` with the reader's findings drawn, and a one-line summary."""
    from firmware_py.pipeline.assemble import make_reader
    from firmware_py.vision.overlay import annotate

    reader = make_reader(config, source)
    analysis = reader.analyse(image)
    reading = analysis.reading
    summary = f"{reading.status}, {reading.markers} marker(s)"
    if reading.found:
        summary += f", found by its {reading.found_by}"
    if reading.grid is not None:
        summary += f", confidence {reading.confidence:.2f}"
    if reading.reason:
        summary += f" ({reading.reason})"
    if advice := remedy(reading.status, reading.reason):
        summary += f"; what to do: {advice}"
    return annotate(image, analysis, config.vision.min_cell_confidence), summary
