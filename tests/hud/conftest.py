"""Helpers for the HUD tests: a server on a free port and a server-sent events client."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from firmware_py.hud.hub import HudHub
from firmware_py.hud.server import HudServer
from tests.emulation import patience


class SseClient:
    """Reads ``/events`` in a thread; ``states`` holds every state received, in order."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.states: list[dict[str, Any]] = []
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        data = None
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    data = json.loads(line[6:])
                elif not line and data is not None:
                    self.states.append(data)
                    data = None
        except (OSError, ValueError):
            pass

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + patience(timeout)
        while time.monotonic() < deadline:
            for state in reversed(self.states):
                if predicate(state):
                    return state
            time.sleep(0.02)
        raise AssertionError(f"no state matched within {timeout} s; last: "
                             f"{self.states[-1] if self.states else None}")

    def close(self) -> None:
        sock = self.connection.sock
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)  # wakes the reading thread at once
        self.thread.join(timeout=5)
        self.connection.close()


@pytest.fixture
def served() -> Iterator[tuple[HudHub, HudServer]]:
    hub = HudHub()
    server = HudServer(hub, port=0, camera_fps=10.0, camera_width=320).start()
    try:
        yield hub, server
    finally:
        server.stop()
