"""Check opening-book entries against our own search without the book.

Each entry is proved or refuted by two null-window searches around its score
(:meth:`cython_solver.engine.Engine.check_score`); a refuted entry is solved
exactly and reported as a correction line for ``books/corrections.txt``.
Work is spread over processes, each with its own transposition table.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from c4game.board import Board
from cython_solver.book import BookFile
from cython_solver.bookbuild import book_entries

CHUNK = 32
_worker_engine = None


@dataclass(frozen=True)
class Mismatch:
    """A book entry whose score our search refutes."""

    code: int
    current: int
    mask: int
    book_score: int
    score: int

    def correction_line(self) -> str:
        grid = "/".join(Board.from_bitboards(self.current, self.mask).grid_lines())
        return f"{self.code:#010x} {self.book_score:3d} {self.score:3d}  # {grid}"


@dataclass
class VerifyReport:
    checked: int = 0
    seconds: float = 0.0
    mismatches: list[Mismatch] | None = None


def sample_positions(count: int, sample: int | None, seed: int) -> np.ndarray:
    """Sorted entry numbers: ``sample`` of them at random, or all."""
    if sample is None or sample >= count:
        return np.arange(count)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(count, size=sample, replace=False))


def _init_worker(tt_mb: int) -> None:
    global _worker_engine
    from cython_solver.engine import Engine

    _worker_engine = Engine(tt_mb)


def _check_chunk(entries: list[tuple[int, int, int, int]]) -> list[Mismatch]:
    engine = _worker_engine
    wrong = []
    for code, cur, mask, score in entries:
        n = mask.bit_count()
        engine.reset()
        engine.start()
        if not engine.check_score(cur, mask, n, score):
            engine.reset()
            engine.start()
            wrong.append(Mismatch(code, cur, mask, score, engine.solve(cur, mask, n)))
    return wrong


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def verify_book(book: BookFile, positions: np.ndarray, *, jobs: int = 1, tt_mb: int = 16,
                progress: Callable[[int, int], None] | None = None,
                found: Callable[[Mismatch], None] | None = None) -> VerifyReport:
    """Check the entries at ``positions`` with ``jobs`` processes; ``found`` is
    called at once for each wrong entry."""
    entries = book_entries(book, positions)
    report = VerifyReport(mismatches=[])
    start = time.perf_counter()
    chunks = list(_chunks(entries, CHUNK))
    if jobs <= 1:
        _init_worker(tt_mb)
        results: Iterator[list[Mismatch]] = map(_check_chunk, chunks)
        _collect(report, results, chunks, len(entries), progress, found)
    else:
        context = multiprocessing.get_context("fork")
        with context.Pool(jobs, initializer=_init_worker, initargs=(tt_mb,)) as pool:
            _collect(report, pool.imap(_check_chunk, chunks), chunks, len(entries), progress,
                     found)
    report.seconds = time.perf_counter() - start
    report.mismatches.sort(key=lambda m: m.code)
    return report


def _collect(report: VerifyReport, results: Iterator[list[Mismatch]], chunks: list[list],
             total: int, progress: Callable[[int, int], None] | None,
             found: Callable[[Mismatch], None] | None) -> None:
    for chunk, wrong in zip(chunks, results, strict=True):
        report.checked += len(chunk)
        report.mismatches.extend(wrong)
        for mismatch in wrong if found else ():
            found(mismatch)
        if progress:
            progress(report.checked, total)
