"""`c4pi run` end to end in a subprocess: notify socket, pty serial link, WAV speech,
sysfs LED in a temporary directory, the simulated camera; plus failure paths."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest
import serial

from c4game.board import Board
from c4game.scores import plies_to_end
from firmware_py.serial_link.ptywire import PtyWire
from tests.emulation import patience
from tools.device import robot_queries

# (moves, published score) from the public end-easy/middle-easy sets: independent truth.
QUERIES = [
    ("2252576253462244111563365343671351441", -1),
    ("715371563635542612576371", 3),
    ("1647114453755655641534", -7),
]


def write_config(tmp_path: Path, port: str, leds: Path, *, source: str = "sim") -> Path:
    path = tmp_path / "c4pi.toml"
    path.write_text(f"""
[solver]
tt_mb = 16
[serial]
port = "{port}"
reconnect_min_s = 0.1
reconnect_max_s = 0.5
[led]
activity = "sysfs"
sysfs_root = "{leds}"
[camera]
source = "{source}"
width = 640
height = 360
fps = 8.0
reopen_min_s = 0.2
reopen_max_s = 1.0
[speech]
sink = "wav"
wav_path = "{tmp_path / 'speech.wav'}"
clip_dir = "{tmp_path / 'clips'}"
""")
    return path


def fake_act_led(tmp_path: Path) -> Path:
    root = tmp_path / "leds"
    act = root / "ACT"
    act.mkdir(parents=True)
    (act / "trigger").write_text("none [mmc0] timer heartbeat\n")
    (act / "brightness").write_text("0\n")
    (act / "max_brightness").write_text("1\n")
    return root


class Daemon:
    """A `c4pi run` subprocess with a notify socket we listen on."""

    def __init__(self, tmp_path: Path, config: Path) -> None:
        self.sock_path = str(tmp_path / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.sock_path)
        self.sock.settimeout(0.2)
        self.messages: list[str] = []
        env = {**os.environ, "NOTIFY_SOCKET": self.sock_path, "WATCHDOG_USEC": "1000000"}
        self.log = open(tmp_path / "daemon.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "firmware_py", "--config", str(config), "run"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                self.messages.append(self.sock.recv(4096).decode())

    def wait_for(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + patience(timeout)
        while time.monotonic() < deadline:
            for message in self.messages:
                if message.startswith(prefix):
                    return message
            if self.process.poll() is not None:
                break
            self.pump(0.2)
        raise AssertionError(f"no {prefix!r} from the daemon; got {self.messages[-5:]}")

    def stop(self) -> tuple[int, float]:
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=patience(10))
        self.log.close()
        self.sock.close()
        return code, time.monotonic() - started


def ask(robot: serial.Serial, moves: str, timeout: float = 20.0) -> bytes:
    """The answer: ``!`` and four bytes, or ``?`` (a refused frame), or what came in time."""
    robot.reset_input_buffer()
    answer, _ = robot_queries.ask(robot.fileno(), moves, patience(timeout))
    return answer.encode()


def wait_for_speech(log_path: Path, seconds: float) -> None:
    """Until the daemon has said something (the camera's first board read and solved)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and "speech: " not in log_path.read_text():
        time.sleep(0.5)


def expected_answer_shape(moves: str, score: int) -> tuple[str, str]:
    board = Board.from_moves(moves)
    sign = "+" if score > 0 else "-" if score < 0 else "="
    return sign, f"{plies_to_end(score, board.n_discs) - 1:02d}"


@pytest.fixture
def wire() -> PtyWire:
    with PtyWire() as pty_wire:
        yield pty_wire


def test_daemon_end_to_end(tmp_path: Path, wire: PtyWire) -> None:
    leds = fake_act_led(tmp_path)
    daemon = Daemon(tmp_path, write_config(tmp_path, wire.service_path, leds))
    try:
        daemon.wait_for("READY=1", timeout=60)
        robot = serial.Serial(wire.robot_path, 9600, timeout=0.5)
        for moves, score in QUERIES:
            answer = ask(robot, moves)
            sign, plies = expected_answer_shape(moves, score)
            assert answer[:1] == b"!", answer
            text = answer[1:].decode()
            assert text[1] == sign and text[2:] == plies, (moves, text)
            assert Board.from_moves(moves).can_play(int(text[0]))
        assert ask(robot, "12x")[:1] == b"?"
        daemon.pump(6)
        wait_for_speech(tmp_path / "daemon.log", patience(20))
        assert any(m == "WATCHDOG=1" for m in daemon.messages)
        status = [m for m in daemon.messages if m.startswith("STATUS=")]
        assert status and "serial connected" in status[-1]
        assert (leds / "ACT" / "trigger").read_text().strip() == "none"  # c4pi drives it
        robot.close()
    finally:
        code, seconds = daemon.stop()
    log_text = (tmp_path / "daemon.log").read_text()
    assert code == 0, log_text
    assert seconds < patience(2.5), f"stopped in {seconds:.2f} s"
    # the first board said: a move for a colour, or (the empty board under `either`,
    # which names no colour: the first board under emulation's slow frames) "Play four"
    assert re.search(r"speech: (Red|Yellow|Play \w+ / )", log_text), log_text
    assert "Traceback" not in log_text, log_text
    with wave.open(str(tmp_path / "speech.wav")) as wav:
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    assert np.abs(samples).max() > 1000  # something was said
    assert (leds / "ACT" / "trigger").read_text().strip() == "mmc0"  # original restored


def test_daemon_keeps_serving_when_camera_fails(tmp_path: Path, wire: PtyWire) -> None:
    leds = fake_act_led(tmp_path)
    config = write_config(tmp_path, wire.service_path, leds,
                          source=str(tmp_path / "missing-video.mp4"))
    daemon = Daemon(tmp_path, config)
    try:
        daemon.wait_for("READY=1", timeout=patience(60))
        robot = serial.Serial(wire.robot_path, 9600, timeout=0.5)
        moves, score = QUERIES[0]
        answer = ask(robot, moves)
        assert answer[:1] == b"!" and answer[2:3].decode() == expected_answer_shape(moves,
                                                                                  score)[0]
        wire.unplug()
        time.sleep(0.5)
        wire.replug()
        robot.close()
        robot = serial.Serial(wire.robot_path, 9600, timeout=0.5)
        deadline = time.monotonic() + patience(10)
        answer = b""
        while time.monotonic() < deadline and answer[:1] != b"!":
            answer = ask(robot, moves, timeout=1.0)
        assert answer[:1] == b"!", "no answer after the port came back"
        robot.close()
    finally:
        code, _ = daemon.stop()
    log_text = (tmp_path / "daemon.log").read_text()
    assert code == 0
    assert "vision loop failed" in log_text and "missing-video.mp4" in log_text
