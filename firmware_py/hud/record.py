"""Annotated recordings (``c4pi watch SOURCE --record OUT.mp4``).

Each frame of the video is the camera picture with the reader's overlay
(:func:`firmware_py.hud.camera_feed.annotated_picture`) above a HUD strip:
the recommendation and outcome in large type, the pipeline's state and time,
and a miniature of the committed board, as the kiosk page shows them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from c4game.exc import RecordingError
from firmware_py.config import VisionConfig
from firmware_py.hud.camera_feed import annotated_picture
from firmware_py.json_types import JsonObject

if TYPE_CHECKING:
    from firmware_py.vision.reader import FrameAnalysis

STRIP_HEIGHT = 132
BAND_LINES = 3  # the status band above each frame: status, reason, advice (one line each)
BACKGROUND = (28, 20, 16)  # BGR of the page's background
DISC_BGR = {"R": (58, 52, 232), "Y": (29, 207, 247), ".": (51, 26, 13)}
BOARD_BGR = (214, 95, 31)
TEXT_BGR = (248, 244, 242)
FONT = cv2.FONT_HERSHEY_DUPLEX


def headline(state: JsonObject) -> str:
    """``"R->4  Y->5   Red wins in 13"`` (ASCII: OpenCV's fonts have no arrows);
    ``"->4  ->3   First player wins in 41"`` before anyone has started (no colour)."""
    parts = []
    if state.get("best") is not None:
        parts.append(f"{state.get('to_move') or ''}->{state['best']}")
        reply = state.get("reply")
        if reply:
            parts.append(f"{reply.get('colour') or ''}->{reply['column']}")
    verdict = state.get("verdict") or {"scanning": "looking for the board",
                                       "transitional": "the board is changing"}.get(
                                           state.get("state", ""), "")
    return "  ".join(parts) + ("   " if parts else "") + verdict


def draw_board(image: np.ndarray, grid: list[str] | None, origin: tuple[int, int],
               cell: int) -> None:
    """A miniature board (6 x 7 holes of ``cell`` px) with its top-left at ``origin``."""
    x0, y0 = origin
    cv2.rectangle(image, (x0, y0), (x0 + 7 * cell, y0 + 6 * cell), BOARD_BGR, -1)
    for row in range(6):
        for col in range(7):
            disc = grid[row][col] if grid else "."
            centre = (x0 + col * cell + cell // 2, y0 + row * cell + cell // 2)
            cv2.circle(image, centre, int(cell * 0.4), DISC_BGR[disc], -1, cv2.LINE_AA)


def hud_strip(state: JsonObject, width: int, t: float) -> np.ndarray:
    """The strip under the picture."""
    strip = np.full((STRIP_HEIGHT, width, 3), BACKGROUND, np.uint8)
    cell = (STRIP_HEIGHT - 12) // 6
    grid = state.get("grid") or state.get("committed")
    draw_board(strip, grid, (width - 7 * cell - 10, 6), cell)
    text_width = width - 7 * cell - 30
    scale = min(1.6, text_width / 520)
    cv2.putText(strip, headline(state), (14, 56), FONT, scale, TEXT_BGR, 2, cv2.LINE_AA)
    played = ", ".join(state["game"]["moves"]) or "none yet"
    status = f"{state.get('state', '')}   t = {t:6.1f} s   columns played: {played}"
    cv2.putText(strip, status, (14, 104), FONT, scale * 0.5, (181, 163, 154), 1, cv2.LINE_AA)
    return strip


class Recorder:
    """Writes annotated frames to an MP4 file (MPEG-4 part 2, any player reads it)."""

    def __init__(self, path: str | Path, fps: float, width: int = 960,
                 min_cell_confidence: float = VisionConfig.min_cell_confidence) -> None:
        self.path = Path(path)
        self.fps = fps
        self.width = width
        self.min_cell_confidence = min_cell_confidence
        self.frames = 0
        self.failure = ""  # after close: why the file is not whole ("" when it is)
        self._writer: cv2.VideoWriter | None = None
        self._height = 0  # every frame of a video has its first frame's size

    def write(self, image: np.ndarray, analysis: FrameAnalysis | None, state: JsonObject,
              t: float) -> None:
        picture = annotated_picture(image, analysis, self.width, self.min_cell_confidence,
                                    banner=True, band_lines=BAND_LINES)
        if picture.shape[1] != self.width:
            height = round(picture.shape[0] * self.width / picture.shape[1])
            picture = cv2.resize(picture, (self.width, height))
        frame = np.vstack([picture, hud_strip(state, self.width, t)])
        if self._writer is None:
            self._writer = self._open(frame.shape[1], frame.shape[0])
            self._height = frame.shape[0]
        self._writer.write(fit_height(frame, self._height))
        self.frames += 1

    def _open(self, width: int, height: int) -> cv2.VideoWriter:
        writer = cv2.VideoWriter(str(self.path), cv2.VideoWriter_fourcc(*"mp4v"), self.fps,
                                 (width, height))
        if not writer.isOpened():
            raise RecordingError(f"{self.path}: cannot write an MP4 video here")
        return writer

    def close(self) -> None:
        """Finish the file, then read it back: :attr:`failure` says what is wrong with it
        ("" when every frame written can be read; a full disk leaves a stub)."""
        if self._writer is not None:
            self._writer.release()
            self._writer = None
            readable = readable_frames(self.path)
            if readable < self.frames:
                self.failure = (f"{self.path}: the video is not whole: {readable} of "
                                f"{self.frames} frames can be read back (is the disk full?)")


def fit_height(frame: np.ndarray, height: int) -> np.ndarray:
    """``frame`` cut or padded (at the top, in the background colour) to ``height`` rows."""
    if frame.shape[0] >= height:
        return frame[frame.shape[0] - height:]
    pad = np.empty((height - frame.shape[0], *frame.shape[1:]), frame.dtype)
    pad[:] = BACKGROUND
    return np.vstack([pad, frame])


def readable_frames(path: Path) -> int:
    """How many frames a video file says it holds, 0 when it cannot be opened or its
    first frame cannot be read."""
    capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened() or not capture.read()[0]:
            return 0
        return int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        capture.release()
