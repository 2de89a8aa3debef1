"""`c4pi watch SOURCE --record OUT.mp4`: the video decodes and shows the overlay and the HUD."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from firmware_py.hud.record import STRIP_HEIGHT
from firmware_py.vision.overlay import GRID_READ
from tests.emulation import fewer, patience

ROOT = Path(__file__).resolve().parents[2]


def test_the_recording_decodes_and_shows_what_the_reader_found(tmp_path: Path) -> None:
    out = tmp_path / "game.mp4"
    count = fewer(60, emulated=15)  # each frame rendered and read: slow under emulation
    result = subprocess.run(
        [sys.executable, "-m", "firmware_py", "watch", "sim", "--moves", "44", "--fast",
         "--seed", "4", "--frames", str(count), "--record", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=patience(300))
    assert result.returncode == 0, result.stderr
    assert f"{count} frames written" in result.stderr
    video = cv2.VideoCapture(str(out))
    frames = []
    while True:
        ok, frame = video.read()
        if not ok:
            break
        frames.append(frame)
    assert len(frames) == count
    last = frames[-1].astype(np.int32)
    picture, strip = last[:-STRIP_HEIGHT], last[-STRIP_HEIGHT:]
    # the fitted grid is drawn in the overlay's colour (cyan) where the board was read
    grid_pixels = np.all(np.abs(picture - np.array(GRID_READ)) < 40, axis=2).sum()
    assert grid_pixels > 500
    # the strip: dark background with bright text, and the board's blue miniature
    assert np.median(strip) < 60 and (strip.max(axis=2) > 200).sum() > 300
    assert np.all(np.abs(strip - np.array((214, 95, 31))) < 30, axis=2).sum() > 1000


def _disk_full_after_4_kb() -> None:
    """In the child: files may grow to 4 KB, then every write fails (as on a full disk;
    EFBIG instead of ENOSPC, the signal that would kill the process ignored)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_recording_on_a_full_disk_says_it_failed(tmp_path: Path) -> None:
    """Found by a hostile re-test: on a full filesystem `--record` printed "100 frames
    written", exited 0 and left a 4 KB file without a readable frame. Now the command
    reads the file back, says it is not whole and exits non-zero."""
    out = tmp_path / "game.mp4"
    result = subprocess.run(
        [sys.executable, "-m", "firmware_py", "watch", "sim", "--moves", "44", "--fast",
         "--seed", "4", "--frames", "20", "--record", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=patience(300),
        preexec_fn=_disk_full_after_4_kb)
    assert result.returncode != 0, result.stderr
    assert "frames written" not in result.stderr
    assert "the video is not whole: 0 of 20 frames can be read back" in result.stderr
    assert "Traceback" not in result.stderr
