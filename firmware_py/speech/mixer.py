"""Mixes the two channels of the announcement timeline into one PCM stream.

The mixer is the audio clock: :attr:`Mixer.time` is the number of frames
rendered so far divided by the rate. Each :meth:`Mixer.render` call asks the
scheduler for the events starting inside the block and places them at their
exact sample, so the output matches the scheduler's timeline to the sample,
whatever the sink's buffering and however fast it pulls. Not thread-safe on
its own: the :class:`~firmware_py.speech.announcer.Announcer` serialises
access with a lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from firmware_py.speech.clips import ClipSet, to_int16
from firmware_py.speech.scheduler import CHANNELS, Cut, Event, Play, Scheduler


@dataclass
class _Segment:
    """A clip playing on a channel over samples [start, end)."""

    channel: str
    start: int
    end: int
    data: np.ndarray
    gain: float


class Mixer:
    """Renders the scheduler's timeline as int16 mono frames at ``clips.rate``."""

    def __init__(self, clips: ClipSet, scheduler: Scheduler, gains: Mapping[str, float]) -> None:
        missing = [channel for channel in CHANNELS if channel not in gains]
        if missing:
            raise ValueError(f"no gain for channel(s) {missing}")
        self.clips = clips
        self.rate = clips.rate
        self.scheduler = scheduler
        self._gains = dict(gains)
        self._position = 0          # frames rendered so far
        self._generation = 0        # the newest generation seen in a Cut
        self._segments: list[_Segment] = []
        self.plays = 0              # Play events started (for logs and self-tests)

    @property
    def time(self) -> float:
        """Seconds of audio rendered so far: the timeline's "now"."""
        return self._position / self.rate

    @property
    def frames(self) -> int:
        return self._position

    def render(self, frames: int) -> np.ndarray:
        """The next ``frames`` frames of the mix, int16 mono."""
        start, end = self._position, self._position + frames
        for event in self.scheduler.due(end / self.rate):
            self._apply(event, start)
        mix = np.zeros(frames, dtype=np.float32)
        for segment in self._segments:
            lo, hi = max(start, segment.start), min(end, segment.end)
            if lo < hi:
                chunk = segment.data[lo - segment.start:hi - segment.start]
                mix[lo - start:hi - start] += chunk * segment.gain
        self._segments = [segment for segment in self._segments if segment.end > end]
        self._position = end
        return to_int16(mix)

    def _apply(self, event: Event, block_start: int) -> None:
        sample = max(block_start, round(event.time * self.rate))
        if isinstance(event, Cut):
            self._generation = max(self._generation, event.generation)
            for segment in self._segments:
                segment.end = min(segment.end, sample)
            return
        assert isinstance(event, Play)
        if event.generation < self._generation:
            return                      # announced before the last change: stale
        for segment in self._segments:
            if segment.channel == event.channel:
                segment.end = min(segment.end, sample)
        data = self.clips.join(event.clips)
        self._segments.append(_Segment(event.channel, sample, sample + len(data), data,
                                       self._gains[event.channel]))
        self.plays += 1
