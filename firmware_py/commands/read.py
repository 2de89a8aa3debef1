"""``c4pi read IMAGE``: read one camera frame (SPEC.md §6)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from firmware_py.config import Config
from firmware_py.json_types import JsonObject

if TYPE_CHECKING:
    import numpy as np

    from firmware_py.vision.reading import Reading

EXIT_OK = 0
EXIT_NOT_OK = 3
EXIT_BAD_INPUT = 2
EXIT_MODEL = 1
CONFIDENCE_MEANS = (
    "The JSON's confidence is not a per-hole score: it is the share of the board read "
    "against the next most probable legal board, P(read) / (P(read) + P(runner-up)), the "
    "42 holes' probabilities taken as independent. A board is read only when it is "
    "e^accept_margin times as probable as the runner-up, so ok and finished readings "
    "show at least 1 / (1 + e^-accept_margin): 0.92 with the default [vision] "
    "accept_margin 2.5. A refused reading shows less: below 0.92 when two legal boards "
    "are too close, below 0.5 when the grid seen breaks the rules (a board is read only "
    "as it is seen; then it is the best legal board's share against that grid: 0.02 means "
    "the camera clearly shows an illegal grid), 0 when no legal board or no board at all "
    "is found.")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "read", help="read a Connect Four board from one image",
        description="Read one camera frame (any format OpenCV reads) and print the grid "
                    "(6 lines, top row first). The picture is read alone, as a new "
                    "installation would read it: nothing this installation learnt (c4pi "
                    "calibrate, the games followed) is used; c4pi snapshot reads with it. "
                    "Exit 0 when the reading is ok, 3 otherwise "
                    "(no-board, invalid, finished); 2 when the image cannot be read. "
                    + CONFIDENCE_MEANS)
    parser.add_argument("image", metavar="IMAGE",
                        help="image file, or - for a picture piped in (rpicam-still -o - | "
                             "c4pi read -)")
    parser.add_argument("--json", action="store_true",
                        help='print {"status", "grid", "moves_to_play", "markers", "confidence", '
                             '"found_by", "reason"} (moves_to_play: whose turn it is, "R" or '
                             '"Y", on an ok reading, else null; an empty board gives "R" even '
                             'where [game] first lets either colour start; confidence: see '
                             'above; found_by: "markers" or "holes", what found the board, or '
                             'null; reason: why the reading is not ok, as the screen says it, '
                             'or null)')
    parser.set_defaults(func=run, needs=("camera",))


def reading_json(reading: Reading) -> JsonObject:
    """The SPEC §6 JSON object of a reading, how the board was found (``found_by``:
    "markers", "holes", or null when it was not) and why it is not ok (``reason``, or
    null when it is)."""
    to_move = reading.board.to_move if reading.status == "ok" and reading.board else None
    return {
        "status": reading.status,
        "grid": list(reading.grid) if reading.grid is not None else None,
        "moves_to_play": to_move,
        "markers": reading.markers,
        "confidence": round(float(reading.confidence), 4),
        "found_by": reading.found_by if reading.found else None,  # markers, holes
        "reason": (reading.reason or None) if reading.status != "ok" else None,
    }


def _piped_picture() -> np.ndarray:
    """The picture on standard input; :class:`CameraError` where none is piped in."""
    from c4game.exc import CameraError
    from firmware_py.sources.picture import read_picture_stream

    if sys.stdin is None or sys.stdin.isatty():
        raise CameraError("cannot read image from standard input: it is a terminal (pipe a "
                          "picture in: rpicam-still -o - | c4pi read -)")
    return read_picture_stream(sys.stdin.buffer)


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import CameraError, ModelError, VisionError
    from firmware_py.failure import fail
    from firmware_py.sources.picture import read_picture
    from firmware_py.vision.reader import BoardReader

    try:
        frame = read_picture(args.image) if args.image != "-" else _piped_picture()
    except CameraError as error:
        return fail(args, str(error), EXIT_BAD_INPUT)
    try:
        reader = BoardReader.from_config(config.vision, config.camera, first=config.game.first)
    except ModelError as error:
        return fail(args, str(error), EXIT_MODEL)
    try:
        reading = reader.read(frame)
    except VisionError as error:  # a frame it cannot read at all (too small)
        return fail(args, f"{args.image}: {error}", EXIT_BAD_INPUT)
    if args.json:
        print(json.dumps(reading_json(reading)))
    elif reading.grid is not None:
        print("\n".join(reading.grid))
    if reading.status != "ok":
        print(f"c4pi read: {reading.status}: {reading.reason}", file=sys.stderr)
        return EXIT_NOT_OK
    return EXIT_OK
