"""The book's shallow table (positions with 0-8 discs): against the public test
sets, against our search with only the 12-disc book, completeness, file checks."""

from __future__ import annotations

import hashlib
import random
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from cython_solver.positions import mirror_bitboards

from c4game.board import Board
from c4game.exc import BookError
from cython_solver import Solver
from cython_solver.book import HEADER_SIZE, BookFile, shallow_keys_valid, write_book
from cython_solver.bookbuild import source_path, up_to_date
from cython_solver.shallow import SHALLOW_PLY, children, enumerate_levels, shallow_key

from .conftest import SET_NAMES, random_positions, read_set


@pytest.fixture(scope="module")
def book(book_path: Path) -> BookFile:
    found = BookFile(book_path)
    if found.shallow_ply < 0:
        pytest.skip(f"{book_path} has no shallow table")
    return found


@pytest.fixture(scope="module")
def shallow_solver(book_path: Path, book: BookFile) -> Solver:
    return Solver(tt_mb=16, book=book_path, threads=1)


def test_depth_is_the_documented_one(book: BookFile) -> None:
    assert book.shallow_ply == SHALLOW_PLY
    assert f"0-{SHALLOW_PLY} discs" in book.describe()


@pytest.mark.parametrize("name", [name for name in SET_NAMES if name.startswith("begin")])
def test_agrees_with_the_test_sets(shallow_solver: Solver, name: str) -> None:
    """Every test-set position with at most 8 discs, in both orientations: the
    table's score is the file's, and solving it takes no search at all."""
    engine = shallow_solver._engine
    checked = 0
    for moves, score in read_set(name):
        if len(moves) > SHALLOW_PLY:
            continue
        cur, mask = Board.from_moves(moves).bitboards()
        assert engine.book_value(cur, mask) == score, moves
        assert engine.book_value(*mirror_bitboards(cur, mask)) == score, moves
        assert shallow_solver.solve(moves) == score
        assert shallow_solver.nodes == 0
        checked += 1
    assert checked > 0


def test_agrees_with_the_search_without_it(book_path: Path, book: BookFile) -> None:
    """Random entries of every depth, searched with only the 12-disc book."""
    searcher = Solver(tt_mb=64, book=book_path, threads=1)
    searcher._engine.shallow = False
    assert not searcher._engine.shallow
    table = Solver(tt_mb=8, book=book_path, threads=1)._engine
    rng = random.Random(12)
    levels = enumerate_levels(SHALLOW_PLY)
    for n, level in enumerate(levels):
        boards = [board for board in level.values() if table.book_value(*board) is not None]
        for cur, mask in rng.sample(boards, min(len(boards), 40 if n >= 5 else 8)):
            assert searcher.solve((cur, mask)) == table.book_value(cur, mask), (n, cur, mask)
            assert searcher.nodes > 0                 # really searched


def test_holds_every_shallow_position(shallow_solver: Solver) -> None:
    """Positions of random games: held exactly when the side to move cannot win
    at once (as in the 12-disc book); 9 discs and more are never held."""
    engine = shallow_solver._engine
    held = left_out = 0
    for board in random_positions(21, 400, 0, SHALLOW_PLY + 2):
        value = engine.book_value(*board.bitboards())
        if board.n_discs > SHALLOW_PLY:
            assert value is None
        elif any(board.play(col).winner for col in board.legal_columns()):
            assert value is None
            left_out += 1
        else:
            assert value is not None, board.moves
            held += 1
    assert held > 100 and left_out > 0


def test_negamax_consistency_on_the_table(shallow_solver: Solver) -> None:
    """A level's score is the best of its children's (one ply of negamax), on
    positions drawn from every level (the table as a whole is consistent)."""
    engine = shallow_solver._engine
    for board in random_positions(5, 150, 0, SHALLOW_PLY - 1):
        cur, mask = board.bitboards()
        if engine.book_value(cur, mask) is None:
            continue
        child_scores = []
        for child in children(cur, mask):
            value = engine.book_value(*child)
            if value is None:                       # the child's mover wins at once
                value = (43 - mask.bit_count() - 1) // 2
            child_scores.append(-value)
        assert engine.book_value(cur, mask) == max(child_scores), board.moves


def test_best_and_analyze_use_it(shallow_solver: Solver) -> None:
    answer = shallow_solver.best("")
    assert (answer.column, answer.score, answer.best_columns) == (4, 1, (4,))
    assert shallow_solver.analyze("") == [-2, -1, 0, 1, 0, -1, -2]   # Allis / Tromp


def test_key_separates_disc_counts() -> None:
    # the empty board and a 1-disc position have canonical codes 0b0000000 and
    # 0b0001000000 (the disc in column 4): the marker bit keeps them apart
    assert shallow_key(0, 0) == 1 << 7
    assert shallow_key(0, 1 << 21) >> 9 == 1
    assert len({shallow_key(*b) for level in enumerate_levels(3) for b in level.values()}) == \
        sum(len(level) for level in enumerate_levels(3))


def _tiny_book(path: Path, shallow_keys: list[int], shallow_ply: int = 2) -> None:
    index = np.zeros((1 << 16) + 1, dtype="<u4").tobytes()
    write_book(path, index, b"", b"", count=0, source_sha256=bytes(32), corrections=0,
               bucket_bits=16, shallow_keys=np.array(shallow_keys, dtype="<u4").tobytes(),
               shallow_scores=bytes(len(shallow_keys)), shallow_ply=shallow_ply)


def test_unordered_or_deep_shallow_keys_are_rejected(tmp_path: Path) -> None:
    _tiny_book(tmp_path / "ok.c4b", [1 << 7, (1 << 9) | 8])
    assert BookFile(tmp_path / "ok.c4b").shallow_count == 2
    _tiny_book(tmp_path / "order.c4b", [(1 << 9) | 8, 1 << 7])
    with pytest.raises(BookError, match="corrupt shallow table"):
        BookFile(tmp_path / "order.c4b")
    _tiny_book(tmp_path / "deep.c4b", [1 << 7, 1 << 13])       # a 3-disc key, table 0-2
    with pytest.raises(BookError, match="corrupt shallow table"):
        BookFile(tmp_path / "deep.c4b")
    assert shallow_keys_valid(memoryview(b""), -1)


def _set_version(path: Path, version: int, *, zero_shallow_ply: bool = False) -> None:
    """Rewrite the header's version (and, as version 1 wrote it, a zero
    reserved field where version 2 keeps the shallow ply)."""
    header = bytearray(path.read_bytes()[:HEADER_SIZE])
    header[8:12] = struct.pack("<I", version)
    if zero_shallow_ply:
        header[104:108] = bytes(4)
    header[HEADER_SIZE - 4:] = struct.pack("<I", zlib.crc32(bytes(header[:HEADER_SIZE - 4])))
    with open(path, "r+b") as handle:
        handle.write(bytes(header))


def test_version_1_book_still_loads_without_the_table(book: BookFile, tmp_path: Path) -> None:
    """A book built by the previous release (the same entries, no shallow
    table) keeps working, and `book build --if-missing` rebuilds it."""
    old = tmp_path / "old.c4b"
    write_book(old, bytes(book.index), bytes(book.keys), bytes(book.scores), count=book.count,
               source_sha256=book.header.source_sha256, corrections=book.header.corrections,
               bucket_bits=book.header.bucket_bits)
    _set_version(old, 1, zero_shallow_ply=True)
    loaded = BookFile(old)
    assert (loaded.shallow_ply, loaded.shallow_count, loaded.count) == (-1, 0, book.count)
    solver = Solver(tt_mb=16, book=old, threads=1)
    assert solver.has_book and solver.solve("44444") == Solver(
        tt_mb=16, book=book.path, threads=1).solve("44444")
    assert solver.nodes > 0                             # searched: no shallow table
    try:
        source = source_path()
    except BookError:
        source = None                                   # no source: --if-missing keeps it
    if source is not None and book.header.source_sha256 == hashlib.sha256(
            source.read_bytes()).digest():
        assert up_to_date(old) == "it has no shallow table"
    _set_version(old, 3)
    with pytest.raises(BookError, match="book version 3 .*rebuild it"):
        BookFile(old)


def test_version_1_with_shallow_fields_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "bad.c4b"
    _tiny_book(path, [1 << 7])
    _set_version(path, 1)
    with pytest.raises(BookError, match="corrupt version 1 header"):
        BookFile(path)
