"""OpenCV ``VideoCapture``: a USB webcam (``usb:N``) or a video file.

A webcam is live (frames stamped by the clock). A file has its own timeline:
``t = index / fps`` with ``fps`` the override (``--fps``), else the file's own
rate, else 10.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from c4game.exc import CameraError, excerpt
from firmware_py.frames import Frame, FrameSource, Intrinsics, check_image

log = logging.getLogger(__name__)

DEFAULT_FPS = 10.0
FFMPEG_QUIET = -8  # FFmpeg's AV_LOG_QUIET
CONVERT = "ffmpeg -i {name} -c:v libx264 -an game.mp4"  # a video OpenCV reads


def parse_usb(spec: str) -> int | None:
    """The device number of ``usb:N``, ``None`` for anything else."""
    if not spec.startswith("usb:"):
        return None
    number = spec[4:]
    if not number.isdigit():
        raise CameraError(f"bad camera source {spec!r}: expected usb:N with N a device number")
    return int(number)


class CaptureLike(Protocol):
    """What this source uses of ``cv2.VideoCapture`` (tests fake it)."""

    def isOpened(self) -> bool: ...  # noqa: N802 (OpenCV's name)
    def get(self, prop: int) -> float: ...
    def set(self, prop: int, value: float) -> bool: ...
    def read(self) -> tuple[bool, object]: ...
    def release(self) -> None: ...


def _default_capture(target: int | str) -> CaptureLike:
    """OpenCV's capture of ``target``, its own warnings on a failed open and those of
    its FFmpeg decoder kept off stderr (the source says in one line what could not
    be opened)."""
    import os

    import cv2

    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", str(FFMPEG_QUIET))

    logging_ = cv2.utils.logging
    level = logging_.getLogLevel()
    logging_.setLogLevel(logging_.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(target)
    finally:
        logging_.setLogLevel(level)


class VideoCaptureSource(FrameSource):
    """A webcam (``usb:N``) or a video file read through OpenCV.

    ``size`` and ``camera_fps`` are requested from a webcam (it may pick the
    nearest mode); ``fps`` overrides a file's frame rate; ``intrinsics`` are
    passed on for the three-marker fallback; ``capture`` opens a
    ``cv2.VideoCapture``-like object (tests pass a fake).
    """

    def __init__(self, spec: str, *, fps: float | None = None,
                 size: tuple[int, int] | None = None, camera_fps: float | None = None,
                 intrinsics: Intrinsics | None = None,
                 capture: Callable[[int | str], CaptureLike] = _default_capture,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = spec
        self._device = parse_usb(spec)
        self.live = self._device is not None
        self._fps_override = fps
        self.fps = float(fps or camera_fps or DEFAULT_FPS)
        self._size = size
        self._camera_fps = camera_fps
        self.intrinsics = intrinsics
        self._capture_factory = capture
        self._clock = clock
        self._capture: CaptureLike | None = None
        self._index = 0

    def open(self) -> None:
        if self._capture is not None:
            return
        if self._device is None and not Path(self.name).is_file():
            raise CameraError(f"video file {excerpt(self.name)} does not exist")
        capture = self._capture_factory(self._device if self._device is not None else self.name)
        if not capture.isOpened():
            capture.release()
            if self.live:
                raise CameraError(f"cannot open webcam {self.name}")
            raise CameraError(f"cannot open video file {excerpt(self.name)}: damaged, or "
                              "in a format this OpenCV does not decode (convert it: "
                              f"{CONVERT.format(name=excerpt(self.name))})")
        if self.live:
            self._configure_webcam(capture)
        else:
            own = float(capture.get(_prop("CAP_PROP_FPS")) or 0.0)
            self.fps = float(self._fps_override or (own if own > 0 else DEFAULT_FPS))
        self._capture = capture
        self._index = 0
        log.info("opened %s (%s, %g fps)", self.name, "live" if self.live else "file", self.fps)

    def _configure_webcam(self, capture: CaptureLike) -> None:
        if self._size is not None:
            capture.set(_prop("CAP_PROP_FRAME_WIDTH"), self._size[0])
            capture.set(_prop("CAP_PROP_FRAME_HEIGHT"), self._size[1])
        if self._camera_fps:
            capture.set(_prop("CAP_PROP_FPS"), self._camera_fps)

    def read(self) -> Frame | None:
        if self._capture is None:
            raise CameraError(f"{self.name} is not open")
        ok, image = self._capture.read()
        if not ok or image is None:
            if self.live:
                raise CameraError(f"webcam {self.name} delivered no frame")
            return None
        t = self._clock() if self.live else self._index / self.fps
        frame = Frame(check_image(image, self.name), t, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


def _prop(name: str) -> int:
    import cv2

    return int(getattr(cv2, name))
