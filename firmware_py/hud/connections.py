"""The HUD server's connections: capped, and closed when they send no request in time.

:class:`GuardedSite` is aiohttp's TCP site whose every connection goes
through :class:`CountedConnection`:

* the Pi's own screen (loopback) and the network each have their own pool of
  ``max_connections``, and one network address at most :data:`PER_ADDRESS`:
  a device on the network cannot lock the kiosk out, nor one phone the rest;
* a connection over its pool is closed at once (one log line);
* a connection that has not sent a whole request's headers within
  ``header_timeout_s`` is aborted (its unsent data is dropped with it).

The header deadline reads aiohttp's per-connection request count
(``RequestHandler._request_count``); ``tests/hud/test_hud_guard.py`` checks
that the installed aiohttp still has it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from aiohttp import web

from firmware_py.hud.guard import HEADER_TIMEOUT_S, OneLine, is_loopback

PER_ADDRESS = 16  # connections one network address may hold at once
REQUEST_COUNT = "_request_count"  # aiohttp's RequestHandler attribute the deadline reads


class GuardedSite(web.TCPSite):
    """A TCP site whose connections are capped and must send their headers in time."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, *, max_connections: int,
                 refused: OneLine, header_timeout_s: float = HEADER_TIMEOUT_S) -> None:
        super().__init__(runner, host, port, reuse_address=True)
        self.max_connections = max_connections
        self.refused = refused
        self.header_timeout_s = header_timeout_s
        self.pools: Counter[str] = Counter()  # "local" / "network" -> open connections
        self.addresses: Counter[str] = Counter()  # network address -> open connections

    async def start(self) -> None:
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        self._server = await loop.create_server(
            lambda: CountedConnection(server(), self), self._host, self._port,
            backlog=self._backlog, reuse_address=True)

    @property
    def open(self) -> int:
        """Connections open now."""
        return sum(self.pools.values())

    def admit(self, address: str | None) -> str | None:
        """Count a new connection from ``address``; why it is refused, or None."""
        pool = "local" if is_loopback(address) else "network"
        self.pools[pool] += 1
        if pool == "network":
            self.addresses[address or "?"] += 1
        if self.pools[pool] > self.max_connections:
            return f"too many connections: {self.max_connections} open ([hud] max_connections)"
        if pool == "network" and self.addresses[address or "?"] > PER_ADDRESS:
            return f"too many connections from {address}: {PER_ADDRESS} open"
        return None

    def release(self, address: str | None) -> None:
        """Forget a connection :meth:`admit` counted."""
        pool = "local" if is_loopback(address) else "network"
        self.pools[pool] -= 1
        if pool == "network":
            self.addresses[address or "?"] -= 1
            if self.addresses[address or "?"] <= 0:
                del self.addresses[address or "?"]

    def watch(self, handler: Any, transport: asyncio.BaseTransport) -> None:
        """Abort ``transport`` if its first request's headers are not in by the deadline."""
        asyncio.get_running_loop().call_later(self.header_timeout_s, self._deadline,
                                              handler, transport)

    def _deadline(self, handler: Any, transport: asyncio.BaseTransport) -> None:
        if not transport.is_closing() and getattr(handler, REQUEST_COUNT, 1) == 0:
            self.refused.warning("no whole request", f"within {self.header_timeout_s:g} s")
            transport.abort()


class CountedConnection(asyncio.Protocol):
    """aiohttp's request handler for one connection, counted by its :class:`GuardedSite`."""

    def __init__(self, handler: Any, site: GuardedSite) -> None:
        self.handler, self.site = handler, site
        self.address: str | None = None
        self.counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if isinstance(peer, tuple) and peer else None
        why = self.site.admit(self.address)
        self.counted = True
        self.handler.connection_made(transport)
        if why is not None:
            self.site.refused.warning("too many connections", why)
            transport.abort()
            return
        self.site.watch(self.handler, transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.counted:
            self.counted = False
            self.site.release(self.address)
        self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()
