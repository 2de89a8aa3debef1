"""The opening book: conversion from bitbully-databases, file checks, corrections,
verification."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cython_solver.engine import Engine
from cython_solver.positions import canonical_code, decode_code, mirror_bitboards, mix_code

from c4game.board import Board
from c4game.exc import BookError
from cython_solver import Solver
from cython_solver.book import HEADER_SIZE, BookFile
from cython_solver.bookbuild import (
    book_entries,
    build_book,
    read_corrections,
    source_path,
    unmix_code,
    up_to_date,
)
from cython_solver.verify import sample_positions, verify_book

from .conftest import random_positions, read_set

# Documented examples of bitbully-databases (rows top first; 1 = its player "1",
# 2 = player "2"; value 100 - p: player "1" wins after p plies, -(100 - p): loses).
EXAMPLES = [
    ([[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0], [0, 1, 0, 2, 0, 0, 0],
      [0, 2, 0, 1, 0, 2, 0], [0, 1, 0, 2, 0, 1, 0], [0, 2, 0, 1, 0, 2, 0]], 71),
    ([[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0],
      [0, 0, 2, 2, 0, 0, 0], [0, 1, 2, 1, 0, 0, 0], [0, 1, 1, 2, 0, 2, 2]], -88),
    ([[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0],
      [0, 2, 2, 0, 1, 0, 0], [0, 2, 1, 0, 2, 0, 0], [1, 1, 2, 1, 2, 0, 0]], 73),
]


def _spec_score(value: int, n: int = 12) -> int:
    """A source value as a SPEC §2 score, straight from the SPEC's definition."""
    if value == 0:
        return 0
    plies = 100 - abs(value)
    if value > 0:                        # the side to move wins with its k-th disc
        k = (plies + 1) // 2
        return (43 - n) // 2 - k + 1
    k = plies // 2                       # the opponent wins with its k-th disc
    return -((42 - n) // 2 - k + 1)


def _python_decode(record: bytes) -> tuple[Board, int]:
    """Decode one source record without any of our Cython code."""
    bits = format(int.from_bytes(record[:4], "big"), "032b")
    columns, column, i = [], "", 0
    while len(columns) < 7:
        if bits[i] == "0":
            columns.append(column)
            column, i = "", i + 1
        else:
            column += "R" if bits[i + 1] == "0" else "Y"
            i += 2
    return Board(columns=tuple(columns), moves=None), int.from_bytes(record[4:5], "big",
                                                                     signed=True)


@pytest.fixture(scope="module")
def source_bytes() -> bytes:
    try:
        return source_path().read_bytes()
    except BookError as error:
        pytest.skip(str(error))


@pytest.mark.parametrize(("rows", "value"), EXAMPLES)
def test_documented_examples(book_solver: Solver, rows, value: int) -> None:
    grid = ["".join(".RY"[cell] for cell in row) for row in rows]
    board = Board.from_grid(grid)
    expected = _spec_score(value)
    assert book_solver._engine.book_value(*board.bitboards()) == expected
    plain = Engine(16)
    cur, mask = board.bitboards()
    assert plain.solve(cur, mask, 12) == expected          # our own search agrees


def test_round_trip_against_search(book_path: Path, source_bytes: bytes) -> None:
    """Source records decoded in plain Python, looked up in the built book in both
    orientations, and checked against our own search without the book."""
    book = BookFile(book_path)
    engine = Engine(1)
    engine.set_book(book, book.index, book.keys, book.scores, book.header.bucket_bits, book.ply)
    search = Engine(16)
    count = len(source_bytes) // 5
    picks = np.random.default_rng(31).choice(count, 300, replace=False)
    for number, where in enumerate(picks.tolist()):
        board, value = _python_decode(source_bytes[5 * where:5 * where + 5])
        cur, mask = board.bitboards()
        assert board.to_move == "R" and board.n_discs == 12
        expected = _spec_score(value)
        assert engine.book_value(cur, mask) == expected
        assert engine.book_value(*mirror_bitboards(cur, mask)) == expected
        if number < 12:
            search.reset()
            assert search.check_score(cur, mask, 12, expected), board.grid_text()


def test_book_entries_decode(book_path: Path) -> None:
    book = BookFile(book_path)
    engine = Engine(1)
    engine.set_book(book, book.index, book.keys, book.scores, book.header.bucket_bits, book.ply)
    for code, cur, mask, score in book_entries(book, sample_positions(book.count, 200, 3)):
        assert engine.book_value(cur, mask) == score
        assert unmix_code(mix_code(code)) == code
        assert decode_code(code, 12) == (cur, mask)
    assert book.count == 4_200_899


def test_positions_not_in_book(book_solver: Solver) -> None:
    engine = book_solver._engine
    board = Board.from_moves("121212")   # 6 discs: not a book position
    assert engine.book_value(*board.bitboards()) is None
    left_out = 0
    for board in random_positions(7, 200, 12, 12):   # Red wins at once: left out
        if any(board.play(col).winner for col in board.legal_columns()):
            assert engine.book_value(*board.bitboards()) is None
            left_out += 1
        else:
            assert engine.book_value(*board.bitboards()) is not None
    assert left_out > 0


@pytest.fixture()
def book_copy(book_path: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "book.c4b"
    shutil.copyfile(book_path, copy)
    return copy


def _patch(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(data)


@pytest.mark.parametrize(("offset", "message"), [
    (0, "not a c4pi book"),              # magic
    (20, "corrupt header"),              # a header field (crc32 mismatch)
    (HEADER_SIZE + 5000, "sha256"),      # the bucket index
    (-7, "sha256"),                      # a score near the end
])
def test_corrupted_book_is_rejected(book_copy: Path, offset: int, message: str) -> None:
    size = book_copy.stat().st_size
    where = offset % size
    with open(book_copy, "rb") as handle:
        handle.seek(where)
        byte = handle.read(1)[0]
    _patch(book_copy, where, bytes([byte ^ 0x5A]))
    with pytest.raises(BookError, match=message):
        BookFile(book_copy)
    solver = Solver(tt_mb=8, book=book_copy)
    assert not solver.has_book
    assert message in solver.book_status
    moves, score = read_set("middle-easy")[0]
    assert solver.solve(moves) == score  # still solves, without the book


@pytest.mark.parametrize("keep", [0, 100, HEADER_SIZE + 1000])
def test_truncated_book_is_rejected(book_copy: Path, keep: int) -> None:
    with open(book_copy, "r+b") as handle:
        handle.truncate(keep)
    with pytest.raises(BookError, match="truncated"):
        BookFile(book_copy)


def test_missing_book(tmp_path: Path) -> None:
    solver = Solver(tt_mb=8, book=tmp_path / "nothing.c4b")
    assert "no such file" in solver.book_status
    assert Solver(tt_mb=8).book_status == "no book"


def test_corrections_and_verify(source_bytes: bytes, tmp_path: Path) -> None:
    """A small book from 3000 source records: a planted wrong 'correction' is
    applied by the build and caught by verify."""
    source = tmp_path / "source.dat"
    source.write_bytes(source_bytes[:5 * 3000])
    board, value = _python_decode(source_bytes[5 * 17:5 * 17 + 5])
    true_score = _spec_score(value)
    cur, mask = board.bitboards()

    code = canonical_code(cur, mask)
    wrong = true_score + 2 if true_score < 10 else true_score - 2
    corrections = tmp_path / "corrections.txt"
    corrections.write_text(f"# test\n{code:#010x} {true_score} {wrong}  # planted\n")
    assert read_corrections(corrections)[0].score == wrong

    out = tmp_path / "small.c4b"
    book = build_book(out, source=source, corrections_path=corrections, shallow_ply=-1)
    assert book.count == 3000 and book.header.corrections == 1
    engine = Engine(1)
    engine.set_book(book, book.index, book.keys, book.scores, book.header.bucket_bits, book.ply)
    assert engine.book_value(cur, mask) == wrong
    assert up_to_date(out, source, corrections, shallow_ply=-1) is None
    assert "corrections" in up_to_date(out, source, tmp_path / "none.txt")
    assert "shallow table" in up_to_date(out, source, corrections)

    entries = book_entries(book, np.arange(book.count))
    where = next(i for i, entry in enumerate(entries) if entry[0] == code)
    report = verify_book(book, np.array([where, (where + 1) % 3000]), jobs=1)
    assert report.checked == 2
    assert [(m.code, m.book_score, m.score) for m in report.mismatches] == [
        (code, wrong, true_score)]
    assert report.mismatches[0].correction_line().startswith(f"{code:#010x}")

    corrections.write_text(f"{code:#010x} {true_score + 4} {wrong}\n")
    with pytest.raises(BookError, match="source changed"):
        build_book(tmp_path / "again.c4b", source=source, corrections_path=corrections,
                   shallow_ply=-1)
    corrections.write_text("0x12 three 4\n")
    with pytest.raises(BookError, match="expected"):
        read_corrections(corrections)


def test_bad_source_is_rejected(source_bytes: bytes, tmp_path: Path) -> None:
    source = tmp_path / "bad.dat"
    record = bytearray(source_bytes[:5 * 10])
    record[5 * 3 + 4] = 1                # an even distance for a win: impossible
    source.write_bytes(bytes(record))
    with pytest.raises(BookError, match="record 3"):
        build_book(tmp_path / "bad.c4b", source=source, corrections_path=tmp_path / "x",
                   shallow_ply=-1)
    source.write_bytes(source_bytes[:12])
    with pytest.raises(BookError, match="5-byte records"):
        build_book(tmp_path / "bad.c4b", source=source, corrections_path=tmp_path / "x",
                   shallow_ply=-1)


def test_a_book_that_fails_to_load_is_an_error_in_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    broken = tmp_path / "broken.c4b"
    broken.write_bytes(b"C4B" + bytes(100))
    with caplog.at_level("INFO"):
        Solver(tt_mb=8, book=broken)
    errors = [record for record in caplog.records if record.levelname == "ERROR"]
    assert len(errors) == 1 and "without the book" in errors[0].getMessage()


def test_solve_says_the_book_is_broken_without_verbose(tmp_path: Path) -> None:
    broken = tmp_path / "broken.c4b"
    broken.write_bytes(bytes(64))
    config = tmp_path / "c4pi.toml"
    config.write_text(f'[solver]\nbook = "{broken}"\n')
    moves, _ = read_set("middle-easy")[0]  # quick without the book
    done = subprocess.run([sys.executable, "-m", "firmware_py", "--config", str(config),
                           "solve", moves], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "ERROR" in done.stderr and "without the book" in done.stderr
