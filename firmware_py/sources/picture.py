"""One picture file decoded into a frame, its size checked before it is decoded.

``c4pi read``, ``snapshot``, ``calibrate`` and ``watch`` read pictures the same
way. A compressed file can hold a picture far larger than any camera's: a
389 KB PNG of 20,000 × 20,000 black pixels takes 2.4 GB to decode, more memory
than a Raspberry Pi has. So the size written in the file's header is read
first (PNG, JPEG, BMP, WebP), and a picture of more than
:data:`MAX_PICTURE_PIXELS` is refused undecoded; other formats are left to
OpenCV's own limit (2^30 pixels).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from c4game.exc import CameraError, excerpt

# The largest camera frames: 12 MP (Pi cameras), 50 MP (phones); four times that is
# still only about 600 MB decoded
MAX_PICTURE_PIXELS = 200_000_000
HEADER_BYTES = 64 * 1024  # a JPEG's size lies after its metadata segments
JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"  # a JPEG file's first and last markers
MAX_STREAM_BYTES = 64 << 20  # a piped picture read at most (JPEG or PNG, 12 MP: under 40)
JPEG_SCAN_BYTES = 64 * 1024  # read at a time looking for that end marker
JPEG_FRAMES = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB,
                         0xCD, 0xCE, 0xCF})  # start-of-frame markers: they carry the size


def picture_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) written in the header ``head`` (a file's first bytes) of a PNG,
    JPEG, BMP or WebP picture; None for another format or a header cut short."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
            width, height = struct.unpack(">II", head[16:24])
            return width, height
        if head.startswith(b"\xff\xd8"):
            return _jpeg_size(head)
        if head.startswith(b"BM"):
            return _bmp_size(head)
        if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
            return _webp_size(head)
    except struct.error:  # a header cut short
        return None
    return None


def _bmp_size(head: bytes) -> tuple[int, int] | None:
    (header,) = struct.unpack("<I", head[14:18])
    if header == 12:  # OS/2's BITMAPCOREHEADER: 16-bit sides
        width, height = struct.unpack("<HH", head[18:22])
        return width, height
    if header >= 40:  # BITMAPINFOHEADER and its successors
        width, height = struct.unpack("<ii", head[18:26])
        return abs(width), abs(height)
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in JPEG_FRAMES:
            height, width = struct.unpack(">HH", head[at + 5:at + 9])
            return width, height
        if marker == 0x01 or 0xD0 <= marker <= 0xD9:  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", head[at + 2:at + 4])
        at += 2 + length
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", head[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return (int.from_bytes(head[24:27], "little") + 1,
                int.from_bytes(head[27:30], "little") + 1)
    return None


def opencv_name(path: str | Path) -> str:
    """``path`` as a name OpenCV may be given; :class:`CameraError` for one that is not
    valid UTF-8 (a byte Python keeps as a stand-in character crashes OpenCV)."""
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise CameraError(f"{ascii(name)}: the name is not valid UTF-8 (rename it)") from None
    return name


def _jpeg_ends(file: BinaryIO) -> bool:
    """Whether the open JPEG ``file`` holds an end marker after its start: first looked
    for in its last :data:`JPEG_SCAN_BYTES` (where a whole picture's lies), then
    anywhere (a motion photo's video may follow it). A file cut short has none."""
    size = file.seek(0, 2)
    file.seek(max(len(JPEG_START), size - JPEG_SCAN_BYTES))
    if JPEG_END in file.read():
        return True
    file.seek(len(JPEG_START))
    tail = b""
    while chunk := file.read(JPEG_SCAN_BYTES):
        if JPEG_END in tail + chunk:
            return True
        tail = chunk[-1:]
    return False


def read_picture(path: str | Path) -> np.ndarray:
    """The picture at ``path`` as OpenCV decodes it into BGR, or
    :class:`CameraError` saying what is wrong: no such file, a folder, an empty
    file, a JPEG cut short, a picture too large to decode, or not a picture OpenCV
    decodes."""
    import cv2

    path = Path(opencv_name(path))
    cannot = f"cannot read image {excerpt(str(path))}"
    try:
        if not path.exists():
            raise CameraError(f"{cannot}: no such file")
        if path.is_dir():
            raise CameraError(f"{cannot}: a folder, not a picture")
        if not path.is_file():
            raise CameraError(f"{cannot}: not a regular file")
        with path.open("rb") as file:
            head = file.read(HEADER_BYTES)
            whole = not head.startswith(JPEG_START) or _jpeg_ends(file)
    except OSError as error:  # a name too long, a folder that may not be read
        raise CameraError(f"{cannot}: {error.strerror or error}") from None
    _check_before_decoding(cannot, head, whole)
    return _decoded(cannot, lambda: cv2.imread(str(path), cv2.IMREAD_COLOR))


def read_picture_stream(stream: BinaryIO, name: str = "standard input") -> np.ndarray:
    """The picture piped into ``stream`` (``c4pi read -``), checked and decoded as
    :func:`read_picture` does a file's; at most :data:`MAX_STREAM_BYTES` are read."""
    import cv2

    cannot = f"cannot read image from {name}"
    data = stream.read(MAX_STREAM_BYTES + 1)
    if not data:
        raise CameraError(f"{cannot}: nothing came (pipe a picture in: rpicam-still -o - | "
                          "c4pi read -)")
    if len(data) > MAX_STREAM_BYTES:
        raise CameraError(f"{cannot}: more than {MAX_STREAM_BYTES >> 20} MB (a camera "
                          "frame is smaller)")
    whole = not data.startswith(JPEG_START) or JPEG_END in data[len(JPEG_START):]
    _check_before_decoding(cannot, data[:HEADER_BYTES], whole)
    return _decoded(cannot, lambda: cv2.imdecode(np.frombuffer(data, np.uint8),
                                                 cv2.IMREAD_COLOR))


def _check_before_decoding(cannot: str, head: bytes, whole: bool) -> None:
    """:class:`CameraError` for a picture empty, cut short or too large to decode."""
    if not head:
        raise CameraError(f"{cannot}: the file is empty")
    if not whole:
        raise CameraError(f"{cannot}: the JPEG file is cut short (damaged, or still being "
                          "written)")
    size = picture_size(head)
    if size is not None and size[0] * size[1] > MAX_PICTURE_PIXELS:
        raise CameraError(f"{cannot}: {size[0]} x {size[1]} pixels is more than the "
                          f"{MAX_PICTURE_PIXELS // 1_000_000} million this reads (a camera "
                          "frame has at most 50)")


def _decoded(cannot: str, decode: Callable[[], np.ndarray | None]) -> np.ndarray:
    """What ``decode`` (OpenCV) makes of the picture, or :class:`CameraError`."""
    import cv2

    try:
        image = decode()
    except cv2.error:  # OpenCV refuses some pictures outright (over its own size limit)
        image = None
    if image is None:
        raise CameraError(f"{cannot}: not a picture OpenCV decodes (JPEG, PNG, BMP, TIFF, "
                          "WebP, …), or a damaged one")
    return image
