"""``c4pi solve MOVES``: the best move for a position (SPEC §6)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from c4game.exc import PositionError
from firmware_py.config import Config
from firmware_py.failure import fail

if TYPE_CHECKING:
    from cython_solver import Solver

EX_USAGE = 2


def add_solver_flags(parser: argparse.ArgumentParser) -> None:
    """``--no-book`` and ``--tt-mb``, shared by the solver commands."""
    parser.add_argument("--no-book", action="store_true", help="search without the opening book")
    parser.add_argument("--tt-mb", type=_table_mb, metavar="MB",
                        help="transposition table size in MB, 8 to 4096, or 0 to size it "
                             "from the memory available (default: [solver] tt_mb)")


def _table_mb(text: str) -> int:
    """``--tt-mb``'s value, as ``[solver] tt_mb`` takes it: 0, or 8 to 4096."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not (value == 0 or 8 <= value <= 4096):
        raise argparse.ArgumentTypeError(f"must be 0 (sized from the memory available) "
                                         f"or from 8 to 4096, got {value}")
    return value


def solver_from_flags(args: argparse.Namespace, config: Config) -> Solver:
    """The solver ``[solver]`` describes, with :func:`add_solver_flags`' overrides: the
    one set-up of ``solve``, ``analyze``, ``say`` and ``bench`` (a
    :class:`~c4game.exc.SolverError` when the solver was never built)."""
    from c4game.exc import SolverError

    try:
        from cython_solver import Solver
    except ImportError as error:
        raise SolverError(f"the solver is not built ({error}); run ./setup.sh") from None

    return Solver.from_config(config.solver, use_book=False if args.no_book else None,
                              tt_mb=args.tt_mb)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "solve", help="print the best move for a position as the robot answer NxMM",
        description="Solve a position given as its moves (digits 1-7, the first player's "
                    "first; colour-free, SPEC §1) and print "
                    "the serial answer NxMM: column, +/-/= for the side to move, plies left "
                    "after the disc. Exit 2 with one line of explanation for an invalid "
                    "position.")
    parser.add_argument("moves", metavar="MOVES", help='the moves so far, e.g. 4453 ("" = empty)')
    parser.add_argument("--json", action="store_true",
                        help='print {"moves", "score", "best", "scores", "plies", "ms"}; '
                             '"plies" counts the discs to the end with this one (the '
                             'NxMM answer counts those after it: 3-35 is plies 36)')
    add_solver_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.board import Board

    solver = solver_from_flags(args, config)
    try:  # the moves are colour-free; an error names the colours as [game] first has them
        Board.from_moves(args.moves, "Y" if config.game.first == "yellow" else "R"
                         ).require_playable()
        answer = solver.best(args.moves, tie_break=config.solver.tie_break, scores=args.json)
    except PositionError as error:
        return fail(args, str(error), EX_USAGE)
    if args.json:
        print(json.dumps({"moves": args.moves, "score": answer.score,
                          "best": list(answer.best_columns), "scores": list(answer.scores),
                          "plies": answer.plies, "ms": round(answer.ms, 3)}))
    else:
        print(answer.serial)
    return 0
