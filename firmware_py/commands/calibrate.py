"""``c4pi calibrate``: teach this installation's hole looks the empty board in this room's light."""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config

if TYPE_CHECKING:
    import numpy as np

    from firmware_py.vision.hole_looks import HoleLooks

EX_NOINPUT = 66
MAX_FRAMES = 60  # frames to look at before giving up
DISC_WAIT_S = 120  # seconds to wait for both calibration discs
SIM_DISC_MOVES = "34"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="learn the empty board of this installation (take the discs out)",
        description="Read the empty board from the camera over a few frames and teach each "
                    "hole's empty look to this installation's hole looks, with the time and "
                    "where the grid is in the picture ([vision] empty_board_file). The reader "
                    "then knows from the start what an empty hole shows in this room (a red "
                    "wall, a yellow cushion), and "
                    "`c4pi selftest` tells when this was done and whether the camera has "
                    "moved since. What it learnt from games before is kept (--force "
                    "forgets it). Take every disc out first. Stop the service first if it "
                    "holds the camera: sudo systemctl stop c4pi.")
    parser.add_argument("--source", default=None, metavar="SRC",
                        help="camera, sim, usb:N, a video file or a folder of images "
                             "(default: [camera] source)")
    parser.add_argument("--out", default=None, metavar="FILE.json",
                        help="where to store it (default: [vision] empty_board_file)")
    parser.add_argument("--discs", action="store_true",
                        help="then measure this set's discs: when asked, drop one red disc, "
                             "then one yellow disc, into any column (for discs paler or more "
                             "orange, pink or lilac than common ones)")
    parser.add_argument("--force", action="store_true",
                        help="the board is empty: learn what every hole shows even where the "
                             "readers take the room behind the board (a red wall, a yellow "
                             "cushion) for a disc, and forget the looks learnt before. Only "
                             "with every disc out: a disc left in would later be read as an "
                             "empty hole")
    parser.set_defaults(func=run, needs=("camera",))


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import CameraError, ModelError, VisionError, excerpt
    from firmware_py.vision.calibrate import hole_looks_path

    path = (Path(args.out).expanduser() if args.out
            else hole_looks_path(config.vision.empty_board_file))
    try:
        is_dir = path.is_dir()
    except OSError as error:  # a name too long
        print(f"c4pi calibrate: cannot use {excerpt(str(path))}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    if is_dir:
        print(f"c4pi calibrate: {path} is a folder: give a file (--out FILE.json)",
              file=sys.stderr)
        return 2
    try:
        before = _learnt_before(path)
        games = before.boards if before is not None and not args.force else 0
        if before is not None and args.force:
            before.forget()  # the looks learnt before; this set's disc colours stay
        looks = _calibrate(args.source or config.camera.source, config, args.discs,
                           force=args.force, looks=before)
    except CameraError as error:
        print(f"c4pi calibrate: {error}", file=sys.stderr)
        return EX_NOINPUT
    except (ModelError, VisionError) as error:
        print(f"c4pi calibrate: {error} (nothing stored)", file=sys.stderr)
        return 3
    try:
        looks.save(path)
    except OSError as error:
        hint = (" (run it as the service's user: sudo -u c4pi c4pi calibrate, or give --out)"
                if error.errno in (errno.EACCES, errno.EPERM) else "")
        print(f"c4pi calibrate: cannot write {path}: {error.strerror or error}{hint}",
              file=sys.stderr)
        return 1
    what = "the empty board and the disc colours" if args.discs else "the empty board"
    kept = "; the looks learnt before forgotten" if args.force and before is not None else ""
    if looks.lattice is not None:
        kept = f"; the positions of its holes stored too (the appliance starts from them){kept}"
    if games and not looks.boards:  # teach() forgot them: the grid stands elsewhere now
        kept = (f"; the camera or the board has moved since: the looks learnt from {games} "
                f"positions are forgotten")
    print(f"taught {what} to the hole looks in {path} ({looks.calibrated_at}){kept}")
    used = hole_looks_path(config.vision.empty_board_file)
    if path.resolve() != used.resolve():
        print(f"c4pi calibrate: note: the appliance reads its hole looks from {used}; set "
              f"[vision] empty_board_file = \"{path.resolve()}\" to use these",
              file=sys.stderr)
    return 0


def _learnt_before(path: Path) -> HoleLooks | None:
    """The hole looks stored at ``path`` (or an earlier version's files), None if none;
    a bad file is said and learnt afresh."""
    from c4game.exc import VisionError
    from firmware_py.vision.hole_looks import load_hole_looks

    try:
        return load_hole_looks(path)
    except VisionError as error:
        print(f"c4pi calibrate: {error}: learning them afresh", file=sys.stderr)
        return None


def _calibrate(name: str, config: Config, discs: bool, *, force: bool = False,
               looks: HoleLooks | None = None) -> HoleLooks:
    from firmware_py.pipeline.assemble import make_reader
    from firmware_py.sources.factory import open_source
    from firmware_py.vision.calibrate import calibrate_discs, calibrate_empty_board

    # the simulated camera plays the owner: an empty board, then a red and a yellow disc
    source = open_source(name, config.camera, fast=True, strict_open=True,
                         moves=SIM_DISC_MOVES if discs else "")
    source.open()
    try:
        reader = make_reader(config, source, stored_looks=False)

        def frames(count: int) -> Iterator[np.ndarray]:
            for _ in range(count):
                frame = source.read()
                if frame is None:
                    return
                yield frame.image

        looks = calibrate_empty_board(
            reader, frames(MAX_FRAMES), owner_says_empty=force, looks=looks,
            warn=lambda text: print(f"c4pi calibrate: warning: {text}", file=sys.stderr))
        if discs:
            max_frames = int(DISC_WAIT_S * max(config.camera.fps, 1))
            calibrate_discs(reader, frames(max_frames), looks,
                            lambda text: print(f"now {text}", flush=True))
        return looks
    finally:
        source.close()
