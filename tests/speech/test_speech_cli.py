"""``c4pi say`` and ``c4pi clips`` end to end (in-process), and the say helpers."""

from __future__ import annotations

import os
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

from c4game.board import Board
from c4game.scores import plies_to_end
from firmware_py.cli import main
from firmware_py.commands.say import EXIT_NO_AUDIO
from firmware_py.config import SpeechConfig
from firmware_py.speech.clips import ClipSet, read_wav, to_int16
from firmware_py.speech.say import play, render_once, speech_for
from firmware_py.speech.sinks import stderr_silenced
from firmware_py.speech.wav_sink import WavSink
from tools.shared_data import solver_sets_dir

PROJECT_DIR = Path(__file__).resolve().parents[2]
TEST_SET_DIRS = (PROJECT_DIR / "data" / "test-sets", solver_sets_dir())


def write_config(path: Path, clip_dir: Path) -> Path:
    path.write_text(f'[solver]\nuse_book = false\ntt_mb = 16\n\n'
                    f'[speech]\nclip_dir = "{clip_dir}"\n')
    return path


@pytest.fixture
def config_file(tmp_path: Path, clip_dir: Path) -> Path:
    return write_config(tmp_path / "c4pi.toml", clip_dir)


def test_say_a_finished_game_into_a_wav(config_file: Path, tmp_path: Path, clips: ClipSet,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "said.wav"
    assert main(["--config", str(config_file), "say", "1212121", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == "Red wins."
    samples, rate = read_wav(out)
    assert rate == clips.rate
    assert np.array_equal(to_int16(samples), to_int16(clips["final-R"]))


def test_say_rejects_a_bad_position(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config_file), "say", "4448"]) == 2
    assert "'8'" in capsys.readouterr().err
    assert main(["--config", str(config_file), "say", "12121212"]) == 2   # move after a win
    assert main(["--config", str(config_file), "say"]) == 2


def _positions() -> list[tuple[str, int]]:
    folder = next((d for d in TEST_SET_DIRS if (d / "end-easy.txt").is_file()), None)
    if folder is None:
        return []
    lines = (folder / "end-easy.txt").read_text().split("\n")
    picked: dict[int, tuple[str, int]] = {}
    for line in lines:
        if line.strip():
            moves, score = line.split()
            picked.setdefault((int(score) > 0) - (int(score) < 0), (moves, int(score)))
    return [picked[sign] for sign in (1, -1, 0)]


@pytest.mark.skipif(not _positions(), reason="no test sets (data/test-sets)")
@pytest.mark.parametrize("moves,score", _positions() or [("", 0)])
def test_say_speaks_the_test_set_outcome(config_file: Path, tmp_path: Path, clips: ClipSet,
                                         moves: str, score: int,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "said.wav"
    assert main(["--config", str(config_file), "say", moves, "--out", str(out)]) == 0
    text = capsys.readouterr().out.strip()
    board = Board.from_moves(moves)
    mover = {"R": "Red", "Y": "Yellow"}[board.to_move]
    opponent = {"R": "Yellow", "Y": "Red"}[board.to_move]
    plies = plies_to_end(score, board.n_discs)
    expected = (f"{mover} wins in {plies}" if score > 0 else
                f"{opponent} wins in {plies}" if score < 0 else f"Draw in {plies}")
    assert text.startswith(f"{mover} ") and text.endswith(f". {expected}.")
    words = ("one", "two", "three", "four", "five", "six", "seven")
    column = words.index(text.split(".")[0].split()[1]) + 1
    speech = speech_for(board, column, score)
    samples, _ = read_wav(out)
    assert np.array_equal(to_int16(samples), render_once(speech, clips, SpeechConfig()))


def test_render_once_is_move_gap_then_quieter_distance(clips: ClipSet) -> None:
    config = SpeechConfig(volume=1.0, distance_volume=0.5, repeat_gap_ms=300)
    speech = speech_for(Board.from_moves("44"), 4, 1)   # any legal score will do
    pcm = render_once(speech, clips, config).astype(np.float64) / 32768
    move = clips["move-R-4"]
    gap = round(0.3 * clips.rate)
    assert np.allclose(pcm[:len(move)], move, atol=1e-4)
    assert not pcm[len(move):len(move) + gap].any()
    tail = pcm[len(move) + gap:]
    assert np.abs(tail).max() == pytest.approx(0.5 * 0.65, abs=2e-3)   # clips peak at 0.65


def test_play_sends_the_samples_to_the_sink(tmp_path: Path, clips: ClipSet) -> None:
    pcm = to_int16(clips["final-draw"])
    path = tmp_path / "played.wav"
    play(pcm, clips.rate, WavSink(path, block_frames=2048), tail_s=0.0)
    samples, _ = read_wav(path)
    assert np.array_equal(to_int16(samples)[:len(pcm)], pcm)
    assert not to_int16(samples)[len(pcm):].any()


def test_clips_build_if_missing_and_check(tmp_path: Path, config_file: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "fresh"
    base = ["--config", str(config_file), "clips"]
    assert main([*base, "check", "--dir", str(directory)]) == 1
    assert "no speech clips" in capsys.readouterr().err
    assert main([*base, "build", "--if-missing", "--dir", str(directory)]) == 0
    assert "rendered 83 clips" in capsys.readouterr().out
    assert main([*base, "build", "--if-missing", "--dir", str(directory)]) == 0
    assert "complete and current" in capsys.readouterr().out
    (directory / "n-7.wav").write_bytes(b"RIFF")
    assert main([*base, "check", "--dir", str(directory)]) == 1
    assert "clip 'n-7'" in capsys.readouterr().err
    assert main([*base, "check"]) == 0          # the config's clip_dir (the session set)
    assert "ok: 83 clips" in capsys.readouterr().out


class FakePyAudio:
    """A stand-in ``pyaudio`` module: the given output devices; each start prints C-library
    chatter straight onto file descriptor 2, as alsa-lib and libjack do."""

    paInt16, paContinue = 8, 0

    def __init__(self, devices: list[dict]) -> None:
        self.devices = devices
        self.opened = 0

    def PyAudio(self) -> types.SimpleNamespace:  # noqa: N802 (pyaudio's name)
        os.write(2, b"ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\n")
        return types.SimpleNamespace(
            get_device_count=lambda: len(self.devices),
            get_device_info_by_index=lambda i: self.devices[i],
            get_default_output_device_info=self._default,
            is_format_supported=lambda *a, **k: True, open=self._open, terminate=lambda: None)

    def _default(self) -> dict:
        if not self.devices:
            raise OSError(-9996, "No Default Output Device Available")
        return self.devices[0]

    def _open(self, **kwargs: object) -> None:
        self.opened += 1
        raise OSError(-9996, "Invalid output device (no default output device)")


SPEAKER = {"name": "USB Audio Device: - (hw:1,0)", "maxOutputChannels": 2,
           "defaultSampleRate": 48000.0, "index": 0}


@pytest.fixture
def plain_config(tmp_path: Path) -> Path:
    path = tmp_path / "plain.toml"
    path.write_text("[solver]\nuse_book = false\ntt_mb = 16\n")
    return path


def fake_audio(monkeypatch: pytest.MonkeyPatch, devices: list[dict]) -> FakePyAudio:
    fake = FakePyAudio(devices)
    monkeypatch.setitem(sys.modules, "pyaudio", fake)
    return fake


def test_say_without_a_sound_card_fails_at_once_naming_out(
        plain_config: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    fake = fake_audio(monkeypatch, [])
    start = time.monotonic()
    assert main(["--config", str(plain_config), "say", "4453"]) == EXIT_NO_AUDIO
    assert time.monotonic() - start < 2.0          # no retry loop (it took 5.5 s)
    assert fake.opened == 0
    out, err = capfd.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "ALSA" not in err
    assert "no audio output device" in err and "c4pi say 4453 --out FILE.wav" in err


def test_list_devices_prints_them_on_stdout_without_the_c_noise(
        plain_config: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    fake_audio(monkeypatch, [SPEAKER, {"name": "Camera Mic", "maxOutputChannels": 0,
                                       "defaultSampleRate": 16000.0, "index": 1}])
    assert main(["--config", str(plain_config), "say", "--list-devices"]) == 0
    out, err = capfd.readouterr()
    assert out == "*  0  USB Audio Device: - (hw:1,0)  (48000 Hz)\n"
    assert err == ""
    fake_audio(monkeypatch, [])
    assert main(["--config", str(plain_config), "say", "--list-devices"]) == 0
    out, err = capfd.readouterr()
    assert out == "no audio output devices found; use --out FILE.wav\n"
    assert err == ""


def test_stderr_silenced_restores_the_descriptor(capfd: pytest.CaptureFixture[str]) -> None:
    with stderr_silenced():
        os.write(2, b"hidden\n")
    os.write(2, b"shown\n")
    assert capfd.readouterr().err == "shown\n"


@pytest.mark.parametrize("out", ["", "said.mp3", "folder"])
def test_say_out_must_name_a_wav_file(capsys, out: str) -> None:
    assert main(["say", "4453", "--out", out]) == 2
    assert "--out must name a .wav file" in capsys.readouterr().err


def test_say_out_unwritable_gives_no_speaker_hint(capsys, tmp_path: Path) -> None:
    assert main(["say", "4453", "--out", str(tmp_path / "no" / "said.wav")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "--list-devices" not in err
