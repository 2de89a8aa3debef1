"""Through the real audio stack: PyAudio -> PortAudio -> ALSA -> ALSA's file plugin.

A child process gets a temporary $HOME whose .asoundrc (asoundrc.in) makes
the default PCM write raw samples to a file; the samples are then checked
with NumPy against the timeline built here from the clips: speech where the
timeline says, digital silence elsewhere, the distance channel at half level.
The null plugin is not paced, so this runs faster than real time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from firmware_py.speech.clips import JOIN_GAP_S, ClipSet

HERE = Path(__file__).parent
SECONDS, GAP_S, PERIOD_S = 3.5, 0.3, 2.0


def track(clips: ClipSet, names: tuple[str, ...], starts: list[int], total: int) -> np.ndarray:
    """The clips ``names`` (joined with the gap) placed at ``starts``, gain 1."""
    gap = np.zeros(round(JOIN_GAP_S * clips.rate), np.float32)
    data = np.concatenate([part for name in names for part in (gap, clips[name])][1:])
    out = np.zeros(total, np.float32)
    for start in starts:
        stop = min(total, start + len(data))
        out[start:stop] += data[:stop - start]
    return out


@pytest.fixture(scope="module")
def recorded(clip_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, dict]:
    home = tmp_path_factory.mktemp("alsa-home")
    raw = home / "out.raw"
    config = (HERE / "asoundrc.in").read_text().replace("@RAW@", str(raw))
    (home / ".asoundrc").write_text(config)
    env = {key: value for key, value in os.environ.items()
           if key not in ("ALSA_CONFIG_PATH", "XDG_CONFIG_HOME", "ALSA_CARD", "ALSA_PCM_NAME")}
    env["HOME"] = str(home)
    overrides = json.dumps({"volume": 1.0, "distance_volume": 0.5,
                            "repeat_gap_ms": round(GAP_S * 1000),
                            "distance_period_s": PERIOD_S})
    done = subprocess.run([sys.executable, str(HERE / "alsa_player.py"), str(clip_dir),
                           str(SECONDS), overrides], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert raw.is_file(), f"ALSA wrote no file; child stderr: {done.stderr[-2000:]}"
    summary["stderr"] = done.stderr
    return np.fromfile(raw, dtype="<i2"), summary


def test_speech_where_the_timeline_says_and_half_level_distance(
        recorded: tuple[np.ndarray, dict], clips: ClipSet) -> None:
    samples, summary = recorded
    rate = clips.rate
    assert summary["rate"] == rate and summary["opens"] == 1 and summary["time"] >= SECONDS
    total = round(SECONDS * rate)
    move_len = len(clips["move-R-4"])
    move_starts = list(range(0, total, move_len + round(GAP_S * rate)))
    distance_starts = [move_len, move_len + round(PERIOD_S * rate)]
    move = track(clips, ("move-R-4",), move_starts, total)
    distance = track(clips, ("wins-R", "n-13"), distance_starts, total)

    # PortAudio primes the device with silence: align on the first sound.
    lag = int(np.flatnonzero(samples)[0] - np.flatnonzero(np.round(move * 32768))[0])
    assert 0 <= lag <= 8192
    got = samples[lag:lag + total].astype(np.float64) / 32768
    assert len(got) == total, f"only {len(samples)} samples recorded"

    # speech in every "Red four", and digital silence wherever nothing is scheduled
    for start in move_starts:
        span = got[start:min(total, start + move_len)]
        assert np.sqrt(np.mean(span ** 2)) > 0.03, f"no speech at {start / rate:.2f} s"
    quiet = (move == 0) & (distance == 0)
    assert quiet.sum() > 0.2 * rate
    assert not np.any(got[quiet]), "sound where the timeline has silence"

    # the level of each channel: a least-squares fit of the recording
    basis = np.stack([move, distance], axis=1)
    (move_gain, distance_gain), *_ = np.linalg.lstsq(basis, got, rcond=None)
    assert move_gain == pytest.approx(1.0, abs=0.02)
    assert distance_gain == pytest.approx(0.5, abs=0.02)
    # and, sample by sample, exactly the mix (int16 rounding aside)
    assert np.max(np.abs(got - np.clip(move + 0.5 * distance, -1, 1))) < 1.5 / 32768


def test_alsa_lib_chatter_is_silenced(recorded: tuple[np.ndarray, dict]) -> None:
    assert "ALSA lib" not in recorded[1]["stderr"]
