"""`c4pi play`: the game's rules with scripted lines, and the command through a pty."""

from __future__ import annotations

import os
import pty
import random
import select
import subprocess
import sys
import time

from c4game.board import Board
from cython_solver import Solver
from firmware_py.play.levels import PERFECT, level
from firmware_py.play.session import PlaySession
from tests.emulation import patience


def test_a_whole_game_against_perfect_play_is_lost_by_a_random_person(solver: Solver) -> None:
    session = PlaySession(level(PERFECT), "R", solver.analyze, random.Random(1))
    assert "You play Red" in session.start()
    person = random.Random(5)
    while not session.over:
        session.handle(str(person.choice(session.board.legal_columns())))
    board = session.board
    assert board.is_finished and board.winner == "Y"  # level 6 never throws a win away
    assert Board.from_moves(session.moves).grid_lines() == board.grid_lines()


def test_hint_undo_and_bad_input(solver: Solver) -> None:
    session = PlaySession(level(2), "R", solver.analyze, random.Random(2))
    session.start()
    reply = session.handle("4")
    assert reply.startswith("I play ") and len(session.moves) == 2
    hint = session.handle("h")
    scores = solver.analyze(session.board)
    best = max(s for s in scores if s is not None)
    assert hint.startswith("Hint: play ")
    assert all(scores[int(c) - 1] == best for c in hint.split("—")[0].split() if c.isdigit())
    assert "is not a move" in session.handle("x")
    assert "is not a move" in session.handle("8")
    assert session.moves and len(session.moves) == 2  # bad input changed nothing
    assert "Took back" in session.handle("u") and session.moves == ""
    assert session.handle("u") == "Nothing to undo."
    assert session.handle("q") == "Bye." and session.over


def test_a_full_column_is_refused(solver: Solver) -> None:
    session = PlaySession(level(1), "R", solver.analyze, random.Random(3))
    session.moves = "444444"
    assert session.handle("4") == "Column 4 is full: choose another."
    assert session.moves == "444444"


def test_the_appliance_opens_when_the_person_plays_yellow(solver: Solver) -> None:
    session = PlaySession(level(PERFECT), "Y", solver.analyze, random.Random(4))
    assert "I play 4." in session.start()  # the perfect first move, centre first
    assert session.moves == "4"


def _read_until(fd: int, text: str, timeout: float = 30.0) -> str:
    seen, end = b"", time.monotonic() + patience(timeout)
    while text.encode() not in seen and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    assert text.encode() in seen, seen.decode(errors="replace")[-500:]
    return seen.decode(errors="replace")


def test_play_through_a_terminal_like_a_person() -> None:
    main, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "firmware_py", "play", "--level", "6",
                                "--seed", "1"], stdin=child, stdout=child, stderr=child,
                               close_fds=True)
    os.close(child)
    try:
        _read_until(main, "Your move (Red).")
        os.write(main, b"h\n")
        assert "Red wins in" in _read_until(main, "Hint: play 4")
        os.write(main, b"zz\n")
        _read_until(main, "'zz' is not a move")
        os.write(main, b"4\n")
        shown = _read_until(main, "Your move (Red).")  # the reply, then the whole board
        assert "I play " in shown and "\033[1;31mR" in shown  # coloured letters on a terminal
        os.write(main, b"u\n")
        _read_until(main, "Took back your last move and my reply.")
        os.write(main, b"q\n")
        _read_until(main, "Bye.")
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        os.close(main)
