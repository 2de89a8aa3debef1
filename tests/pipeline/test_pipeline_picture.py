"""One picture file read into a frame, its size checked first (firmware_py/sources/picture.py)."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from c4game.exc import CameraError
from firmware_py.sources.folder import ImageFolderSource
from firmware_py.sources.picture import MAX_PICTURE_PIXELS, picture_size, read_picture


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".webp"])
@pytest.mark.parametrize(("width", "height"), [(1, 1), (640, 480), (333, 1201)])
def test_the_size_in_the_header_is_the_size_the_encoder_wrote(
        tmp_path: Path, suffix: str, width: int, height: int) -> None:
    image = np.random.default_rng(width).integers(0, 256, (height, width, 3), np.uint8)
    path = tmp_path / f"frame{suffix}"
    assert cv2.imwrite(str(path), image)
    assert picture_size(path.read_bytes()[:65536]) == (width, height)


def test_a_jpeg_with_metadata_before_its_frame_still_gives_its_size(tmp_path: Path) -> None:
    path = tmp_path / "frame.jpg"
    assert cv2.imwrite(str(path), np.zeros((90, 160, 3), np.uint8))
    data = path.read_bytes()
    comment = b"\xff\xfe" + struct.pack(">H", 2 + 3000) + b"x" * 3000  # a COM segment
    assert picture_size(data[:2] + comment + data[2:]) == (160, 90)


def test_an_os2_bitmap_gives_its_16_bit_sides() -> None:
    core = (b"BM" + struct.pack("<IHHI", 26 + 64 * 48 * 3, 0, 0, 26)
            + struct.pack("<IHHHH", 12, 64, 48, 1, 24))  # BITMAPCOREHEADER
    assert picture_size(core + bytes(64)) == (64, 48)
    assert picture_size(b"BM" + bytes(12) + struct.pack("<I", 20) + bytes(40)) is None


def test_other_formats_and_cut_headers_have_no_size() -> None:
    assert picture_size(b"II*\x00" + bytes(60)) is None  # TIFF: left to OpenCV
    assert picture_size(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00") is None
    assert picture_size(b"\xff\xd8\xff") is None


def _png_header(width: int, height: int) -> bytes:
    """A PNG's signature and IHDR chunk (no pixels follow)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))


def test_a_picture_too_large_to_decode_is_refused_undecoded(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header(20_000, 20_000) + bytes(100))
    with pytest.raises(CameraError, match="20000 x 20000 pixels is more than"):
        read_picture(bomb)
    assert 4000 * 3000 < MAX_PICTURE_PIXELS < 20_000 * 20_000
    bomb.write_bytes(_png_header(4000, 3000) + bytes(100))  # a camera's size: decoded (and
    with pytest.raises(CameraError, match="not a picture OpenCV decodes"):  # found damaged)
        read_picture(bomb)


@pytest.mark.parametrize(("make", "says"), [
    (lambda path: None, "no such file"),
    (lambda path: path.mkdir(), "a folder, not a picture"),
    (lambda path: path.write_bytes(b""), "the file is empty"),
    (lambda path: path.write_text("not a picture"), "not a picture OpenCV decodes"),
    (lambda path: os.mkfifo(path), "not a regular file"),
])
def test_a_bad_file_says_what_is_wrong(tmp_path: Path, make, says: str) -> None:
    path = tmp_path / "frame.png"
    make(path)
    with pytest.raises(CameraError, match=says):
        read_picture(path)


def test_a_folder_source_reads_its_pictures_with_the_same_check(tmp_path: Path) -> None:
    assert cv2.imwrite(str(tmp_path / "a.png"), np.full((48, 64, 3), 90, np.uint8))
    (tmp_path / "b.png").write_bytes(_png_header(30_000, 30_000))
    source = ImageFolderSource(tmp_path)
    source.open()
    frame = source.read()
    assert frame is not None and frame.image.shape == (48, 64, 3)
    with pytest.raises(CameraError, match="b.png.*pixels is more than"):
        source.read()


def test_a_name_too_long_for_the_file_system_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="cannot read image"):
        read_picture(tmp_path / ("x" * 300 + ".png"))
