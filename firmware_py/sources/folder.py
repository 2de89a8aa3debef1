"""A folder of images, read in natural order (``frame2`` before ``frame10``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from c4game.exc import CameraError, excerpt
from firmware_py.frames import Frame, FrameSource, Intrinsics, check_image
from firmware_py.sources.picture import read_picture

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp",
                            ".ppm", ".pgm", ".pnm"})
DEFAULT_FPS = 10.0


def natural_key(path: Path) -> list[int | str]:
    """Sort key that orders embedded numbers by value."""
    return [int(part) if part.isdigit() else part.lower()
            for part in re.split(r"(\d+)", path.name)]


def is_picture_file(path: Path) -> bool:
    """Whether ``path`` is one picture file (a name OpenCV reads as a picture); a name
    the system refuses (too long) is none."""
    try:
        return path.suffix.lower() in IMAGE_SUFFIXES and path.is_file()
    except (OSError, ValueError):
        return False


def list_images(folder: Path) -> list[Path]:
    """The image files directly in ``folder``, naturally sorted."""
    return sorted((p for p in folder.iterdir()
                   if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES), key=natural_key)


def _imread(path: str) -> np.ndarray | None:
    return read_picture(path)  # CameraError saying what is wrong with the file


class ImageFolderSource(FrameSource):
    """Each image of a folder (or one image file) is one frame; ``t = index / fps``.
    Images are decoded as ``c4pi read`` decodes them (:func:`.picture.read_picture`),
    so a picture reads the same through every command."""

    live = False

    def __init__(self, folder: str | Path, *, fps: float | None = None,
                 intrinsics: Intrinsics | None = None,
                 imread: Callable[[str], np.ndarray | None] = _imread) -> None:
        self.folder = Path(folder)
        self.name = str(folder)
        self.fps = float(fps or DEFAULT_FPS)
        self.intrinsics = intrinsics
        self._imread = imread
        self._files: list[Path] | None = None
        self._index = 0

    @property
    def files(self) -> list[Path]:
        """The images that will be read (after :meth:`open`)."""
        return list(self._files or [])

    def open(self) -> None:
        if is_picture_file(self.folder):
            self._files, self._index = [self.folder], 0
            return
        if not self.folder.is_dir():
            raise CameraError(f"image folder {excerpt(self.name)} does not exist")
        files = list_images(self.folder)
        if not files:
            raise CameraError(f"image folder {excerpt(self.name)} holds no images "
                              f"({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._files = files
        self._index = 0

    def read(self) -> Frame | None:
        if self._files is None:
            raise CameraError(f"image folder {excerpt(self.name)} is not open")
        if self._index >= len(self._files):
            return None
        path = self._files[self._index]
        image = self._imread(str(path))
        if image is None:
            raise CameraError(f"cannot read image {excerpt(str(path))} (not an image OpenCV reads)")
        frame = Frame(check_image(image, str(path)), self._index / self.fps, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._files = None
