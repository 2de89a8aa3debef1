"""The Raspberry Pi camera through picamera2 (imported only when opened).

The camera runs a video configuration at the configured size and frame rate
with format ``RGB888``, which libcamera lays out in memory as B, G, R: exactly
the order OpenCV expects, so frames need no conversion. The intrinsics (for
the disc depth and the three-marker fallback) come from ``[camera]`` (fx, fy,
cx, cy, distortion) when set, else from the camera module itself once it runs
(:mod:`firmware_py.sources.pi_intrinsics`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from c4game.exc import CameraError
from firmware_py.frames import Frame, FrameSource, Intrinsics, check_image
from firmware_py.sources.pi_intrinsics import from_picamera2

if TYPE_CHECKING:
    from firmware_py.config import CameraConfig

log = logging.getLogger(__name__)

PICAMERA2_HINT = ("install it with: sudo apt install python3-picamera2 (Raspberry Pi OS); "
                  "no Pi camera here? use another source: usb:0 (a webcam), sim (the "
                  "simulated table), a picture or a folder, as the command's source or "
                  "[camera] source")


class Picamera2Like(Protocol):
    """What this source uses of ``picamera2.Picamera2`` (an untyped library; tests fake it)."""

    def create_video_configuration(self, *, main: dict[str, object],
                                   controls: dict[str, object], buffer_count: int) -> object: ...
    def configure(self, config: object) -> None: ...
    def start(self) -> None: ...
    def capture_array(self, name: str) -> object: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...


def _default_factory() -> Picamera2Like:
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except ImportError as error:
        raise CameraError(f"the Pi camera needs picamera2 ({error}); {PICAMERA2_HINT}") from None
    return Picamera2()


class PiCameraSource(FrameSource):
    """Frames from the Pi camera (``source = "camera"``).

    ``camera`` is a :class:`firmware_py.config.CameraConfig`; ``factory``
    returns a ``Picamera2``-like object (tests pass a fake); ``clock`` stamps
    the frames (monotonic seconds).
    """

    live = True

    def __init__(self, camera: CameraConfig, *,
                 factory: Callable[[], Picamera2Like] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = "camera"
        self.fps = float(camera.fps)
        self.size = (int(camera.width), int(camera.height))
        self.intrinsics = Intrinsics.from_config(camera)
        self._configured = self.intrinsics is not None
        self._lens_focal_mm = float(getattr(camera, "lens_focal_mm", 0.0))
        self._factory = factory or _default_factory
        self._clock = clock
        self._camera: Picamera2Like | None = None
        self._index = 0

    def open(self) -> None:
        if self._camera is not None:
            return
        camera = self._factory()
        try:
            config = camera.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                controls={"FrameRate": self.fps}, buffer_count=4)
            camera.configure(config)
            camera.start()
        except Exception as error:  # picamera2 raises RuntimeError, OSError, …
            _close_quietly(camera)
            raise CameraError(f"cannot start the Pi camera at {self.size[0]}x{self.size[1]} "
                              f"{self.fps:g} fps: {error} (one program at a time: if the c4pi "
                              f"service runs, sudo systemctl stop c4pi first)") from error
        self._camera = camera
        log.info("Pi camera started: %dx%d at %g fps", *self.size, self.fps)
        if not self._configured:
            self.intrinsics, how = from_picamera2(camera, self.size, self._lens_focal_mm)
            log.info("camera intrinsics: %s", how)

    def read(self) -> Frame | None:
        if self._camera is None:
            raise CameraError("the Pi camera is not open")
        try:
            image = self._camera.capture_array("main")
        except Exception as error:
            raise CameraError(f"the Pi camera stopped delivering frames: {error}") from error
        frame = Frame(check_image(image, "Pi camera"), self._clock(), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            _close_quietly(camera)


def _close_quietly(camera: Picamera2Like) -> None:
    for method in ("stop", "close"):
        try:
            getattr(camera, method)()
        except Exception as error:  # closing a broken camera must not hide the first error
            log.debug("Pi camera %s failed: %s", method, error)
