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
from unittest import mock

import pytest
from aiohttp.test_utils import make_mocked_request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_py.hud import server as server_module
from firmware_py.hud.guard import Hosts, OneLine, _problem, json_object, split_host
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
    monkeypatch.setattr(server_module, "WRITE_TIMEOUT_S", 0.1)

    class Stuck:
        async def write(self, data: bytes) -> None:
            await asyncio.sleep(60)

    with pytest.raises(TimeoutError):
        asyncio.run(server_module._write(Stuck(), b"x"))


def test_the_network_needs_the_pairing_code_for_the_camera_and_play() -> None:
    hosts = Hosts(8080, lan=True)
    refused = OneLine()
    del refused

    def problem(path: str, code: str, remote: str = "192.168.1.20", cookie: str = ""):
        transport = mock.Mock()
        transport.get_extra_info.side_effect = lambda name, default=None: (
            (remote, 5000) if name == "peername" else default)
        headers = {"Host": "192.168.1.2:8080"}
        if cookie:
            headers["Cookie"] = f"c4pi_pair={cookie}"
        return _problem(make_mocked_request("GET", path, headers=headers, transport=transport),
                        hosts, code)

    assert problem("/state", "") is None  # the board and the advice: the whole network
    assert problem("/camera.jpg", "")[0] == 403  # no code set: off on the network
    assert problem("/play", "abc123")[0] == 403
    assert problem("/play?code=abc123", "abc123") is None
    assert problem("/camera.mjpg", "abc123", cookie="abc123") is None
    assert problem("/camera.jpg", "", remote="127.0.0.1") is None  # the Pi's own screen


def test_split_host() -> None:
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
