"""Fixtures for the serial link, worker and LED tests: fake and real solvers, references."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from c4game.board import Board
from c4game.exc import SolveCancelled
from c4game.scores import CENTRE_FIRST
from firmware_py.config import PROJECT_DIR
from tests.emulation import patience
from tools.shared_data import missing_reason, solver_sets_dir

TEST_SETS = solver_sets_dir()
BOOK = PROJECT_DIR / "books" / "book12.c4b"


def read_test_set(name: str, limit: int | None = None) -> list[tuple[str, int]]:
    """``(moves, score)`` pairs from a test-set file."""
    path = TEST_SETS / f"{name}.txt"
    if not path.is_file():
        pytest.skip(missing_reason(path))
    pairs = []
    for line in path.read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            pairs.append((moves, int(score)))
            if limit is not None and len(pairs) >= limit:
                break
    return pairs


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``predicate`` until true or ``timeout`` (longer under emulation); returns its
    last value."""
    deadline = time.monotonic() + patience(timeout)
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return predicate()


# ------------------------------------------------------------------ fake solver


@dataclass(frozen=True)
class FakeAnswer:
    """What the worker passes through; content is not checked by worker tests."""

    column: int
    score: int
    n_discs: int


class GateSolver:
    """A fake solver whose searches block until released or cancelled.

    Mimics the real solver's cancel semantics: each call clears the cancel
    flag when it starts, and a cancel raises :class:`SolveCancelled`.
    ``auto=True`` answers at once. Records what started, finished, got cancelled.
    """

    def __init__(self, auto: bool = False, start_delay: float = 0.0) -> None:
        self.auto = auto
        self.start_delay = start_delay
        self._cond = threading.Condition()
        self._cancelled = False
        self._released: set[str | None] = set()
        self.started: list[str | None] = []
        self.finished: list[str | None] = []
        self.cancelled: list[str | None] = []
        self.cancel_calls = 0
        self.running = 0
        self.max_running = 0

    def best(self, board: Board, tie_break: str = "centre", rng: object = None, *,
             scores: bool = False) -> FakeAnswer:
        with self._cond:
            self._cancelled = False
            self.running += 1
            self.max_running = max(self.max_running, self.running)
            self.started.append(board.moves)
            self._cond.notify_all()
        try:
            if self.start_delay:
                time.sleep(self.start_delay)  # a cancel may land before the search "begins"
                with self._cond:
                    self._cancelled = False
            with self._cond:
                while True:
                    if self._cancelled:
                        self.cancelled.append(board.moves)
                        raise SolveCancelled(f"cancelled {board.moves!r}")
                    if self.auto or board.moves in self._released:
                        break
                    self._cond.wait(0.05)
                board.require_playable()
                self.finished.append(board.moves)
        finally:
            with self._cond:
                self.running -= 1
        column = next(c for c in CENTRE_FIRST if board.can_play(c))
        return FakeAnswer(column, 0, board.n_discs)

    def cancel(self) -> None:
        with self._cond:
            self.cancel_calls += 1
            self._cancelled = True
            self._cond.notify_all()

    def release(self, moves: str) -> None:
        with self._cond:
            self._released.add(moves)
            self._cond.notify_all()

    def wait_started(self, moves: str, count: int = 1, timeout: float = 5.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.started.count(moves) >= count, timeout)


@pytest.fixture
def gate_solver() -> GateSolver:
    return GateSolver()


# ------------------------------------------------------------------ real solver


@pytest.fixture(scope="session")
def real_solver() -> Iterator[object]:
    """The project's Cython solver, with the opening book when it is built."""
    from cython_solver import Solver

    solver = Solver(tt_mb=32, book=BOOK if BOOK.is_file() else None)
    yield solver


@pytest.fixture(scope="session")
def checker_solver() -> object:
    """A second, independent solver instance used only to compute expected answers."""
    from cython_solver import Solver

    return Solver(tt_mb=16, book=BOOK if BOOK.is_file() else None)


# ------------------------------------------------------------------ brute force


def _four(bits: int) -> bool:
    for shift in (1, 6, 7, 8):
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@functools.lru_cache(maxsize=200_000)
def _negamax(current: int, mask: int, played: int) -> int:
    if played == 42:
        return 0
    best = -42
    for col in range(7):
        if mask & (1 << (col * 7 + 5)):
            continue
        move = (mask + (1 << (col * 7))) & ~mask & (0x3F << (col * 7))
        if _four(current | move):
            return (43 - played) // 2
        best = max(best, -_negamax(current ^ mask, mask | move, played + 1))
    return best


def brute_force_scores(board: Board) -> list[int | None]:
    """The 7 column scores of a playable board with few empty cells, by full negamax."""
    board.require_playable()
    if 42 - board.n_discs > 9:
        raise ValueError("brute force is only for boards with at most 9 empty cells")
    scores: list[int | None] = []
    for col in range(1, 8):
        if not board.can_play(col):
            scores.append(None)
            continue
        child = board.play(col)
        if child.winner is not None:
            scores.append((43 - board.n_discs) // 2)
        elif child.is_full:
            scores.append(0)
        else:
            c2, m2 = child.bitboards()
            scores.append(-_negamax(c2, m2, child.n_discs))
    return scores


def expected_answer(scores: list[int | None]) -> tuple[int, int]:
    """``(column, score)`` by SPEC §2: the highest score, centre first among equals."""
    top = max(s for s in scores if s is not None)
    column = next(c for c in CENTRE_FIRST if scores[c - 1] == top)
    return column, top
