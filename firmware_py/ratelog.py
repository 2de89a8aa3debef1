"""Log lines that a flood cannot multiply: one line per reason per period.

A noisy robot, a loose serial wire or a hostile web client can cause the same
complaint thousands of times a second; the journal must not fill with it.
:class:`RateLimitedLog` writes a reason's line at most once every
``every_s`` seconds and counts the lines it held back into the next one
("(1,999 more not logged)").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

EVERY_S = 10.0  # seconds between two lines of one reason


class RateLimitedLog:
    """Rate-limited log lines, per reason (see the module docstring)."""

    def __init__(self, logger: logging.Logger, every_s: float = EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.every_s, self.clock = logger, every_s, clock
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}

    def log(self, level: int, reason: str, message: str) -> bool:
        """Log ``message`` at ``level`` unless ``reason`` was logged in the last
        ``every_s`` seconds; True when it was written."""
        now = self.clock()
        last = self._last.get(reason)
        if last is not None and now - last < self.every_s:
            self._quiet[reason] = self._quiet.get(reason, 0) + 1
            return False
        quiet = self._quiet.pop(reason, 0)
        self._last[reason] = now
        more = f" ({quiet:,} more not logged)" if quiet else ""
        self.logger.log(level, "%s%s", message, more)
        return True

    def info(self, reason: str, message: str) -> bool:
        return self.log(logging.INFO, reason, message)

    def warning(self, reason: str, message: str) -> bool:
        return self.log(logging.WARNING, reason, message)
