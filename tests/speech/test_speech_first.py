"""Either colour may start (SPEC §1): the speech names the real side to move, and no
colour at all before anyone has started (an empty board when either colour may)."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest

from c4game.board import Board
from c4game.exc import PositionError
from firmware_py.cli import main
from firmware_py.config import Config, SpeechConfig
from firmware_py.selftest.checks import check_clips as selftest_check_clips
from firmware_py.selftest.core import SelftestOptions
from firmware_py.speech import phrases
from firmware_py.speech.announcer import Announcer, MutedAnnouncer
from firmware_py.speech.clips import ClipSet
from firmware_py.speech.say import speech_for
from firmware_py.speech.scheduler import MOVE, Play, Scheduler


def test_a_game_yellow_started_names_yellow() -> None:
    assert speech_for(Board.empty("Y"), 4, 1).text == "Yellow four. Yellow wins in 41."
    # Y4: Red to move, and it loses to Yellow (the first player) in 40
    assert speech_for(Board.from_moves("4", "Y"), 4, -1).text == "Red four. Yellow wins in 40."
    assert speech_for(Board.from_moves("1212121", "Y")).text == "Yellow wins."


def test_a_game_red_started_is_said_as_before() -> None:
    assert speech_for(Board.empty(), 4, 1).text == "Red four. Red wins in 41."
    assert speech_for(Board.from_moves("4"), 4, -1).text == "Yellow four. Red wins in 40."
    assert phrases.move_clips("R", 4) == ("move-R-4",)
    assert phrases.distance_clips("R", "+", 13) == ("wins-R", "n-13")


def test_nobody_started_names_no_colour() -> None:
    assert phrases.move_clips(None, 4) == ("play-4",)
    assert phrases.distance_clips(None, "+", 41) == ("wins-first", "n-41")
    assert phrases.distance_clips(None, "-", 40) == ("wins-second", "n-40")
    assert phrases.distance_clips(None, "=", 42) == ("draw-in", "n-42")
    said = phrases.spoken_text(phrases.move_clips(None, 4) + phrases.distance_clips(None, "+", 41))
    assert said == "Play four First player wins in 41"
    assert "Red" not in said and "Yellow" not in said
    with pytest.raises(PositionError, match="even plies"):
        phrases.distance_clips(None, "-", 41)
    with pytest.raises(PositionError, match="column"):
        phrases.move_clips(None, 8)


def test_the_unnamed_phrases_are_rendered_clips(clip_dir: Path, clips: ClipSet) -> None:
    for column in range(1, 8):
        assert phrases.move_clips(None, column)[0] in clips
    for outcome, plies in (("+", 41), ("-", 40), ("=", 42)):
        assert set(phrases.distance_clips(None, outcome, plies)) <= set(clips.names)
    assert clips.duration(("play-4",)) > 0.15


def test_selftest_speech_clip_check_passes_on_a_complete_set(clip_dir: Path) -> None:
    config = Config()
    config = dataclasses.replace(config, speech=dataclasses.replace(
        SpeechConfig(), clip_dir=str(clip_dir)))
    assert selftest_check_clips(config, SelftestOptions()).startswith("clip set complete")


def test_the_scheduler_repeats_the_unnamed_move() -> None:
    scheduler = Scheduler(lambda clips: 1.0)
    assert scheduler.recommend(0.0, None, 4, "+", 41)
    assert not scheduler.recommend(0.5, None, 4, "+", 41)     # the same: nothing changes
    assert scheduler.recommend(1.0, "Y", 4, "+", 41)          # now Yellow has started
    plays = [e for e in scheduler.due(10.0) if isinstance(e, Play) and e.channel == MOVE]
    assert plays[0].clips == ("move-Y-4",)


def test_the_announcer_says_the_unnamed_move(clips: ClipSet, caplog) -> None:
    announcer = Announcer(clips, None, SpeechConfig())
    with caplog.at_level(logging.INFO, logger="firmware_py.speech.announcer"):
        announcer.show_recommendation(None, 4, "+", 41)
    assert "speech: Play four / First player wins in 41" in caplog.text
    assert announcer.render(clips.rate).any()            # it speaks
    MutedAnnouncer().show_recommendation(None, 4, "+", 41)  # accepted, silent


@pytest.fixture
def config_file(tmp_path: Path, clip_dir: Path) -> Path:
    path = tmp_path / "c4pi.toml"
    path.write_text(f'[solver]\nuse_book = false\ntt_mb = 16\n\n'
                    f'[speech]\nclip_dir = "{clip_dir}"\n')
    return path


def say(config_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        *args: str) -> str:
    assert main(["--config", str(config_file), "say", *args,
                 "--out", str(tmp_path / "said.wav")]) == 0
    return capsys.readouterr().out.strip()


def test_c4pi_say_first_yellow(config_file: Path, tmp_path: Path, clips: ClipSet,
                               capsys: pytest.CaptureFixture[str]) -> None:
    # 121212: the first player wins at once in column 1
    assert say(config_file, tmp_path, capsys, "121212") == "Red one. Red wins in 1."
    assert say(config_file, tmp_path, capsys, "121212", "--first", "yellow") == \
        "Yellow one. Yellow wins in 1."
    assert say(config_file, tmp_path, capsys, "1212121", "--first", "yellow") == "Yellow wins."


def test_c4pi_say_takes_yellow_from_the_config(config_file: Path, tmp_path: Path,
                                               clips: ClipSet,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config_file.write_text(config_file.read_text() + '\n[game]\nfirst = "yellow"\n')
    assert say(config_file, tmp_path, capsys, "121212") == "Yellow one. Yellow wins in 1."
    assert say(config_file, tmp_path, capsys, "121212", "--first", "red") == \
        "Red one. Red wins in 1."
