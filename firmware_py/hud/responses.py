"""The HUD server's responses that are not pages: streams, refusals, bodies, headers.

One place for how a stream is written (with a deadline: a client that takes
nothing is dropped), how an idle stream notices its client left, how a
refusal closes its connection, how ``Expect`` is answered without echoing it,
how a play request's JSON body is read, and the headers every page carries.
"""

from __future__ import annotations

import asyncio
import json

from aiohttp import HttpVersion11, web
from aiohttp.typedefs import Handler

from c4game.exc import PlayError
from firmware_py.hud.guard import KEEPALIVE_S, MAX_JSON_DEPTH, json_object
from firmware_py.json_types import JsonObject

GONE_CHECK_S = 1.0  # how often an idle event stream checks that its client is still there
WRITE_TIMEOUT_S = 10.0  # a streaming client that takes nothing this long is dropped
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def json_body(request: web.Request) -> JsonObject:
    """The request's body as a JSON object (UTF-8, whatever charset it claims); a body
    that does not arrive within :data:`WRITE_TIMEOUT_S` is a :class:`PlayError`."""
    try:
        body = await asyncio.wait_for(request.read(), WRITE_TIMEOUT_S)
    except TimeoutError:
        raise PlayError("the request body did not arrive") from None
    except web.RequestPayloadError:  # a body that does not decode as its Content-Encoding says
        raise PlayError("the request body is broken (its Content-Encoding)") from None
    try:
        return json_object(body.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise PlayError("the request must be a JSON object (nested at most "
                        f"{MAX_JSON_DEPTH} deep)") from None


async def write_or_drop(response: web.StreamResponse, data: bytes) -> None:
    """Write to a streaming client; TimeoutError when it takes no data for a while."""
    await asyncio.wait_for(response.write(data), WRITE_TIMEOUT_S)


async def next_state(queue: asyncio.Queue[JsonObject], request: web.Request,
                     response: web.StreamResponse) -> JsonObject | None:
    """The next state; a keepalive comment while none comes; None once the client left
    (looked at every second, so a closed stream gives its place back soon)."""
    quiet = 0.0
    while True:
        try:
            return await asyncio.wait_for(queue.get(), GONE_CHECK_S)
        except TimeoutError:
            if request.transport is None or request.transport.is_closing():
                return None
            quiet += GONE_CHECK_S
            if quiet >= KEEPALIVE_S:
                quiet = 0.0
                await write_or_drop(response, b": keepalive\n\n")


async def expect_continue(request: web.Request) -> None:
    """aiohttp's ``Expect`` handling without echoing the header back: ``100-continue``
    is answered, anything else is a bare 417."""
    if request.version != HttpVersion11:
        return
    if request.headers.get("Expect", "").lower() == "100-continue":
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0
    else:
        raise web.HTTPExpectationFailed(text="417: Expectation Failed\n")


def too_many(why: str) -> web.Response:
    """A 429 that closes its connection (a refused client holds no place while idle)."""
    response = web.Response(status=429, text=why + "\n", headers=SECURITY_HEADERS)
    response.force_close()
    return response


def sse_event(state: JsonObject) -> bytes:
    """``state`` as one server-sent ``state`` event, its ``seq`` as the event id."""
    return (f"id: {state['seq']}\nevent: state\n"
            f"data: {json.dumps(state, separators=(',', ':'))}\n\n").encode()


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Only GET and HEAD (and the play routes' POST); every page's security headers."""
    playing = request.method == "POST" and request.path.startswith("/play/")
    if request.method not in ("GET", "HEAD") and not playing:
        raise web.HTTPMethodNotAllowed(request.method, ["GET", "HEAD"])
    response = await handler(request)
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
    return response
