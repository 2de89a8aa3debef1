"""Sizes and time limits for tests that also run under qemu-user emulation.

``tools/device/arm64_check.sh`` and ``armhf_check.sh`` set ``C4PI_EMULATED``:
there Python runs 10-50 times slower than here and a camera frame's read
(the CNN's NEON code above all) 130 times slower: 3.8 s against 29 ms at
1280x720 (``python -m tools.device.frame_cost``). So a limit sized for this
machine is wrong (a product limit, such as "stops within 2.5 s", is a Pi's,
not an emulator's), and the rendered end-to-end tests read fewer frames
there: fewer frames a second, fewer cases, or a game's start instead of the
whole game, which runs on every real machine. Without it, every value is the
one the test names.
"""

from __future__ import annotations

import os

EMULATED = os.environ.get("C4PI_EMULATED", "")
SLOWER = 40.0  # how much longer a time limit is under emulation


def patience(seconds: float) -> float:
    """A time limit: ``seconds`` here, :data:`SLOWER` times that under emulation."""
    return seconds * SLOWER if EMULATED else seconds


def fewer(count: int, emulated: int) -> int:
    """How many frames or games: ``count`` here, ``emulated`` under emulation."""
    return emulated if EMULATED else count
