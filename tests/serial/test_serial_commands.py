"""``c4pi serve`` and ``c4pi client`` as a user runs them (subprocess, pty, fake sysfs LED)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from c4game.board import Board
from firmware_py.cli import main
from firmware_py.config import PROJECT_DIR
from firmware_py.serial_link.protocol import decode_answer
from firmware_py.serial_link.ptywire import PtyWire

from .conftest import read_test_set, wait_until
from .test_serial_leds import make_led


def write_config(tmp_path: Path, **extra: str) -> Path:
    config = tmp_path / "c4pi.toml"
    config.write_text(f"""
[solver]
tt_mb = 16
use_book = {extra.get("use_book", "true")}
[serial]
port = "{tmp_path / 'serial0'}"
reconnect_min_s = 0.05
reconnect_max_s = 0.2
[led]
activity = "sysfs"
sysfs_root = "{tmp_path / 'leds'}"
blink_hz = 10.0
""")
    return config


def start_serve(config: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "firmware_py", "--config", str(config), "serve", *extra],
        cwd=PROJECT_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def serve_env(tmp_path: Path) -> Iterator[tuple[Path, PtyWire, Path]]:
    led = make_led(tmp_path / "leds", "ACT")
    wire = PtyWire(link=tmp_path / "serial0")
    yield tmp_path, wire, led
    wire.close()


def run_client(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["client", *args])
    return status, capsys.readouterr().out


def brightness(led: Path) -> str:
    return (led / "brightness").read_text().strip()


def test_serve_led_lifecycle_client_and_sigterm(serve_env, capsys, checker_solver) -> None:
    tmp_path, wire, led = serve_env
    wire.unplug()  # no port yet: the LED must stay solid
    process = start_serve(write_config(tmp_path, use_book="false"))
    try:
        assert wait_until(lambda: (led / "trigger").read_text() == "none", 20)
        assert wait_until(lambda: brightness(led) == "255", 5)
        time.sleep(0.5)
        assert brightness(led) == "255" and process.poll() is None
        wire.replug()
        assert wait_until(lambda: brightness(led) == "0", 20)  # ready and idle: off

        # A slow query (no book) makes the LED blink; a client query supersedes it.
        robot = os.open(wire.robot_path, os.O_RDWR | os.O_NOCTTY)
        os.write(robot, b"!4453?")
        seen = set()
        deadline = time.monotonic() + 5
        while seen - {""} != {"0", "255"} and time.monotonic() < deadline:
            seen.add(brightness(led))  # "" while a write is under way
            time.sleep(0.01)
        assert seen - {""} == {"0", "255"}
        moves, score = read_test_set("middle-easy", 3)[2]
        status, out = run_client(capsys, "--port", wire.robot_path, moves)
        assert status == 0, out
        answer = out.split("answer")[1].split()[0]
        assert decode_answer(answer, len(moves))[1] == score
        assert answer == checker_solver.best(Board.from_moves(moves)).serial
        assert wait_until(lambda: brightness(led) == "0", 5)
        os.close(robot)
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert (led / "trigger").read_text() == "mmc0"  # the original trigger is back
    assert "4453" in err and moves in err  # both queries were logged


def test_serve_on_a_pty_and_client_exit_codes(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path)
    process = start_serve(config, "--pty")
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "serve --pty printed nothing"
        line = process.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("robot side: /dev/"), line
        robot = line.split(": ", 1)[1].strip()
        status, out = run_client(capsys, "--port", robot, "4444444")
        assert status == 3 and "ack     ?" in out
        status, out = run_client(capsys, "--port", robot, "44")
        assert status == 0 and "ack     !" in out and "answer  " in out
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0
    # a newcomer connected to the first pty the log named, the service's own end
    assert set(re.findall(r"/dev/pts/\d+", err)) <= {robot}, err


def test_client_without_service_or_port(tmp_path: Path, capsys) -> None:
    with PtyWire() as wire:  # nobody serves the other end
        status, out = run_client(capsys, "--port", wire.robot_path, "--timeout", "1", "4")
    assert status == 1 and "none within" in out
    status, out = run_client(capsys, "--port", str(tmp_path / "nope"), "4")
    assert status == 1 and "nope" in out


def test_serve_tells_systemd_it_is_ready_and_alive(tmp_path: Path) -> None:
    """Under the robot unit (Type=notify, WatchdogSec): READY=1 once serving, WATCHDOG=1
    while the serial loop reads, STOPPING=1 on SIGTERM."""
    import socket

    notify = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(notify))
        listener.settimeout(0.2)
        wire = PtyWire(link=tmp_path / "serial0")
        process = subprocess.Popen(
            [sys.executable, "-m", "firmware_py", "--config", str(write_config(tmp_path)),
             "serve"], cwd=PROJECT_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "NOTIFY_SOCKET": str(notify), "WATCHDOG_USEC": "400000"})
        messages: list[str] = []

        def receive_until(predicate, seconds: float) -> bool:
            return wait_until(lambda: _drain(listener, messages) or predicate(), seconds)

        try:
            assert receive_until(lambda: "READY=1" in messages, 30), messages
            assert receive_until(lambda: messages.count("WATCHDOG=1") >= 3, 10), messages
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0
            assert receive_until(lambda: "STOPPING=1" in messages, 5), messages
        finally:
            if process.poll() is None:
                process.kill()
            wire.close()


def _drain(listener: object, messages: list[str]) -> bool:
    """Receive what the socket holds into ``messages``; False (keep polling)."""
    try:
        while True:
            messages.append(listener.recv(256).decode())
    except OSError:
        return False
