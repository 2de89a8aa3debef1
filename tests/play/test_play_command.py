"""``c4pi play`` with scripted stdin: the config's level by default, and another game.

Before, the terminal's default level was 3 while the web page and the config said 4,
and the command exited at once after "Game over".
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from cython_solver import Solver
from firmware_py.cli import main
from firmware_py.play.levels import level
from firmware_py.play.session import PlaySession


def person_lines(solver: Solver, number: int) -> list[str]:
    """What a person who always plays the leftmost free column types in a whole game
    against ``number`` (level 6 plays the same game every time)."""
    session = PlaySession(level(number), "R", solver.analyze, random.Random(0))
    session.start()
    lines = []
    while not session.over:
        lines.append(str(session.board.legal_columns()[0]))
        session.handle(lines[-1])
    return lines


def play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         config: str, lines: list[str], *options: str) -> tuple[int, str]:
    path = tmp_path / "c4pi.toml"
    path.write_text(config)
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = main(["--config", str(path), "play", *options])
    return status, capsys.readouterr().out


def test_the_default_level_is_the_configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str],
                                          solver: Solver) -> None:
    status, out = play(tmp_path, monkeypatch, capsys, "", ["q"])
    assert status == 0 and "I play Yellow at level 4 " in out
    status, out = play(tmp_path, monkeypatch, capsys, "[play]\nlevel = 2\n", ["q"])
    assert status == 0 and "I play Yellow at level 2 " in out
    status, out = play(tmp_path, monkeypatch, capsys, "[play]\nlevel = 2\n", ["q"],
                       "--level", "5")
    assert "I play Yellow at level 5 " in out


def test_after_game_over_y_plays_again_and_n_quits(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   solver: Solver) -> None:
    game = person_lines(solver, 6)
    status, out = play(tmp_path, monkeypatch, capsys, "[play]\nlevel = 6\n",
                       [*game, "maybe", "y", *game, "n"])
    assert status == 0
    assert out.count("Game over: I win.") == 2 and out.count("You play Red") == 2
    assert out.count("Play again? (y/n)") == 3            # "maybe" is asked again
    assert "Type y for another game, n to stop." in out
    assert out.rstrip().endswith("Bye.")


@pytest.mark.parametrize("answer", [[], ["q"]])
def test_the_end_of_input_or_q_after_a_game_quits_with_status_0(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        solver: Solver, answer: list[str]) -> None:
    game = person_lines(solver, 6)
    status, out = play(tmp_path, monkeypatch, capsys, "[play]\nlevel = 6\n", [*game, *answer])
    assert status == 0
    assert out.count("Game over") == 1 and out.count("Play again? (y/n)") == 1
