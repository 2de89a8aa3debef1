"""``c4pi book build|verify|info``: the 12-disc opening book."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from firmware_py.config import Config, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "book", help="build, check or describe the opening book",
        description="The opening book holds the exact score of 4,200,899 positions with 12 "
                    "discs, converted from the PyPI package bitbully-databases.")
    actions = parser.add_subparsers(dest="book_action", metavar="ACTION", required=True)

    build = actions.add_parser("build", help="convert bitbully-databases into our format")
    build.add_argument("--if-missing", action="store_true",
                       help="do nothing when a valid, current book is already there")
    build.add_argument("--out", metavar="PATH", help="book file (default: [solver] book)")
    build.set_defaults(func=run_build)

    verify = actions.add_parser(
        "verify", help="check book entries against our own search without the book",
        description="Prove each sampled entry with two null-window searches; print a "
                    "books/corrections.txt line for every wrong entry (exit 1 if any).")
    verify.add_argument("--sample", type=int, metavar="N",
                        help="check N random entries (default: all 4.2 million)")
    verify.add_argument("--seed", type=int, default=1, help="sample seed (default 1)")
    verify.add_argument("--jobs", type=int, metavar="J", help="processes (default: all cores)")
    verify.add_argument("--tt-mb", type=int, default=16, metavar="MB",
                        help="table size per process (default 16)")
    verify.add_argument("--book", metavar="PATH", help="book file (default: [solver] book)")
    verify.set_defaults(func=run_verify)

    info = actions.add_parser("info", help="check the book file and print its header")
    info.add_argument("--book", metavar="PATH", help="book file (default: [solver] book)")
    info.set_defaults(func=run_info)


def _book_path(explicit: str | None, config: Config) -> Path:
    return Path(explicit) if explicit else resolve_path(config.solver.book)


class ProgressBar:
    """A one-line progress bar on stderr (plain lines when not a terminal)."""

    def __init__(self, label: str, width: int = 30) -> None:
        self.label = label
        self.width = width
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.last_line = -1.0

    def update(self, done: float, total: float, note: str = "") -> None:
        fraction = done / total if total else 1.0
        elapsed = time.perf_counter() - self.start
        eta = elapsed / fraction - elapsed if fraction > 0 else 0.0
        filled = int(self.width * fraction)
        text = (f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
                f"{100 * fraction:5.1f}% {elapsed:6.1f}s ETA {eta:6.1f}s {note}")
        if self.tty:
            print("\r" + text, end="", file=sys.stderr, flush=True)
            if fraction >= 1.0:
                print(file=sys.stderr)
        elif fraction >= 1.0 or elapsed - self.last_line >= 10.0:
            self.last_line = elapsed
            print(text, file=sys.stderr, flush=True)


def run_build(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import BookError
    from c4game.files import replaceable
    from cython_solver.bookbuild import build_book, up_to_date

    out = _book_path(args.out, config)
    if args.if_missing:
        reason = up_to_date(out)
        if reason is None:
            print(f"book {out} is valid and current: nothing to do")
            return 0
        print(f"building the opening book {out}" if not out.exists()
              else f"rebuilding {out}: {reason}")
    try:
        replaceable(out)  # said now, not after minutes of building
    except OSError as error:
        return _cannot_write(out, error)
    bar = ProgressBar("book build")
    steps = {"read": (0.0, 0.02), "convert": (0.02, 0.3), "shallow": (0.32, 0.63),
             "write": (0.95, 0.05)}
    try:
        book = build_book(out, progress=lambda step, f: bar.update(
            steps[step][0] + steps[step][1] * f, 1.0, step))
    except BookError as error:
        print(f"c4pi book build: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        return _cannot_write(out, error)
    bar.update(1.0, 1.0, "done")
    print(book.describe())
    return 0


def _cannot_write(out: Path, error: OSError) -> int:
    print(f"c4pi book build: cannot write {out}: {error.strerror or error}", file=sys.stderr)
    return 1


def run_verify(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import BookError
    from cython_solver.book import BookFile
    from cython_solver.bookbuild import default_jobs
    from cython_solver.verify import sample_positions, verify_book

    if args.sample is not None and args.sample < 1:
        print("c4pi book verify: --sample must be at least 1", file=sys.stderr)
        return 2
    try:
        book = BookFile(_book_path(args.book, config))
    except BookError as error:
        print(f"c4pi book verify: {error}", file=sys.stderr)
        return 1
    positions = sample_positions(book.count, args.sample, args.seed)
    jobs = args.jobs or default_jobs()
    bar = ProgressBar("book verify")
    report = verify_book(book, positions, jobs=jobs, tt_mb=args.tt_mb,
                         progress=lambda done, total: bar.update(done, total, f"{done}/{total}"),
                         found=lambda m: print(f"# wrong: {m.correction_line()}", flush=True))
    rate = report.checked / report.seconds if report.seconds else 0.0
    print(f"checked {report.checked} of {book.count} entries (seed {args.seed}, {jobs} "
          f"processes, {report.seconds:.1f} s, {rate:.1f} entries/s): "
          f"{len(report.mismatches)} wrong")
    for mismatch in report.mismatches:
        print(mismatch.correction_line())
    return 1 if report.mismatches else 0


def run_info(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import BookError
    from cython_solver.book import BookFile

    path = _book_path(args.book, config)
    try:
        book = BookFile(path)
    except BookError as error:
        print(f"c4pi book info: {error}", file=sys.stderr)
        return 1
    header = book.header
    print(f"file:         {path} ({path.stat().st_size} bytes, header and sha256 verified)")
    print(f"entries:      {header.count} positions with {header.ply} discs")
    print(f"buckets:      2^{header.bucket_bits}")
    print(f"shallow:      {header.shallow_count} positions with 0-{header.shallow_ply} discs"
          if header.shallow_count else "shallow:      none")
    print(f"corrections:  {header.corrections}")
    print(f"source sha256:  {header.source_sha256.hex()}")
    print(f"payload sha256: {header.payload_sha256.hex()}")
    return 0
