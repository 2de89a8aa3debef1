"""The screens at the sizes they are shown on, measured in a real browser.

The kiosk sizes (the official 7-inch touchscreen 800x480, a 1024x600 panel,
1280x800, a 1920x1080 TV) must show the page without scrolling, with the
headline, the board and the camera picture inside the window, the board the
biggest part; a phone (390x844) shows those three without scrolling to them.
On the play page every control is a touch target of 44 px or more. The QR
code on the table's screen is decoded (OpenCV's QR reader) and must open this
page. Screenshots go to ``build/test-artefacts/hud/`` (the README's come from
``tools/readme_snapshots.py``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from urllib.parse import urlsplit

import cv2
import numpy as np
import pytest

from tests.hud.chromium import (
    ARTEFACTS,
    chromium,
    free_port,
    load,
    set_viewport,
    start,
    stop,
    wait_until,
    write_config,
)

KIOSK_SIZES = {"touchscreen": (800, 480), "panel": (1024, 600), "laptop": (1280, 800),
               "tv": (1920, 1080)}
PHONE = (390, 844)
SIZES = {**KIOSK_SIZES, "phone": PHONE}
MIN_TOUCH_PX = 44

MEASURE = """
const box = (element) => {
  if (!element) return null;
  const r = element.getBoundingClientRect();
  const shown = r.width > 0 && r.height > 0 && getComputedStyle(element).visibility !== "hidden";
  return shown ? {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                  width: r.width, height: r.height} : null;
};
const $ = (selector) => document.querySelector(selector);
const font = (selector) => parseFloat(getComputedStyle($(selector)).fontSize);
return {width: innerWidth, height: innerHeight,
        scroll_height: document.documentElement.scrollHeight,
        scroll_width: document.documentElement.scrollWidth,
        state: document.body.dataset.seq ? $("#state").dataset.state : "",
        camera_ready: $("#camera").naturalWidth > 0,
        headline: box($("#moves-now")), verdict: box($("#verdict")), board: box($("#board")),
        camera: box($("#camera")), qr: box($("#qr")), qr_ready: $("#qr").naturalWidth > 0,
        phone_url: $("#phone-url").textContent,
        fonts: {headline: font("#moves-now"), verdict: font("#verdict"),
                status: font("#reading-status"), explain: font("#explain"),
                moves: font("#game"), caption: font(".tiny-figure figcaption")},
        thumbnail: box($("#reading")), caption: box($(".tiny-figure figcaption"))};
"""

PLAY_MEASURE = """
const box = (element) => {
  const r = element.getBoundingClientRect();
  return {name: element.id || element.textContent.trim() || element.tagName,
          left: r.left, top: r.top, right: r.right, bottom: r.bottom,
          width: r.width, height: r.height};
};
const targets = [...document.querySelectorAll(
  "#columns button, #setup select, .colours label, #new, #hint, #undo")];
return {width: innerWidth, height: innerHeight,
        scroll_height: document.documentElement.scrollHeight,
        scroll_width: document.documentElement.scrollWidth,
        legal: [...document.querySelectorAll("#columns button")].filter(b => !b.disabled).length,
        targets: targets.map(box), board: box(document.getElementById("board"))};
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, object]]:
    """``c4pi demo`` serving its screen to the network (so that the QR code shows)."""
    port = free_port()
    config = write_config(tmp_path_factory.mktemp("layout"), port, lan=True)
    process = start(config, "demo", "--seed", "21")
    try:
        yield port, process
    finally:
        stop(process)


def inside(box: dict | None, screen: dict) -> bool:
    return (box is not None and box["left"] >= -0.5 and box["top"] >= -0.5
            and box["right"] <= screen["width"] + 0.5 and box["bottom"] <= screen["height"] + 0.5)


def area(box: dict) -> float:
    return box["width"] * box["height"]


def decode_qr(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


@pytest.mark.parametrize("size", list(SIZES))
def test_the_table_screen_fits(browser, demo, size: str) -> None:
    port, process = demo
    width, height = SIZES[size]
    if not browser.current_url.startswith(f"http://127.0.0.1:{port}/") \
            or browser.current_url.endswith("/play"):
        load(browser, port, process)
    set_viewport(browser, width, height)
    screen = wait_until(browser, lambda s: s["state"] == "solved" and s["camera_ready"]
                        and s["headline"] and (s["qr_ready"] or size == "phone"), 60,
                        "a solved board with its camera picture", MEASURE)
    browser.save_screenshot(str(ARTEFACTS / f"layout-{size}-{width}x{height}.png"))
    for part in ("headline", "verdict", "board", "camera"):
        assert inside(screen[part], screen), (part, screen)
    assert area(screen["board"]) > area(screen["camera"]), screen  # the board is the biggest
    fonts = screen["fonts"]
    assert fonts["headline"] > fonts["verdict"] > fonts["status"], fonts
    if size in KIOSK_SIZES:
        assert screen["scroll_height"] <= height and screen["scroll_width"] <= width, screen
        # read from 2 m on the 7-inch screen: the explanation and the moves 17 px or more,
        # the thumbnail's caption 12 px, clear of its 2 px outline (2 px out)
        assert fonts["explain"] >= 17 and fonts["moves"] >= 17, fonts
        assert fonts["caption"] >= 12, fonts
        assert screen["caption"]["top"] >= screen["thumbnail"]["bottom"] + 4, screen
        assert inside(screen["qr"], screen) and screen["qr"]["width"] >= 80, screen
        assert_qr_opens_this_page(browser, port, screen["phone_url"])
    else:
        assert screen["scroll_width"] <= width, screen


def assert_qr_opens_this_page(browser: object, port: int, shown: str) -> None:
    """The QR code decodes to the address beside it: this page, on this machine's
    network address (what a phone can reach), never ``localhost``."""
    opened = decode_qr(browser.find_element("id", "qr").screenshot_as_png)
    assert opened == shown, (opened, shown)  # no pairing code is configured here
    parts = urlsplit(opened)
    assert parts.scheme == "http" and parts.port == port and parts.path == "/", opened
    host = parts.hostname or ""
    if host.endswith(".local"):
        return  # no network address here: the host name, as a phone resolves it
    assert not ipaddress.ip_address(host).is_loopback, opened


@pytest.mark.parametrize("size", list(SIZES))
def test_the_play_page_fits_and_its_controls_are_touch_sized(browser, demo, size: str) -> None:
    port, process = demo
    width, height = SIZES[size]
    load(browser, port, process, "/play")
    set_viewport(browser, width, height)
    wait_until(browser, lambda s: s.get("options") == "loaded", 20, "the levels",
               'return {options: document.body.dataset.options || ""};')
    browser.find_element("id", "new").click()
    screen = wait_until(browser, lambda s: s["legal"] == 7, 30, "a new game", PLAY_MEASURE)
    browser.save_screenshot(str(ARTEFACTS / f"play-{size}-{width}x{height}.png"))
    small = [t for t in screen["targets"]
             if t["width"] < MIN_TOUCH_PX or t["height"] < MIN_TOUCH_PX]
    assert not small, small
    assert len(screen["targets"]) == 7 + 1 + 2 + 2 + 1 + 2, screen["targets"]  # + who starts
    assert inside(screen["board"], screen), screen
    assert all(inside(t, screen) for t in screen["targets"] if t["name"] in "1234567"), screen
    if size in KIOSK_SIZES:
        assert screen["scroll_height"] <= height and screen["scroll_width"] <= width, screen
        assert all(inside(t, screen) for t in screen["targets"]), screen
