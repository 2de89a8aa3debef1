"""Colour constancy: normalise the grid image by the markers' white and black.

Every frame carries its own colour references: each marker is a black
AprilTag (0.8 P by default) on a white sticker (1 P square, SPEC §5 and
``c4pi markers``). Sampled in the frame through the board fit, the sticker's
white margin and the tag's outer black module ring give, per channel, what
"white" and "black" look like under this frame's light, exposure and white
balance. Mapping them to fixed levels,

    out = BLACK_LEVEL + (in - black) * (WHITE_LEVEL - BLACK_LEVEL) / (white - black)

undoes a colour cast, an exposure error and a camera's white-balance error
the way a person discounts the colour of the light: a red disc under warm
tungsten light and the same disc under daylight come out alike. Levels
leave head room above white for glare and below black for shadow.

Sample rings, in the marker's own square (side ``s`` pitches): the white
margin's centre line at half-side ``(s / 2 + 1 / 2) / 2`` and the tag's
outer module ring (one module = ``s / 8``) at half-side ``7 s / 16``;
``SAMPLES_PER_SIDE`` points on each side, away from the corners. The white
is a high percentile and the black a low one of each marker's samples (blur
mixes the thin ring with its neighbours), then the median over the markers.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from firmware_py.config import VisionConfig
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import MARKER_CENTRES, PX_PER_PITCH

BLACK_LEVEL = 16.0
WHITE_LEVEL = 224.0
SAMPLES_PER_SIDE = 12
WHITE_PERCENTILE = 75.0
BLACK_PERCENTILE = 25.0
MIN_CONTRAST = 24.0  # white - black (grey levels, each channel) below this: no reference


@dataclass(frozen=True)
class ColourReference:
    """Per-channel (B, G, R) white and black levels of one frame."""

    white: np.ndarray
    black: np.ndarray

    def __post_init__(self) -> None:
        if np.any(self.white - self.black < MIN_CONTRAST):
            raise ValueError(f"white {self.white} and black {self.black} are too close "
                             "to normalise by")

    def normalise(self, image: np.ndarray) -> np.ndarray:
        """``image`` (H x W x 3 BGR uint8) mapped so that white and black land on fixed levels."""
        gain = (WHITE_LEVEL - BLACK_LEVEL) / (self.white - self.black)
        offset = BLACK_LEVEL - self.black * gain
        lut = np.clip(np.arange(256, dtype=np.float64)[:, None] * gain + offset, 0, 255)
        return cv2.LUT(image, lut.round().astype(np.uint8).reshape(1, 256, 3))


def _ring_offsets(half_side: float) -> np.ndarray:
    """Points on a square ring of ``half_side`` (plane px), corners left out: (4 n, 2)."""
    along = np.linspace(-0.7, 0.7, SAMPLES_PER_SIDE) * half_side
    edge = np.full_like(along, half_side)
    return np.concatenate([np.column_stack([along, -edge]), np.column_stack([edge, along]),
                           np.column_stack([along, edge]), np.column_stack([-edge, along])])


def reference_points(marker_size_pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """Plane offsets from a marker centre of its white and black sample rings."""
    white_half = (marker_size_pitch / 2 + 0.5) / 2 * PX_PER_PITCH
    black_half = 7 * marker_size_pitch / 16 * PX_PER_PITCH
    return _ring_offsets(white_half), _ring_offsets(black_half)


def _sample(frame: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear BGR samples (N, 3) of ``frame`` at image points (N, 2)."""
    maps = points.astype(np.float32).reshape(1, -1, 2)
    values = cv2.remap(frame, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return values.reshape(-1, 3).astype(np.float64)


def colour_reference(frame: np.ndarray, fit: BoardFit,
                     marker_size_pitch: float = VisionConfig.marker_size_pitch,
                     ) -> ColourReference | None:
    """The frame's white and black from the markers of ``fit``; None when unusable."""
    if not fit.ok or not fit.marker_ids:
        return None
    white_offsets, black_offsets = reference_points(marker_size_pitch)
    centres = np.array([MARKER_CENTRES[marker] for marker in fit.marker_ids], np.float64)
    rings = np.concatenate([centres[:, None] + white_offsets, centres[:, None] + black_offsets],
                           axis=1)  # (M, 2 n, 2): each marker's white ring, then its black
    points = fit.project(rings.reshape(-1, 2)).reshape(rings.shape)
    height, width = frame.shape[:2]
    white_px = points[:, :len(white_offsets)]
    inside = np.all((white_px >= 0) & (white_px < (width - 1, height - 1)), axis=2)
    usable = inside.mean(axis=1) >= 0.75
    if not usable.any():
        return None
    samples = _sample(frame, points[usable].reshape(-1, 2)).reshape(
        int(usable.sum()), rings.shape[1], 3)
    whites = np.percentile(samples[:, :len(white_offsets)], WHITE_PERCENTILE, axis=1)
    blacks = np.percentile(samples[:, len(white_offsets):], BLACK_PERCENTILE, axis=1)
    try:
        return ColourReference(np.median(whites, axis=0), np.median(blacks, axis=0))
    except ValueError:
        return None


# A board found without markers has no white and black of its own: the camera's
# exposure and white balance are trusted as they are (levels mapped to themselves).
# Measured against stretching the grid area's own levels: docs/vision.md.
CAMERA_AS_IS = ColourReference(np.full(3, WHITE_LEVEL), np.full(3, BLACK_LEVEL))
