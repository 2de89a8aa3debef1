"""Benchmark the serial robot link over a pseudo-terminal pair (pyserial, 9600 baud).

1. Acknowledgement latency: ``--acks`` queries (default 1,000) sent one after
   another without waiting for answers, most of them while the solver is still
   busy with the previous one (which they supersede); about 5 % are invalid.
   Reports p50/p99/max of the time from the end of the query to its ``!``/``?``.
2. Answer latency: every position of the six test sets (or ``--per-set``, and
   at most ``--budget-s`` seconds per set) queried one at a time; reports
   p50/p99/max from the end of the query to the last byte of the answer, and
   checks every answer's score against the test set.

Run: ``.venv/bin/python -m tools.bench.serial_link [--no-book] [--json FILE]``.
Note: a pty ignores the baud rate; on a real 9600-baud UART add about 1 ms per
byte on the wire (a 20-move query is 22 bytes: 23 ms; the answer 4 bytes: 4 ms).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from c4game.board import Board
from firmware_py.serial_link.protocol import decode_answer, query_bytes
from firmware_py.serial_link.ptywire import PtyWire
from firmware_py.serial_link.robot import RobotClient
from firmware_py.serial_link.service import SerialService
from firmware_py.serial_link.transport import pyserial_opener
from firmware_py.worker import SolverWorker
from tools.shared_data import REPO, solver_sets_dir

SETS = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")
DEFAULT_SETS_DIR = solver_sets_dir()
INVALID = [b"!4444444?", b"!12121212?", b"!4x?", b"!" + b"1234567" * 6 + b"?"]


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"n": len(ordered), "p50": round(pick(0.50), 3), "p99": round(pick(0.99), 3),
            "max": round(ordered[-1], 3), "mean": round(statistics.fmean(ordered), 3)}


def read_set(directory: Path, name: str) -> list[tuple[str, int]]:
    pairs = []
    for line in (directory / f"{name}.txt").read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            pairs.append((moves, int(score)))
    return pairs


class Bench:
    """A service on one end of a PtyWire, a pyserial robot on the other."""

    def __init__(self, solver: object, baud: int) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.wire = PtyWire(link=Path(self.tmp.name) / "serial0")
        self.worker = SolverWorker(solver).start()
        self.service = SerialService(pyserial_opener(self.wire.service_path, baud), self.worker)
        self.service.start()
        if not self.service.wait_connected(10):
            raise SystemExit("the service did not open the pty")
        self.robot = RobotClient(self.wire.robot_path, baud)
        self.pending_answers = bytearray()

    def close(self) -> None:
        self.robot.close()
        self.service.stop()
        self.worker.stop(30)
        self.wire.close()
        self.tmp.cleanup()

    def read_ack(self, timeout: float = 5.0) -> tuple[str, float]:
        """Wait for the next ``!``/``?``; answer bytes before it are kept aside."""
        start = time.perf_counter()
        while True:
            byte = self.robot.read_bytes(1, timeout - (time.perf_counter() - start))
            if not byte:
                raise SystemExit("no acknowledgement within 5 s")
            if byte in b"!?":
                return byte.decode(), time.perf_counter()
            self.pending_answers += byte


def bench_acks(bench: Bench, positions: list[tuple[str, int]], count: int,
               rng: random.Random) -> dict[str, object]:
    latencies: list[float] = []
    busy_before = 0
    answers_checked = 0
    last_accepted: tuple[str, int] | None = None
    for _ in range(count):
        if rng.random() < 0.05:
            frame, expected, item = rng.choice(INVALID), "?", None
        else:
            item = rng.choice(positions)
            frame, expected = query_bytes(item[0]), "!"
        busy_before += bench.worker.busy
        sent = bench.robot.send(frame)
        ack, received = bench.read_ack()
        if ack != expected:
            raise SystemExit(f"{frame!r}: expected {expected!r}, got {ack!r}")
        latencies.append((received - sent) * 1000)
        answers_checked += check_answers(bench, last_accepted)
        if item is not None:
            last_accepted = item
        time.sleep(rng.uniform(0.0, 0.03))
    tail = bench.robot.read_bytes(4, 60)
    bench.pending_answers += tail
    answers_checked += check_answers(bench, last_accepted)
    return {"acks": percentiles(latencies), "sent_while_busy": busy_before,
            "answers_checked": answers_checked, "superseded": bench.service.stats.superseded}


def check_answers(bench: Bench, item: tuple[str, int] | None) -> int:
    """Answers that arrived belong to the last accepted query: check them."""
    data, bench.pending_answers = bytes(bench.pending_answers), bytearray()
    if not data:
        return 0
    if item is None or len(data) != 4:
        raise SystemExit(f"unexpected bytes {data!r} after query {item!r}")
    moves, score = item
    _, got = decode_answer(data, len(moves))
    if got != score:
        raise SystemExit(f"{moves}: answered {data!r} (score {got}), expected score {score}")
    return 1


def bench_answers(bench: Bench, name: str, positions: list[tuple[str, int]],
                  budget_s: float) -> dict[str, object]:
    latencies: list[float] = []
    started = time.monotonic()
    for moves, score in positions:
        result = bench.robot.query(moves, timeout=600)
        if not result.ok:
            raise SystemExit(f"{name} {moves}: no answer ({result})")
        _, got = decode_answer(result.answer, len(moves))
        if got != score:
            raise SystemExit(f"{name} {moves}: answered {result.answer}, expected score {score}")
        latencies.append(result.answer_ms)
        if time.monotonic() - started > budget_s:
            break
    stats = percentiles(latencies)
    stats["of"] = len(positions)
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--acks", type=int, default=1000)
    parser.add_argument("--per-set", type=int, default=1000, help="positions per test set")
    parser.add_argument("--budget-s", type=float, default=120.0,
                        help="stop a test set after this many seconds (default 120)")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--sets-dir", type=Path, default=DEFAULT_SETS_DIR)
    parser.add_argument("--book", type=Path, default=REPO / "books" / "book12.c4b")
    parser.add_argument("--no-book", action="store_true")
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--baud", type=int, default=9600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    from cython_solver import Solver

    book = None if args.no_book or not args.book.is_file() else args.book
    solver = Solver(tt_mb=args.tt_mb, book=book)
    print(f"solver: tt {args.tt_mb} MB, book: {solver.book_status}", flush=True)
    rng = random.Random(args.seed)
    results: dict[str, object] = {"book": solver.book_status, "baud": args.baud}
    bench = Bench(solver, args.baud)
    try:
        # Queries that keep the solver busy for a while: mid-game positions.
        pool = [p for name in ("middle-medium", "begin-medium")
                for p in read_set(args.sets_dir, name)
                if Board.from_moves(p[0]).n_discs > 12]
        if args.acks > 0:
            results["ack_latency_ms"] = bench_acks(bench, pool, args.acks, rng)
            print("acknowledgements:", json.dumps(results["ack_latency_ms"]), flush=True)
        answer_stats = {}
        for name in args.sets:
            positions = read_set(args.sets_dir, name)[: args.per_set]
            answer_stats[name] = bench_answers(bench, name, positions, args.budget_s)
            print(f"answers {name}:", json.dumps(answer_stats[name]), flush=True)
        results["answer_latency_ms"] = answer_stats
    finally:
        bench.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
