"""Byte transports for the robot link: the :class:`Port` interface and its pyserial port.

The service only needs ``read``/``write``/``close``; tests pass other ports
(an in-memory :class:`MemoryPort`, or pyserial on a pseudo-terminal).
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable
from typing import Protocol

from c4game.exc import SerialPortError

READ_TIMEOUT_S = 0.05
WRITE_TIMEOUT_S = 2.0


class Port(Protocol):
    """A byte link to the robot. Errors are raised as :class:`SerialPortError`."""

    name: str

    def read(self) -> bytes:
        """Bytes that arrived; ``b""`` after a short timeout when none did."""
        ...

    def write(self, data: bytes) -> None:
        """Write all of ``data`` in one call."""
        ...

    def close(self) -> None: ...


PortOpener = Callable[[], Port]


def baud_rates() -> tuple[int, ...]:
    """The baud rates ``[serial] baud`` accepts (for command-line choices)."""
    from dataclasses import fields

    from firmware_py.config import SerialConfig

    return next(f.metadata["choices"] for f in fields(SerialConfig) if f.name == "baud")


class PySerialPort:
    """A real serial port (UART, USB adapter or pty) through pyserial, 8N1."""

    def __init__(self, device: str, baud: int = 9600, *,
                 read_timeout: float = READ_TIMEOUT_S,
                 write_timeout: float = WRITE_TIMEOUT_S) -> None:
        import serial  # pyserial; imported here to keep `c4pi --help` fast

        self.name = device
        self._serial_exception = serial.SerialException
        try:
            self._serial = serial.Serial(
                device, baud, bytesize=serial.EIGHTBITS, parity=serial.PARITY_NONE,
                stopbits=serial.STOPBITS_ONE, timeout=read_timeout,
                write_timeout=write_timeout, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as error:
            raise SerialPortError(f"cannot open serial port {device!r} at {baud} baud: "
                                  f"{_why(error)}") from error

    def read(self) -> bytes:
        try:
            waiting = self._serial.in_waiting
            return bytes(self._serial.read(max(1, waiting)))
        except (self._serial_exception, OSError, TypeError) as error:
            # pyserial raises TypeError when the port was closed under a read.
            raise SerialPortError(f"serial port {self.name!r} lost: {_why(error)}") from error

    def write(self, data: bytes) -> None:
        try:
            written = self._serial.write(data)
            self._serial.flush()
        except (self._serial_exception, OSError, TypeError) as error:
            raise SerialPortError(f"cannot write to serial port {self.name!r}: "
                                  f"{_why(error)}") from error
        if written != len(data):
            raise SerialPortError(f"serial port {self.name!r} took {written} of "
                                  f"{len(data)} bytes")

    def close(self) -> None:
        with contextlib.suppress(self._serial_exception, OSError):
            self._serial.close()

    def __repr__(self) -> str:
        return f"<PySerialPort {self.name!r}>"


class HeartbeatPort:
    """A port that reports each read as a sign of life (the service's loop reads
    with a short timeout, so it beats even when the robot is silent)."""

    def __init__(self, port: Port, beat: Callable[[], None]) -> None:
        self._port = port
        self._beat = beat
        self.name = port.name

    def read(self) -> bytes:
        self._beat()
        return self._port.read()

    def write(self, data: bytes) -> None:
        self._port.write(data)

    def close(self) -> None:
        self._port.close()


def pyserial_opener(device: str, baud: int = 9600) -> PortOpener:
    """An opener for :class:`~firmware_py.serial_link.service.SerialService`."""
    return lambda: PySerialPort(device, baud)


class MemoryPort:
    """An in-memory port for tests: ``inject`` what the robot sends, read ``sent``.

    ``fail()`` makes the next read or write raise, like an unplugged adapter.
    """

    def __init__(self, name: str = "memory", read_timeout: float = 0.01) -> None:
        self.name = name
        self._cond = threading.Condition()
        self._incoming: collections.deque[bytes] = collections.deque()
        self._sent = bytearray()
        self.writes: list[bytes] = []
        self._timeout = read_timeout
        self._failed = False
        self.closed = False

    def inject(self, data: bytes) -> None:
        with self._cond:
            self._incoming.append(bytes(data))
            self._cond.notify_all()

    def fail(self) -> None:
        with self._cond:
            self._failed = True
            self._cond.notify_all()

    @property
    def sent(self) -> bytes:
        with self._cond:
            return bytes(self._sent)

    def wait_sent(self, count: int, timeout: float = 5.0) -> bytes:
        """Wait until at least ``count`` bytes were written; return them all."""
        with self._cond:
            self._cond.wait_for(lambda: len(self._sent) >= count or self._failed, timeout)
            return bytes(self._sent)

    def read(self) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: self._incoming or self._failed or self.closed,
                                self._timeout)
            self._check()
            return self._incoming.popleft() if self._incoming else b""

    def write(self, data: bytes) -> None:
        with self._cond:
            self._check()
            self._sent += data
            self.writes.append(bytes(data))
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def _check(self) -> None:
        if self._failed:
            raise SerialPortError(f"port {self.name!r} lost (simulated)")
        if self.closed:
            raise SerialPortError(f"port {self.name!r} is closed")


def _why(error: BaseException) -> str:
    return str(error) or type(error).__name__
