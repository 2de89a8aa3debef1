"""Keep a live source going: reopen it with exponential backoff when it fails."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from c4game.exc import CameraError
from firmware_py.backoff import Backoff
from firmware_py.frames import Frame, FrameSource, Intrinsics

log = logging.getLogger(__name__)


def _sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return False


class ReopeningSource(FrameSource):
    """Wraps ``source``: a :class:`CameraError` closes it, waits, and reopens it.

    The waits double from ``min_s`` up to ``max_s`` and fall back to ``min_s``
    after a frame was read. ``wait(seconds)`` does the waiting and returns
    ``True`` when the caller wants to stop (``threading.Event.wait`` fits);
    :meth:`read` then returns ``None``. ``on_failure(error, delay)`` is told
    about each failure. With ``strict_open``, :meth:`open` raises when the
    first open fails (a command line tool); otherwise the source is retried
    from :meth:`read` (the daemon keeps running without its camera).
    """

    def __init__(self, source: FrameSource, *, min_s: float = 0.5, max_s: float = 10.0,
                 wait: Callable[[float], bool] = _sleep,
                 on_failure: Callable[[CameraError, float], None] | None = None,
                 strict_open: bool = False) -> None:
        self._backoff_s = Backoff(min_s, max_s)  # checks 0 < min_s <= max_s
        self.source = source
        self.name = source.name
        self.live = source.live
        self.fps = source.fps
        self.min_s, self.max_s = min_s, max_s
        self.failures = 0
        self._wait = wait
        self._on_failure = on_failure
        self._strict = strict_open
        self._opened = False

    @property
    def intrinsics(self) -> Intrinsics | None:
        """The wrapped source's intrinsics (a camera may learn its own when it opens)."""
        return self.source.intrinsics

    def open(self) -> None:
        try:
            self._open_inner()
        except CameraError as error:
            if self._strict:
                raise
            log.warning("%s: %s (will retry)", self.name, error)

    def _open_inner(self) -> None:
        if not self._opened:
            self.source.open()
            self._opened = True
            self.fps = self.source.fps

    def read(self) -> Frame | None:
        while True:
            try:
                self._open_inner()
                frame = self.source.read()
            except CameraError as error:
                if self._backoff(error):
                    return None
                continue
            self._backoff_s.reset()
            return frame

    def _backoff(self, error: CameraError) -> bool:
        """Close, report and wait after a failure; ``True`` when asked to stop."""
        self.source.close()
        self._opened = False
        self.failures += 1
        delay = self._backoff_s.next()
        log.warning("%s failed: %s; reopening in %.2f s", self.name, error, delay)
        if self._on_failure is not None:
            self._on_failure(error, delay)
        return bool(self._wait(delay))

    def close(self) -> None:
        self.source.close()
        self._opened = False
