"""The frame-source interface shared by cameras, files, folders and the simulator.

A source delivers :class:`Frame` objects: a BGR ``uint8`` image (height x
width x 3, OpenCV's order), a time in seconds and an index. ``live`` sources
(cameras) stamp frames with the wall clock and run in real time; the others
(video files, image folders, the simulator in fast mode) have their own
timeline, ``t = index / fps``, and are read as fast as the consumer wants.

``read()`` returns ``None`` at the end of a finite source and raises
:class:`~c4game.exc.CameraError` when a frame cannot be had (camera
unplugged, unreadable file); :class:`~firmware_py.sources.reopen.ReopeningSource`
turns such failures of a live source into reopen-with-backoff.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from c4game.exc import CameraError


class IntrinsicsSettings(Protocol):
    """The ``[camera]`` keys of the intrinsics (``firmware_py.config.CameraConfig``)."""

    @property
    def fx(self) -> float: ...
    @property
    def fy(self) -> float: ...
    @property
    def cx(self) -> float: ...
    @property
    def cy(self) -> float: ...
    @property
    def distortion(self) -> Sequence[float]: ...


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole camera intrinsics in pixels, and distortion (k1, k2, p1, p2[, k3])."""

    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, ...] = ()

    def matrix(self) -> np.ndarray:
        """The 3 x 3 camera matrix K."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @classmethod
    def from_config(cls, camera: IntrinsicsSettings) -> Intrinsics | None:
        """From ``[camera]`` fx/fy/cx/cy/distortion; ``None`` while any of fx..cy is 0."""
        values = (camera.fx, camera.fy, camera.cx, camera.cy)
        if not all(values):
            return None
        fx, fy, cx, cy = (float(v) for v in values)
        return cls(fx, fy, cx, cy, distortion=tuple(camera.distortion))


@dataclass(frozen=True)
class Frame:
    """One frame: BGR image, time in seconds on the source's timeline, index from 0.

    ``info`` carries what a source knows beyond the pixels (the simulator puts
    the scene it rendered there, with the true board); ``None`` otherwise.
    """

    image: np.ndarray
    t: float
    index: int
    info: object = None


class FrameSource(ABC):
    """A source of frames; use as a context manager or call open/close."""

    name: str = "source"
    live: bool = True
    fps: float = 10.0
    intrinsics: Intrinsics | None = None

    @abstractmethod
    def open(self) -> None:
        """Acquire the device or file; raises :class:`CameraError` naming it."""

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame; ``None`` at the end; :class:`CameraError` on failure."""

    @abstractmethod
    def close(self) -> None:
        """Release the device or file (safe to call twice)."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def check_image(image: object, where: str) -> np.ndarray:
    """``image`` as an H x W x 3 ``uint8`` BGR array, or :class:`CameraError`."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise CameraError(f"{where}: expected a uint8 image, got {type(image).__name__}")
    if image.ndim == 2:
        import cv2

        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[..., :3])  # XRGB8888 / BGRA: drop the padding
    if image.ndim != 3 or image.shape[2] != 3:
        raise CameraError(f"{where}: expected an H x W x 3 image, got shape {image.shape}")
    return image
