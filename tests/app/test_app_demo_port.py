"""``c4pi demo`` names its robot port only once the service answers on it.

A robot builder scripts the demo: they read the port from the first lines and
query it at once. Before, that first query went unanswered (the service had
not opened its end of the pseudo-terminal yet, and opening it flushed the
query away).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from cython_solver import Solver
from firmware_py.config import load_config

REPO = Path(__file__).resolve().parents[2]


def read_port(process: subprocess.Popen, timeout: float) -> str:
    """The pseudo-terminal named on the demo's "serial robot link on …" line."""
    deadline = time.monotonic() + timeout
    text = b""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    while time.monotonic() < deadline and process.poll() is None:
        if selector.select(0.2):
            text += os.read(process.stdout.fileno(), 4096)
            for line in text.decode(errors="replace").splitlines():
                if "serial robot link on " in line:
                    return line.split("serial robot link on ", 1)[1].split()[0]
    raise AssertionError(f"the demo never named its port: {text[-500:]!r}")


@pytest.mark.parametrize("attempt", range(2))
def test_the_first_query_sent_as_soon_as_the_port_is_named_is_answered(tmp_path,
                                                                       attempt) -> None:
    config = tmp_path / "c4pi.toml"
    config.write_text("[hud]\nenabled = false\n[speech]\nenabled = false\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_py", "--config", str(config), "demo", "--seed", "1",
         "--wav", str(tmp_path / "demo.wav")],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        port = serial.Serial(read_port(process, 60), 9600, timeout=10)
        port.write(b"!4453?")  # at once, as a robot's script would
        answer = port.read(5)
        port.close()
    finally:
        process.terminate()
        process.wait(timeout=20)
    expected = Solver.from_config(load_config(None).solver).best("4453").serial
    assert answer == b"!" + expected.encode()
