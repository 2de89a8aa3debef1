"""What the HUD server refuses, before any route runs: hostile clients get a 4xx and
one log line, never a traceback, and never the appliance's file handles.

* **connections** (:mod:`.connections`): capped, and closed when they send no
  whole request within :data:`HEADER_TIMEOUT_S`; idle keep-alive connections
  close after :data:`KEEPALIVE_S`;
* **requests** (:func:`request_guard`): the ``Host`` must be a name the
  appliance answers to (:class:`Hosts`: DNS rebinding cannot read the
  room's camera); a ``POST`` must be JSON, from this page (``Origin`` and
  ``Sec-Fetch-Site``: no cross-site request forgery); with ``lan`` on, the
  camera and the play routes need the pairing code (``[hud] pairing_code``,
  given once as ``?code=`` and then kept in a cookie for a year) and stay off
  without one; an address that gives :data:`PAIR_TRIES` wrong codes waits
  :data:`PAIR_LOCK_S` before it may try again;
* **bodies** (:func:`json_object`): a JSON object nested at most
  :data:`MAX_JSON_DEPTH` deep;
* **the log** (:class:`OneLine`): each refusal is one line (control
  characters escaped: a client cannot forge log lines), at most one per
  reason every :data:`LOG_EVERY_S` (with how many were not logged), and
  aiohttp's own errors about broken clients lose their tracebacks.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import json
import logging
import socket
import time
from collections.abc import Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler, Middleware

from firmware_py.json_types import JsonObject
from firmware_py.ratelog import EVERY_S, RateLimitedLog

log = logging.getLogger(__name__)

HEADER_TIMEOUT_S = 10.0
KEEPALIVE_S = 15.0
MAX_JSON_DEPTH = 8
LOG_EVERY_S = EVERY_S
PAIR_COOKIE = "c4pi_pair"
PAIR_COOKIE_S = 365 * 86400
PAIR_TRIES, PAIR_LOCK_S = 10, 60.0  # wrong codes from one address, then it waits
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
PAIRED_PREFIXES = ("/camera", "/play")  # what a household network may not see unpaired
CLIENT_ERRORS = (HttpProcessingError, ConnectionError, web.RequestPayloadError)  # theirs
AIOHTTP_LOGGERS = ("aiohttp.server", "aiohttp.web", "aiohttp.access")
REFUSED_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>c4pi</title>
<style>body{font-family:sans-serif;background:#10141c;color:#f2f4f8;margin:2rem;
font-size:1.2rem;line-height:1.5}a{color:#9aa3b5}</style></head><body>
<h1>Not on this phone yet</h1><p>This page of c4pi opens only on a phone paired with it:
scan the QR code on the c4pi screen, or ask its owner for the pairing code.</p>
<p><a href="/">The board and the advice</a> are open to everyone here.</p>
<p><small>({reason})</small></p></body></html>"""


class OneLine:
    """Rate-limited one-line log messages about refused clients, per reason."""

    def __init__(self, logger: logging.Logger = log, every_s: float = LOG_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._lines = RateLimitedLog(logger, every_s, clock)

    def warning(self, reason: str, detail: str) -> None:
        """Log ``reason: detail`` unless ``reason`` was logged in the last ``every_s``."""
        self._lines.warning(reason, f"HUD refused a client: {reason}: {one_line(detail)}")


def one_line(text: str, limit: int = 160) -> str:
    """``text`` on one line, control characters escaped, at most ``limit`` characters."""
    flat = " ".join(text.split())
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in flat)[:limit]


class Hosts:
    """The names the appliance answers to, with its ports.

    Always ``localhost``, ``127.0.0.1``, ``[::1]``, its host name and
    ``<host name>.local``; any IP address when it serves the network (an
    address typed into a phone cannot be rebound by DNS); and ``extra``.
    """

    def __init__(self, port: int, *, lan: bool, extra: tuple[str, ...] = ()) -> None:
        self.ports = {port}  # the page's port, and the kiosk's once it listens
        self.lan = lan
        name = socket.gethostname().lower()
        self.names = {*LOCAL_NAMES, name, f"{name}.local",
                      *(e.lower().rstrip(".") for e in extra if e)}

    def allows(self, host_header: str | None) -> bool:
        """True when ``host_header`` ("name", "name:port", "[v6]:port") is ours."""
        if not host_header:
            return False
        name, port = split_host(host_header.strip().lower())
        if port is not None and port not in self.ports:
            return False
        if name in self.names:
            return True
        return self.lan and is_ip(name)


def split_host(host: str) -> tuple[str, int | None]:
    """("name", port or None) of a Host header value; a bad port gives port -1."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif host.count(":") == 1:
        name, _, port_text = host.partition(":")
    else:
        name, port_text = host, ""
    if not port_text:
        return name, None
    return name, int(port_text) if port_text.isascii() and port_text.isdigit() else -1


def is_ip(name: str) -> bool:
    """True for an IPv4 or IPv6 address literal."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(address: str | None) -> bool:
    """True for a loopback address (the Pi's own screen)."""
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class Pairing:
    """The pairing code, and the addresses that gave too many wrong ones."""

    def __init__(self, code: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.code, self.clock = code, clock
        self._wrong: dict[str, tuple[int, float]] = {}  # address -> (wrong codes, last)

    def paired(self, request: web.Request) -> bool:
        """The request gives the code (``?code=`` or the cookie), and its address may try."""
        if not self.code:
            return False
        address = request.remote or "?"
        wrong, last = self._wrong.get(address, (0, 0.0))
        if wrong >= PAIR_TRIES and self.clock() - last < PAIR_LOCK_S:
            return False
        given = request.query.get("code") or request.cookies.get(PAIR_COOKIE) or ""
        if given.isascii() and hmac.compare_digest(given.encode(), self.code.encode()):
            self._wrong.pop(address, None)
            return True
        if given:
            self._wrong[address] = (wrong % PAIR_TRIES + 1, self.clock())
        return False


def request_guard(hosts: Hosts, pairing: Pairing, refused: OneLine) -> Middleware:
    """The middleware that checks every request (see the module docstring)."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        problem = _problem(request, hosts, pairing)
        if problem is not None:
            status, reason = problem
            refused.warning(reason, f"{request.remote} {request.method} "
                                    f"{request.raw_path[:80]!r}")
            if request.method == "GET" and "text/html" in request.headers.get("Accept", ""):
                page = REFUSED_PAGE.replace("{reason}", html.escape(reason))
                return web.Response(status=status, text=page, content_type="text/html")
            return web.json_response({"error": reason}, status=status)
        response = await handler(request)
        if pairing.code and request.query.get("code") == pairing.code:
            response.set_cookie(PAIR_COOKIE, pairing.code, httponly=True, samesite="Strict",
                                max_age=PAIR_COOKIE_S)
        return response
    return guard


def _problem(request: web.Request, hosts: Hosts, pairing: Pairing) -> tuple[int, str] | None:
    """(status, reason) when the request is refused, else None."""
    if not hosts.allows(request.headers.get("Host")):
        return 421, "not a name this appliance answers to (Host header)"
    if request.method == "POST":
        if request.content_type != "application/json":
            return 415, "a POST must be application/json"
        if not same_origin(request):
            return 403, "a POST must come from this appliance's own page"
    if (hosts.lan and request.path.startswith(PAIRED_PREFIXES)
            and not is_loopback(request.remote) and not pairing.paired(request)):
        if not pairing.code:
            return 403, "the camera and play pages are off on the network ([hud] pairing_code)"
        return 403, "pairing code needed: open the page with ?code= and the code"
    return None


def same_origin(request: web.Request) -> bool:
    """No cross-site browser request: ``Sec-Fetch-Site`` and ``Origin`` say this page."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser's cross-site request (those send Origin on POST)
    scheme, _, rest = origin.partition("://")
    return scheme == request.scheme and rest.lower() == request.headers.get("Host", "").lower()


def json_object(text: str, max_depth: int = MAX_JSON_DEPTH) -> JsonObject:
    """A JSON object from ``text``; ValueError for anything else or nested too deep."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped = char == "\\"
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > max_depth:
                raise ValueError(f"JSON nested deeper than {max_depth}")
        elif char in "]}":
            depth -= 1
    body = json.loads(text)
    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    return body


class QuietClientErrors(logging.Filter):
    """aiohttp's errors about one client (a bad request line, a reset stream): one line,
    no traceback, rate-limited."""

    def __init__(self, refused: OneLine) -> None:
        super().__init__()
        self.refused = refused

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, CLIENT_ERRORS):
            return True  # a fault of ours keeps its traceback
        self.refused.warning("broken request", f"{type(error).__name__}: {error}")
        return False
