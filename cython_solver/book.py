"""The opening book file: exact scores of 12-disc positions, memory-mapped,
and a shallow table of the positions with few discs.

Layout (little-endian; documented in ``books/README.md``)::

    offset  size  field
         0     8  magic b"C4PIBOOK"
         8     4  version (2)
        12     4  header size (128)
        16     4  ply: discs of every position (12)
        20     4  bucket_bits B (18)
        24     8  entry count N
        32     4  corrections applied to the source (see books/corrections.txt)
        36     4  shallow entry count M
        40    32  sha256 of the source file
        72    32  sha256 of the payload (everything after the header)
       104     4  shallow ply S: the shallow table holds positions with 0..S discs
       108    16  reserved (0)
       124     4  crc32 of bytes 0..123
       128        payload: index   uint32[2**B + 1]  first entry of each bucket
                           skeys   uint32[M]         shallow keys, ascending
                           keys    uint16[N]         low 16 bits of h, per entry
                           scores  int8[N]           SPEC §2 score of the side to move
                           sscores int8[M]           score per shallow key

Each position is identified by ``code = min(book_code(p), book_code(mirror(p)))``
(``cython_solver.positions.book_code``) and stored under ``h = mix_code(code)``
(a bijection): bucket ``h >> (32 - B)``, key ``h & 0xFFFF``. Entries are sorted
by ``h``, so a lookup scans one bucket (about 16 entries). A shallow key is
``code | 1 << (2 n + 7)`` for a position of n discs (see
:func:`cython_solver.shallow.shallow_key`).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from c4game.exc import BookError
from c4game.files import write_whole

MAGIC = b"C4PIBOOK"
VERSION = 2
READABLE_VERSIONS = (1, 2)     # version 1: the same layout without the shallow table
HEADER_SIZE = 128
BUCKET_BITS = 18
PLY = 12
_HEADER = struct.Struct("<8sIIIIQII32s32sI16s")  # everything but the trailing crc32
assert _HEADER.size == HEADER_SIZE - 4


@dataclass(frozen=True)
class BookHeader:
    """The decoded header of a book file."""

    ply: int
    bucket_bits: int
    count: int
    corrections: int
    source_sha256: bytes
    payload_sha256: bytes
    shallow_count: int = 0
    shallow_ply: int = -1       # -1: no shallow table

    def pack(self) -> bytes:
        body = _HEADER.pack(MAGIC, VERSION, HEADER_SIZE, self.ply, self.bucket_bits, self.count,
                            self.corrections, self.shallow_count, self.source_sha256,
                            self.payload_sha256, self.shallow_ply & 0xFFFFFFFF, bytes(16))
        return body + struct.pack("<I", zlib.crc32(body))

    @property
    def payload_size(self) -> int:
        return payload_size(self.bucket_bits, self.count, self.shallow_count)


def payload_size(bucket_bits: int, count: int, shallow_count: int = 0) -> int:
    """Bytes after the header: index, shallow keys, keys, scores, shallow scores."""
    return 4 * ((1 << bucket_bits) + 1) + 3 * count + 5 * shallow_count


def parse_header(data: bytes, name: str = "book") -> BookHeader:
    """Decode and check a header; raises :class:`BookError` naming the problem."""
    if len(data) < HEADER_SIZE:
        raise BookError(f"{name}: truncated: {len(data)} bytes, the header alone is "
                        f"{HEADER_SIZE}")
    body, (crc,) = data[:HEADER_SIZE - 4], struct.unpack("<I", data[HEADER_SIZE - 4:HEADER_SIZE])
    (magic, version, header_size, ply, bits, count, corrections, shallow_count, src, payload,
     shallow_ply, _) = _HEADER.unpack(body)
    if magic != MAGIC:
        raise BookError(f"{name}: not a c4pi book (magic {magic!r}, expected {MAGIC!r})")
    if version not in READABLE_VERSIONS or header_size != HEADER_SIZE:
        raise BookError(f"{name}: book version {version} (header {header_size} bytes); this "
                        f"c4pi reads versions {READABLE_VERSIONS[0]}-{VERSION}: rebuild it "
                        "with `c4pi book build`")
    if zlib.crc32(body) != crc:
        raise BookError(f"{name}: corrupt header (crc32 mismatch)")
    if not 16 <= bits <= 24 or not 1 <= ply <= 12 or count >= 1 << 32:
        raise BookError(f"{name}: corrupt header (ply {ply}, bucket_bits {bits}, count {count})")
    if version == 1:
        if shallow_count or shallow_ply:             # reserved, zero in version 1
            raise BookError(f"{name}: corrupt version 1 header (reserved fields set)")
        shallow_ply = -1
    if shallow_ply == 0xFFFFFFFF:
        shallow_ply = -1
    if not -1 <= shallow_ply < ply or (shallow_ply < 0 and shallow_count):
        raise BookError(f"{name}: corrupt header (shallow ply {shallow_ply}, "
                        f"{shallow_count} shallow entries)")
    return BookHeader(ply, bits, count, corrections, src, payload, shallow_count, shallow_ply)


def payload_digest(data: bytes | memoryview) -> bytes:
    """sha256 of a payload."""
    return hashlib.sha256(data).digest()


class BookFile:
    """A validated, read-only, memory-mapped book.

    Opening checks the header (magic, version, crc), the file size, the
    payload's sha256 and the bucket index; any mismatch raises
    :class:`BookError`. ``index``, ``keys`` and ``scores`` are memoryviews into
    the mapping (kept alive as long as this object).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        name = str(self.path)
        if sys.byteorder != "little":
            raise BookError(f"{name}: books are little-endian; this machine is not")
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size < HEADER_SIZE:
                    raise BookError(f"{name}: truncated: {size} bytes, the header alone is "
                                    f"{HEADER_SIZE}")
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            raise BookError(f"{name}: no such file (build it with `c4pi book build`)") from None
        except (OSError, ValueError) as error:
            raise BookError(f"{name}: cannot map: {error}") from None
        self.header = parse_header(self._map[:HEADER_SIZE], name)
        expected = HEADER_SIZE + self.header.payload_size
        if size != expected:
            raise BookError(f"{name}: {'truncated' if size < expected else 'oversized'}: "
                            f"{size} bytes, the header promises {expected}")
        view = memoryview(self._map)
        if payload_digest(view[HEADER_SIZE:]) != self.header.payload_sha256:
            raise BookError(f"{name}: corrupt: the payload's sha256 does not match the header")
        buckets = 1 << self.header.bucket_bits
        shallow = self.header.shallow_count
        start = HEADER_SIZE
        self.index = view[start:start + 4 * (buckets + 1)].cast("I")
        start += 4 * (buckets + 1)
        self.shallow_keys = view[start:start + 4 * shallow].cast("I")
        start += 4 * shallow
        self.keys = view[start:start + 2 * self.header.count].cast("H")
        start += 2 * self.header.count
        self.scores = view[start:start + self.header.count].cast("b")
        start += self.header.count
        self.shallow_scores = view[start:start + shallow].cast("b")
        if self.index[0] != 0 or self.index[buckets] != self.header.count:
            raise BookError(f"{name}: corrupt bucket index")
        if not shallow_keys_valid(self.shallow_keys, self.header.shallow_ply):
            raise BookError(f"{name}: corrupt shallow table (keys out of order or range)")

    @property
    def count(self) -> int:
        return self.header.count

    @property
    def shallow_count(self) -> int:
        return self.header.shallow_count

    @property
    def shallow_ply(self) -> int:
        return self.header.shallow_ply

    @property
    def ply(self) -> int:
        return self.header.ply

    def describe(self) -> str:
        """One line for status reports."""
        fixed = f", {self.header.corrections} corrected" if self.header.corrections else ""
        shallow = (f" and {self.shallow_count} with 0-{self.shallow_ply} discs"
                   if self.shallow_count else "")
        return f"loaded {self.count} entries ({self.ply} discs{fixed}){shallow} from {self.path}"


def shallow_keys_valid(keys: memoryview, shallow_ply: int) -> bool:
    """Whether shallow keys ascend strictly and mark at most ``shallow_ply`` discs."""
    array = np.frombuffer(keys, dtype=np.uint32)
    if not len(array):
        return True
    return bool(np.all(array[1:] > array[:-1])) and int(array[-1]) < 1 << (2 * shallow_ply + 8)


def write_book(path: str | os.PathLike[str], index: bytes, keys: bytes, scores: bytes, *,
               count: int, source_sha256: bytes, corrections: int,
               shallow_keys: bytes = b"", shallow_scores: bytes = b"", shallow_ply: int = -1,
               bucket_bits: int = BUCKET_BITS, ply: int = PLY) -> BookHeader:
    """Write a book whole (:func:`~c4game.files.write_whole`)."""
    shallow_count = len(shallow_scores)
    if len(shallow_keys) != 4 * shallow_count or (shallow_count and shallow_ply < 0):
        raise BookError(f"book shallow table: {len(shallow_keys)} key bytes for "
                        f"{shallow_count} scores (shallow ply {shallow_ply})")
    payload = index + shallow_keys + keys + scores + shallow_scores
    if len(payload) != payload_size(bucket_bits, count, shallow_count):
        raise BookError(f"book payload is {len(payload)} bytes, expected "
                        f"{payload_size(bucket_bits, count, shallow_count)}")
    header = BookHeader(ply, bucket_bits, count, corrections, source_sha256,
                        payload_digest(payload), shallow_count, shallow_ply)
    write_whole(path, header.pack() + payload)
    return header
