"""``c4pi play`` when either colour may start: the person or c4pi starting with Yellow.

Before, Red always moved first: a game started by Yellow could not be played.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.cli import main
from firmware_py.commands.play import coloured
from firmware_py.play.levels import PERFECT, level
from firmware_py.play.session import PlaySession, starting_colour


def play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         config: str, lines: list[str], *options: str) -> tuple[int, str, str]:
    path = tmp_path / "c4pi.toml"
    path.write_text(config)
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = main(["--config", str(path), "play", *options])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_person_starts_with_yellow_and_the_moves_alternate(solver: Solver) -> None:
    session = PlaySession(level(PERFECT), "Y", solver.analyze, random.Random(1), first="Y")
    opening = session.start()
    assert "You play Yellow, I play Red" in opening and "You start." in opening
    assert opening.endswith("Your move (Yellow).") and session.moves == ""
    person = random.Random(7)
    while not session.over:
        session.handle(str(person.choice(session.board.legal_columns())))
        board = session.board
        assert board.first == "Y" and board.red_count == board.yellow_count  # Y, R, Y, R…
    board = Board.from_moves(session.moves, "Y")
    assert board.is_finished and board.winner == "R"  # perfect play beats a random person


def test_c4pi_starts_with_yellow(solver: Solver) -> None:
    session = PlaySession(level(PERFECT), "R", solver.analyze, random.Random(1), first="Y")
    opening = session.start()
    assert "I start." in opening and "I play 4." in opening
    assert opening.endswith("Your move (Red).")
    assert session.board.cell(4, 1) == "Y" and session.board.to_move == "R"
    reply = session.handle("3")
    assert session.board.cell(3, 1) == "R" and session.board.to_move == "R"
    assert reply.startswith("I play ") and len(session.moves) == 3
    assert "Took back your last move and my reply." in session.handle("u")
    assert session.moves == "4"  # c4pi's opening stays: it was not the person's
    assert session.handle("u") == "Nothing to undo."


def test_the_command_plays_a_yellow_first_game_with_the_right_colours(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        solver: Solver) -> None:
    status, out, _ = play(tmp_path, monkeypatch, capsys, "", ["1", "q"],
                          "--yellow", "--first", "yellow", "--level", "6")
    assert status == 0
    assert "You play Yellow, I play Red at level 6 (perfect). You start." in out
    assert "Your move (Yellow)." in out and "\033[" not in out  # not a terminal: no colour
    column = int(re.search(r"I play (\d)\.", out).group(1))  # c4pi's reply to the 1
    bottom = [line for line in out.splitlines() if line.startswith(" |")][-1]
    discs = bottom[2:-1].split(" ")
    assert discs[0] == "Y" and discs[column - 1] == ("R" if column != 1 else "Y")
    status, out, _ = play(tmp_path, monkeypatch, capsys, "", ["q"], "--first", "yellow",
                          "--level", "6")
    assert "You play Red, I play Yellow at level 6 (perfect). I start." in out
    assert "I play 4." in out and "Your move (Red)." in out


def test_a_fixed_rule_decides_who_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str],
                                         solver: Solver) -> None:
    status, out, _ = play(tmp_path, monkeypatch, capsys, '[game]\nfirst = "yellow"\n', ["q"])
    assert status == 0 and "I start." in out and "Your move (Red)." in out
    status, out, err = play(tmp_path, monkeypatch, capsys, '[game]\nfirst = "red"\n', ["q"],
                            "--first", "yellow")
    assert status == 2 and out == ""
    assert err.strip() == "c4pi play: Red always starts here ([game] first = red)"


def test_starting_colour() -> None:
    assert starting_colour("either") == "R" and starting_colour("yellow") == "Y"
    assert starting_colour("either", "yellow") == "Y" and starting_colour("either", "R") == "R"
    assert starting_colour("yellow", "Y") == "Y"
    with pytest.raises(ValueError, match="Yellow always starts here"):
        starting_colour("yellow", "red")
    for bad in ("green", "", 1, ["R"]):
        with pytest.raises(ValueError, match="who starts must be red or yellow"):
            starting_colour("either", bad)


def test_no_color_turns_the_colours_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert coloured()
    monkeypatch.setenv("NO_COLOR", "1")
    assert not coloured()
