"""``c4pi play``: a game against the appliance in the terminal, at a chosen level."""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import TYPE_CHECKING

from firmware_py.config import Config, PlayConfig

if TYPE_CHECKING:
    from firmware_py.play.session import PlaySession



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play", help="play against the appliance in the terminal",
        description="Play a game against c4pi at a strength level from 1 (beginner) to 6 "
                    "(perfect), as Red or Yellow, you or c4pi starting. Type a column 1-7, h "
                    "for a hint (the perfect move and the outcome), u to take back your last "
                    "move, q to quit. After a game, y starts another. Works over SSH; "
                    "NO_COLOR=1 turns the coloured discs off.")
    parser.add_argument("--level", type=int, default=None, metavar="N",
                        help=f"strength 1-6 (default: [play] level, {PlayConfig().level}, as "
                             "on the screen's play page); 6 never loses a game it could draw "
                             "or win")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--red", action="store_true", help="you play Red (default)")
    side.add_argument("--yellow", action="store_true", help="you play Yellow")
    parser.add_argument("--first", choices=("red", "yellow"), default=None,
                        help="the colour that moves first (default: the one [game] first "
                             "names, Red when it is 'either'; a fixed [game] first cannot be "
                             "changed here)")
    parser.add_argument("--seed", type=int, default=None, help="seed of c4pi's choices")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from cython_solver import Solver
    from firmware_py.play.levels import level
    from firmware_py.play.session import PlaySession, starting_colour

    try:
        chosen = level(args.level if args.level is not None else config.play.level)
        first = starting_colour(config.game.first, args.first)
    except ValueError as error:
        print(f"c4pi play: {error}", file=sys.stderr)
        return 2
    solver = Solver.from_config(config.solver)
    rng = random.Random(args.seed)
    while True:
        session = PlaySession(chosen, "Y" if args.yellow else "R", solver.analyze, rng,
                              first=first, colour=coloured())
        if not play_game(session) or not again():
            return 0


def coloured() -> bool:
    """Coloured discs: on a terminal, unless NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def play_game(session: PlaySession) -> bool:
    """Play ``session`` on stdin/stdout; True when the game was played to its end (not
    quit with q, end of input or Ctrl-C)."""
    print(session.start(), flush=True)
    while not session.over:
        line = ask("> ")
        if line is None:
            return False
        print(session.handle(line), flush=True)
    return session.board.is_finished


def again() -> bool:
    """"Play again? (y/n)": True for y; n, q and the end of input say no."""
    while True:
        answer = ask("Play again? (y/n) ")
        if answer is None:
            return False
        answer = answer.strip().lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no", "q", "quit"):
            print("Bye.", flush=True)
            return False
        print("Type y for another game, n to stop.", flush=True)


def ask(prompt: str) -> str | None:
    """A line typed after ``prompt``; None at the end of input or on Ctrl-C."""
    try:
        return input(prompt)
    except (EOFError, KeyboardInterrupt):
        print("\nBye.", flush=True)
        return None
