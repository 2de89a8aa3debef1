"""Make the README's pictures of real set-up steps from the shared real photographs.

    .venv/bin/python -m tools.setup_pictures     # writes docs/img/setup-*.jpg

The photographs are MIT-licensed, from the repositories named in
``docs/img/LICENSES.md`` (``../shared/data/real-dev*``; the ``real-dev`` and
``real-dev2`` copies have the four markers composited in, ``real-dev-raw`` is
as taken). Each picture is cropped around the board, scaled to ``WIDTH`` and
written as a JPEG of quality ``QUALITY``:

1. ``setup-1-annotated.jpg``: a real board with markers, read and annotated
   as ``c4pi snapshot --annotate`` does (the same reader, built by
   ``make_reader`` from the default config, no stored empty board, and the same
   ``annotate``), on the crop, as a camera framed like that would see it;
2. ``setup-2-markers.jpg``: a robot rig with a camera module in front of the
   board and the four markers (composited) around it;
3. ``setup-3-straight-on.jpg``: a board as photographed, straight on, a plain
   card behind it;
4. ``setup-4-beyond-frame.jpg`` (for ``docs/camera.md``): a Hasbro-style board
   whose composited markers lie beyond its frame, in the air: a real one needs
   card tabs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from firmware_py.config import load_config
from firmware_py.pipeline.assemble import make_reader
from firmware_py.vision.overlay import annotate
from tools.shared_data import REPO, missing_reason, shared_dir

WIDTH = 800
QUALITY = 80
MAX_BYTES = 150_000


def crop(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """``image`` cut to ``box`` = (left, top, right, bottom) as fractions of its size."""
    height, width = image.shape[:2]
    left, top, right, bottom = box
    return image[round(top * height):round(bottom * height),
                 round(left * width):round(right * width)].copy()


def write(image: np.ndarray, name: str) -> Path:
    """``image`` scaled to ``WIDTH`` px wide, as a JPEG in ``docs/img``."""
    height = round(image.shape[0] * WIDTH / image.shape[1])
    image = cv2.resize(image, (WIDTH, height), interpolation=cv2.INTER_AREA)
    path = REPO / "docs" / "img" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise RuntimeError(f"cannot encode {name}")
    if len(data) > MAX_BYTES:
        raise RuntimeError(f"{name}: {len(data)} bytes, over {MAX_BYTES}")
    path.write_bytes(data.tobytes())
    print(f"wrote {path.relative_to(REPO)} ({WIDTH}x{height}, {len(data) // 1000} kB)")
    return path


def annotated_board(data: Path) -> np.ndarray:
    """Picture 1: zamweis/connectfourvision 20211220_133303 (13 discs, Yellow
    started: legal under the default ``[game] first = "either"``), the board and
    its markers cut out of the portrait photo, read and annotated."""
    photo = cv2.imread(str(data / "real-dev" / "frames" / "zam_133303.jpg"))
    frame = crop(photo, (0.10, 0.18, 0.90, 0.545))
    config = load_config(None)
    reader = make_reader(config, None, stored_looks=False)
    analysis = reader.analyse(frame)
    reading = analysis.reading
    print(f"picture 1 reads: {reading.status}, {reading.markers} marker(s), "
          f"confidence {reading.confidence:.3f}; grid {'/'.join(reading.grid or ())}")
    if reading.status != "ok":
        raise RuntimeError("picture 1 should show a board that reads ok")
    return annotate(frame, analysis, config.vision.min_cell_confidence)


def main() -> int:
    data = shared_dir() / "data"
    if not (data / "real-dev-raw").is_dir():
        print(missing_reason(data), file=sys.stderr)
        return 1
    write(annotated_board(data), "setup-1-annotated.jpg")
    rig = cv2.imread(str(data / "real-dev2" / "frames" / "and_hardware_overview.jpg"))
    write(crop(rig, (0.0, 0.16, 0.50, 1.0)), "setup-2-markers.jpg")
    board = cv2.imread(str(data / "real-dev-raw" / "frames" / "zam_132702.jpg"))
    write(crop(board, (0.0, 0.11, 1.0, 0.56)), "setup-3-straight-on.jpg")
    navy = cv2.imread(str(data / "real-dev" / "frames" / "res_IMG_3990.jpg"))
    write(navy, "setup-4-beyond-frame.jpg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
