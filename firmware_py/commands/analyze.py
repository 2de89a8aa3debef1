"""``c4pi analyze MOVES``: the score of every column."""

from __future__ import annotations

import argparse
import json

from c4game.exc import PositionError
from firmware_py.commands.solve import EX_USAGE, add_solver_flags, solver_from_flags
from firmware_py.config import Config
from firmware_py.failure import fail


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyze", help="print the score of playing each column",
        description="Print the SPEC §2 score of each column 1-7 for the side to move "
                    "(- for a full column), then the best columns. Exit 2 with one line of "
                    "explanation for an invalid position.")
    parser.add_argument("moves", metavar="MOVES", help='the moves so far, e.g. 4453 ("" = empty)')
    parser.add_argument("--json", action="store_true",
                        help='print {"moves", "scores", "best", "score", "plies", "ms", "nodes"}')
    add_first_flag(parser)
    add_solver_flags(parser)
    parser.set_defaults(func=run)


def add_first_flag(parser: argparse.ArgumentParser) -> None:
    """``--first red|yellow``: the colour of MOVES' first disc (SPEC §1)."""
    parser.add_argument("--first", choices=("red", "yellow"),
                        help="the colour that moved first, for the colours named (default: "
                             'yellow when [game] first = "yellow", else red)')


def first_colour(args: argparse.Namespace, config: Config) -> str:
    """"R" or "Y": the colour that played the first of the moves (``--first``, else the
    config's ``[game] first`` when it is "yellow", else Red)."""
    choice = args.first or ("yellow" if config.game.first == "yellow" else "red")
    return "Y" if choice == "yellow" else "R"


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.board import COLOUR_NAMES, Board
    from c4game.scores import verdict

    solver = solver_from_flags(args, config)
    try:  # the board first, so that an error names the colours as they were played
        Board.from_moves(args.moves, first_colour(args, config)).require_playable()
        answer = solver.best(args.moves, scores=True)
    except PositionError as error:
        return fail(args, str(error), EX_USAGE)
    if args.json:
        print(json.dumps({"moves": args.moves, "scores": list(answer.scores),
                          "best": list(answer.best_columns), "score": answer.score,
                          "plies": answer.plies, "ms": round(answer.ms, 3),
                          "nodes": answer.nodes}))
        return 0
    print("column " + " ".join(f"{col:>3}" for col in range(1, 8)))
    print("score  " + " ".join("  -" if s is None else f"{s:>3}" for s in answer.scores))
    board = Board.from_moves(args.moves, first_colour(args, config))
    mover = COLOUR_NAMES[board.to_move]
    print(f"(each column's score for {mover}, who moves: above 0 wins, the higher the "
          f"sooner; below 0 loses, "
          f"the lower the sooner it loses; 0 draw; - full)")
    best = ", ".join(str(col) for col in answer.best_columns)
    print(f"best: {best} ({verdict(board, answer.score, answer.plies)}; score "
          f"{answer.score:+d}, {answer.nodes} nodes, {answer.ms:.1f} ms)")
    return 0
