"""The announcer: the live pipeline's one entry point to speech.

Thread-safe; every ``show_*`` call returns at once. The audio stream is the
clock (see :mod:`firmware_py.speech.mixer`): a call takes effect at the next
rendered sample, and repeated calls with the same arguments change nothing,
so the pipeline may call them on every frame.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

import numpy as np

from c4game.board import Board
from c4game.exc import PositionError
from c4game.scores import outcome, plies_to_end
from firmware_py.config import SpeechConfig, resolve_path
from firmware_py.speech import phrases
from firmware_py.speech.clips import ClipSet, ClipSettings, default_clip_dir, ensure_clips
from firmware_py.speech.mixer import Mixer
from firmware_py.speech.scheduler import DISTANCE, MOVE, Scheduler
from firmware_py.speech.sinks import AudioSink, NullSink, PyAudioSink
from firmware_py.speech.wav_sink import WavSink

log = logging.getLogger(__name__)


class Announcer:
    """Speaks recommendations on two mixed channels (see the scheduler for the timeline).

    ``sink`` None renders offline: nothing is started, the caller pulls
    :meth:`render` (``c4pi say --out``, tests).
    """

    def __init__(self, clips: ClipSet, sink: AudioSink | None, config: SpeechConfig) -> None:
        rate = sink.supported_rate(clips.rate) if sink is not None else clips.rate
        self.clips = clips.resampled(rate)
        self.sink = sink
        self.scheduler = Scheduler(self.clips.duration,
                                   repeat_gap_s=config.repeat_gap_ms / 1000.0,
                                   distance_period_s=config.distance_period_s)
        self.gains = {MOVE: config.volume, DISTANCE: config.volume * config.distance_volume}
        self.mixer = Mixer(self.clips, self.scheduler, self.gains)
        self._lock = threading.Lock()
        self._started = False

    @property
    def rate(self) -> int:
        return self.mixer.rate

    @property
    def time(self) -> float:
        """The audio clock: seconds of audio rendered so far."""
        with self._lock:
            return self.mixer.time

    @property
    def generation(self) -> int:
        with self._lock:
            return self.scheduler.generation

    def start(self) -> Announcer:
        """Start the sink pulling audio (no-op for an offline announcer)."""
        if self.sink is not None and not self._started:
            self._started = True
            self.sink.start(self.render, self.rate)
        return self

    def close(self) -> None:
        """Stop the sink (idempotent)."""
        if self.sink is not None:
            self.sink.close()

    def __enter__(self) -> Announcer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def render(self, frames: int) -> np.ndarray:
        """The next ``frames`` frames of speech (int16 mono); the sink calls this."""
        with self._lock:
            return self.mixer.render(frames)

    # --- what the pipeline shows ----------------------------------------------------

    def show_recommendation(self, player: str | None, column: int, outcome: str,
                            plies: int) -> None:
        """A solved, stable board: ``player`` (side to move; None before anyone has
        started, no colour named) should play ``column``.

        ``outcome`` ``+``/``-``/``=`` is for the side to move, ``plies`` the plies to
        the end, the recommended disc included (SPEC §2).
        """
        with self._lock:
            changed = self.scheduler.recommend(self.mixer.time, player, column, outcome, plies)
        if changed:
            log.info("speech: %s / %s", phrases.spoken_text(phrases.move_clips(player, column)),
                     phrases.spoken_text(phrases.distance_clips(player, outcome, plies)))

    def show_finished(self, winner: str | None, key: object = None) -> None:
        """A finished game (``winner`` None = draw): said once per (winner, key)."""
        with self._lock:
            changed = self.scheduler.finished(self.mixer.time, winner, key)
        if changed:
            log.info("speech: %s", phrases.spoken_text(phrases.final_clips(winner)))

    def show_board(self, board: Board, column: int | None = None,
                   score: int | None = None) -> None:
        """A stable board: its result when finished, else ``column`` with ``score`` (SPEC §2)."""
        if board.is_finished:
            self.show_finished(board.winner, key=tuple(board.grid_lines()))
        elif column is None or score is None:
            raise PositionError("a playable board needs its best column and score to be "
                                f"announced, got column={column!r}, score={score!r}")
        else:
            self.show_recommendation(board.to_move, column, outcome(score),
                                     plies_to_end(score, board.n_discs))

    def show_scanning(self) -> None:
        """No stable board (hands over it, a disc falling): silence."""
        with self._lock:
            self.scheduler.scanning(self.mixer.time)

    def show_board_lost(self) -> None:
        """The board is not in view: "Board not found", once per loss."""
        with self._lock:
            changed = self.scheduler.board_lost(self.mixer.time)
        if changed:
            log.info("speech: Board not found")

    def say(self, clips: tuple[str, ...], key: object = None) -> None:
        """Say ``clips`` (names of :func:`~firmware_py.speech.phrases.catalogue`) once
        per ``(clips, key)``; what was playing stops."""
        unknown = set(clips) - set(self.clips.names)
        if unknown:
            raise PositionError(f"no such phrase: {', '.join(sorted(unknown))}")
        with self._lock:
            changed = self.scheduler.say(self.mixer.time, tuple(clips), key)
        if changed:
            log.info("speech: %s", phrases.spoken_text(tuple(clips)))

    def say_startup(self) -> None:
        """The start-up phrase, once."""
        with self._lock:
            self.scheduler.startup(self.mixer.time)


class MutedAnnouncer:
    """The announcer's interface doing nothing: ``[speech] enabled = false``."""

    time = 0.0
    generation = 0

    def start(self) -> MutedAnnouncer:
        log.info("speech disabled in the config")
        return self

    def close(self) -> None:
        """Nothing to stop."""

    def __enter__(self) -> MutedAnnouncer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def show_recommendation(self, player: str | None, column: int, outcome: str,
                            plies: int) -> None:
        phrases.move_clips(player, column)          # still reject bad input
        phrases.distance_clips(player, outcome, plies)

    def show_finished(self, winner: str | None, key: object = None) -> None:
        phrases.final_clips(winner)

    def show_board(self, board: Board, column: int | None = None,
                   score: int | None = None) -> None:
        """Silence anyway."""

    def show_scanning(self) -> None:
        """Silence anyway."""

    def show_board_lost(self) -> None:
        """Silence anyway."""

    def say(self, clips: tuple[str, ...], key: object = None) -> None:
        """Silence anyway."""

    def say_startup(self) -> None:
        """Silence anyway."""


def make_sink(config: SpeechConfig) -> AudioSink:
    """The sink named by ``[speech] sink``: "pyaudio", "wav" (``wav_path``) or "null"."""
    if config.sink == "pyaudio":
        return PyAudioSink(config.device)
    if config.sink == "wav":
        return WavSink(resolve_path(config.wav_path))
    return NullSink()


def open_announcer(config: SpeechConfig, *, sink: AudioSink | None = None,
                   clips: ClipSet | None = None) -> Announcer | MutedAnnouncer:
    """An announcer from ``[speech]``: clips loaded (rendered when missing), sink from config.

    Not started: call ``start()`` or use it as a context manager. Raises
    :class:`~c4game.exc.AudioError` when the clips can be neither loaded nor rendered.
    """
    if not config.enabled:
        return MutedAnnouncer()
    if clips is None:
        clips = ensure_clips(default_clip_dir(config), ClipSettings.from_config(config))
    return Announcer(clips, make_sink(config) if sink is None else sink, config)
