"""``c4pi bench FILE…``: time the solver on test-set files (``MOVES SCORE`` lines)."""

from __future__ import annotations

import argparse
import json

from firmware_py.commands.solve import add_solver_flags, solver_from_flags
from firmware_py.config import Config
from firmware_py.failure import fail


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench", help="time the solver on test-set files",
        description="Solve every position of each file (lines 'MOVES SCORE') and report, per "
                    "file: positions, mean and worst search time, the mean and worst time of "
                    "the full best-move answer (all 7 columns), mean nodes, thousands of "
                    "nodes per second and mismatches against the file's scores. The "
                    "transposition table is cleared before each position unless --keep-tt.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="test-set files")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N positions")
    parser.add_argument("--json", action="store_true", help="print one JSON object per file")
    parser.add_argument("--keep-tt", action="store_true",
                        help="keep the transposition table between positions")
    parser.add_argument("--repeat", type=int, default=1, metavar="R",
                        help="solve each position R times and count its fastest time "
                             "(robust on a busy machine; default 1)")
    parser.add_argument("--no-answer", action="store_true",
                        help="skip the timing of the full best-move answer")
    parser.add_argument("--peer", choices=("bitbully",),
                        help="also run the PyPI bitbully solver (optional 'bench' extra) on "
                             "the same positions and print the time ratio")
    add_solver_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from cython_solver.benchmark import BenchError, bench_file, format_row, peer_bench

    if (args.limit is not None and args.limit < 1) or args.repeat < 1:
        return fail(args, "--limit and --repeat must be at least 1", 2)
    solver = solver_from_flags(args, config)
    if not args.json:
        print(f"# solver: {solver.tt_mb} MB table, {solver.book_status}; "
              f"table {'kept' if args.keep_tt else 'cleared'} between positions"
              + (f"; fastest of {args.repeat} runs per position" if args.repeat > 1 else ""))
        print(format_row(None))
    status = 0
    for path in args.files:
        try:
            result = bench_file(solver, path, limit=args.limit, keep_tt=args.keep_tt,
                                answers=not args.no_answer, repeat=args.repeat)
            peer = peer_bench(path, args.limit, not args.no_book) if args.peer else None
        except BenchError as error:
            return fail(args, str(error), 2)
        if result.mismatches:
            status = 1
        if args.json:
            row = result.as_dict()
            if peer is not None:
                row["peer"] = peer
            print(json.dumps(row))
        else:
            print(format_row(result))
            if peer is not None:
                ratio = peer["mean_ms"] / result.mean_ms if result.mean_ms else float("nan")
                print(f"#   bitbully {peer['version']}: mean {peer['mean_ms']:.4f} ms, "
                      f"mismatches {peer['mismatches']}; bitbully/c4pi time ratio {ratio:.2f}")
            for moves, expected, got in result.wrong[:10]:
                print(f"#   MISMATCH {moves}: file says {expected}, solver says {got}")
    return status
