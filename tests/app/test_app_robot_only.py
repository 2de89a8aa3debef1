"""The robot-only install (``./setup.sh --robot``): ``c4pi serve`` without the camera,
speech and screen parts, and every other command saying in one line what it needs.

The parts are taken away as a robot-only install leaves them out: their modules
(OpenCV, LiteRT, PyAudio, aiohttp, segno) cannot be imported in the child process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from c4game.board import Board
from c4game.scores import serial_answer
from firmware_py.config import PROJECT_DIR
from firmware_py.parts import EX_UNAVAILABLE, install_hint
from tests.serial.conftest import read_test_set
from tools.device.robot_queries import ask

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = ("cv2", "ai_edge_litert", "pyaudio", "aiohttp", "segno")
ROBOT_ONLY = ("import sys\n"
              f"for name in {LEFT_OUT!r}: sys.modules[name] = None\n"
              "from firmware_py.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")


def robot_only(*args: str, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", ROBOT_ONLY, *args], cwd=PROJECT_DIR,
                            text=True, **popen)


def run_robot_only(*args: str) -> subprocess.CompletedProcess[str]:
    process = robot_only(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=120)
    return subprocess.CompletedProcess(args, process.returncode, out, err)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "c4pi.toml"
    path.write_text('[led]\nactivity = "none"\n[solver]\ntt_mb = 16\n')
    return path


@pytest.mark.parametrize(("command", "part"), [
    (("read", "x.png"), "camera"), (("render", "-", "-o", "x.png"), "camera"),
    (("demo",), "camera, speech and screen"), (("say", "4453"), "speech"),
    (("say", "4453", "--out", "x.wav"), "speech"), (("clips", "build"), "speech"),
])
def test_a_command_that_needs_a_missing_part_says_so_in_one_line(config, command,
                                                                  part) -> None:
    result = run_robot_only("--config", str(config), *command)
    assert result.returncode == EX_UNAVAILABLE, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"c4pi {command[0]} needs the {part} part" in lines[0]
    assert lines[0].endswith(install_hint())  # ./setup.sh; on 32-bit ARM: a 64-bit Pi OS


def test_selftest_skips_what_is_not_installed_and_says_why(config) -> None:
    result = run_robot_only("--config", str(config), "selftest")
    rows = {line.split("  ")[0]: line for line in result.stdout.splitlines() if line.strip()}
    for check, part in (("model", "camera"), ("camera", "camera"), ("calibration", "camera"),
                        ("speech clips", "speech"), ("audio", "speech"),
                        ("screen", "screen")):
        assert " SKIP " in rows[check] and f"the {part} part" in rows[check], rows[check]
    assert " PASS " in rows["solver"] and " PASS " in rows["book"]
    assert result.returncode == 0 and "Traceback" not in result.stderr, result


@pytest.mark.parametrize(("dpkg", "uname", "refused"), [
    ("armhf", "aarch64", True),    # 32-bit Pi OS on a Pi 4's 64-bit kernel
    ("armhf", "armv7l", True), ("armel", "armv6l", True),
    ("missing", "armv7l", True),   # no dpkg: the kernel's word
    ("arm64", "aarch64", False), ("amd64", "x86_64", False),
])
def test_the_whole_appliance_on_32_bit_arm_points_to_the_robot_install(
        dpkg: str, uname: str, refused: bool) -> None:
    fake_dpkg = "return 1" if dpkg == "missing" else f"echo {dpkg}"
    script = (f"source {ROOT / 'setup.sh'}; dpkg() {{ {fake_dpkg}; }}; "
              f"uname() {{ echo {uname}; }}; ROBOT=0; ACTION=setup; check_architecture")
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    if refused:
        assert result.returncode == 1 and "./setup.sh --robot" in result.stderr, result
    else:
        assert result.returncode == 0, result
    robot = subprocess.run(["bash", "-c", script.replace("ROBOT=0", "ROBOT=1")],
                           capture_output=True, text=True, timeout=30)
    assert robot.returncode == 0, robot


@pytest.mark.parametrize(("machine", "bits", "whole"), [
    ("armv7l", 32, False), ("armv6l", 32, False), ("aarch64", 32, False),
    ("aarch64", 64, True), ("x86_64", 64, True), ("i686", 32, True),
])
def test_the_missing_part_hint_fits_the_machine(machine: str, bits: int, whole: bool) -> None:
    """On 32-bit ARM plain ``./setup.sh`` stops: the hint must not send a person there."""
    hint = install_hint(machine, bits)
    assert ("./setup.sh" in hint) == whole and ("64-bit" in hint) != whole, hint


def test_serve_answers_the_robot_without_the_other_parts(config) -> None:
    """``c4pi serve --pty`` answers public test-set positions (scores from the set)."""
    positions = read_test_set("end-easy", 6) + read_test_set("middle-easy", 6)
    process = robot_only("--config", str(config), "serve", "--pty",
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = process.stdout.readline()
        assert line.startswith("robot side: "), line + process.stderr.read()
        robot = os.open(line.split(": ", 1)[1].strip(), os.O_RDWR | os.O_NOCTTY)
        try:
            for moves, score in positions:
                answer, _ = ask(robot, moves, timeout_s=30.0)
                board = Board.from_moves(moves)
                assert answer[:1] == "!", (moves, answer)
                column = int(answer[1])
                assert column in board.legal_columns(), (moves, answer)
                assert answer[1:] == serial_answer(column, score, board.n_discs), (moves, answer)
        finally:
            os.close(robot)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert "Traceback" not in process.stderr.read()


def setup_function_value(function: str, robot: bool, tests: bool) -> str:
    script = (f"source {ROOT / 'setup.sh'}; ROBOT={int(robot)}; WITH_TESTS={int(tests)}; "
              f"{function}")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=30, check=True).stdout.strip()


def test_the_robot_install_asks_for_no_camera_speech_or_screen_package() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plain = " ".join(project["dependencies"]).lower()
    for package in ("opencv", "litert", "pyaudio", "aiohttp", "segno"):
        assert package not in plain, package
    assert setup_function_value("python_extras", robot=True, tests=False) == "book"
    assert setup_function_value("python_extras", robot=False, tests=False) == "appliance,book"
    assert setup_function_value("python_extras", robot=False, tests=True) \
        == "appliance,book,test"


def test_the_robot_install_asks_apt_for_no_browser_and_numpy_from_the_system() -> None:
    """With ``test`` too: the robot's tests need no Chromium and no emulated Arduino."""
    asked = setup_function_value(
        'missing_apt_packages() { printf "%s\\n" "$@"; }; as_root() { echo "$@"; }; '
        "command() { return 0; }; install_apt_packages", robot=True, tests=True)
    assert "python3-numpy" in asked and "build-essential" in asked, asked
    for package in ("chromium", "simavr", "portaudio19-dev", "espeak-ng", "libgl1"):
        assert package not in asked, (package, asked)
