"""What the screen says, beside how it looks: advice only for a lasting fault, the
result in the speaker's words in opponent mode, the phone link only where it may be
shown, and the distances said one way everywhere a person reads them."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.commands.client import _explain
from firmware_py.commands.watch import describe
from firmware_py.config import load_config
from firmware_py.hud.hub import REMEDY_AFTER_S, HudHub
from firmware_py.hud.phone import lan_address, phone_link
from firmware_py.hud.server import HudServer
from firmware_py.pipeline.events import View
from firmware_py.vision.reading import INVALID, OK, Reading
from firmware_py.vision.remedy import remedy
from tests.hud.chromium import chromium, set_viewport, wait_until

REPO = Path(__file__).resolve().parents[2]
FRAME = np.zeros((8, 8, 3), np.uint8)
EMPTY = ("." * 7,) * 6


def get(host: str, port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


@pytest.fixture
def clocked() -> tuple[HudHub, list[float]]:
    now = [1000.0]
    return HudHub(clock=lambda: now[0]), now


def test_advice_for_a_fault_waits_until_the_refusals_last(clocked) -> None:
    hub, now = clocked
    reason = "uncertain cells column 6 row 6"
    refused = Reading(INVALID, grid=None, markers=4, reason=reason)
    for _ in range(int(REMEDY_AFTER_S) - 1):  # a disc dropping, a board being cleared
        hub.on_frame(FRAME, refused)
        assert hub.snapshot()["reading"]["remedy"] == ""
        now[0] += 1.0
    hub.on_frame(FRAME, Reading(OK, grid=EMPTY, markers=4))  # one good frame: a new count
    for _ in range(int(REMEDY_AFTER_S) + 1):  # refused frames for REMEDY_AFTER_S seconds
        now[0] += 1.0
        hub.on_frame(FRAME, refused)
    assert hub.snapshot()["reading"]["remedy"] == remedy(INVALID, reason) != ""
    hub.on_frame(FRAME, Reading(OK, grid=EMPTY, markers=4))
    assert hub.snapshot()["reading"]["remedy"] == ""


@pytest.mark.parametrize(("person", "moves", "said"), [
    ("R", "1212121", "You win"), ("Y", "1212121", "c4pi wins"), (None, "1212121", "Red has won"),
])
def test_a_finished_game_is_told_as_the_speaker_tells_it(person, moves, said) -> None:
    hub = HudHub()
    if person is not None:
        hub.set_person(person, "c4pi plays the other colour")
    board = Board.from_moves(moves)
    hub.on_view(View("finished", tuple(board.grid_lines()), None, None, None), 0.0)
    assert hub.snapshot()["verdict"] == said


def test_the_distance_is_said_one_way_on_the_screen_in_watch_and_for_the_robot() -> None:
    """The empty board, from the solver: the same words on the screen, in ``watch``, in
    ``c4pi client``'s explanation of ``4+40`` and in the README beside ``4+40``."""
    answer = Solver.from_config(load_config(None).solver).best(Board())
    assert (answer.column, answer.score, answer.plies) == (4, 1, 41)  # SPEC §2, §3
    said = "Red wins in 41"
    hub = HudHub()
    red_started = View("solved", EMPTY, 4, 1, 41, first="R")  # [game] first = "red"
    hub.on_view(red_started, 0.0)
    assert hub.snapshot()["verdict"] == said
    assert f"({said}; Red's score +1)" in describe(red_started, 0.0)
    assert _explain("", "4+40").startswith(f"play column 4: {said};")
    readme = (REPO / "README.md").read_text()
    assert re.search(rf'"{said}"[^`]*`4\+40`', readme.replace("\n", " ")), "README"
    serial = (REPO / "docs" / "serial.md").read_text()
    assert re.search(rf'"{said}" is `4\+40`', serial.replace("\n", " ")), "docs/serial.md"


@pytest.fixture
def lan_server() -> Iterator[HudServer]:
    server = HudServer(HudHub(), host="0.0.0.0", port=0, pairing_code="table2026").start()
    try:
        yield server
    finally:
        server.stop()


def test_the_pi_screen_gets_a_qr_code_with_the_pairing_code(lan_server) -> None:
    """Chromium draws the served SVG, OpenCV's QR reader decodes it."""
    status, body = get("127.0.0.1", lan_server.port, "/phone.json")
    assert status == 200
    link = json.loads(body)
    assert "code" not in link["url"] and link["url"].endswith(f":{lan_server.port}/")
    status, svg = get("127.0.0.1", lan_server.port, link["qr"])
    assert status == 200 and b"<svg" in svg
    for browser in chromium():
        set_viewport(browser, 800, 800)
        browser.get(f"http://127.0.0.1:{lan_server.port}{link['qr']}")
        image = cv2.imdecode(np.frombuffer(browser.get_screenshot_as_png(), np.uint8),
                            cv2.IMREAD_COLOR)
    opened, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert opened == f"{link['url']}?code=table2026"


def test_a_phone_on_the_network_never_gets_the_code(lan_server) -> None:
    address = lan_address()
    if address.endswith(".local"):
        pytest.skip("this machine has no network address to connect from")
    status, _ = get(address, lan_server.port, "/phone.json")
    assert status == 404
    status, _ = get(address, lan_server.port, "/phone.svg")
    assert status == 404


def test_no_phone_link_when_the_page_is_not_on_the_network() -> None:
    server = HudServer(HudHub(), port=0).start()
    try:
        assert get("127.0.0.1", server.port, "/phone.json")[0] == 404
    finally:
        server.stop()


def test_the_phone_link_carries_the_code_only_in_what_the_qr_opens() -> None:
    link = phone_link("192.168.1.20", 8080, "table2026")
    assert link.shown == "http://192.168.1.20:8080/"
    assert link.opened == "http://192.168.1.20:8080/?code=table2026"
    assert phone_link("pi.local", 8080, "").opened == "http://pi.local:8080/"


def test_a_game_that_starts_with_discs_lists_them_first() -> None:
    """The hub follows a game met with 35 discs on the board; the page says so and
    numbers the next discs 36, 37 (Yellow's, then Red's)."""
    moves = "255235466151743522757766223671633437"  # 36 discs, no four (checked below)
    start = Board.from_moves(moves[:35])
    assert not Board.from_moves(moves).is_finished
    hub = HudHub()
    server = HudServer(hub, port=0).start()
    try:
        hub.on_commit(start, "confirmed", 0.0)
        hub.on_commit(Board.from_moves(moves), "successor", 1.0)
        for browser in chromium():
            browser.get(f"http://127.0.0.1:{server.port}/")
            listed = wait_until(
                browser, lambda s: len(s) == 2, 10, "the game's list",
                'return [...document.querySelectorAll("#game li")].map(li => li.textContent);')
    finally:
        server.stop()
    assert listed == ["35 discs at the start", f"36. Y{moves[35]}"]


def test_an_unpaired_phone_is_told_how_to_pair_instead_of_a_broken_picture(lan_server) -> None:
    address = lan_address()
    if address.endswith(".local"):
        pytest.skip("this machine has no network address to connect from")
    for browser in chromium():
        set_viewport(browser, 390, 844)
        browser.get(f"http://{address}:{lan_server.port}/")
        shown = wait_until(browser, lambda s: s["unpaired"], 10, "the pairing note", """
            const shown = (selector) => getComputedStyle(document.querySelector(selector))
                                           .display !== "none";
            return {unpaired: document.body.classList.contains("unpaired"),
                    note: shown("#pair-note"), camera: shown(".camera-area"),
                    play: shown(".link-out"), qr: shown("#phone")};""")
    assert shown == {"unpaired": True, "note": True, "camera": False, "play": False,
                     "qr": False}, shown


def test_the_first_sight_doubt_shows_in_the_status_line_until_it_is_gone() -> None:
    """Chromium shows the hub's ``first_sight`` part (a game begun before, followed only
    from discs seen to land) in the health line, and nothing once it is cleared."""
    hub = HudHub()
    server = HudServer(hub, port=0).start()
    health = 'return document.getElementById("health").textContent;'
    try:
        hub.set_part("first_sight", "a red disc seen at column 2 row 2 became yellow: clear it")
        for browser in chromium():
            browser.get(f"http://127.0.0.1:{server.port}/")
            shown = wait_until(browser, lambda text: "became yellow" in text, 10,
                               "the doubt in the health line", health)
            hub.set_part("first_sight", "")
            gone = wait_until(browser, lambda text: "became yellow" not in text, 10,
                              "the doubt gone", health)
    finally:
        server.stop()
    assert "column 2 row 2" in shown and "camera" in gone
