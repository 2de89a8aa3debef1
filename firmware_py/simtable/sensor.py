"""What a camera adds to any synthetic frame: sensor noise and a JPEG round trip.

Shared by both frame generators (:mod:`.render`, :mod:`.scene`), which differ
in how they make the picture, not in how a sensor records it.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

BANK_MARGIN = 64  # the noise bank is this much larger than the frame, for random offsets


@functools.lru_cache(maxsize=4)
def noise_bank(height: int, width: int) -> np.ndarray:
    """Gaussian noise as uint8 (128 + 32 N(0, 1)), a little larger than the frame."""
    rng = np.random.default_rng(0x5EED)
    noise = rng.standard_normal((height + BANK_MARGIN, width + BANK_MARGIN, 3), dtype=np.float32)
    return np.clip(128 + 32 * noise, 0, 255).astype(np.uint8)


def add_noise(frame: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """``frame`` with Gaussian sensor noise of ``sigma`` grey levels (a shifted cached bank)."""
    if sigma <= 0:
        return frame
    height, width = frame.shape[:2]
    bank = noise_bank(height, width)
    dy, dx = int(rng.integers(0, BANK_MARGIN)), int(rng.integers(0, BANK_MARGIN))
    gain = sigma / 32
    return cv2.addWeighted(frame, 1.0, bank[dy:dy + height, dx:dx + width], gain, -128 * gain)


def jpeg_round_trip(frame: np.ndarray, quality: int) -> np.ndarray:
    """``frame`` encoded as JPEG at ``quality`` and decoded (unchanged for 0)."""
    if not quality:
        return frame
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
