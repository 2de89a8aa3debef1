"""``c4pi say``: the announcement for one position, rendered or played once.

``once`` renders "Red four", the repeat gap, then "Red wins in 13" at the
distance channel's volume (or "Red wins" for a finished game). ``live``
renders what the appliance would play for ``seconds`` while the position
stands: the repeating move with the distance overlay.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from c4game.board import Board
from c4game.exc import AudioError
from c4game.scores import outcome, plies_to_end
from firmware_py.config import SpeechConfig
from firmware_py.speech import phrases
from firmware_py.speech.announcer import Announcer
from firmware_py.speech.clips import ClipSet, to_int16
from firmware_py.speech.sinks import AudioSink


@dataclass(frozen=True)
class Speech:
    """What to say about a position: the move clips and the distance clips (or the result)."""

    move: tuple[str, ...]
    distance: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        parts = [phrases.spoken_text(self.move)]
        if self.distance:
            parts.append(phrases.spoken_text(self.distance))
        return ". ".join(parts) + "."


def speech_for(board: Board, column: int | None = None, score: int | None = None) -> Speech:
    """The phrases for ``board``: its result when finished, else the move and distance."""
    if board.is_finished:
        return Speech(phrases.final_clips(board.winner))
    if column is None or score is None:
        raise ValueError("a playable board needs its best column and score")
    plies = plies_to_end(score, board.n_discs)
    return Speech(phrases.move_clips(board.to_move, column),
                  phrases.distance_clips(board.to_move, outcome(score), plies))


def render_once(speech: Speech, clips: ClipSet, config: SpeechConfig) -> np.ndarray:
    """The move, the repeat gap, then the distance phrase at its volume (int16)."""
    parts = [clips.join(speech.move) * config.volume]
    if speech.distance:
        parts.append(np.zeros(round(config.repeat_gap_ms / 1000.0 * clips.rate), np.float32))
        parts.append(clips.join(speech.distance) * (config.volume * config.distance_volume))
    return to_int16(np.concatenate(parts))


def render_live(board: Board, column: int | None, score: int | None, clips: ClipSet,
                config: SpeechConfig, seconds: float) -> np.ndarray:
    """``seconds`` of what the announcer plays while ``board`` stands (int16)."""
    announcer = Announcer(clips, None, config)
    if board.is_finished:
        announcer.show_finished(board.winner)
    else:
        announcer.show_board(board, column, score)
    return announcer.render(round(seconds * clips.rate))


def play(samples: np.ndarray, rate: int, sink: AudioSink, *, open_timeout_s: float = 5.0,
         tail_s: float = 0.3) -> None:
    """Play ``samples`` (int16 at ``rate``) through ``sink`` and wait until they are out."""
    player = _ArrayPlayer(samples)
    sink.start(player, rate)
    try:
        if not sink.ready.wait(open_timeout_s):
            detail = getattr(sink, "last_error", "") or "no output within the time limit"
            raise AudioError(f"audio output did not start: {detail}")
        deadline = time.monotonic() + len(samples) / rate + open_timeout_s
        while not player.finished and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(tail_s)           # let the device drain its buffers
    finally:
        sink.close()


class _ArrayPlayer:
    """A sink source that plays an array once, then silence."""

    def __init__(self, samples: np.ndarray) -> None:
        self._samples = samples.astype(np.int16)
        self._position = 0

    @property
    def finished(self) -> bool:
        return self._position >= len(self._samples)

    def __call__(self, frames: int) -> np.ndarray:
        chunk = self._samples[self._position:self._position + frames]
        self._position += frames
        if len(chunk) < frames:
            chunk = np.concatenate([chunk, np.zeros(frames - len(chunk), np.int16)])
        return chunk
