"""Waits that double after each failure: the one back-off of every retry loop.

The serial port that will not open, a part of the appliance that failed to
start, a supervised loop that crashed, a camera that stopped, an audio output
that vanished: each waits ``low`` seconds after the first failure, twice as
long after each further one, never more than ``high``, and ``low`` again
after a success.
"""

from __future__ import annotations


class Backoff:
    """Exponential delays between ``low`` and ``high`` seconds; :meth:`reset` after success."""

    def __init__(self, low: float, high: float) -> None:
        if not 0 < low <= high:
            raise ValueError(f"backoff needs 0 < low <= high, got {low}, {high}")
        self.low, self.high = low, high
        self._next = low

    def next(self) -> float:
        """The delay to wait now; the one after it doubles (at most ``high``)."""
        delay = self._next
        self._next = min(self.high, self._next * 2)
        return delay

    def reset(self) -> None:
        """A success: the next failure waits ``low`` again."""
        self._next = self.low
