"""Fixtures for the solver tests: test sets, the opening book, solvers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from c4game.board import Board
from c4game.exc import BookError
from cython_solver import Solver
from cython_solver.book import BookFile
from cython_solver.bookbuild import DEFAULT_BOOK, build_book, source_path
from tools.shared_data import missing_reason, solver_sets_dir

TEST_SETS = solver_sets_dir()
SET_NAMES = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium",
             "begin-hard")


def read_set(name: str) -> list[tuple[str, int]]:
    """``(moves, score)`` of a test set; skips the test when the folder is absent."""
    path = TEST_SETS / f"{name}.txt"
    if not path.is_file():
        pytest.skip(missing_reason(path))
    pairs = []
    for line in path.read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            pairs.append((moves, int(score)))
    return pairs


def sample(pairs: list, k: int, seed: int) -> list:
    """A reproducible sample of ``k`` items."""
    return random.Random(seed).sample(pairs, min(k, len(pairs)))


@pytest.fixture(scope="session")
def book_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's book when valid, else one built into a temporary folder."""
    try:
        BookFile(DEFAULT_BOOK)
        return DEFAULT_BOOK
    except BookError:
        pass
    try:
        source_path()
    except BookError as error:
        pytest.skip(str(error))
    out = tmp_path_factory.mktemp("book") / "book12.c4b"
    build_book(out)
    return out


@pytest.fixture(scope="session")
def book_solver(book_path: Path) -> Solver:
    solver = Solver(tt_mb=64, book=book_path)
    assert solver.has_book, solver.book_status
    return solver


@pytest.fixture(scope="session")
def plain_solver() -> Solver:
    return Solver(tt_mb=16)


def makes_four(columns: list[str], col: int, colour: str) -> bool:
    """Would dropping ``colour`` into 0-based ``col`` complete a four in a row?"""
    row = len(columns[col])

    def at(c: int, r: int) -> str:
        return columns[c][r] if 0 <= c < 7 and 0 <= r < len(columns[c]) else "."

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while at(c, r) == colour:
                count += 1
                c, r = c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False


def random_positions(seed: int, count: int, low: int, high: int) -> list[Board]:
    """``count`` random unfinished positions with ``low``..``high`` discs, reached by
    random moves that never complete a four (any position may still be lost)."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        target = rng.randint(low, high)
        columns = [""] * 7
        moves = ""
        while len(moves) < target:
            colour = "RY"[len(moves) % 2]
            options = [c for c in range(7)
                       if len(columns[c]) < 6 and not makes_four(columns, c, colour)]
            if not options:
                break
            col = rng.choice(options)
            columns[col] += colour
            moves += str(col + 1)
        if len(moves) == target:
            found.append(Board.from_moves(moves))
    return found
