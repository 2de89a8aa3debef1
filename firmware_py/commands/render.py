"""``c4pi render MOVES -o FILE``: render a synthetic camera frame of a position."""

from __future__ import annotations

import argparse
import functools
from typing import TYPE_CHECKING

from firmware_py.config import Config
from firmware_py.simtable.frame_file import (
    add_position_arguments,
    position_of,
    size_of,
    write_frame,
)

if TYPE_CHECKING:
    from firmware_py.simtable.frame_file import Drawn


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render", help="render a synthetic camera frame of a position",
        description="Render a realistic synthetic frame of the board in position MOVES "
                    "(digits 1-7; '' or - for the empty board), as a camera would see it. "
                    "Without pose options the view is frontal; --random draws pose, lighting "
                    "and colours from --seed. Without --seed the frame has no distractor "
                    "objects (a plain background, no loose discs): a scene `c4pi read` reads.")
    add_position_arguments(parser)
    pose = parser.add_argument_group("pose and camera (override --random)")
    for name, unit in (("yaw", "deg"), ("pitch", "deg"), ("roll", "deg"), ("fov", "deg"),
                       ("distance", "board widths"), ("offset-x", "frame fraction"),
                       ("offset-y", "frame fraction"), ("noise", "grey levels"),
                       ("blur", "px sigma"), ("light", "gain"), ("glare", "0-1"),
                       ("shadow", "0-1")):
        pose.add_argument(f"--{name}", type=float, default=None, help=unit)
    pose.add_argument("--jpeg", type=int, default=None, metavar="Q", help="JPEG quality")
    pose.add_argument("--size", default=None, metavar="WxH", help="frame size (1280x720)")
    pose.add_argument("--hide-marker", type=int, action="append", default=[], metavar="ID",
                      help="cover marker ID (0-3) with a hand; repeatable")
    pose.add_argument("--no-board", action="store_true", help="render the background only")
    parser.set_defaults(func=run, needs=("camera",))


_FIELDS = {"yaw": "yaw_deg", "pitch": "pitch_deg", "roll": "roll_deg", "fov": "fov_deg",
           "distance": "distance", "noise": "noise_sigma", "blur": "blur_sigma",
           "light": "light_gain", "glare": "glare", "shadow": "shadow", "jpeg": "jpeg_quality"}


def _overrides(args: argparse.Namespace, config: Config) -> dict:
    changes: dict = {"marker_size_pitch": config.vision.marker_size_pitch}
    for option, field in _FIELDS.items():
        value = getattr(args, option)
        if value is not None:
            changes[field] = value
    if args.offset_x is not None or args.offset_y is not None:
        changes["offset"] = (args.offset_x or 0.0, args.offset_y or 0.0)
    if args.size:
        changes["size"] = size_of(args.size)
    if args.hide_marker:
        changes["hide_markers"] = tuple(args.hide_marker)
    if args.no_board:
        changes["board_visible"] = False
    return changes


def _render(args: argparse.Namespace, config: Config) -> Drawn:
    """The frame, its spec and its camera matrix."""
    import numpy as np

    from firmware_py.simtable.render import RenderSpec, camera_matrix, render_frame

    changes = _overrides(args, config)
    seed = 0 if args.seed is None else args.seed
    if args.seed is None:  # the plain scene: no objects a newcomer's first read trips on
        changes["clutter"] = 0
    if args.random:
        spec = RenderSpec.random(np.random.default_rng(seed), **changes)
    else:
        spec = RenderSpec(**changes)
    return render_frame(position_of(args), spec, seed=seed), spec, camera_matrix(spec)


def run(args: argparse.Namespace, config: Config) -> int:
    return write_frame("c4pi render", args.output, functools.partial(_render, args, config))
