"""``c4pi analyze --first``: a game Yellow started is analysed with its real colours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_py.cli import main

MOVES = "121212"  # three in column 1 for the first player, who is to move and wins there


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "c4pi.toml"
    path.write_text("[solver]\nuse_book = false\ntt_mb = 16\n")
    return path


def analyze(capsys: pytest.CaptureFixture[str], config_file: Path, *args: str) -> str:
    assert main(["--config", str(config_file), "analyze", MOVES, "--no-book", *args]) == 0
    return capsys.readouterr().out


def test_first_yellow_names_yellow(capsys, config_file: Path) -> None:
    out = analyze(capsys, config_file, "--first", "yellow")
    assert "score for Yellow, who moves" in out and "(Yellow wins in 1;" in out
    assert "Red" not in out


def test_red_first_is_the_default_and_unchanged(capsys, config_file: Path) -> None:
    for args in ((), ("--first", "red")):
        out = analyze(capsys, config_file, *args)
        assert "score for Red, who moves" in out and "(Red wins in 1;" in out
        assert "Yellow" not in out


def test_the_config_may_say_yellow_starts(capsys, config_file: Path) -> None:
    config_file.write_text(config_file.read_text() + '\n[game]\nfirst = "yellow"\n')
    assert "(Yellow wins in 1;" in analyze(capsys, config_file)
    assert "(Red wins in 1;" in analyze(capsys, config_file, "--first", "red")


def test_the_json_stays_colour_free(capsys, config_file: Path) -> None:
    red = json.loads(analyze(capsys, config_file, "--json"))
    yellow = json.loads(analyze(capsys, config_file, "--json", "--first", "yellow"))
    for data in (red, yellow):
        data.pop("ms")
    assert red == yellow and set(red) == {"moves", "scores", "best", "score", "plies", "nodes"}


def test_a_finished_game_names_its_real_winner(capsys, config_file: Path) -> None:
    """Found by a reviewer: the winner of a game Yellow started was named Red."""
    over = MOVES + "1"  # the first player's four in column 1
    assert main(["--config", str(config_file), "analyze", over, "--first", "yellow"]) == 2
    assert "game over: Yellow has four in a row" in capsys.readouterr().err
    config_file.write_text(config_file.read_text() + '[game]\nfirst = "yellow"\n')
    assert main(["--config", str(config_file), "solve", over]) == 2
    assert "game over: Yellow has four in a row" in capsys.readouterr().err
