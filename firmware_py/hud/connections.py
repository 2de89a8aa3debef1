"""The HUD server's connections: capped, and closed when they send no request in time.

:class:`GuardedSite` is aiohttp's TCP site whose every connection goes
through :class:`CountedConnection`:

* each site has its own pools: the server's main port one for loopback and
  one for the network, of ``max_connections`` each, one network address at
  most :data:`PER_ADDRESS` (one phone cannot lock the rest out); the Pi's own
  screen opens the page on a second site of its own (``[hud] kiosk_port``,
  loopback only, :data:`KIOSK_CONNECTIONS`), so no flood of other clients,
  loopback ones included, can lock the kiosk out;
* a connection over its pool is closed at once (one log line);
* a connection that has not sent a whole request's headers within
  ``header_timeout_s`` is aborted (its unsent data is dropped with it).

:class:`StreamCap` caps the long-lived streams (events, camera) one client
holds on one port, so streams alone cannot fill a pool.

Error pages for broken requests say only their status (aiohttp's own echo
part of the bad request line): :class:`PlainErrorHandler`.

aiohttp offers no public hook for these, so four private names are the
contract (:data:`PRIVATE_NAMES`): the header deadline reads the handler's
request count, the handlers are made from the server's loop and arguments,
and the site's listening server is set where aiohttp's ``stop`` closes it.
aiohttp is pinned to the minor versions they were checked on (``pyproject.toml``);
:func:`aiohttp_problem` checks them when a site starts (a :class:`HudError`
naming the missing ones, never a deadline silently off), and
``tests/hud/test_hud_guard.py`` checks the installed aiohttp.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from http import HTTPStatus

from aiohttp import __version__ as aiohttp_version
from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from c4game.exc import HudError
from firmware_py.hud.guard import HEADER_TIMEOUT_S, OneLine, is_loopback

PER_ADDRESS = 16  # connections one network address may hold at once
KIOSK_CONNECTIONS = 16  # the kiosk port's own pool (a browser opens about 6 per host)
STREAMS_PER_CLIENT = 4  # event or camera streams one network address (or the kiosk) may hold
REQUEST_COUNT = "_request_count"  # aiohttp's RequestHandler attribute the deadline reads
SERVER_ATTRIBUTES = ("_loop", "_kwargs")  # aiohttp's web.Server attributes its handlers take
SITE_SERVER = "_server"  # aiohttp's BaseSite slot holding the listening server (stop closes it)
PRIVATE_NAMES = (f"RequestHandler.{REQUEST_COUNT}", "Server._loop", "Server._kwargs",
                 f"BaseSite.{SITE_SERVER}")
BACKLOG = 128  # pending connections the listening socket holds (aiohttp's default)


def aiohttp_problem(server: web.Server | None = None) -> str:
    """Which of :data:`PRIVATE_NAMES` the installed aiohttp lacks ("" when none);
    ``server``'s attributes are checked too when given."""
    missing = [name for name, there in (
        (f"RequestHandler.{REQUEST_COUNT}", REQUEST_COUNT in RequestHandler.__slots__),
        (f"BaseSite.{SITE_SERVER}", SITE_SERVER in web.BaseSite.__slots__)) if not there]
    if server is not None:
        missing += [f"Server.{name}" for name in SERVER_ATTRIBUTES if not hasattr(server, name)]
    if not missing:
        return ""
    return (f"aiohttp {aiohttp_version} lacks {', '.join(missing)}: the screen's connection "
            f"guard needs the aiohttp versions pyproject.toml allows")


class GuardedSite(web.TCPSite):
    """A TCP site whose connections are capped and must send their headers in time."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, *, max_connections: int,
                 refused: OneLine, header_timeout_s: float = HEADER_TIMEOUT_S,
                 limit: str = "[hud] max_connections") -> None:
        super().__init__(runner, host, port, reuse_address=True, backlog=BACKLOG)
        self.app_runner = runner
        self.listen_host, self.listen_port = host, port
        self.max_connections = max_connections
        self.refused = refused
        self.header_timeout_s = header_timeout_s
        self.limit = limit  # what sets max_connections, for the log line
        self.pools: Counter[str] = Counter()  # "local" / "network" -> open connections
        self.addresses: Counter[str] = Counter()  # network address -> open connections

    async def start(self) -> None:
        server = self.app_runner.server
        assert server is not None
        problem = aiohttp_problem(server)
        if problem:
            raise HudError(problem)
        await web.BaseSite.start(self)
        loop = asyncio.get_running_loop()
        listening = await loop.create_server(
            lambda: CountedConnection(plain_error_handler(server), self), self.listen_host,
            self.listen_port, backlog=BACKLOG, reuse_address=True)
        setattr(self, SITE_SERVER, listening)  # where aiohttp's stop() closes it

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
            return f"{self.max_connections} open on port {self.listen_port} ({self.limit})"
        if pool == "network" and self.addresses[address or "?"] > PER_ADDRESS:
            return f"{PER_ADDRESS} open from {address}"
        return None

    def release(self, address: str | None) -> None:
        """Forget a connection :meth:`admit` counted."""
        pool = "local" if is_loopback(address) else "network"
        self.pools[pool] -= 1
        if pool == "network":
            self.addresses[address or "?"] -= 1
            if self.addresses[address or "?"] <= 0:
                del self.addresses[address or "?"]

    def watch(self, handler: RequestHandler, transport: asyncio.BaseTransport) -> None:
        """Abort ``transport`` if its first request's headers are not in by the deadline."""
        asyncio.get_running_loop().call_later(self.header_timeout_s, self._deadline,
                                              handler, transport)

    def _deadline(self, handler: RequestHandler, transport: asyncio.BaseTransport) -> None:
        if not transport.is_closing() and getattr(handler, REQUEST_COUNT) == 0:
            self.refused.warning("no whole request", f"within {self.header_timeout_s:g} s")
            transport.abort()


class PlainErrorHandler(RequestHandler):
    """aiohttp's request handler whose error pages never echo the bad request back."""

    __slots__ = ()

    def handle_error(self, request: web.BaseRequest, status: int = 500,
                     exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if status != HTTPStatus.INTERNAL_SERVER_ERROR:  # aiohttp's own 500 page echoes nothing
            try:
                message = f"{status} {HTTPStatus(status).phrase}\n"
            except ValueError:
                message = f"{status}\n"
        return super().handle_error(request, status, exc, message)


def plain_error_handler(server: web.Server) -> RequestHandler:
    """What ``server()`` makes, as a :class:`PlainErrorHandler` (:data:`SERVER_ATTRIBUTES`)."""
    return PlainErrorHandler(server, loop=server._loop, **server._kwargs)


class CountedConnection(asyncio.Protocol):
    """aiohttp's request handler for one connection, counted by its :class:`GuardedSite`."""

    def __init__(self, handler: RequestHandler, site: GuardedSite) -> None:
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

    def eof_received(self) -> None:
        self.handler.eof_received()  # None: the transport closes

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


class StreamCap:
    """Counts the long-lived streams each client holds on each local port.

    A network address, or anything on the kiosk's port, may hold
    :data:`STREAMS_PER_CLIENT` of each kind (events, camera). Loopback on the
    page's port is one client for a proxy or the Pi's own browser tabs alike,
    so it may hold half the pool in streams of any kind: the other half stays
    free for pages.
    """

    def __init__(self, max_connections: int, kiosk_port: int) -> None:
        self.loopback_limit = max(1, max_connections // 2)
        self.kiosk_port = kiosk_port
        self.open: Counter[tuple[str, int, str]] = Counter()

    def key(self, kind: str, request: web.BaseRequest) -> tuple[tuple[str, int, str], int]:
        """((kind, local port, client), how many it may hold) for ``request``."""
        transport = request.transport
        local = transport.get_extra_info("sockname") if transport is not None else None
        port = local[1] if isinstance(local, tuple) and len(local) > 1 else 0
        if not is_loopback(request.remote):
            return (kind, port, request.remote or "?"), STREAMS_PER_CLIENT
        if port != self.kiosk_port:
            return ("stream", port, "loopback"), self.loopback_limit
        return (kind, port, "loopback"), STREAMS_PER_CLIENT  # 127.0.0.2 is this machine too

    def take(self, key: tuple[str, int, str], limit: int) -> bool:
        """Count one more stream of ``key``; False (and nothing counted) at ``limit``."""
        if self.open[key] >= limit:
            return False
        self.open[key] += 1
        return True

    def give(self, key: tuple[str, int, str]) -> None:
        """Forget a stream :meth:`take` counted."""
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]
