"""The Pi's own screen has a port of its own, and one client cannot hold many streams (#58.2)."""

from __future__ import annotations

import contextlib
import http.client
import logging
import socket
import time
from unittest import mock

import pytest

from c4game.exc import ConfigError
from firmware_py.config import parse_config
from firmware_py.hud.connections import STREAMS_PER_CLIENT, StreamCap
from firmware_py.hud.hub import HudHub
from firmware_py.hud.server import HudServer, guard_options


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server():
    hud = HudServer(HudHub(), port=0, max_connections=8, kiosk_port=free_port()).start()
    yield hud
    hud.stop()


def open_stream(port: int, path: str = "/events") -> tuple[http.client.HTTPConnection, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path)
    return connection, connection.getresponse().status


def get(port: int, path: str = "/state", host: str | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path, headers={"Host": host} if host else {})
    status = connection.getresponse().status
    connection.close()
    return status


def keep_alive(port: int) -> socket.socket:
    """A connection that asked for the state once and stays open, idle."""
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    client.sendall(b"GET /state HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert client.recv(4096).startswith(b"HTTP/1.1 200")
    return client


def test_one_client_holds_at_most_four_streams_of_a_kind_on_the_kiosk_port(server,
                                                                        caplog) -> None:
    held = [open_stream(server.kiosk_port) for _ in range(STREAMS_PER_CLIENT)]
    assert [status for _, status in held] == [200] * STREAMS_PER_CLIENT
    extra, status = open_stream(server.kiosk_port)
    assert status == 429
    extra.close()
    camera, status = open_stream(server.kiosk_port, "/camera.mjpg")  # another kind
    assert status == 200
    page, status = open_stream(server.port)  # another port: its own count
    assert status == 200
    refused = [r for r in caplog.records if "too many event streams" in r.getMessage()]
    assert len(refused) == 1
    held[0][0].sock.shutdown(socket.SHUT_RDWR)
    deadline = time.monotonic() + 5
    while server.streams.open[("event", server.kiosk_port, "loopback")] >= STREAMS_PER_CLIENT:
        assert time.monotonic() < deadline, "a closed stream was never given back"
        time.sleep(0.05)
    again, status = open_stream(server.kiosk_port)
    assert status == 200
    for connection in (again, camera, page, *(c for c, _ in held[1:])):
        connection.close()


def test_loopback_streams_on_the_page_port_leave_half_the_pool_for_pages(server) -> None:
    statuses = [open_stream(server.port, path) for path in ["/events", "/camera.mjpg"] * 3]
    assert [status for _, status in statuses] == [200] * 4 + [429] * 2  # 8 // 2 streams
    assert get(server.port) == 200
    for connection, _ in statuses:
        connection.close()


def test_a_network_address_holds_four_streams_of_each_kind() -> None:
    cap = StreamCap(max_connections=64, kiosk_port=8081)

    def phone(kind: str, address: str):
        transport = mock.Mock(get_extra_info=lambda name: ("192.168.1.2", 8080))
        return cap.key(kind, mock.Mock(transport=transport, remote=address))

    assert cap.key("event", mock.Mock(  # every loopback address is this machine
        transport=mock.Mock(get_extra_info=lambda name: ("127.0.0.2", 8081)),
        remote="127.0.0.2"))[0] == ("event", 8081, "loopback")
    for _ in range(STREAMS_PER_CLIENT):
        assert cap.take(*phone("event", "192.168.1.20"))
    assert not cap.take(*phone("event", "192.168.1.20"))
    assert cap.take(*phone("camera", "192.168.1.20"))
    assert cap.take(*phone("event", "192.168.1.21"))
    cap.give(phone("event", "192.168.1.20")[0])
    assert cap.take(*phone("event", "192.168.1.20"))


def test_the_kiosk_port_answers_while_loopback_clients_fill_the_page_port(server) -> None:
    idle = [keep_alive(server.port) for _ in range(8)]  # the page port's loopback pool: full
    over = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    over.sendall(b"GET /state HTTP/1.1\r\nHost: localhost\r\n\r\n")
    with contextlib.suppress(ConnectionResetError):
        assert over.recv(100) == b""  # refused
    began = time.monotonic()
    assert get(server.kiosk_port, "/state", host=f"localhost:{server.kiosk_port}") == 200
    assert get(server.kiosk_port, "/") == 200
    stream, status = open_stream(server.kiosk_port)
    assert status == 200
    assert time.monotonic() - began < 1.0
    for client in (over, stream, *idle):
        client.close()


def test_the_kiosk_port_listens_on_this_machine_only() -> None:
    hud = HudServer(HudHub(), host="0.0.0.0", port=0, kiosk_port=free_port()).start()
    try:
        listening = {s.getsockname()[:2] for site in hud._runner.sites
                     for s in site._server.sockets}
        assert ("127.0.0.1", hud.kiosk_port) in listening
        assert ("0.0.0.0", hud.kiosk_port) not in listening
        assert ("0.0.0.0", hud.port) in listening
        assert hud.kiosk_url == f"http://localhost:{hud.kiosk_port}/"
    finally:
        hud.stop()


def test_a_taken_kiosk_port_costs_one_warning_not_the_page(caplog) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with caplog.at_level(logging.WARNING):
            hud = HudServer(HudHub(), port=0, kiosk_port=port).start()
        try:
            assert get(hud.port) == 200
            assert hud.kiosk_port == 0 and hud.kiosk_url == hud.url
            lines = [r.getMessage() for r in caplog.records if "kiosk_port" in r.getMessage()]
            assert len(lines) == 1 and str(port) in lines[0]
        finally:
            hud.stop()


def test_the_config_names_a_kiosk_port_equal_to_the_page_port() -> None:
    with pytest.raises(ConfigError, match=r"c4pi.toml.*\[hud\] kiosk_port.*must differ"):
        parse_config({"hud": {"port": 8090, "kiosk_port": 8090}}, "c4pi.toml")
    # a config of before kiosk_port existed, with the page on 8081, still loads
    assert parse_config({"hud": {"port": 8081}}).hud.kiosk_port == 8082
    assert parse_config({"hud": {"port": 65535, "kiosk_port": 8081}}).hud.kiosk_port == 8081
    config = parse_config({"hud": {"kiosk_port": 0}})
    assert guard_options(config.hud)["kiosk_port"] == 0
    assert guard_options(parse_config({}).hud)["kiosk_port"] == 8081
