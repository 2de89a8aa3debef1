"""A printable sheet of the four board markers at true physical size (SPEC.md §5).

The sheet is an A4 page (portrait) as a grey image at a given resolution
(300 dpi by default), written as PNG with its resolution recorded (pHYs chunk),
so that printing at 100% gives markers of the right size. Each marker sits on
a white square sticker one pitch wide, outlined by a dashed cut line, with its
id and the corner it belongs to. A 50 mm bar checks the print scale, and the
text gives the placement: marker centres on a rectangle 9P x 7P centred on the
grid.
"""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

from firmware_py.config import VisionConfig

A4_MM = (210.0, 297.0)
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
MM_PER_INCH = 25.4
MIN_PITCH_MM = 10.0
MAX_PITCH_MM = 50.0


def mm_to_px(mm: float, dpi: float) -> int:
    return int(round(mm / MM_PER_INCH * dpi))


def marker_sheet(pitch_mm: float, marker_size_pitch: float = VisionConfig.marker_size_pitch,
                 dpi: int = 300) -> np.ndarray:
    """The A4 sheet (H x W uint8 grey) for a board of hole pitch ``pitch_mm``."""
    if not MIN_PITCH_MM <= pitch_mm <= MAX_PITCH_MM:
        raise ValueError(f"pitch {pitch_mm:g} mm is out of range "
                         f"{MIN_PITCH_MM:g}-{MAX_PITCH_MM:g} mm (one A4 sheet)")
    if not 0.2 <= marker_size_pitch <= 0.99:
        raise ValueError(f"marker size {marker_size_pitch} pitch is out of range 0.2-0.99")
    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi {dpi} is out of range 72-1200")
    width, height = mm_to_px(A4_MM[0], dpi), mm_to_px(A4_MM[1], dpi)
    page = np.full((height, width), 255, np.uint8)
    sticker = mm_to_px(pitch_mm, dpi)
    tag = mm_to_px(pitch_mm * marker_size_pitch, dpi)
    margin = mm_to_px(15, dpi)
    gap = width - 2 * margin - 2 * sticker
    line = max(1, dpi // 150)
    top = mm_to_px(45, dpi)
    for marker in range(4):
        column, row = (0, 1, 1, 0)[marker], (0, 0, 1, 1)[marker]
        x = margin + column * (sticker + gap)
        y = top + row * (sticker + mm_to_px(25, dpi))
        _draw_sticker(page, marker, (x, y), sticker, tag, line, dpi)
    _draw_text(page, pitch_mm, marker_size_pitch, dpi, top + 2 * sticker + mm_to_px(45, dpi))
    return page


def _draw_sticker(page: np.ndarray, marker: int, origin: tuple[int, int], sticker: int,
                  tag: int, line: int, dpi: int) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    modules = 8
    image = cv2.aruco.generateImageMarker(dictionary, marker, modules * 64, borderBits=1)
    image = cv2.resize(image, (tag, tag), interpolation=cv2.INTER_NEAREST)
    x, y = origin
    offset = (sticker - tag) // 2
    page[y + offset:y + offset + tag, x + offset:x + offset + tag] = image
    _dashed_rectangle(page, (x, y), (x + sticker, y + sticker), line, mm_to_px(2, dpi))
    centre = (x + sticker // 2, y + sticker // 2)
    tick = mm_to_px(2, dpi)
    for dx, dy in ((0, -1), (0, 1), (-1, 0), (1, 0)):  # centre ticks on the cut line
        edge = (centre[0] + dx * sticker // 2, centre[1] + dy * sticker // 2)
        cv2.line(page, edge, (edge[0] - dx * tick, edge[1] - dy * tick), 0, line)
    label = f"id {marker}: {CORNER_NAMES[marker]}"
    scale = dpi / 300 * 0.9
    cv2.putText(page, label, (x, y + sticker + mm_to_px(6, dpi)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, 0, max(1, dpi // 150), cv2.LINE_AA)


def _dashed_rectangle(page: np.ndarray, p0: tuple[int, int], p1: tuple[int, int],
                      thickness: int, dash: int) -> None:
    corners = [p0, (p1[0], p0[1]), p1, (p0[0], p1[1])]
    for start, end in zip(corners, corners[1:] + corners[:1], strict=True):
        length = int(np.hypot(end[0] - start[0], end[1] - start[1]))
        for s in range(0, length, 2 * dash):
            a = s / length
            b = min(s + dash, length) / length
            pa = (int(start[0] + a * (end[0] - start[0])), int(start[1] + a * (end[1] - start[1])))
            pb = (int(start[0] + b * (end[0] - start[0])), int(start[1] + b * (end[1] - start[1])))
            cv2.line(page, pa, pb, 90, thickness)


def _draw_text(page: np.ndarray, pitch_mm: float, size_pitch: float, dpi: int, top: int) -> None:
    left = mm_to_px(15, dpi)
    lines = [
        f"c4pi board markers - AprilTag 36h11 - hole pitch P = {pitch_mm:g} mm",
        f"Print at 100% (no scaling). Black square = {size_pitch * pitch_mm:.1f} mm "
        f"({size_pitch:g} P); cut on the dashed lines ({pitch_mm:g} mm squares).",
        "Stick the markers upright on the board frame, centres on a rectangle",
        f"9P x 7P = {9 * pitch_mm:.1f} mm x {7 * pitch_mm:.1f} mm centred on the grid:",
        f"1P = {pitch_mm:g} mm left/right of the outer column edges,",
        f"0.5P = {pitch_mm / 2:g} mm above/below the outer row edges.",
        "Scale check: the bar below must measure 50 mm.",
    ]
    scale = dpi / 300 * 0.85
    step = mm_to_px(7, dpi)
    for index, text in enumerate(lines):
        cv2.putText(page, text, (left, top + index * step), cv2.FONT_HERSHEY_SIMPLEX, scale, 0,
                    max(1, dpi // 150), cv2.LINE_AA)
    y = top + len(lines) * step + mm_to_px(3, dpi)
    bar = mm_to_px(50, dpi)
    cv2.rectangle(page, (left, y), (left + bar, y + mm_to_px(3, dpi)), 0, -1)
    for mm in range(0, 51, 10):
        x = left + mm_to_px(mm, dpi)
        cv2.line(page, (x, y - mm_to_px(2, dpi)), (x, y), 0, max(1, dpi // 150))


def png_bytes(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of ``image`` with a pHYs chunk recording ``dpi``."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("PNG encoding failed")
    raw = data.tobytes()
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature + IHDR length, type, data, crc
    return raw[:ihdr_end] + chunk + raw[ihdr_end:]
