"""The example robot sketch on an emulated Arduino Uno (simavr), talking to `c4pi serve`.

``tools/device/avr`` builds the sketch for an ATmega328P with Debian's avr-gcc and
Arduino core, and a harness that runs it in simavr in real time with its
console (UART0, the Serial Monitor) and its Pi link (SoftwareSerial on pins
10/11, carried bit by bit at 9600 8N1) on pseudo-terminals. The tests type
into the console like a person and check what the sketch prints against the
solver.
"""

from __future__ import annotations

import os
import random
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.config import load_config

ROOT = Path(__file__).resolve().parents[2]
AVR = ROOT / "tools" / "device" / "avr"
SKETCH = ROOT / "examples" / "arduino" / "c4pi_robot" / "c4pi_robot.ino"
ANSWER = re.compile(r"Pi plays column (\d), (it wins|it loses|draw) with (\d+) plies to go")
NEEDED = ("avr-gcc", "avr-g++", "make", "cc")
OUTCOME = {"it wins": "+", "it loses": "-", "draw": "="}


def missing_tools() -> str:
    absent = [tool for tool in NEEDED if shutil.which(tool) is None]
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        absent.append("libsimavr-dev")
    if not Path("/usr/share/arduino/hardware/arduino/avr/cores/arduino").is_dir():
        absent.append("arduino-core-avr")
    return ", ".join(absent)


def build(target: Path, sketch: Path) -> Path:
    result = subprocess.run(["make", "-C", str(AVR), f"BUILD={target}", f"SKETCH={sketch}"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return target


@pytest.fixture(scope="module")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Path:
    absent = missing_tools()
    if absent:
        pytest.skip(f"the emulated Arduino needs Debian's gcc-avr, avr-libc, arduino-core-avr, "
                    f"simavr and libsimavr-dev (./setup.sh test installs them); missing: {absent}")
    return build(tmp_path_factory.mktemp("avr"), SKETCH)


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver.from_config(load_config(None).solver)


class Uno:
    """The harness: the emulated board, its console, and `c4pi serve` on its Pi link."""

    def __init__(self, build_dir: Path) -> None:
        self.bridge = subprocess.Popen([str(build_dir / "uno_bridge"),
                                        str(build_dir / "c4pi_robot.elf")],
                                       stdout=subprocess.PIPE, text=True)
        names: dict[str, str] = {}
        while len(names) < 2:
            line = self.bridge.stdout.readline()
            assert line, "uno_bridge stopped before naming its ptys"
            if line.startswith(("console ", "pilink ")):
                names[line.split()[0]] = line.split()[1]
        self.pilink = names["pilink"]
        self.console = os.open(names["console"], os.O_RDWR | os.O_NOCTTY)
        self.serve: subprocess.Popen | None = None
        self.text = ""

    def start_pi(self) -> None:
        self.serve = subprocess.Popen([sys.executable, "-m", "firmware_py", "serve", "--port",
                                       self.pilink], cwd=ROOT, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.5)  # the solver loads its book

    def stop_pi(self) -> None:
        if self.serve is not None:
            self.serve.terminate()
            self.serve.wait(timeout=10)
            self.serve = None

    def expect(self, pattern: str, timeout: float = 15.0) -> re.Match:
        """Read the console until ``pattern`` matches what came after the last match."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.text)
            if match:
                self.text = self.text[match.end():]
                return match
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the sketch never printed {pattern!r}; it printed "
                                     f"{self.text[-500:]!r}")
            ready, _, _ = select.select([self.console], [], [], min(left, 0.2))
            if ready:
                self.text += os.read(self.console, 4096).decode(errors="replace")

    def type(self, keys: str) -> None:
        os.write(self.console, keys.encode())

    def close(self) -> None:
        self.stop_pi()
        self.bridge.terminate()
        self.bridge.wait(timeout=10)
        os.close(self.console)


@pytest.fixture
def uno(firmware: Path) -> Iterator[Uno]:
    board = Uno(firmware)
    try:
        board.expect(r"type your column")
        board.start_pi()
        yield board
    finally:
        board.close()


def play_move(uno: Uno, solver: Solver, board: Board, column: int) -> Board:
    """The person plays ``column``; the sketch must print the solver's own answer."""
    uno.type(str(column))
    after = board.play(column)
    if after.is_finished:  # the person's move ended the game: no position to answer
        uno.expect(r"the Pi rejected \d+")
        return after
    match = uno.expect(ANSWER.pattern + r"|the Pi rejected \d*|no valid answer")
    assert match.group(1), f"no answer after {board.moves}{column}: {match.group(0)!r}"
    expected = solver.best(after)
    answer = (int(match.group(1)), OUTCOME[match.group(2)], int(match.group(3)))
    assert answer == (expected.column, "+" if expected.score > 0 else
                      "-" if expected.score < 0 else "=", expected.plies - 1), after.moves
    return after.play(answer[0])


def test_whole_games_through_the_sketch_match_the_solver(uno: Uno, solver: Solver) -> None:
    person = random.Random(21)
    for game in range(2):
        board = Board.empty()
        while not board.is_finished:
            board = play_move(uno, solver, board, person.choice(board.legal_columns()))
        if board.winner != "R":  # the Pi's disc ended it
            uno.expect(r"game over, 'n' for a new game")
        uno.type("n")
        uno.expect(r"new game")
        assert game < 2


def test_a_rejected_move_is_undone_and_the_game_goes_on(uno: Uno, solver: Solver) -> None:
    board = Board.empty()
    for column in (4, 4, 4):  # the Pi's answers fill column 4 here: check, then use it
        if not board.can_play(column):
            break
        board = play_move(uno, solver, board, column)
    full = next((c for c in range(1, 8) if not board.can_play(c)), None)
    if full is None:  # make a full column: the person and the Pi both play 1
        while board.can_play(1) and not board.is_finished:
            board = play_move(uno, solver, board, 1)
        full = 1
    uno.type(str(full))
    uno.expect(r"the Pi rejected \d+")  # '?' from the Pi
    free = board.legal_columns()[0]
    play_move(uno, solver, board, free)  # the move list was not corrupted


def test_the_pi_going_away_and_coming_back(uno: Uno, solver: Solver) -> None:
    board = play_move(uno, solver, Board.empty(), 3)
    uno.stop_pi()
    uno.type("5")
    uno.expect(r"no valid answer from the Pi.*your move was not kept", timeout=20)
    uno.start_pi()
    board = play_move(uno, solver, board, 5)  # the same move again: answered as if nothing
    play_move(uno, solver, board, board.legal_columns()[0])


def test_swapped_pins_are_caught(tmp_path: Path, firmware: Path) -> None:
    """The check can fail: the sketch built with its Pi pins swapped gets no answer."""
    swapped = tmp_path / "c4pi_robot.ino"
    text = SKETCH.read_text()
    text = text.replace("PI_RX = 10;", "PI_RX = 11;").replace("PI_TX = 11;", "PI_TX = 10;")
    assert "PI_RX = 11;" in text
    swapped.write_text(text)
    wrong = Uno(build(tmp_path / "build", swapped))
    try:
        wrong.expect(r"type your column")
        wrong.start_pi()
        wrong.type("4")
        wrong.expect(r"no valid answer from the Pi", timeout=20)
    finally:
        wrong.close()
