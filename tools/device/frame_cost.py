"""How long one simulated-camera frame takes to render and to read, here.

    python -m tools.device.frame_cost [FRAMES]

Used to size the rendered end-to-end tests under emulation
(``tests/emulation.py``): run it natively and inside an emulated root and
compare. Prints milliseconds per frame for each stage.
"""

from __future__ import annotations

import sys
import time

from firmware_py.config import Config
from firmware_py.sources.factory import sim_opponent_source
from firmware_py.vision.reader import BoardReader


def main(frames: int = 6) -> None:
    config = Config()
    began = time.perf_counter()
    reader = BoardReader.from_config(config.vision, config.camera)
    loaded = time.perf_counter()
    source = sim_opponent_source(config.camera, lambda board: 4, "Y", fast=True, seed=9,
                                 games=1, fps=2)
    source.open()
    render_s = read_s = 0.0
    for _ in range(frames):
        t0 = time.perf_counter()
        frame = source.read()
        t1 = time.perf_counter()
        reader.read(frame.image)
        read_s += time.perf_counter() - t1
        render_s += t1 - t0
    print(f"reader loaded in {1000 * (loaded - began):.0f} ms; per frame "
          f"({config.camera.width}x{config.camera.height}): render "
          f"{1000 * render_s / frames:.0f} ms, read {1000 * read_s / frames:.0f} ms")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
