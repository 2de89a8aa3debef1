"""systemd notify protocol and the liveness watchdog.

:class:`SystemdNotifier` sends ``READY=1``, ``STATUS=…`` and ``WATCHDOG=1``
datagrams to ``$NOTIFY_SOCKET`` (a path, or an abstract socket when it starts
with ``@``); without the variable it does nothing, so c4pi runs the same
outside systemd. :class:`RecordingNotifier` is the fake tests pass in.

:class:`Watchdog` pings ``WATCHDOG=1`` only while every registered loop has
reported a heartbeat recently: a hung loop stops the pings and systemd
restarts the service after ``WatchdogSec``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class Notifier(Protocol):
    """Where service-manager notifications go."""

    def notify(self, message: str) -> None: ...


class SystemdNotifier:
    """Sends notifications to ``$NOTIFY_SOCKET`` (no-op when it is not set)."""

    def __init__(self, socket_path: str | None = None) -> None:
        self._address = socket_path if socket_path is not None else os.environ.get(
            "NOTIFY_SOCKET", "")
        self._socket: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        return bool(self._address)

    def notify(self, message: str) -> None:
        """Send one datagram without waiting; errors (a full queue too: the
        manager is not reading) are logged, never raised, and the message is
        dropped, so that the loop that notifies never blocks."""
        if not self._address:
            return
        address = self._address
        if address.startswith("@"):
            address = "\0" + address[1:]
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._socket.sendto(message.encode(), socket.MSG_DONTWAIT, address)
        except OSError as error:
            log.warning("cannot notify systemd at %s: %s", self._address, error)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


class RecordingNotifier:
    """A fake notifier that keeps every message (thread-safe)."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._lock = threading.Lock()

    def notify(self, message: str) -> None:
        with self._lock:
            self.messages.append(message)

    def count(self, message: str) -> int:
        with self._lock:
            return self.messages.count(message)


def watchdog_interval(default: float = 5.0) -> float:
    """Half of systemd's ``WATCHDOG_USEC`` in seconds, else ``default``."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    if usec.isdigit() and int(usec) > 0:
        return int(usec) / 2e6
    return default


class Watchdog:
    """Pings ``WATCHDOG=1`` while all registered loops keep beating.

    Each loop calls :meth:`beat` with its name at least every ``stale_s``
    seconds. ``clock`` is injectable for tests; :meth:`check` does one round
    (it is what the background thread runs every ``interval_s``).
    """

    def __init__(self, notifier: Notifier, *, interval_s: float, stale_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._notifier = notifier
        self._interval_s = interval_s
        self._stale_s = stale_s
        self._clock = clock
        self._beats: dict[str, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def register(self, name: str) -> None:
        """Start watching loop ``name`` (counts as a beat now)."""
        self.beat(name)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._beats.pop(name, None)

    def beat(self, name: str) -> None:
        """Loop ``name`` is alive."""
        with self._lock:
            self._beats[name] = self._clock()

    def stale_loops(self) -> list[str]:
        """Names of the loops that have not beaten within ``stale_s``."""
        now = self._clock()
        with self._lock:
            return sorted(name for name, at in self._beats.items() if now - at > self._stale_s)

    def check(self) -> bool:
        """Ping if every loop is alive; returns whether it pinged."""
        stale = self.stale_loops()
        if stale:
            log.error("watchdog: loop(s) not responding: %s; not pinging", ", ".join(stale))
            return False
        self._notifier.notify("WATCHDOG=1")
        return True

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.check()
