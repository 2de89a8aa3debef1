"""A virtual serial cable: two pseudo-terminals joined by a relay thread.

Both ends are real tty devices (``/dev/pts/N``) that pyserial opens like a
UART, so the service and a robot stand-in (``c4pi client``, the tests, the
benchmark) talk exactly as over a wire. ``unplug()``/``replug()`` simulate a
USB adapter that disappears and comes back; with ``link=PATH`` the service side
is reached through a symlink (as ``/dev/serial0`` is), which follows replugs.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import tty
from pathlib import Path

_CHUNK = 4096


class _Pty:
    """One pty pair; the relay keeps a slave fd open so the master never hangs up."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self._slave)

    def close(self) -> None:
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class PtyWire:
    """Two connected ptys: bytes written on one end are read on the other."""

    def __init__(self, link: str | os.PathLike[str] | None = None) -> None:
        self._lock = threading.Lock()
        self._service = _Pty()
        self._robot = _Pty()
        self._link = Path(link) if link is not None else None
        self._wake_r, self._wake_w = os.pipe()
        self._stopped = False
        self.bytes_relayed = 0
        self.bytes_dropped = 0
        self._point_link()
        self._thread = threading.Thread(target=self._relay, name="c4pi-ptywire", daemon=True)
        self._thread.start()

    @property
    def service_path(self) -> str:
        """The device the service opens (the symlink when one was asked for)."""
        return str(self._link) if self._link is not None else self._service.path

    @property
    def robot_path(self) -> str:
        """The device the robot side opens."""
        return self._robot.path

    def unplug(self) -> None:
        """Hang up the service side (its reads fail) and remove the symlink."""
        with self._lock:
            if self._service is None:
                return
            self._service.close()
            self._service = None
            if self._link is not None:
                self._link.unlink(missing_ok=True)
        self._wake()

    def replug(self) -> str:
        """A fresh service-side pty (after :meth:`unplug`); returns its path."""
        with self._lock:
            if self._service is not None:
                self._service.close()
            self._service = _Pty()
            self._point_link()
            path = self._service.path
        self._wake()
        return path

    def close(self) -> None:
        with self._lock:
            self._stopped = True
        self._wake()
        self._thread.join(2.0)
        with self._lock:
            for end in (self._service, self._robot):
                if end is not None:
                    end.close()
            self._service = None
            if self._link is not None:
                self._link.unlink(missing_ok=True)
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PtyWire:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _point_link(self) -> None:
        if self._link is None or self._service is None:
            return
        temporary = self._link.with_name(self._link.name + ".new")
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(self._service.path)
        temporary.replace(self._link)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _relay(self) -> None:
        while True:
            with self._lock:
                if self._stopped:
                    return
                service, robot = self._service, self._robot
            fds = [self._wake_r, robot.master] + ([service.master] if service else [])
            try:
                readable, _, _ = select.select(fds, [], [])
            except (OSError, ValueError):
                continue  # an fd was closed by unplug(); take the new set
            if self._wake_r in readable:
                os.read(self._wake_r, _CHUNK)
            with self._lock:
                if service is not None and service is self._service:
                    self._pump(service.master, robot.master, readable)
                    self._pump(robot.master, service.master, readable)
                elif robot.master in readable:
                    self._drain(robot.master)  # nobody on the other end: the bytes are lost

    def _pump(self, source: int, target: int, readable: list[int]) -> None:
        if source not in readable:
            return
        data = self._drain(source)
        view = memoryview(data)
        while view:
            try:
                written = os.write(target, view)
            except InterruptedError:
                continue
            except OSError:  # the far side's buffer is full or gone: a wire drops bytes too
                self.bytes_dropped += len(view)
                return
            self.bytes_relayed += written
            view = view[written:]

    @staticmethod
    def _drain(fd: int) -> bytes:
        try:
            return os.read(fd, _CHUNK)
        except OSError:
            return b""
