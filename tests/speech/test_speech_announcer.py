"""open_announcer from config, the muted announcer, and live use from other threads."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import PositionError
from firmware_py.speech.announcer import Announcer, MutedAnnouncer, make_sink, open_announcer
from firmware_py.speech.clips import ClipSet, read_wav
from firmware_py.speech.sinks import NullSink, PyAudioSink
from firmware_py.speech.wav_sink import WavSink


def test_make_sink_follows_the_config(make_config, tmp_path: Path) -> None:
    assert isinstance(make_sink(make_config(sink="null")), NullSink)
    wav = make_sink(make_config(sink="wav", wav_path=str(tmp_path / "x.wav")))
    assert isinstance(wav, WavSink) and wav.path == tmp_path / "x.wav"
    device = make_sink(make_config(sink="pyaudio", device="USB"))
    assert isinstance(device, PyAudioSink) and device.device == "USB"


def test_disabled_speech_is_muted_but_still_checks_input(make_config) -> None:
    announcer = open_announcer(make_config(enabled=False))
    assert isinstance(announcer, MutedAnnouncer)
    with announcer:
        announcer.show_recommendation("R", 4, "+", 13)
        announcer.show_board(Board.from_moves("1212121"))
        with pytest.raises(PositionError, match="column 9"):
            announcer.show_recommendation("R", 9, "+", 13)


def test_open_announcer_speaks_into_a_wav_in_real_time(make_config, clip_dir: Path,
                                                      tmp_path: Path) -> None:
    path = tmp_path / "live.wav"
    config = make_config(sink="wav", wav_path=str(path), clip_dir=str(clip_dir))
    announcer = open_announcer(config)
    assert isinstance(announcer, Announcer)
    with announcer:
        announcer.show_recommendation("R", 4, "+", 13)
        time.sleep(0.5)
    samples, rate = read_wav(path)
    assert 0.3 * rate < len(samples) < 1.5 * rate
    assert np.abs(samples).max() > 0.5


def test_show_calls_from_another_thread_keep_the_stream_consistent(
        clips: ClipSet, make_config) -> None:
    announcer = Announcer(clips, None, make_config())
    stop = threading.Event()
    rendered: list[int] = []

    def audio() -> None:
        while not stop.is_set():
            rendered.append(len(announcer.render(512)))

    thread = threading.Thread(target=audio)
    thread.start()
    try:
        for column in (1, 2, 3, 4, 5, 6, 7) * 20:
            announcer.show_recommendation("Y", column, "-", 12)
            announcer.show_scanning()
    finally:
        stop.set()
        thread.join()
    assert announcer.generation == 280
    assert set(rendered) == {512}
    assert announcer.time == pytest.approx(len(rendered) * 512 / clips.rate)
