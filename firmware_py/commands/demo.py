"""``c4pi demo``: the appliance on a simulated camera and a pseudo-terminal serial port."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_py.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run the whole appliance on a simulated camera (any Linux machine)",
        description="Run the appliance with the built-in simulated camera playing games, the "
                    "serial robot service on a pseudo-terminal (the path and a `c4pi client` "
                    "command to try are printed), speech on the speaker if there is one, "
                    "else into a WAV file, and one line per move in the terminal (in "
                    "opponent mode, the column c4pi plays).")
    parser.add_argument("--seed", type=int, default=None, help="random seed of the games")
    parser.add_argument("--fps", type=float, default=None, help="simulated frame rate")
    parser.add_argument("--wav", type=Path, default=Path("c4pi-demo.wav"),
                        help="where speech goes when there is no speaker "
                             "(default c4pi-demo.wav)")
    parser.add_argument("--mode", choices=("coach", "opponent"), default=None,
                        help="coach: say the best move for both sides (default: [play] mode); "
                             "opponent: c4pi plays one colour ([play] colour) against the "
                             "simulated person")
    parser.add_argument("--level", type=int, choices=range(1, 7), metavar="1-6",
                        help="the opponent's strength (default: [play] level)")
    parser.add_argument("--port", type=int, default=None, metavar="N",
                        help="the screen's port (default: [hud] port, 8080), e.g. for a "
                             "second demo beside another c4pi")
    parser.set_defaults(func=run, needs=("camera", "speech", "screen"))


def run(args: argparse.Namespace, config: Config) -> int:
    from dataclasses import replace

    from firmware_py.appliance.demo import run_demo

    if args.port is not None:
        if not 1 <= args.port <= 65535:
            print(f"c4pi demo: --port must be 1-65535, got {args.port}", file=sys.stderr)
            return 2
        # a second demo beside another c4pi: the page only (the other holds the screen's)
        config = replace(config, hud=replace(config.hud, port=args.port, kiosk_port=0))
    from firmware_py.appliance.process import exit_after_stop

    return exit_after_stop(run_demo(config, seed=args.seed, fps=args.fps, wav_path=args.wav,
                                    out=sys.stdout, mode=args.mode, level=args.level))
