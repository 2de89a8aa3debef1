"""Parts that come back: a part that fails to start is tried again, with back-off.

A missing speaker folder, a web port another program holds: the appliance runs
without the part and :class:`PartRetry` starts it again in a thread of its
own (1 s, 2 s, 4 s … at most 60 s apart) until it works or the appliance
stops. It logs once per change of state (down, with why; back up), and
:attr:`PartRetry.down` says why the part is down now (for the status line).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from firmware_py.backoff import Backoff

P = TypeVar("P")  # the part a retry starts
log = logging.getLogger(__name__)


class PartRetry(Generic[P]):
    """Start ``name`` with ``start()``; hand each part that came up to ``up(part)``."""

    def __init__(self, name: str, start: Callable[[], P], up: Callable[[P], None],
                 stopping: threading.Event, *, first_s: float = 1.0,
                 longest_s: float = 60.0) -> None:
        self.name, self.start, self.up, self.stopping = name, start, up, stopping
        self.first_s, self.longest_s = first_s, longest_s
        self.down: str | None = None  # why the part is down now
        self.thread: threading.Thread | None = None

    def begin(self) -> None:
        """Try once now; on failure keep trying in the background."""
        if self._attempt():
            return
        self.thread = threading.Thread(target=self._keep_trying, name=f"c4pi-retry-{self.name}",
                                       daemon=True)
        self.thread.start()

    def _attempt(self) -> bool:
        try:
            part = self.start()
        except Exception as error:  # any failure of a part: it runs without it, and retries
            why = str(error) or type(error).__name__
            if why != self.down:
                log.error("%s unavailable: %s (trying again, every %g s at most)", self.name,
                          why, self.longest_s)
            self.down = why
            return False
        if self.down is not None:
            log.warning("%s is back", self.name)
        self.down = None
        self.up(part)
        return True

    def _keep_trying(self) -> None:
        backoff = Backoff(self.first_s, self.longest_s)
        while not self.stopping.wait(backoff.next()):
            if self._attempt():
                return
