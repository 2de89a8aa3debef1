"""``c4pi render MOVES -o FILE``: render a synthetic camera frame of a position."""

from __future__ import annotations

import argparse
import sys

from firmware_py.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render", help="render a synthetic camera frame of a position",
        description="Render a realistic synthetic frame of the board in position MOVES "
                    "(digits 1-7; '' or - for the empty board), as a camera would see it. "
                    "Without pose options the view is frontal; --random draws pose, lighting "
                    "and colours from --seed. Without --seed the frame has no distractor "
                    "objects (a plain background, no loose discs): a scene `c4pi read` reads.")
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
        width, _, height = args.size.lower().partition("x")
        changes["size"] = (int(width), int(height))
    if args.hide_marker:
        changes["hide_markers"] = tuple(args.hide_marker)
    if args.no_board:
        changes["board_visible"] = False
    return changes


def _render(args: argparse.Namespace, config: Config, position: object) -> tuple:
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
    return render_frame(position, spec, seed=seed), spec, camera_matrix(spec)


def run(args: argparse.Namespace, config: Config) -> int:
    import cv2

    from c4game.exc import PositionError

    try:
        position = args.grid.split("/") if args.grid else ("" if args.moves == "-"
                                                           else args.moves)
        frame, spec, k = _render(args, config, position)
    except (ValueError, PositionError) as error:
        print(f"c4pi render: {error}", file=sys.stderr)
        return 2
    if not cv2.imwrite(args.output, frame):
        print(f"c4pi render: cannot write {args.output!r}", file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({spec.size[0]}x{spec.size[1]}, tilt {spec.tilt_deg:.1f} deg); "
          f"camera fx={k[0, 0]:.1f} fy={k[1, 1]:.1f} cx={k[0, 2]:.1f} cy={k[1, 2]:.1f}")
    return 0
