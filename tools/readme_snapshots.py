"""Make the README's annotated snapshots of a good and a poor camera set-up.

    .venv/bin/python -m tools.readme_snapshots        # writes docs/img/snapshot-*.png

Both are frames of the built-in renderer, read and annotated as
``c4pi snapshot --annotate`` does (default config, no empty board stored).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import cv2

from firmware_py.config import load_config
from firmware_py.simtable.render import RenderSpec, render_frame
from firmware_py.simtable.render_spec import RED_COLOURS
from firmware_py.vision.overlay import annotate
from firmware_py.vision.reader import BoardReader
from tools.shared_data import REPO

GOOD = RenderSpec(yaw_deg=12, pitch_deg=-14, roll_deg=2, distance=1.35, clutter=4,
                  disc_depth=0.35)
POOR = RenderSpec(yaw_deg=48, pitch_deg=-12, roll_deg=6, distance=1.9, clutter=0,
                  background_colour=RED_COLOURS[1], glare=0.8, hide_markers=(3,),
                  disc_depth=0.35, offset=(0.12, 0.05))
MOVES = "4453536"
WIDTH = 960  # the pictures are scaled to this width


def main() -> int:
    vision = replace(load_config(None).vision, remember_empty_board=False)
    reader = BoardReader.from_config(vision, None)
    out = REPO / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    for name, spec in (("good", GOOD), ("bad", POOR)):
        frame = render_frame(MOVES, spec, seed=5)
        image = annotate(frame, reader.analyse(frame), vision.min_cell_confidence)
        height = round(image.shape[0] * WIDTH / image.shape[1])
        path = out / f"snapshot-{name}.png"
        cv2.imwrite(str(path), cv2.resize(image, (WIDTH, height), interpolation=cv2.INTER_AREA))
        print(f"wrote {path}: {reader.analyse(frame).reading.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
