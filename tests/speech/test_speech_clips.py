"""Clip generation: every phrase rendered, missing/corrupt/stale sets reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from c4game.exc import AudioError, PositionError
from firmware_py.speech import phrases
from firmware_py.speech.clips import (
    ClipSet,
    ClipSettings,
    build_clips,
    check_clips,
    ensure_clips,
    load_clips,
    read_wav,
    render_phrase,
)

SETTINGS = ClipSettings()


@pytest.fixture
def own_clips(clip_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the session's clip set, free to damage."""
    target = tmp_path / "clips"
    shutil.copytree(clip_dir, target)
    return target


def test_every_phrase_is_rendered_as_speech(clip_dir: Path, clips: ClipSet) -> None:
    names = [phrase.name for phrase in phrases.catalogue()]
    # 14 moves, 3 "wins in", 42 numbers, 3 results, lost, startup; opponent: 7 moves and 3;
    # nobody started yet: 7 moves and 2 "wins in"
    assert len(names) == len(set(names)) == 83
    assert set(clips.names) == set(names)
    for name in names:
        samples, rate = read_wav(clip_dir / f"{name}.wav")
        assert rate == clips.rate == 22050
        assert 0.15 < len(samples) / rate < 2.5, name      # a word or a short phrase
        assert np.abs(samples).max() > 0.5, name            # normalised speech, not silence
        assert samples.std() > 0.02, name
    assert check_clips(clip_dir, SETTINGS) == []


def test_every_announcement_maps_to_rendered_clips(clips: ClipSet) -> None:
    for player in "RY":
        for column in range(1, 8):
            assert phrases.move_clips(player, column)[0] in clips
        for plies in range(1, 43):
            for outcome in "+-=":
                if outcome != "=" and (plies % 2 == 1) != (outcome == "+"):
                    continue
                for name in phrases.distance_clips(player, outcome, plies):
                    assert name in clips
    for winner in ("R", "Y", None):
        assert phrases.final_clips(winner)[0] in clips
    assert "lost" in clips and "startup" in clips


def test_the_winner_is_named_per_spec() -> None:
    assert phrases.distance_clips("R", "+", 13) == ("wins-R", "n-13")
    assert phrases.distance_clips("R", "-", 12) == ("wins-Y", "n-12")
    assert phrases.distance_clips("Y", "-", 2) == ("wins-R", "n-2")
    assert phrases.distance_clips("Y", "=", 20) == ("draw-in", "n-20")
    assert phrases.spoken_text(("wins-Y", "n-12")) == "Yellow wins in 12"
    with pytest.raises(PositionError, match="even plies"):
        phrases.distance_clips("R", "-", 13)


def test_fast_clips_are_rendered_at_one_and_a_half_speed() -> None:
    text = "Yellow wins in 37"
    normal, _ = render_phrase(phrases.Phrase("x", text), SETTINGS)
    fast, _ = render_phrase(phrases.Phrase("x", text, fast=True), SETTINGS)
    assert 1.3 < len(normal) / len(fast) < 1.7


def test_a_missing_set_is_reported(tmp_path: Path) -> None:
    # (rendering a missing set: test_speech_cli.py's `c4pi clips build --if-missing`)
    problems = check_clips(tmp_path / "none", SETTINGS)
    assert len(problems) == 1 and "no speech clips" in problems[0]
    with pytest.raises(AudioError, match="c4pi clips build"):
        load_clips(tmp_path / "none", SETTINGS)


def test_a_missing_clip_is_named(own_clips: Path) -> None:
    (own_clips / "n-13.wav").unlink()
    problems = check_clips(own_clips, SETTINGS)
    assert len(problems) == 1 and "'n-13'" in problems[0] and "cannot read" in problems[0]
    with pytest.raises(AudioError, match="n-13"):
        load_clips(own_clips, SETTINGS)


def test_a_corrupt_clip_is_named_and_ensure_repairs_it(own_clips: Path) -> None:
    path = own_clips / "move-Y-6.wav"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    problems = check_clips(own_clips, SETTINGS)
    assert problems == [f"clip 'move-Y-6': {path} is corrupt (checksum mismatch)"]
    clips = ensure_clips(own_clips, SETTINGS)
    assert check_clips(own_clips, SETTINGS) == []
    assert len(clips["move-Y-6"]) > 0


def test_a_truncated_wav_is_reported(own_clips: Path) -> None:
    path = own_clips / "lost.wav"
    path.write_bytes(path.read_bytes()[:30])
    with pytest.raises(AudioError, match="'lost'"):
        load_clips(own_clips, SETTINGS)
    with pytest.raises(AudioError, match="not a readable WAV"):
        read_wav(path)


def test_a_manifest_entry_missing_is_named(own_clips: Path) -> None:
    manifest = json.loads((own_clips / "manifest.json").read_text())
    del manifest["clips"]["final-draw"]
    (own_clips / "manifest.json").write_text(json.dumps(manifest))
    assert check_clips(own_clips, SETTINGS) == ["clip 'final-draw' (\"It's a draw\") is missing"]


def test_other_settings_make_the_set_stale(clip_dir: Path) -> None:
    problems = check_clips(clip_dir, ClipSettings(voice="en-gb"))
    assert len(problems) == 1 and "en-gb" in problems[0]


def test_bad_voice_and_missing_espeak_are_clear(tmp_path: Path) -> None:
    subset = [phrases.Phrase("lost", "Board not found")]
    with pytest.raises(AudioError, match="voice 'xx-nonexistent'"):
        build_clips(tmp_path, ClipSettings(voice="xx-nonexistent"), phrases=subset)
    with pytest.raises(AudioError, match="install espeak-ng"):
        build_clips(tmp_path, SETTINGS, espeak="/nonexistent/espeak-ng", phrases=subset)


def test_clip_arrays_are_read_only(clips: ClipSet) -> None:
    with pytest.raises(ValueError):
        clips["startup"][0] = 1.0
    with pytest.raises(AudioError, match="no clip 'n-43'"):
        clips["n-43"]


def test_joined_announcements_are_exact_and_the_cache_stays_bounded(clips: ClipSet) -> None:
    from firmware_py.speech.clips import JOIN_GAP_S, JOINED_KEPT

    gap = round(JOIN_GAP_S * clips.rate)
    first = None
    for plies in range(1, 43, 2):     # more distinct announcements than the cache keeps
        names = phrases.distance_clips("R", "+", plies)
        joined = clips.join(names)
        expected = sum(len(clips[name]) for name in names) + gap * (len(names) - 1)
        assert len(joined) == expected
        assert np.array_equal(joined[:len(clips[names[0]])], clips[names[0]])
        first = first or names
    assert len(clips._joined) <= JOINED_KEPT
    assert np.array_equal(clips.join(first)[:len(clips[first[0]])], clips[first[0]])
