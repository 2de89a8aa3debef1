"""The README walked as a new owner would (#56): every command in it, in the order written.

Commands are taken from the README itself (its ``sh`` blocks and every
backticked ``c4pi …`` or ``./setup.sh …``), so a command added, renamed or
given a wrong flag there is run here. ``c4pi`` is this checkout's
``.venv/bin/c4pi`` (what the ``--system`` install links as
``/usr/local/bin/c4pi``), with the simulated camera standing in for the Pi
camera and no speaker. ``setup.sh`` lines run as ``--dry-run`` (they install
or start the service; CI itself runs ``./setup.sh test`` on a fresh clone).

A command passes when it ends with status 0, or is still running after a few
seconds (the appliance, the demo, the serial service), or stops on hardware
this machine lacks with a short message; never with a traceback, an unknown
option or a usage error.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
C4PI = Path(sys.executable).parent / "c4pi"
SH_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)
INLINE = re.compile(r"`((?:sudo -u c4pi /opt/c4pi/\.venv/bin/|\.venv/bin/)?c4pi [^`]+|"
                    r"(?:sudo )?\./setup\.sh[^`]*)`")
LONG_RUNNING = {"run", "demo", "serve", "watch", "calibrate-camera"}  # alive after a few s: passed
EXAMPLES = {"MOVES": "4453", "FILE.png": "sheet.png", "OUT.png": "out.png",
            "IMAGE": "shot.png", "SOURCE": "sim", "N": "3"}
NO_HARDWARE = ("no such file", "cannot open", "not found", "no camera", "could not open",
               "no serial", "not a tty", "no usb", "nothing answers", "no desktop user")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def readme_commands() -> list[str]:
    """Every command of the README, in the order written (duplicates once)."""
    text = (REPO / "README.md").read_text()
    found: list[tuple[int, str]] = []
    for block in SH_BLOCK.finditer(text):
        for line in block.group(1).splitlines():
            command = line.split("#", 1)[0].strip()
            if command:
                found.append((block.start(1) + block.group(1).index(line), command))
    blocks = [(b.start(), b.end()) for b in SH_BLOCK.finditer(text)]
    for match in INLINE.finditer(text):
        if not any(start <= match.start() < end for start, end in blocks):
            found.append((match.start(), match.group(1).strip()))
    ordered: list[str] = []
    for _, command in sorted(found):
        if command not in ordered:
            ordered.append(command)
    return ordered


def as_run_here(command: str) -> list[str] | None:
    """The argv that runs ``command`` on this machine (None: a placeholder left that no
    example fills, e.g. a robot's ``/dev/pts/N``)."""
    command = re.sub(r"\s*\[[^\]]*\]", "", command)  # optional parts: the plain command
    command = command.replace("--pitch-mm N", "--pitch-mm 35")
    if "…" in command:
        return None  # "c4pi …": the command in general
    words = shlex.split(command)
    if words[:1] == ["sudo"]:
        words = words[3:] if words[1:3] == ["-u", "c4pi"] else words[1:]
    if words[0].endswith("setup.sh"):
        return ["bash", str(REPO / "setup.sh"), *words[1:], "--dry-run"]
    words = [EXAMPLES.get(word, word) for word in words[1:]]
    if any(re.fullmatch(r"[A-Z][A-Z.]+|.*/N", word) for word in words):
        return None
    return [str(C4PI), *words]


@pytest.fixture(scope="module")
def owner_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A folder to run in, a config with the simulated camera, and the environment."""
    home = tmp_path_factory.mktemp("owner")
    config = home / "c4pi.toml"
    config.write_text('[camera]\nsource = "sim"\n[speech]\nsink = "null"\n'
                      f'[vision]\nempty_board_file = "{home / "empty-board.npz"}"\n'
                      f'[serial]\nport = "{home / "no-robot-port"}"\n'
                      f"[hud]\nport = {free_port()}\nkiosk_port = 0\n")
    env = {**os.environ, "C4PI_CONFIG": str(config), "HOME": str(home), "NO_COLOR": "1"}
    # the marker sheet, the calibration and the snapshot write into this folder
    return home, env


def test_the_readme_has_the_commands_a_newcomer_follows() -> None:
    commands = readme_commands()
    assert {"./setup.sh run", "./setup.sh test"} <= set(commands)
    assert any(c.startswith("sudo ./setup.sh --system") for c in commands)
    assert sum(c.split()[0].endswith("c4pi") or " c4pi " in f" {c}" for c in commands) >= 20


def run(argv: list[str], home: Path, env: dict[str, str], stdin: str = "") -> tuple[int | None,
                                                                                    str]:
    """(status or None while still running after a few seconds, all its output)."""
    long = argv[0] == str(C4PI) and (bool(LONG_RUNNING & set(argv)) or "--discs" in argv)
    process = subprocess.Popen(argv, cwd=home, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = process.communicate(stdin, timeout=6 if long else 120)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        process.terminate()
        output, _ = process.communicate(timeout=30)
        return None, output


@pytest.mark.parametrize("command", readme_commands())
def test_every_readme_command_runs_as_written(command: str, owner_home) -> None:
    home, env = owner_home
    argv = as_run_here(command)
    if argv is None:
        pytest.skip(f"{command!r} holds a placeholder (a robot's /dev/pts/N, COMMAND)")
    if argv[1:2] == ["read"] and not (home / "shot.png").exists():
        run([str(C4PI), "--config", env["C4PI_CONFIG"], "snapshot", "shot.png"], home, env)
    if "--config" not in argv and argv[0] == str(C4PI):
        argv = [argv[0], "--config", env["C4PI_CONFIG"], *argv[1:]]
    status, output = run(argv, home, env, stdin="q\n")
    assert "Traceback" not in output, output[-2000:]
    assert "unrecognized arguments" not in output and "invalid choice" not in output, output
    assert status != 2 or "usage:" not in output, output  # a usage error: the README is wrong
    if status not in (0, None):
        last = output.strip().splitlines()[-1].lower() if output.strip() else ""
        assert any(why in output.lower() for why in NO_HARDWARE), (command, status, output)
        assert len(last) < 300, last
    if command.startswith("sudo ./setup.sh --system"):
        assert "/usr/local/bin/c4pi" in output  # the PATH step (#56.1)
