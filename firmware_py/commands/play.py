"""``c4pi play``: a game against the appliance in the terminal, at a chosen level."""

from __future__ import annotations

import argparse
import random
import sys

from firmware_py.config import Config

DEFAULT_LEVEL = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play", help="play against the appliance in the terminal",
        description="Play a game against c4pi at a strength level from 1 (beginner) to 6 "
                    "(perfect). Type a column 1-7, h for a hint (the perfect move and the "
                    "outcome), u to take back your last move, q to quit. Works over SSH.")
    parser.add_argument("--level", type=int, default=DEFAULT_LEVEL, metavar="N",
                        help=f"strength 1-6 (default {DEFAULT_LEVEL}); 6 never loses a game "
                             f"it could draw or win")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--red", action="store_true", help="you play Red and move first (default)")
    side.add_argument("--yellow", action="store_true", help="you play Yellow; c4pi starts")
    parser.add_argument("--seed", type=int, default=None, help="seed of c4pi's choices")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from cython_solver import Solver
    from firmware_py.play.levels import level
    from firmware_py.play.session import PlaySession

    try:
        chosen = level(args.level)
    except ValueError as error:
        print(f"c4pi play: {error}", file=sys.stderr)
        return 2
    solver = Solver.from_config(config)
    session = PlaySession(chosen, "Y" if args.yellow else "R", solver.analyze,
                          random.Random(args.seed), colour=sys.stdout.isatty())
    print(session.start(), flush=True)
    while not session.over:
        try:
            line = input("> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        print(session.handle(line), flush=True)
    return 0
