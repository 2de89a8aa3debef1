"""The opening book file: exact scores of 12-disc positions, memory-mapped.

Layout (little-endian; documented in ``books/README.md``)::

    offset  size  field
         0     8  magic b"C4PIBOOK"
         8     4  version (1)
        12     4  header size (128)
        16     4  ply: discs of every position (12)
        20     4  bucket_bits B (18)
        24     8  entry count N
        32     4  corrections applied to the source (see books/corrections.txt)
        36     4  reserved (0)
        40    32  sha256 of the source file
        72    32  sha256 of the payload (everything after the header)
       104    20  reserved (0)
       124     4  crc32 of bytes 0..123
       128        payload: index  uint32[2**B + 1]  first entry of each bucket
                           keys   uint16[N]         low 16 bits of h, per entry
                           scores int8[N]           SPEC §2 score of the side to move

Each position is identified by ``code = min(book_code(p), book_code(mirror(p)))``
(``cython_solver.positions.book_code``) and stored under ``h = mix_code(code)``
(a bijection): bucket ``h >> (32 - B)``, key ``h & 0xFFFF``. Entries are sorted
by ``h``, so a lookup scans one bucket (about 16 entries).
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

from firmware_py.exc import BookError

MAGIC = b"C4PIBOOK"
VERSION = 1
HEADER_SIZE = 128
BUCKET_BITS = 18
PLY = 12
_HEADER = struct.Struct("<8sIIIIQII32s32s20s")  # everything but the trailing crc32
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

    def pack(self) -> bytes:
        body = _HEADER.pack(MAGIC, VERSION, HEADER_SIZE, self.ply, self.bucket_bits, self.count,
                            self.corrections, 0, self.source_sha256, self.payload_sha256,
                            bytes(20))
        return body + struct.pack("<I", zlib.crc32(body))

    @property
    def payload_size(self) -> int:
        return payload_size(self.bucket_bits, self.count)


def payload_size(bucket_bits: int, count: int) -> int:
    """Bytes after the header: index, keys and scores."""
    return 4 * ((1 << bucket_bits) + 1) + 3 * count


def parse_header(data: bytes, name: str = "book") -> BookHeader:
    """Decode and check a header; raises :class:`BookError` naming the problem."""
    if len(data) < HEADER_SIZE:
        raise BookError(f"{name}: truncated: {len(data)} bytes, the header alone is "
                        f"{HEADER_SIZE}")
    body, (crc,) = data[:HEADER_SIZE - 4], struct.unpack("<I", data[HEADER_SIZE - 4:HEADER_SIZE])
    magic, version, header_size, ply, bits, count, corrections, _, src, payload, _ = \
        _HEADER.unpack(body)
    if magic != MAGIC:
        raise BookError(f"{name}: not a c4pi book (magic {magic!r}, expected {MAGIC!r})")
    if version != VERSION or header_size != HEADER_SIZE:
        raise BookError(f"{name}: book version {version} (header {header_size} bytes); this "
                        f"c4pi reads version {VERSION}: rebuild it with `c4pi book build`")
    if zlib.crc32(body) != crc:
        raise BookError(f"{name}: corrupt header (crc32 mismatch)")
    if not 16 <= bits <= 24 or not 1 <= ply <= 41 or count >= 1 << 32:
        raise BookError(f"{name}: corrupt header (ply {ply}, bucket_bits {bits}, count {count})")
    return BookHeader(ply, bits, count, corrections, src, payload)


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
        start = HEADER_SIZE
        self.index = view[start:start + 4 * (buckets + 1)].cast("I")
        start += 4 * (buckets + 1)
        self.keys = view[start:start + 2 * self.header.count].cast("H")
        start += 2 * self.header.count
        self.scores = view[start:start + self.header.count].cast("b")
        if self.index[0] != 0 or self.index[buckets] != self.header.count:
            raise BookError(f"{name}: corrupt bucket index")

    @property
    def count(self) -> int:
        return self.header.count

    @property
    def ply(self) -> int:
        return self.header.ply

    def describe(self) -> str:
        """One line for status reports."""
        fixed = f", {self.header.corrections} corrected" if self.header.corrections else ""
        return f"loaded {self.count} entries ({self.ply} discs{fixed}) from {self.path}"


def write_book(path: str | os.PathLike[str], index: bytes, keys: bytes, scores: bytes, *,
               count: int, source_sha256: bytes, corrections: int,
               bucket_bits: int = BUCKET_BITS, ply: int = PLY) -> BookHeader:
    """Write a book atomically (a temporary file renamed into place)."""
    payload = index + keys + scores
    if len(payload) != payload_size(bucket_bits, count):
        raise BookError(f"book payload is {len(payload)} bytes, expected "
                        f"{payload_size(bucket_bits, count)}")
    header = BookHeader(ply, bucket_bits, count, corrections, source_sha256,
                        payload_digest(payload))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(header.pack())
        handle.write(payload)
    os.replace(temporary, target)
    return header
