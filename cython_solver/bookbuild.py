"""Build the opening book from the PyPI package ``bitbully-databases``.

The source is its "12-ply with distances" database (MIT licence): 4,200,899
positions with 12 discs, one orientation each, leaving out the positions where
the side to move wins at once. Its records are a 4-byte big-endian position
code (columns left to right, bottom up: ``10`` a disc of its player "1", ``11``
of player "2", ``0`` closing a column, one pad bit) and a signed byte: 0 draw,
``100 - p`` when player "1" wins after p plies, ``-(100 - p)`` when it loses
after p plies. With 12 discs the first player is to move, and player "1" is
the first player (its wins take an odd number of plies, its losses an even
one), so the source scores the side to move. :func:`build_book` converts every
record to a canonical code and a SPEC §2 score, applies
``books/corrections.txt``, derives the shallow table (:mod:`cython_solver.shallow`)
and writes the format of :mod:`cython_solver.book`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cython_solver.book import BUCKET_BITS, PLY, BookError, BookFile, write_book
from cython_solver.engine import Engine
from cython_solver.positions import convert_source, decode_code, mix_codes
from cython_solver.shallow import SHALLOW_PLY, build_shallow

PROJECT_DIR = Path(__file__).resolve().parent.parent
DEFAULT_BOOK = PROJECT_DIR / "books" / "book12.c4b"
CORRECTIONS = PROJECT_DIR / "books" / "corrections.txt"
SOURCE_NAME = "12-ply-dist"
CHUNK = 1 << 18

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Correction:
    """A source entry whose score our own search found to be wrong."""

    code: int
    source_score: int
    score: int


def source_path() -> Path:
    """The packaged source database; :class:`BookError` if the package is missing."""
    try:
        from bitbully_databases import BitBullyDatabases
    except ImportError:
        raise BookError("the book source needs the PyPI package bitbully-databases: "
                        "pip install 'c4pi[book]'") from None
    return Path(BitBullyDatabases.get_database_path(SOURCE_NAME))


def read_corrections(path: Path = CORRECTIONS) -> list[Correction]:
    """Parse ``code source_score score`` lines (``#`` starts a comment)."""
    if not path.is_file():
        return []
    found = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        match = re.fullmatch(r"(0x[0-9a-fA-F]+)\s+(-?\d+)\s+(-?\d+)", text)
        if not match:
            raise BookError(f"{path}:{number}: expected 'CODE SOURCE_SCORE SCORE', got {line!r}")
        found.append(Correction(int(match[1], 16), int(match[2]), int(match[3])))
    return found


def convert(raw: bytes, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Canonical codes and scores of every source record, in source order."""
    count = len(raw) // 5
    if len(raw) % 5 or count == 0:
        raise BookError(f"book source: {len(raw)} bytes is not a whole number of 5-byte records")
    data = np.frombuffer(raw, dtype=np.uint8)
    codes = np.empty(count, dtype=np.uint32)
    scores = np.empty(count, dtype=np.int8)
    for start in range(0, count, CHUNK):
        stop = min(count, start + CHUNK)
        bad = convert_source(data[5 * start:5 * stop], PLY, codes[start:stop],
                             scores[start:stop])
        if bad is not None:
            raise BookError(f"book source: record {start + bad[0]} holds {bad[1]}")
        if progress:
            progress("convert", stop / count)
    return codes, scores


def apply_corrections(codes: np.ndarray, scores: np.ndarray,
                      corrections: list[Correction]) -> None:
    """Replace the scores of corrected entries in place."""
    for fix in corrections:
        where = np.flatnonzero(codes == fix.code)
        if len(where) != 1:
            raise BookError(f"correction {fix.code:#x}: the source holds {len(where)} such "
                            "entries, expected 1")
        if scores[where[0]] not in (fix.source_score, fix.score):
            raise BookError(f"correction {fix.code:#x}: the source says {scores[where[0]]}, "
                            f"the correction expects {fix.source_score}: the source changed")
        scores[where[0]] = fix.score


def pack(codes: np.ndarray, scores: np.ndarray,
         bucket_bits: int = BUCKET_BITS) -> tuple[bytes, bytes, bytes]:
    """The book's index, keys and scores arrays (see :mod:`cython_solver.book`)."""
    mixed = np.empty_like(codes)
    mix_codes(codes, mixed)
    order = np.argsort(mixed, kind="stable")
    mixed = mixed[order]
    if len(mixed) > 1 and not np.all(mixed[1:] != mixed[:-1]):
        raise BookError("book source: a position appears twice")
    buckets = (mixed >> np.uint32(32 - bucket_bits)).astype(np.int64)
    index = np.searchsorted(buckets, np.arange((1 << bucket_bits) + 1), side="left")
    return (index.astype("<u4").tobytes(), (mixed & 0xFFFF).astype("<u2").tobytes(),
            scores[order].astype(np.int8).tobytes())


def build_book(out: Path = DEFAULT_BOOK, source: Path | None = None,
               corrections_path: Path = CORRECTIONS,
               progress: Progress | None = None, shallow_ply: int = SHALLOW_PLY) -> BookFile:
    """Convert the source into ``out`` and return the opened (validated) book.
    ``shallow_ply`` -1 leaves out the shallow table (for partial sources)."""
    source = source or source_path()
    try:
        raw = source.read_bytes()
    except OSError as error:
        raise BookError(f"book source {source}: {error.strerror}") from None
    if progress:
        progress("read", 1.0)
    codes, scores = convert(raw, progress)
    corrections = read_corrections(corrections_path)
    apply_corrections(codes, scores, corrections)
    index, keys, values = pack(codes, scores)
    shallow_keys, shallow_scores = derive_shallow(index, keys, values, shallow_ply, progress)
    if progress:
        progress("write", 1.0)
    write_book(out, index, keys, values, count=len(codes),
               source_sha256=hashlib.sha256(raw).digest(), corrections=len(corrections),
               shallow_keys=shallow_keys, shallow_scores=shallow_scores,
               shallow_ply=shallow_ply)
    return BookFile(out)


def derive_shallow(index: bytes, keys: bytes, values: bytes, shallow_ply: int,
                   progress: Progress | None = None) -> tuple[bytes, bytes]:
    """The shallow table's keys and scores, searched with the packed 12-disc
    book (empty when ``shallow_ply`` is -1)."""
    if shallow_ply < 0:
        return b"", b""
    arrays = (np.frombuffer(index, dtype="<u4"), np.frombuffer(keys, dtype="<u2"),
              np.frombuffer(values, dtype=np.int8))
    engine = Engine(64)
    engine.set_book(arrays, *arrays, BUCKET_BITS, PLY)
    found_keys, found_scores = build_shallow(engine, shallow_ply, progress)
    return found_keys.astype("<u4").tobytes(), found_scores.tobytes()


def up_to_date(path: Path, source: Path | None = None,
               corrections_path: Path = CORRECTIONS,
               shallow_ply: int = SHALLOW_PLY) -> str | None:
    """Why ``path`` must be (re)built, or ``None`` when it is valid and current."""
    try:
        book = BookFile(path)
    except BookError as error:
        return str(error)
    try:
        source = source or source_path()
        digest = hashlib.sha256(source.read_bytes()).digest()
    except (BookError, OSError):
        return None                              # no source to rebuild from: keep the book
    if book.header.source_sha256 != digest:
        return "built from another version of the source"
    if book.header.corrections != len(read_corrections(corrections_path)):
        return "built with another list of corrections"
    if book.header.shallow_ply != shallow_ply:
        if book.header.shallow_ply < 0:
            return "it has no shallow table"
        return f"its shallow table holds 0-{book.header.shallow_ply} discs, not 0-{shallow_ply}"
    return None


def book_entries(book: BookFile, positions: np.ndarray) -> list[tuple[int, int, int, int]]:
    """``(code, current, mask, score)`` of the entries at the given positions."""
    bits = book.header.bucket_bits
    index = np.frombuffer(book.index, dtype=np.uint32)
    positions = np.asarray(positions, dtype=np.int64)
    # int64: searchsorted gives the platform's intp, 32 bits on 32-bit ARM, where the
    # shift below would overflow (tools/device/armhf_check.sh found it)
    buckets = (np.searchsorted(index, positions, side="right") - 1).astype(np.int64)
    keys = np.frombuffer(book.keys, dtype=np.uint16)[positions].astype(np.int64)
    mixed = (buckets << (32 - bits)) | (keys & ((1 << (32 - bits)) - 1))
    scores = np.frombuffer(book.scores, dtype=np.int8)[positions]
    found = []
    for h, score in zip(mixed.tolist(), scores.tolist(), strict=True):
        code = unmix_code(h)
        cur, mask = decode_code(code, book.ply)
        found.append((code, cur, mask, score))
    return found


def unmix_code(h: int) -> int:
    """Invert :func:`cython_solver.positions.mix_code`."""
    h ^= h >> 16
    h = (h * 0x7ED1B41D) & 0xFFFFFFFF                  # inverse of 0xC2B2AE35
    h ^= (h >> 13) ^ (h >> 26)
    h = (h * 0xA5CB9243) & 0xFFFFFFFF                  # inverse of 0x85EBCA6B
    h ^= h >> 16
    return h


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))
