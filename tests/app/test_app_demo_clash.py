"""Two c4pi processes at once: the second never passes the first's screen off as its
own, nor writes into the WAV file the first is writing.

Before, a second ``c4pi demo`` printed "screen: http://localhost:8080/" (the other
demo's page), ran without a screen and wrote into the same WAV file.
"""

from __future__ import annotations

import fcntl
import io
import os
import re
import socket
import subprocess
import sys
import threading
import time
from contextlib import closing, redirect_stderr
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from c4game.exc import AudioError
from firmware_py.appliance import demo
from firmware_py.cli import main
from firmware_py.config import Config
from firmware_py.speech.clips import write_wav
from firmware_py.speech.wav_sink import WavSink

REPO = Path(__file__).resolve().parents[2]
FIRST = b"RIFF the first process's audio"


def free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_taken(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def wait_listening(port: int, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"the first demo never served port {port}")


def test_a_second_demo_says_the_port_is_taken_and_exits(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "c4pi.toml"
    config.write_text(f"[hud]\nport = {port}\nkiosk_port = {port + 1}\n"
                      "[speech]\nenabled = false\n")
    command = [sys.executable, "-m", "firmware_py", "--config", str(config), "demo",
               "--seed", "1"]
    first = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, first, 120)
        try:
            second = subprocess.run(command, cwd=REPO, capture_output=True, text=True,
                                    timeout=60)
        except subprocess.TimeoutExpired as error:
            raise AssertionError(f"the second demo ran on: {error.stdout!r}") from None
        other = free_port()  # what the message says to do: --port
        third = subprocess.Popen([*command, "--port", str(other)], cwd=REPO,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(other, third, 120)
        finally:
            third.terminate()
            third.wait(timeout=30)
    finally:
        first.terminate()
        first.wait(timeout=30)
    assert second.returncode == 1
    said = re.search(r"port (\d+) is in use - is another c4pi running\? give the screen "
                     r"another port: c4pi demo --port (\d+)", second.stderr)
    assert said and int(said[1]) == port, second.stderr
    suggested = int(said[2])  # free, and not the first demo's screen port
    assert suggested not in (port, port + 1) and not port_taken(suggested)
    assert f"localhost:{port}" not in second.stdout


def hold_lock(path: Path) -> int:
    """Lock ``path`` as another process writing it would (flock, its own open file)."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_wav_file_being_written_is_never_written_into(tmp_path: Path) -> None:
    path = tmp_path / "speech.wav"
    path.write_bytes(FIRST)
    fd = hold_lock(path)
    try:
        with pytest.raises(AudioError, match="another c4pi process is writing it"):
            WavSink(path).start(lambda frames: np.zeros(frames, np.int16), 22050)
        with pytest.raises(AudioError, match=f"cannot write {path}"):
            write_wav(path, np.zeros(100, np.int16), 22050)
        assert path.read_bytes() == FIRST
    finally:
        os.close(fd)
    sink = WavSink(path, realtime=False)
    sink.start(lambda frames: np.zeros(frames, np.int16), 22050)
    sink.close()
    assert path.read_bytes()[:4] == b"RIFF" and path.stat().st_size > len(FIRST)


def test_say_out_into_a_file_being_written_says_so(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "speech.wav"
    path.write_bytes(FIRST)
    fd = hold_lock(path)
    try:
        assert main(["say", "1212121", "--out", str(path)]) == 1
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another c4pi process is writing it" in err
    assert path.read_bytes() == FIRST


def test_a_demo_whose_wav_file_is_being_written_exits(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "demo.wav"
    path.write_bytes(FIRST)
    monkeypatch.setattr(demo, "has_speaker", lambda: False)
    config = Config()
    config = replace(config, hud=replace(config.hud, enabled=False))
    result: list[int] = []
    err = io.StringIO()
    fd = hold_lock(path)
    try:
        def run() -> None:
            with redirect_stderr(err):
                result.append(demo.run_demo(config, seed=1, fps=None, wav_path=path,
                                            out=io.StringIO()))
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(timeout=30)
    finally:
        os.close(fd)
    assert result == [1], "the demo ran on"
    assert err.getvalue() == (f"c4pi demo: {path} is being written by another c4pi process; "
                              "give this one its own file with --wav FILE.wav\n")
    assert path.read_bytes() == FIRST
