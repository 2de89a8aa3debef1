"""The announcement timeline: what to play on which channel, and when.

Pure and clock-free: every method takes the current time ``now`` (seconds),
and :meth:`Scheduler.due` hands out the events up to a time, in order. The
mixer drives it with the audio stream's own sample clock, tests with a fake
clock, so the timeline is exact in both.

Channels: ``move`` repeats the move ("Red four", gap, "Red four", …) while a
recommendation stands; ``distance`` overlays "Red wins in 13" (1.5x speed,
quieter) every ``distance_period_s``, the first time as soon as the first
"Red four" ends. One-shot phrases (finished game, board lost, start-up) play
on the move channel. Every state change bumps :attr:`Scheduler.generation`
and emits a :class:`Cut` that silences both channels at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from firmware_py.speech import phrases

MOVE, DISTANCE = "move", "distance"
CHANNELS = (MOVE, DISTANCE)


@dataclass(frozen=True)
class Play:
    """Start playing ``clips`` (joined) on ``channel`` at ``time``, replacing what plays there."""

    time: float
    channel: str
    clips: tuple[str, ...]
    generation: int


@dataclass(frozen=True)
class Cut:
    """Silence every channel at ``time``; plays of older generations are dropped."""

    time: float
    generation: int


Event = Play | Cut


class Scheduler:
    """Turns announcer states into a timeline of :class:`Play` / :class:`Cut` events.

    ``duration(clips)`` gives the length in seconds of a joined clip tuple.
    """

    def __init__(self, duration: Callable[[tuple[str, ...]], float], *,
                 repeat_gap_s: float = 0.3, distance_period_s: float = 8.0) -> None:
        if repeat_gap_s < 0 or distance_period_s <= 0:
            raise ValueError(f"repeat_gap_s {repeat_gap_s!r} must be >= 0 and "
                             f"distance_period_s {distance_period_s!r} > 0")
        self._duration = duration
        self._gap = repeat_gap_s
        self._period = distance_period_s
        self.generation = 0
        self.state: tuple[object, ...] = ("idle",)
        self._pending: list[Event] = []
        self._move: tuple[float, tuple[str, ...]] | None = None      # next start, clips
        self._distance: tuple[float, tuple[str, ...]] | None = None
        self._last_final: tuple[object, ...] | None = None

    # --- state changes -------------------------------------------------------

    def recommend(self, now: float, player: str | None, column: int, outcome: str,
                  plies: int) -> bool:
        """A solved, stable board: repeat the move, overlay the distance (``player``
        None: nobody has started, no colour named). True if changed."""
        move = phrases.move_clips(player, column)
        distance = phrases.distance_clips(player, outcome, plies)
        self._last_final = None   # a playable board: the next finished game is new
        if not self._change(now, ("recommend", player, column, outcome, plies)):
            return False
        self._move = (now, move)
        self._distance = (now + self._duration(move), distance)
        return True

    def finished(self, now: float, winner: str | None, key: object = None) -> bool:
        """A finished game: its result, said once per (winner, key)."""
        clips = phrases.final_clips(winner)
        if not self._change(now, ("finished", winner, key)):
            return False
        if self._last_final != (winner, key):
            self._last_final = (winner, key)
            self._pending.append(Play(now, MOVE, clips, self.generation))
        return True

    def scanning(self, now: float) -> bool:
        """No stable board: silence."""
        return self._change(now, ("scanning",))

    def board_lost(self, now: float) -> bool:
        """The board left the view: "board not found", once per loss."""
        if not self._change(now, ("lost",)):
            return False
        self._pending.append(Play(now, MOVE, ("lost",), self.generation))
        return True

    def say(self, now: float, clips: tuple[str, ...], key: object = None) -> bool:
        """A one-shot phrase, said once per ``(clips, key)`` (cuts what plays)."""
        if not self._change(now, ("say", clips, key)):
            return False
        self._pending.append(Play(now, MOVE, clips, self.generation))
        return True

    def startup(self, now: float) -> None:
        """The start-up phrase, once, without changing the state."""
        self._pending.append(Play(now, MOVE, ("startup",), self.generation))

    def _change(self, now: float, state: tuple[object, ...]) -> bool:
        if state == self.state:
            return False
        self.state = state
        self.generation += 1
        self._pending = [Cut(now, self.generation)]
        self._move = self._distance = None
        return True

    # --- the timeline --------------------------------------------------------

    def due(self, until: float) -> list[Event]:
        """Every event that starts before ``until``, in time order (each handed out once)."""
        events = [event for event in self._pending if event.time < until]
        self._pending = [event for event in self._pending if event.time >= until]
        while self._move is not None and self._move[0] < until:
            start, clips = self._move
            events.append(Play(start, MOVE, clips, self.generation))
            self._move = (start + self._duration(clips) + self._gap, clips)
        while self._distance is not None and self._distance[0] < until:
            start, clips = self._distance
            events.append(Play(start, DISTANCE, clips, self.generation))
            self._distance = (start + self._period, clips)
        events.sort(key=lambda event: (event.time, isinstance(event, Play)))
        return events

    def next_time(self) -> float | None:
        """When the next event starts (None when nothing more is scheduled)."""
        times = [event.time for event in self._pending]
        times += [item[0] for item in (self._move, self._distance) if item is not None]
        return min(times, default=None)
