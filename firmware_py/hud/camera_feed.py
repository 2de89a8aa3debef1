"""The camera picture for the HUD: the latest frame, annotated, scaled down, as JPEG.

:class:`CameraFeed` runs in a thread of its own, never in the vision loop:
at most ``fps`` times a second, and only while someone watches, it takes
the hub's latest frame, draws what the reader saw on it
(:func:`firmware_py.vision.overlay.annotate`: markers, grid, cells,
rejection reason), scales it to ``width`` and encodes it. Each new JPEG goes
to ``on_jpeg(seq, data)``. A frame is encoded once, however many watch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import cv2
import numpy as np

from firmware_py.config import VisionConfig

if TYPE_CHECKING:
    from firmware_py.hud.hub import HudHub
    from firmware_py.vision.reader import FrameAnalysis

log = logging.getLogger(__name__)

JPEG_QUALITY = 70


def annotated_picture(image: np.ndarray, analysis: FrameAnalysis | None, width: int,
                      min_cell_confidence: float = VisionConfig.min_cell_confidence, *,
                      banner: bool = False,
                      band_lines: int | None = None) -> np.ndarray:
    """The frame with the reader's overlay (when there is an analysis), ``width`` wide;
    the status ``banner`` only where no page says it (the page's caption is the one
    place for the reading's status on the screen)."""
    if analysis is not None:
        from firmware_py.vision.overlay import annotate

        image = annotate(image, analysis, min_cell_confidence, banner=banner,
                         band_lines=band_lines)
    height, full_width = image.shape[:2]
    if full_width > width:
        size = (width, max(1, round(height * width / full_width)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return image


def encode_jpeg(image: np.ndarray, quality: int = JPEG_QUALITY) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return data.tobytes()


class CameraFeed:
    """See the module docstring. ``watching()`` says whether anyone watches."""

    def __init__(self, hub: HudHub, on_jpeg: Callable[[int, bytes], None], *,
                 watching: Callable[[], bool], fps: float = 4.0, width: int = 640,
                 min_cell_confidence: float = VisionConfig.min_cell_confidence) -> None:
        self.hub = hub
        self.on_jpeg = on_jpeg
        self.watching = watching
        self.period = 1.0 / fps
        self.width = width
        self.min_cell_confidence = min_cell_confidence
        self.encoded = 0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_seq = 0

    def start(self) -> CameraFeed:
        self._thread = threading.Thread(target=self._run, name="c4pi-hud-camera", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Someone started watching: encode the next frame without waiting."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.watching():
                try:
                    self.encode_latest()
                except Exception:
                    log.exception("camera picture for the HUD failed")
                self._stop.wait(self.period)
            else:
                self._wake.wait(1.0)
                self._wake.clear()

    def encode_latest(self) -> bool:
        """Encode the newest frame if it is new; True when one was sent."""
        frame = self.hub.latest_frame()
        if frame is None or frame.seq == self._last_seq:
            return False
        self._last_seq = frame.seq
        picture = annotated_picture(frame.image, frame.analysis, self.width,
                                    self.min_cell_confidence)
        self.on_jpeg(frame.seq, encode_jpeg(picture))
        self.encoded += 1
        return True
