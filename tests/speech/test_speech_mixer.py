"""The mixed output, rendered offline, against a mix built here from the clips."""

from __future__ import annotations

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.speech.announcer import Announcer
from firmware_py.speech.clips import JOIN_GAP_S, ClipSet


def joined(clips: ClipSet, *names: str) -> np.ndarray:
    """Clips back to back with the joining gap, built independently of ClipSet.join."""
    gap = np.zeros(round(JOIN_GAP_S * clips.rate), np.float32)
    parts = [part for name in names for part in (gap, clips[name])][1:]
    return np.concatenate(parts)


def place(track: np.ndarray, data: np.ndarray, start: int, gain: float,
          end: int | None = None) -> None:
    stop = min(len(track), start + len(data), len(track) if end is None else end)
    if start < stop:
        track[start:stop] += data[:stop - start] * gain


def to_pcm(track: np.ndarray) -> np.ndarray:
    return np.clip(np.round(track * 32768), -32768, 32767).astype(np.int16)


def render(announcer: Announcer, frames: int, block: int) -> np.ndarray:
    out = [announcer.render(min(block, frames - done)) for done in range(0, frames, block)]
    return np.concatenate(out)


@pytest.mark.parametrize("block", [256, 1000, 4096])
def test_repeat_and_overlay_are_sample_exact(clips: ClipSet, make_config, block: int) -> None:
    config = make_config(volume=0.8, distance_volume=0.5, repeat_gap_ms=300,
                         distance_period_s=3.0)
    announcer = Announcer(clips, None, config)
    announcer.show_recommendation("R", 4, "+", 13)
    rate, total = clips.rate, 7 * clips.rate
    out = render(announcer, total, block)

    move, distance = clips["move-R-4"], joined(clips, "wins-R", "n-13")
    expected = np.zeros(total, np.float32)
    start = 0
    while start < total:                      # move, gap, move …
        place(expected, move, start, 0.8)
        start += len(move) + round(0.3 * rate)
    for start in (len(move), len(move) + 3 * rate, len(move) + 6 * rate):
        place(expected, distance, start, 0.8 * 0.5)
    assert np.max(np.abs(out.astype(int) - to_pcm(expected).astype(int))) <= 1
    # the 300 ms gap before the 4th "Red four" is silent (no distance phrase there)
    fourth = 3 * (len(move) + round(0.3 * rate))
    assert fourth - round(0.3 * rate) > len(move) + len(distance)
    assert not out[fourth - round(0.3 * rate):fourth].any()
    assert out[fourth:fourth + len(move)].std() > 0.05 * 32767


def test_change_cuts_the_old_announcement_at_once(clips: ClipSet, make_config) -> None:
    config = make_config(volume=1.0, distance_volume=0.5, repeat_gap_ms=300)
    announcer = Announcer(clips, None, config)
    announcer.show_recommendation("R", 4, "+", 13)
    rate = clips.rate
    first = announcer.render(rate // 2)          # half of "Red four"
    cut_at = len(first)
    announcer.show_recommendation("Y", 3, "-", 12)   # the board changed
    rest = announcer.render(rate * 3)
    out = np.concatenate([first, rest])
    expected = np.zeros(len(out), np.float32)
    place(expected, clips["move-R-4"], 0, 1.0, end=cut_at)
    new_move = clips["move-Y-3"]
    for start in range(cut_at, len(out), len(new_move) + round(0.3 * rate)):
        place(expected, new_move, start, 1.0)
    place(expected, joined(clips, "wins-R", "n-12"), cut_at + len(new_move), 0.5)
    assert np.max(np.abs(out.astype(int) - to_pcm(expected).astype(int))) <= 1
    assert announcer.generation == 2


def test_finished_said_once_then_silence(clips: ClipSet, make_config) -> None:
    announcer = Announcer(clips, None, make_config())
    board = Board.from_moves("1212121")
    announcer.show_board(board)
    out = announcer.render(clips.rate * 4)
    final = clips["final-R"]
    assert np.array_equal(out[:len(final)], to_pcm(final))
    assert not out[len(final):].any()
    announcer.show_board(board)               # every frame: still said once
    assert not announcer.render(clips.rate * 2).any()


def test_show_board_speaks_the_solver_score(clips: ClipSet, make_config) -> None:
    # 7 discs played, Yellow to move, score -16: SPEC §2 -((42-7)//2 - k + 1) = -16
    # gives k = 2 (Red's 2nd disc from now wins), so plies = 2k = 4.
    announcer = Announcer(clips, None, make_config())
    board = Board.from_moves("4444443")
    announcer.show_board(board, column=3, score=-16)
    assert announcer.scheduler.state == ("recommend", "Y", 3, "-", 4)


def test_resampled_output_keeps_the_timeline(clips: ClipSet, make_config) -> None:
    fast = clips.resampled(48000)
    assert fast.rate == 48000
    assert abs(fast.duration(("move-R-4",)) - clips.duration(("move-R-4",))) < 1e-3
    announcer = Announcer(fast, None, make_config(repeat_gap_ms=500, distance_volume=0.0))
    announcer.show_recommendation("R", 4, "+", 13)
    out = announcer.render(48000 * 3)
    move = fast["move-R-4"]
    expected = np.zeros(len(out), np.float32)
    for start in range(0, len(out), len(move) + 24000):
        place(expected, move, start, 1.0)
    assert np.max(np.abs(out.astype(int) - to_pcm(expected).astype(int))) <= 1
