"""The HUD server: the page and its assets, pushed states, camera picture, read-only."""

from __future__ import annotations

import http.client
import json
import re
import time
from dataclasses import dataclass

import cv2
import numpy as np

from firmware_py.hud.server import STATIC_DIR
from firmware_py.pipeline.events import View
from firmware_py.vision.reading import INVALID, OK, Reading

from .conftest import SseClient


def get(port: int, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


@dataclass
class Frame:
    image: np.ndarray


def test_the_page_and_every_asset_it_names_are_served_from_here(served) -> None:
    _, server = served
    status, headers, body = get(server.port, "/")
    assert status == 200 and b"<title>c4pi</title>" in body
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assets = re.findall(rb'(?:src|href)="(/[^"]*)"', body)
    assert set(assets) >= {b"/static/hud.css", b"/static/hud.js"}
    assert b'"/camera.mjpg' in (STATIC_DIR / "hud.js").read_bytes()
    for asset in assets:
        if asset.startswith(b"/static/"):
            status, _, content = get(server.port, asset.decode())
            assert status == 200 and content == (STATIC_DIR / asset.decode()[8:]).read_bytes()
    assert not re.search(rb"https?://", body)  # nothing from the internet


def test_nothing_changes_the_appliance(served) -> None:
    _, server = served
    for method in ("POST", "PUT", "DELETE"):
        assert get(server.port, "/state", method)[0] == 405
    assert get(server.port, "/static/../server.py")[0] in (403, 404)


def test_each_view_is_pushed_once_in_order(served) -> None:
    hub, server = served
    client = SseClient(server.port)
    client.wait_for(lambda state: True)
    views = [View("transitional"),
             View("solved", ("." * 7,) * 5 + ("...R...",), 4, -2, 35),
             View("transitional"),
             View("solved", ("." * 7,) * 5 + ("...RY..",), 4, 3, 33)]
    for t, view in enumerate(views):
        hub.on_view(view, float(t))
    last = client.wait_for(lambda state: state["best"] == 4 and state["score"] == 3)
    seen = [(s["state"], s["best"], s["score"]) for s in client.states[1:]]
    assert seen == [(v.state, v.best, v.score) for v in views]
    assert [s["seq"] for s in client.states] == sorted({s["seq"] for s in client.states})
    assert last["verdict"] == "Red wins in 33" and last["to_move"] == "R"
    status, _, body = get(server.port, "/state")
    assert status == 200 and json.loads(body)["seq"] == last["seq"]
    client.close()


def test_a_new_client_starts_from_the_current_state(served) -> None:
    hub, server = served
    hub.on_view(View("solved", ("." * 7,) * 6, 4, 1, 41, first="R"), 0.0)
    client = SseClient(server.port)
    first = client.wait_for(lambda state: True)
    assert first["state"] == "solved" and first["verdict"] == "Red wins in 41"
    client.close()


def test_readings_are_pushed_only_when_they_change(served) -> None:
    hub, server = served
    client = SseClient(server.port)
    client.wait_for(lambda state: True)
    image = np.zeros((72, 128, 3), np.uint8)
    grid = ("." * 7,) * 6
    for _ in range(5):
        hub.on_frame(image, Reading(OK, grid=grid, markers=4))
    hub.on_frame(image, Reading(INVALID, grid=grid, markers=3, reason="uncertain cells"))
    client.wait_for(lambda s: s["reading"] and s["reading"]["status"] == INVALID)
    readings = [s["reading"] for s in client.states]
    changes = [now for before, now in zip(readings, readings[1:], strict=False) if now != before]
    assert [reading["status"] for reading in changes] == [OK, INVALID]
    client.close()


def test_the_camera_picture_is_the_latest_frame_scaled_down(served) -> None:
    hub, server = served
    image = np.zeros((720, 1280, 3), np.uint8)
    image[:, :640] = (0, 0, 255)
    hub.on_frame(image, Reading(OK, grid=("." * 7,) * 6, markers=4))
    status, headers, body = get(server.port, "/camera.jpg")
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (180, 320, 3)
    assert picture[90, 80, 2] > 200 and picture[90, 240, 2] < 50


def test_the_mjpeg_stream_sends_new_frames_as_they_come(served) -> None:
    hub, server = served
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/camera.mjpg")
    response = connection.getresponse()
    assert response.getheader("Content-Type").startswith("multipart/x-mixed-replace")
    pictures = 0
    for shade in (40, 120, 200):
        hub.on_frame(np.full((90, 160, 3), shade, np.uint8), None)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            line = response.fp.readline()
            if line.startswith(b"Content-Length:"):
                response.fp.readline()
                data = response.fp.read(int(line.split(b":")[1]))
                picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
                assert abs(int(picture.mean()) - shade) < 8
                pictures += 1
                break
    assert pictures == 3
    connection.close()


def test_twenty_clients_all_get_every_state(served) -> None:
    hub, server = served
    clients = [SseClient(server.port) for _ in range(20)]
    for client in clients:
        client.wait_for(lambda state: True)
    for t in range(30):
        hub.on_view(View("solved", ("." * 7,) * 6, 4, 1 + t % 3, 41), float(t))
    final = hub.snapshot()["seq"]
    for client in clients:
        client.wait_for(lambda state, final=final: state["seq"] == final)
        seqs = [s["seq"] for s in client.states]
        assert seqs == list(range(seqs[0], final + 1))
        client.close()


def test_the_health_says_when_the_camera_stops(served) -> None:
    hub, server = served
    now = [100.0]
    hub.clock = lambda: now[0]
    hub.on_frame(np.zeros((8, 8, 3), np.uint8), None)
    hub.refresh_health()
    assert hub.snapshot()["health"]["camera"] == "live"
    now[0] += 10
    hub.refresh_health()
    assert hub.snapshot()["health"]["camera"] == "no frames"
    hub.set_solver_gone()
    assert hub.snapshot()["health"]["solver"] == "gone"


def test_opponent_mode_gives_no_hints(served) -> None:
    hub, _ = served
    hub.set_person("R", "c4pi plays Yellow at level 3")
    hub.on_view(View("solved", ("." * 7,) * 6, 4, 1, 41), 0.0)
    hub.set_message("Your move")
    state = hub.snapshot()
    assert state["mode"] == "opponent" and state["opponent"].startswith("c4pi plays Yellow")
    assert state["best"] is None and state["verdict"] is None and state["reply"] is None
    assert state["message"] == "Your move" and state["grid"] == ["." * 7] * 6
