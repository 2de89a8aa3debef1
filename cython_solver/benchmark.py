"""Benchmark the solver on test-set files (used by ``c4pi bench``).

Search times are wall-clock times of the C search alone (position parsing is
done before the clock starts), like the timings of Pascal Pons' reference
solver. The "answer" times are the full public ``Solver.best`` call: parsing,
validation and the exact scores of all seven columns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from c4game.exc import C4piError
from cython_solver.solver import Solver, bitboards


class BenchError(C4piError):
    """A test-set file is missing or malformed."""


@dataclass
class BenchResult:
    file: str
    n: int = 0
    total_s: float = 0.0
    worst_s: float = 0.0
    best_total_s: float = 0.0
    best_worst_s: float = 0.0
    nodes: int = 0
    mismatches: int = 0
    wrong: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def mean_ms(self) -> float:
        return 1000.0 * self.total_s / self.n if self.n else 0.0

    @property
    def best_mean_ms(self) -> float:
        return 1000.0 * self.best_total_s / self.n if self.n else 0.0

    @property
    def kpos_s(self) -> float:
        return self.nodes / self.total_s / 1000.0 if self.total_s else 0.0

    def as_dict(self) -> dict:
        return {"file": self.file, "n": self.n, "mean_ms": round(self.mean_ms, 5),
                "worst_ms": round(1000.0 * self.worst_s, 3),
                "best_mean_ms": round(self.best_mean_ms, 4),
                "best_worst_ms": round(1000.0 * self.best_worst_s, 3),
                "nodes_mean": round(self.nodes / self.n, 1) if self.n else 0.0,
                "kpos_s": round(self.kpos_s, 1), "mismatches": self.mismatches}


def read_test_set(path: str | Path, limit: int | None = None) -> list[tuple[str, int]]:
    """``(moves, score)`` pairs of a test-set file."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as error:
        raise BenchError(f"{path}: {error.strerror}") from None
    positions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) == 1 and line[0].isspace():
            parts = ["", parts[0]]  # " 1": no moves, the empty board (SPEC §1)
        if (len(parts) != 2 or not (parts[0].isdigit() or parts[0] == "")
                or not parts[1].lstrip("-").isdigit()):
            raise BenchError(f"{path}:{number}: expected 'MOVES SCORE', got {line!r}")
        positions.append((parts[0], int(parts[1])))
        if limit is not None and len(positions) >= limit:
            break
    return positions


def bench_file(solver: Solver, path: str | Path, *, limit: int | None = None,
               keep_tt: bool = False, answers: bool = True, repeat: int = 1) -> BenchResult:
    """Solve every position of a file, then (``answers``) time ``best`` on each.

    With ``repeat`` > 1 the file is solved that many times over and each
    position's fastest time counts (every pass starts it with a cold cache; on
    a shared machine other processes only ever add time).
    """
    positions = read_test_set(path, limit)
    parsed = []
    for moves, expected in positions:
        try:
            parsed.append((moves, expected, bitboards(moves)))
        except C4piError as error:
            raise BenchError(f"{path}: position {moves!r}: {error}") from None
    engine = solver._engine
    engine.wipe()                                # fault the table in before timing
    result = BenchResult(file=str(path))
    clock = time.perf_counter
    fastest = [float("inf")] * len(parsed)
    for run in range(max(1, repeat)):           # whole passes: each run starts cache-cold
        for index, (moves, expected, (cur, mask, n)) in enumerate(parsed):
            if not keep_tt:
                engine.reset()
            engine.start()
            start = clock()
            score = engine.solve(cur, mask, n)
            fastest[index] = min(fastest[index], clock() - start)
            if run == 0:
                result.nodes += engine.nodes
                if score != expected:
                    result.mismatches += 1
                    result.wrong.append((moves, expected, score))
    result.n = len(parsed)
    result.total_s = sum(fastest)
    result.worst_s = max(fastest, default=0.0)
    if answers:
        for moves, _, _ in parsed:
            if not keep_tt:
                engine.reset()
            start = clock()
            solver.best(moves)
            elapsed = clock() - start
            result.best_total_s += elapsed
            result.best_worst_s = max(result.best_worst_s, elapsed)
    return result


def format_row(result: BenchResult | None) -> str:
    """One line of the text table (``None``: the heading)."""
    if result is None:
        return (f"{'file':<18} {'n':>5} {'mean ms':>10} {'worst ms':>9} {'best mean':>10} "
                f"{'best worst':>10} {'nodes':>10} {'kpos/s':>8} {'wrong':>5}")
    name = Path(result.file).stem
    return (f"{name:<18} {result.n:>5} {result.mean_ms:>10.4f} {1000 * result.worst_s:>9.2f} "
            f"{result.best_mean_ms:>10.3f} {1000 * result.best_worst_s:>10.2f} "
            f"{result.nodes / max(result.n, 1):>10.0f} {result.kpos_s:>8.0f} "
            f"{result.mismatches:>5}")


def peer_bench(path: str | Path, limit: int | None, with_book: bool) -> dict:
    """Time the PyPI ``bitbully`` solver (AGPL, optional 'bench' extra) on a file."""
    try:
        import bitbully
        from bitbully import bitbully_core
    except ImportError:
        raise BenchError("--peer bitbully needs the optional package: "
                         "pip install 'c4pi[bench]'") from None
    positions = read_test_set(path, limit)
    agent = (bitbully_core.BitBullyCore(Path(_bitbully_book()))
             if with_book else bitbully_core.BitBullyCore())
    total = 0.0
    mismatches = 0
    for moves, expected in positions:
        board = bitbully_core.BoardCore()
        if not board.play("".join(str(int(move) - 1) for move in moves)):  # 0-based columns
            raise BenchError(f"bitbully rejects position {moves!r}")
        agent.resetTranspositionTable()
        start = time.perf_counter()
        score = agent.mtdf(board, 0)
        total += time.perf_counter() - start
        mismatches += score != expected
    return {"version": getattr(bitbully, "__version__", "?"),
            "mean_ms": 1000.0 * total / max(len(positions), 1), "mismatches": mismatches}


def _bitbully_book() -> str:
    from bitbully_databases import BitBullyDatabases

    return BitBullyDatabases.get_database_path("12-ply-dist")
