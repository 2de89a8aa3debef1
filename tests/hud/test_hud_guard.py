"""The HUD server against hostile clients (:mod:`firmware_py.hud.guard`), on loopback.

Each refusal is checked on a running server: the status, that nothing
reached the route, and that the log got one short line, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import random
import socket
import time
from collections import Counter
from unittest import mock

import pytest
from aiohttp.test_utils import make_mocked_request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_py.hud import responses
from firmware_py.hud.connections import (
    REQUEST_COUNT,
    SERVER_ATTRIBUTES,
    GuardedSite,
    aiohttp_problem,
)
from firmware_py.hud.guard import (
    Hosts,
    OneLine,
    Pairing,
    _problem,
    json_object,
    one_line,
    split_host,
)
from firmware_py.hud.hub import HudHub
from firmware_py.hud.play_games import PlayGames
from firmware_py.hud.server import HudServer


class CountingScorer:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, board):
        self.calls += 1
        return tuple(0 if column in board.legal_columns() else None for column in range(1, 8))


@pytest.fixture
def scorer() -> CountingScorer:
    return CountingScorer()


@pytest.fixture
def server(scorer):
    hud = HudServer(HudHub(), port=0, games=PlayGames(scorer, rng=random.Random(1)),
                    max_connections=8, header_timeout_s=0.5).start()
    yield hud
    hud.stop()


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def new_game(port: int, headers: dict) -> int:
    body = json.dumps({"level": 1, "colour": "R"}).encode()
    return request(port, "POST", "/play/new", body, headers)[0]


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def test_a_foreign_host_name_is_refused(server, caplog) -> None:
    assert request(server.port, "GET", "/state")[0] == 200
    for host in ("evil.example", f"evil.example:{server.port}", "localhost:1",
                 "192.168.1.9"):  # an IP only when the page serves the network
        status, _ = request(server.port, "GET", "/state", headers={"Host": host})
        assert status == 421, host
    assert request(server.port, "GET", "/", headers={"Host": f"localhost:{server.port}"})[0] \
        == 200
    no_tracebacks(caplog)


@pytest.mark.parametrize("headers", [
    {"Content-Type": "text/plain"},
    {"Content-Type": "application/json", "Origin": "http://evil.example"},
    {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
])
def test_a_cross_site_post_creates_no_game(server, scorer, headers, caplog) -> None:
    assert new_game(server.port, headers) in (403, 415)
    assert scorer.calls == 0
    no_tracebacks(caplog)


def test_the_page_own_post_plays(server, scorer) -> None:
    origin = f"http://127.0.0.1:{server.port}"
    assert new_game(server.port, {"Content-Type": "application/json", "Origin": origin,
                                  "Sec-Fetch-Site": "same-origin"}) == 200


def test_deeply_nested_json_is_a_400_without_a_traceback(server, caplog) -> None:
    body = b"[" * 2000 + b"]" * 2000
    status, data = request(server.port, "POST", "/play/new", body,
                           {"Content-Type": "application/json"})
    assert status == 400 and b"nested" in data
    no_tracebacks(caplog)


def test_json_object_depth_and_kind() -> None:
    assert json_object('{"a": [[1], {"b": "[[[["}]}') == {"a": [[1], {"b": "[[[["}]}
    assert json_object(r'{"n":"\"[[[[[[[[["}') == {"n": '"[[[[[[[[['}  # escaped quote
    with pytest.raises(ValueError):  # an escaped quote does not hide what follows
        json_object('{"x":"\\"","y":' + "[" * 50 + "]" * 50 + "}")
    with pytest.raises(ValueError):
        json_object("[" * 9 + "]" * 9)
    with pytest.raises(ValueError):
        json_object("[1, 2]")


def test_half_sent_requests_are_closed_and_the_page_comes_back(server, caplog) -> None:
    sockets = []
    for _ in range(30):  # more than the cap of 8, each with half a request
        client = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        client.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sockets.append(client)
    deadline = time.monotonic() + 5
    for client in sockets:
        client.settimeout(max(0.1, deadline - time.monotonic()))
        # closed by the server: over the cap, or too slow (a reset, with unread data)
        with contextlib.suppress(ConnectionResetError):
            assert client.recv(100) == b""
        client.close()
    began = time.monotonic()
    assert request(server.port, "GET", "/state")[0] == 200
    assert time.monotonic() - began < 1.0
    lines = [r for r in caplog.records if r.name == "firmware_py.hud.guard"]
    assert 1 <= len(lines) <= 4  # rate-limited: one line per reason
    no_tracebacks(caplog)


def test_a_stream_client_that_does_not_read_is_dropped(monkeypatch) -> None:
    monkeypatch.setattr(responses, "WRITE_TIMEOUT_S", 0.1)

    class Stuck:
        async def write(self, data: bytes) -> None:
            await asyncio.sleep(60)

    with pytest.raises(TimeoutError):
        asyncio.run(responses.write_or_drop(Stuck(), b"x"))


def mocked(path: str, remote: str = "192.168.1.20", cookie: str = "",
           host: str = "192.168.1.2:8080"):
    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (
        (remote, 5000) if name == "peername" else default)
    headers = {"Host": host}
    if cookie:
        headers["Cookie"] = f"c4pi_pair={cookie}"
    return make_mocked_request("GET", path, headers=headers, transport=transport)


def test_the_network_needs_the_pairing_code_for_the_camera_and_play() -> None:
    hosts = Hosts(8080, lan=True)

    def problem(path: str, code: str, remote: str = "192.168.1.20", cookie: str = ""):
        return _problem(mocked(path, remote, cookie), hosts, Pairing(code))

    assert problem("/state", "") is None  # the board and the advice: the whole network
    assert problem("/camera.jpg", "")[0] == 403  # no code set: off on the network
    assert problem("/play", "abc123")[0] == 403
    assert problem("/play?code=abc123", "abc123") is None
    assert problem("/camera.mjpg", "abc123", cookie="abc123") is None
    assert problem("/camera.jpg", "", remote="127.0.0.1") is None  # the Pi's own screen
    odd = mock.Mock(remote="192.168.1.20", query={}, cookies={"c4pi_pair": "\udcff\udcfe"})
    assert not Pairing("abc123").paired(odd)  # undecodable bytes in a cookie: no 500


def test_ten_wrong_codes_lock_an_address_out_for_a_minute() -> None:
    now = [0.0]
    pairing = Pairing("abc123", clock=lambda: now[0])
    for _ in range(10):
        assert not pairing.paired(mocked("/play?code=000000"))
    assert not pairing.paired(mocked("/play?code=abc123"))  # even the right one, for now
    assert pairing.paired(mocked("/play?code=abc123", remote="192.168.1.21"))  # another
    now[0] = 61.0
    assert pairing.paired(mocked("/play?code=abc123"))


def test_split_host() -> None:
    assert split_host("localhost:\u00b2") == ("localhost", -1)  # a superscript is no port
    assert split_host("localhost:8080") == ("localhost", 8080)
    assert split_host("[::1]:80") == ("::1", 80)
    assert split_host("::1") == ("::1", None)
    assert split_host("pi:x") == ("pi", -1)


def test_one_line_per_reason_every_ten_seconds(caplog) -> None:
    now = [0.0]
    lines = OneLine(logging.getLogger("t"), clock=lambda: now[0])
    with caplog.at_level("WARNING"):
        for step in range(100):
            now[0] = step * 0.25
            lines.warning("too many connections", "8 open")
    assert len(caplog.records) == 3 and "more not logged" in caplog.records[-1].getMessage()


METHODS = st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"])
PATHS = st.one_of(st.sampled_from(["/", "/state", "/events", "/play",
                                   "/play/new", "/play/x", "/static/hud.js",
                                   "/static/../README.md", "/%2e%2e/etc/passwd"]),
                  st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126),
                          max_size=40).map(lambda text: "/" + text))
HEADERS = st.dictionaries(st.sampled_from(["Content-Type", "Origin", "Sec-Fetch-Site",
                                           "Cookie", "X-Any"]),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                  max_size=30), max_size=3)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=METHODS, path=PATHS, headers=HEADERS, body=st.binary(max_size=300))
def test_fuzzed_requests_never_get_a_5xx_nor_a_traceback(server, caplog, method, path,
                                                         headers, body) -> None:
    if path.startswith(("/events", "/camera")):
        return  # endless streams, and a picture that waits for the camera (503 without one)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        status = connection.getresponse().status
    except (http.client.HTTPException, ConnectionError):
        status = 400  # the server closed a request it could not parse
    finally:
        connection.close()
    assert status < 500, (method, path, headers)
    no_tracebacks(caplog)


def raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(data)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks) and b"Content-Length" in chunks[0]:
                break
    return b"".join(chunks)


ESCAPED = b'{"x":"\\"","y":' + b"[" * 1500 + b"]" * 1500 + b"}"  # an escaped quote, deep


@pytest.mark.parametrize("request_bytes", [
    b"GET /state HTTP/1.1\r\nHost: localhost:\xc2\xb2\r\nConnection: close\r\n\r\n",
    b"POST /play/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json;"
    b" charset=bogus-xyz\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    b"POST /play/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
    b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(ESCAPED), ESCAPED),
])
def test_raw_requests_that_once_gave_a_500_get_a_4xx(server, caplog, request_bytes) -> None:
    answer = raw(server.port, request_bytes.replace(b"{port}", str(server.port).encode()))
    status = int(answer.split(b" ", 2)[1])
    assert 400 <= status < 500, answer[:200]
    no_tracebacks(caplog)


def test_a_client_cannot_forge_a_log_line(server, caplog) -> None:
    request(server.port, "GET", "/x%0a2026-11-26%20CRITICAL%20forged", headers={"Host": "evil"})
    lines = [r.getMessage() for r in caplog.records if r.name == "firmware_py.hud.guard"]
    assert lines and all("\n" not in line for line in lines)
    assert one_line("a\nb\x1bc") == "a b\\x1bc"


def test_head_on_a_stream_ends_at_once(server) -> None:
    status, body = request(server.port, "HEAD", "/events")
    assert status == 200 and body == b""


def test_a_dropped_stream_client_is_aborted_not_left_to_drain() -> None:
    transport = mock.Mock()
    hud = HudServer(HudHub(), port=0)
    hud._drop(mock.Mock(transport=transport, remote="192.168.1.20"), "a camera client")
    transport.abort.assert_called_once()
    transport.close.assert_not_called()


def test_the_screen_and_the_network_have_their_own_pools() -> None:
    site = GuardedSite.__new__(GuardedSite)  # the counting alone, no socket
    site.max_connections, site.pools, site.addresses = 4, Counter(), Counter()
    site.listen_port, site.limit = 8080, "[hud] max_connections"
    assert [site.admit("192.168.1.20") for _ in range(5)][-1] == \
        "4 open on port 8080 ([hud] max_connections)"  # over the pool, said once
    assert site.admit("127.0.0.1") is None  # the Pi's own screen still gets in
    assert site.admit("192.168.1.21") is not None
    for _ in range(5):
        site.release("192.168.1.20")
    site.release("192.168.1.21")
    site.release("127.0.0.1")
    assert site.open == 0 and not site.addresses


def test_the_guard_uses_private_names_aiohttp_still_has() -> None:
    from aiohttp.web_protocol import RequestHandler

    assert REQUEST_COUNT in RequestHandler.__slots__
    assert aiohttp_problem() == ""
    hud = HudServer(HudHub(), port=0).start()
    try:
        server = hud._runner.server
        assert all(hasattr(server, name) for name in SERVER_ATTRIBUTES)
        assert aiohttp_problem(server) == ""
    finally:
        hud.stop()


def test_an_aiohttp_without_them_is_refused_by_name_at_start() -> None:
    """Never a connection guard silently off: a site will not start without them."""
    import asyncio

    from aiohttp import web

    from c4game.exc import HudError

    class Bare:  # a web.Server of another aiohttp: no _loop, no _kwargs
        pass

    problem = aiohttp_problem(Bare())  # type: ignore[arg-type]
    assert "Server._loop" in problem and "Server._kwargs" in problem

    async def start_one() -> None:
        runner = web.AppRunner(web.Application())
        await runner.setup()
        try:
            site = GuardedSite(runner, "127.0.0.1", 0, max_connections=4,
                               refused=OneLine(logging.getLogger("t")))
            runner._server = Bare()  # type: ignore[assignment]
            await site.start()
        finally:
            runner._server = None
            await runner.cleanup()

    with pytest.raises(HudError, match="lacks Server._loop"):
        asyncio.run(start_one())


@pytest.mark.parametrize("path", ["/play/new", "/state"])
def test_a_body_that_is_not_what_its_encoding_says_is_a_4xx_and_one_line(server, caplog,
                                                                          path) -> None:
    """A hostile re-test: a gzip body of junk gave a 500 and three chained tracebacks per
    request (2,800 log lines for 100 requests)."""
    method = "POST" if path.startswith("/play") else "GET"
    data = (f"{method} {path} HTTP/1.1\r\nHost: localhost:{server.port}\r\n"
            "Content-Type: application/json\r\nSec-Fetch-Site: same-origin\r\n"
            "Content-Encoding: gzip\r\nContent-Length: 4\r\nConnection: close\r\n\r\n"
            "JUNK").encode()
    with caplog.at_level(logging.INFO):
        for _ in range(20):
            answer = raw(server.port, data)
            status = int(answer.split(b" ", 2)[1])
            assert status < 500, answer[:200]
            assert method == "GET" or status == 400, answer[:200]
    no_tracebacks(caplog)
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 2


ECHO = b"<i>c4pi-echo-marker</i>"


@pytest.mark.parametrize("request_bytes", [
    b"GET /" + ECHO + b" HTTP/1.1 junk\r\n\r\n",  # a bad request line
    ECHO + b"\r\n\r\n",  # a bad method
    b"GET / HTTP/1.1\r\nHost: localhost\r\nX: \x01" + ECHO + b"\r\n\r\n",  # a bad header
    b"GET / HTTP/1.1\r\nHost: localhost\r\nX: " + ECHO * 1000 + b"\r\n\r\n",  # too long
    b"GET /state HTTP/1.1\r\nHost: localhost\r\nExpect: " + ECHO + b"\r\n\r\n",
])
def test_error_pages_never_echo_the_bad_request(server, caplog, request_bytes) -> None:
    answer = raw(server.port, request_bytes)
    assert answer.startswith(b"HTTP/1.") and b" 4" in answer[:13], answer[:200]
    assert b"c4pi-echo-marker" not in answer
    assert answer.split(b"\r\n\r\n", 1)[1].rstrip() in (
        b"400 Bad Request", b"431 Request Header Fields Too Large", b"417: Expectation Failed")
    no_tracebacks(caplog)


HEADER_BYTES = st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(host=HEADER_BYTES, cookie=HEADER_BYTES, content_type=HEADER_BYTES,
       body=st.binary(max_size=200))
def test_fuzzed_raw_headers_never_get_a_5xx_nor_a_traceback(server, caplog, host, cookie,
                                                            content_type, body) -> None:
    data = (b"POST /play/new HTTP/1.1\r\nHost: " + host + b"\r\nCookie: " + cookie
            + b"\r\nContent-Type: " + content_type + b"\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    answer = raw(server.port, data)
    if answer:
        assert int(answer.split(b" ", 2)[1]) < 500, answer[:200]
    no_tracebacks(caplog)


def test_expect_100_continue_still_gets_its_continue(server) -> None:
    body = json.dumps({"level": 1, "colour": "R"}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
        client.sendall(f"POST /play/new HTTP/1.1\r\nHost: localhost:{server.port}\r\n"
                       "Content-Type: application/json\r\nSec-Fetch-Site: same-origin\r\n"
                       f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n"
                       "Connection: close\r\n\r\n".encode())
        assert client.recv(100).startswith(b"HTTP/1.1 100 Continue")
        client.sendall(body)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:100]


def test_the_screen_says_the_aiohttp_lacks_a_name_not_that_the_port_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from c4game.exc import HudError
    from firmware_py.hud import connections

    monkeypatch.setattr(connections, "SERVER_ATTRIBUTES", ("_loop", "_gone_in_a_new_aiohttp"))
    with pytest.raises(HudError, match="cannot start: aiohttp .* lacks Server._gone") as info:
        HudServer(HudHub(), port=0).start()
    assert "listen" not in str(info.value)
