"""The robot's side of the link, in Python: what an Arduino sketch does, for tests and bench work.

Used by ``c4pi client``, the end-to-end tests and ``tools/bench/serial_link.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from c4game.exc import SerialPortError
from firmware_py.serial_link.protocol import ANSWER_LENGTH, query_bytes


@dataclass(frozen=True)
class QueryResult:
    """One exchange: ``ack`` is ``"!"``, ``"?"`` or ``""`` (no acknowledgement in time)."""

    moves: str
    ack: str
    answer: str
    ack_ms: float
    answer_ms: float

    @property
    def ok(self) -> bool:
        return self.ack == "!" and len(self.answer) == ANSWER_LENGTH


class RobotClient:
    """Sends queries over a serial port with pyserial and reads the replies."""

    def __init__(self, device: str, baud: int = 9600, *, poll_s: float = 0.01) -> None:
        import serial

        self.device = device
        self._exception = serial.SerialException
        try:
            self.serial = serial.Serial(device, baud, timeout=poll_s, write_timeout=5.0)
        except (serial.SerialException, OSError, ValueError) as error:
            raise SerialPortError(f"cannot open {device!r} at {baud} baud: {error}") from error
        self._buffer = bytearray()

    def close(self) -> None:
        self.serial.close()

    def __enter__(self) -> RobotClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def discard_input(self) -> None:
        """Forget bytes already received (stale answers)."""
        self.serial.reset_input_buffer()
        self._buffer.clear()

    def send(self, data: bytes) -> float:
        """Write ``data`` in one write, wait until it left; returns that moment (perf_counter)."""
        try:
            self.serial.write(data)
            self.serial.flush()
        except (self._exception, OSError) as error:
            raise SerialPortError(f"cannot write to {self.device!r}: {error}") from error
        return time.perf_counter()

    def read_bytes(self, count: int, timeout: float) -> bytes:
        """Up to ``count`` bytes, waiting at most ``timeout`` seconds for them."""
        deadline = time.perf_counter() + timeout
        while len(self._buffer) < count:
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            try:
                chunk = self.serial.read(max(1, self.serial.in_waiting))
            except (self._exception, OSError) as error:
                raise SerialPortError(f"cannot read from {self.device!r}: {error}") from error
            self._buffer += chunk
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def query(self, moves: str, timeout: float = 30.0, *, raw: bytes | None = None
              ) -> QueryResult:
        """Send ``!moves?`` (or ``raw`` bytes) and wait for the acknowledgement and answer."""
        sent = self.send(raw if raw is not None else query_bytes(moves))
        ack = self.read_bytes(1, min(timeout, 5.0)).decode("ascii", "replace")
        ack_ms = (time.perf_counter() - sent) * 1000
        if ack != "!":
            return QueryResult(moves, ack, "", ack_ms, 0.0)
        answer = self.read_bytes(ANSWER_LENGTH, timeout).decode("ascii", "replace")
        return QueryResult(moves, ack, answer, ack_ms, (time.perf_counter() - sent) * 1000)
