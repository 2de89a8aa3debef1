"""The HUD web server: the kiosk page, its pushed state and the camera picture.

Built on aiohttp (one asyncio loop in a thread of its own; no worker
processes, no threads per client, server-sent events and streamed responses
built in). Routes, all read-only (``GET`` only: nothing here changes what the
appliance does):

* ``/``: the page (``static/index.html``) and ``/static/…``: its script and
  style, all served from here (no CDN: the kiosk works offline);
* ``/events``: server-sent events, one ``state`` event per change of the
  :class:`~firmware_py.hud.hub.HudHub` state (the current state first);
  one client holds a few streams at most (429; ``connections.StreamCap``);
* ``/state``: the current state as JSON;
* ``/camera.mjpg``: the annotated camera picture as an MJPEG stream, and
  ``/camera.jpg``: its latest picture;
* ``/play``: the play page, a game against c4pi in the browser
  (:mod:`firmware_py.hud.play_games`; only when ``games`` is given). Its
  ``POST /play/new`` and ``POST /play/<game>`` are the only routes that take
  input: they play that browser's own game and change nothing else; a refusal is
  JSON ``{"error": why}``: 409 for an input the game cannot take now (busy
  answering, a full column, over), 503 when every place holds a game in play
  (``/play/options``: the levels, and the page's first choice, ``[play] level``);
* ``/phone.json`` and ``/phone.svg``: the address and QR code that open the
  page on a phone (:mod:`firmware_py.hud.phone`), for the Pi's own screen
  only, and only when the page is served to the network.

A client too slow to take its events is dropped (its browser reconnects
and starts again from the current state); the vision loop never waits for
a client.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from c4game.exc import HudError, PlayError
from firmware_py.config import VisionConfig
from firmware_py.hud.camera_feed import CameraFeed
from firmware_py.hud.connections import KIOSK_CONNECTIONS, GuardedSite, StreamCap
from firmware_py.hud.guard import (
    AIOHTTP_LOGGERS,
    HEADER_TIMEOUT_S,
    KEEPALIVE_S,
    LOCAL_NAMES,
    Hosts,
    OneLine,
    Pairing,
    QuietClientErrors,
    is_loopback,
    request_guard,
)
from firmware_py.hud.phone import PhoneLink, lan_address, phone_link
from firmware_py.hud.play_games import GameBusy, GamesFull, IllegalInput
from firmware_py.hud.responses import (
    GONE_CHECK_S,
    WRITE_TIMEOUT_S,
    expect_continue,
    json_body,
    next_state,
    security_headers,
    sse_event,
    too_many,
    write_or_drop,
)
from firmware_py.json_types import JsonObject

if TYPE_CHECKING:
    from firmware_py.config import Config, HudConfig
    from firmware_py.hud.hub import HudHub
    from firmware_py.hud.play_games import PlayGames

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
QUEUE_LIMIT = 256  # states a client may fall behind before it is dropped
BOUNDARY = "c4piframe"
PLAY_STATUS = ((GameBusy, 409), (IllegalInput, 409), (GamesFull, 503))  # else a 400


class HudServer:
    """Serves the HUD of ``hub`` on ``host``:``port`` (port 0: any free port)."""

    def __init__(self, hub: HudHub, *, host: str = "127.0.0.1", port: int = 8080,
                 camera_fps: float = 4.0, camera_width: int = 640,
                 min_cell_confidence: float = VisionConfig.min_cell_confidence,
                 games: PlayGames | None = None,
                 max_connections: int = 64, hosts: tuple[str, ...] = (),
                 pairing_code: str = "", header_timeout_s: float = HEADER_TIMEOUT_S,
                 kiosk_port: int = 0) -> None:
        self.hub = hub
        self.games = games
        self.host = host
        self.port = port
        self.max_connections = max_connections
        self.extra_hosts = hosts
        self.pairing_code = pairing_code
        self.header_timeout_s = header_timeout_s
        self.kiosk_port = kiosk_port  # the Pi's own screen's port (0: none)
        self.refused = OneLine()
        self._quiet = QuietClientErrors(self.refused)
        self.feed = CameraFeed(hub, self._on_jpeg, watching=lambda: self.camera_clients > 0,
                               fps=camera_fps, width=camera_width,
                               min_cell_confidence=min_cell_confidence)
        self.camera_clients = 0
        self.event_clients = 0
        self._queues: set[asyncio.Queue] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._jpeg: tuple[int, bytes] | None = None
        self._jpeg_event: asyncio.Event | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._stopping: asyncio.Event | None = None
        self.streams = StreamCap(max_connections, kiosk_port)

    @classmethod
    def from_config(cls, config: Config, hub: HudHub,
                    games: PlayGames | None = None) -> HudServer:
        """The server ``[hud]`` describes (not started): the one wiring of the appliance's
        screen and ``c4pi watch --hud``'s."""
        hud = config.hud
        return cls(hub, host="0.0.0.0" if hud.lan else "127.0.0.1", port=hud.port,
                   camera_fps=hud.camera_fps, camera_width=hud.camera_width,
                   min_cell_confidence=config.vision.min_cell_confidence, games=games,
                   **guard_options(hud))

    @property
    def url(self) -> str:
        host = "localhost" if self.host in ("127.0.0.1", "::1", "localhost") else self.host
        if host in ("0.0.0.0", "::"):  # every interface: the address a phone can use
            host = lan_address()  # as the QR code on the screen says
        return f"http://{host}:{self.port}/"

    @property
    def kiosk_url(self) -> str:
        """The page on the kiosk's own port (``url`` when there is none)."""
        return f"http://localhost:{self.kiosk_port}/" if self.kiosk_port else self.url

    # ------------------------------------------------------------ lifecycle

    def start(self) -> HudServer:
        """Listen (raises :class:`HudError` when the port cannot be had)."""
        for name in AIOHTTP_LOGGERS:
            logging.getLogger(name).addFilter(self._quiet)
        self._thread = threading.Thread(target=self._serve, name="c4pi-hud", daemon=True)
        self._thread.start()
        self._ready.wait(10.0)
        if isinstance(self._error, HudError):  # not the port: the aiohttp installed
            raise HudError(f"the HUD cannot start: {self._error}")
        if self._error is not None:
            raise HudError(f"the HUD cannot listen on {self.host}:{self.port}: {self._error}")
        self.feed.start()
        log.info("HUD on %s%s", self.url, f" (the Pi's own screen: {self.kiosk_url})"
                 if self.kiosk_port else "")
        return self

    def stop(self) -> None:
        self.feed.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=3.0)
        for name in AIOHTTP_LOGGERS:
            logging.getLogger(name).removeFilter(self._quiet)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as error:  # reported by start()
            self._error = error
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        self._jpeg_event = asyncio.Event()
        self._runner = web.AppRunner(self._app(), handle_signals=False, access_log=None,
                                     keepalive_timeout=KEEPALIVE_S)
        await self._runner.setup()
        site = GuardedSite(self._runner, self.host, self.port,
                           max_connections=self.max_connections, refused=self.refused,
                           header_timeout_s=self.header_timeout_s)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or ()
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._hosts.ports.add(self.port)
        await self._open_kiosk_site()
        self.streams = StreamCap(self.max_connections, self.kiosk_port)
        self._unsubscribe = self.hub.subscribe(self._from_hub)
        self._ready.set()
        health = asyncio.ensure_future(self._health_loop())
        await self._stopping.wait()
        health.cancel()
        self._jpeg_event.set()  # camera streams see the stop at once
        for queue in list(self._queues):
            queue.put_nowait(None)
        await self._runner.cleanup()

    async def _open_kiosk_site(self) -> None:
        """Listen on the kiosk's own port, loopback only; a port taken costs a warning."""
        if not self.kiosk_port:
            return
        assert self._runner is not None
        site = GuardedSite(self._runner, "127.0.0.1", self.kiosk_port,
                           max_connections=KIOSK_CONNECTIONS, refused=self.refused,
                           header_timeout_s=self.header_timeout_s,
                           limit="the Pi's screen's own port")
        try:
            await site.start()
        except OSError as error:
            log.warning("the Pi's screen has no connection of its own: port %d ([hud] "
                        "kiosk_port) cannot be had (%s); it shares port %d's",
                        self.kiosk_port, error.strerror or error, self.port)
            self.kiosk_port = 0
            return
        sockets = getattr(site._server, "sockets", None) or ()
        if sockets:
            self.kiosk_port = sockets[0].getsockname()[1]
        self._hosts.ports.add(self.kiosk_port)

    async def _health_loop(self) -> None:
        while True:
            self.hub.refresh_health()
            await asyncio.sleep(1.0)

    def _app(self) -> web.Application:
        self._hosts = Hosts(self.port, lan=self.host not in LOCAL_NAMES,
                            extra=self.extra_hosts)
        guard = request_guard(self._hosts, Pairing(self.pairing_code), self.refused)
        app = web.Application(middlewares=[security_headers, guard], client_max_size=4096)
        get = functools.partial(app.router.add_get, expect_handler=expect_continue)
        post = functools.partial(app.router.add_post, expect_handler=expect_continue)
        get("/", self._index)
        get("/events", self._events)
        get("/state", self._state)
        get("/camera.mjpg", self._camera_stream)
        get("/camera.jpg", self._camera_picture)
        app.router.add_static("/static/", STATIC_DIR, follow_symlinks=False,
                              expect_handler=expect_continue)
        get("/play", self._play_page)
        get("/phone.json", self._phone_json)
        get("/phone.svg", self._phone_svg)
        if self.games is not None:
            post("/play/new", self._play_new)
            get("/play/options", self._play_options)
            get("/play/{game}", self._play_state)
            post("/play/{game}", self._play_input)
        return app

    # ------------------------------------------------------------ from other threads

    def _from_hub(self, state: JsonObject) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._fan_out, state)

    def _fan_out(self, state: JsonObject) -> None:
        for queue in list(self._queues):
            if queue.qsize() >= QUEUE_LIMIT:
                self._queues.discard(queue)
                queue.put_nowait(None)  # too slow: it reconnects from the current state
            else:
                queue.put_nowait(state)

    def _on_jpeg(self, seq: int, data: bytes) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._new_jpeg, seq, data)

    def _new_jpeg(self, seq: int, data: bytes) -> None:
        self._jpeg = (seq, data)
        assert self._jpeg_event is not None
        self._jpeg_event.set()
        self._jpeg_event = asyncio.Event()

    # ------------------------------------------------------------ handlers

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC_DIR / "index.html",
                                headers={"Cache-Control": "no-cache"})

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self.hub.snapshot(), headers={"Cache-Control": "no-store"})

    def _take_stream(self, kind: str, request: web.Request) -> tuple[str, int, str] | None:
        """Count a stream of ``request``'s client; None over its cap (one log line)."""
        key, limit = self.streams.key(kind, request)
        if not self.streams.take(key, limit):
            self.refused.warning(f"too many {kind} streams",
                                 f"{key[2]} holds {limit} on port {key[1]}")
            return None
        return key

    async def _events(self, request: web.Request) -> web.StreamResponse:
        return await self._capped("event", "text/event-stream", request, self._stream_events)

    async def _capped(self, kind: str, content_type: str, request: web.Request,
                      stream: Callable[[web.Request], Awaitable[web.StreamResponse]],
                      ) -> web.StreamResponse:
        """``stream(request)`` under its client's cap of ``kind`` streams (HEAD: the
        headers only; over the cap: a 429 that closes the connection)."""
        if request.method == "HEAD":
            return web.Response(headers={"Content-Type": content_type})
        key = self._take_stream(kind, request)
        if key is None:
            return too_many(f"too many {kind} streams from this client")
        try:
            return await stream(request)
        finally:
            self.streams.give(key)

    async def _stream_events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-store",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        queue: asyncio.Queue[JsonObject] = asyncio.Queue()
        self._queues.add(queue)
        self.event_clients += 1
        try:
            await write_or_drop(response, b"retry: 1000\n\n")
            state: JsonObject | None = self.hub.snapshot()
            while state is not None:
                await write_or_drop(response, sse_event(state))
                state = await next_state(queue, request, response)
        except (ConnectionError, asyncio.CancelledError):
            pass
        except TimeoutError:
            self._drop(request, "an event client that does not read")
        finally:
            self._queues.discard(queue)
            self.event_clients -= 1
        return response

    async def _camera_stream(self, request: web.Request) -> web.StreamResponse:
        return await self._capped("camera", f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                                  request, self._stream_camera)

    async def _stream_camera(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={
            "Content-Type": f"multipart/x-mixed-replace; boundary={BOUNDARY}",
            "Cache-Control": "no-store"})
        await response.prepare(request)
        self.camera_clients += 1
        self.feed.wake()
        try:
            sent = 0
            while self._stopping is not None and not self._stopping.is_set():
                if self._jpeg is not None and self._jpeg[0] != sent:
                    sent, data = self._jpeg
                    await write_or_drop(response,
                                 f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                                 f"Content-Length: {len(data)}\r\n\r\n".encode()
                                 + data + b"\r\n")
                assert self._jpeg_event is not None
                event = self._jpeg_event
                try:
                    await asyncio.wait_for(event.wait(), GONE_CHECK_S)
                except TimeoutError:
                    if request.transport is None or request.transport.is_closing():
                        break  # the client left: its place goes back
                    continue
        except (ConnectionError, asyncio.CancelledError):
            pass
        except TimeoutError:
            self._drop(request, "a camera client that does not read")
        finally:
            self.camera_clients -= 1
        return response

    def _drop(self, request: web.Request, who: str) -> None:
        """Abort a streaming client's connection (close would wait for it to read)."""
        self.refused.warning("dropped", f"{who} for {WRITE_TIMEOUT_S:g} s: {request.remote}")
        if request.transport is not None:
            request.transport.abort()

    def _phone_link(self, request: web.Request) -> PhoneLink | None:
        """The phone link, for the Pi's own screen when the network may see the page."""
        if not self._hosts.lan or not is_loopback(request.remote):
            return None
        return phone_link(lan_address(), self.port, self.pairing_code)

    async def _phone_json(self, request: web.Request) -> web.Response:
        link = self._phone_link(request)
        if link is None:
            return web.json_response({"error": "no phone link: the page is served to this "
                                               "machine only ([hud] lan = false)"}, status=404)
        return web.json_response({"url": link.shown, "qr": "/phone.svg"},
                                 headers={"Cache-Control": "no-store"})

    async def _phone_svg(self, request: web.Request) -> web.Response:
        link = self._phone_link(request)
        if link is None:
            return web.Response(status=404, text="no phone link here")
        return web.Response(body=link.svg(), content_type="image/svg+xml",
                            headers={"Cache-Control": "no-store"})

    async def _play_page(self, request: web.Request) -> web.StreamResponse:
        if self.games is None:
            return web.Response(status=404, text="The play page is turned off here "
                                                 "([play] web = false in the config).")
        return web.FileResponse(STATIC_DIR / "play.html", headers={"Cache-Control": "no-cache"})

    @property
    def _games(self) -> PlayGames:
        """The games of the play routes (registered only when there are games)."""
        if self.games is None:
            raise HudError("the play page is turned off")
        return self.games

    async def _play_new(self, request: web.Request) -> web.Response:
        return await self._play_call(request, lambda body: functools.partial(
            self._games.new, body.get("level"), body.get("colour"), body.get("first")))

    async def _play_input(self, request: web.Request) -> web.Response:
        game = request.match_info["game"]
        return await self._play_call(request, lambda body: functools.partial(
            self._games.act, game, body.get("input")))

    async def _play_options(self, request: web.Request) -> web.Response:
        return web.json_response(self._games.options(), headers={"Cache-Control": "no-store"})

    async def _play_state(self, request: web.Request) -> web.Response:
        try:
            state = self._games.state(request.match_info["game"])
        except PlayError as error:
            return web.json_response({"error": str(error)}, status=404)
        return web.json_response(state, headers={"Cache-Control": "no-store"})

    async def _play_call(self, request: web.Request,
                         call: Callable[[JsonObject], Callable[[], JsonObject]]) -> web.Response:
        """Run a game call (it may solve) in a thread; a refusal is a 4xx (503: no room
        for a new game) with why."""
        try:
            work = call(await json_body(request))
            state = await asyncio.get_running_loop().run_in_executor(None, work)
        except PlayError as error:
            status = next((code for kind, code in PLAY_STATUS if isinstance(error, kind)), 400)
            return web.json_response({"error": str(error)}, status=status,
                                     headers={"Cache-Control": "no-store"})
        return web.json_response(state, headers={"Cache-Control": "no-store"})

    async def _camera_picture(self, request: web.Request) -> web.Response:
        if self._jpeg is None:
            self.feed.wake()
            self.camera_clients += 1  # encode one picture for this request
            try:
                for _ in range(20):
                    if self._jpeg is not None:
                        break
                    await asyncio.sleep(0.05)
            finally:
                self.camera_clients -= 1
        if self._jpeg is None:
            return web.Response(status=503, text="no camera picture yet")
        return web.Response(body=self._jpeg[1], content_type="image/jpeg",
                            headers={"Cache-Control": "no-store"})


def guard_options(hud: HudConfig) -> JsonObject:
    """:class:`HudServer` keyword arguments from ``[hud]`` (connections, names, pairing)."""
    names = tuple(name.strip() for name in hud.hosts.split(",") if name.strip())
    return {"max_connections": hud.max_connections, "hosts": names,
            "pairing_code": hud.pairing_code, "kiosk_port": hud.kiosk_port}
