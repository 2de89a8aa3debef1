"""The kiosk page in a real browser (Debian's Chromium driven by Selenium), as a person sees it.

``c4pi demo`` (and ``c4pi watch sim --hud`` for a finished game) serve the
page; the test reads what is on screen and checks it against the solver.
Screenshots of each state go to ``build/test-artefacts/hud/``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cython_solver import Solver
from firmware_py.board import COLOUR_NAMES, Board
from firmware_py.config import load_config
from firmware_py.vision.remedy import remedy

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = ROOT / "build" / "test-artefacts" / "hud"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage")
SCREEN = """
const text = (id) => document.getElementById(id).textContent;
return {seq: Number(document.body.dataset.seq || 0), state: text("state"),
        grid: document.getElementById("board").dataset.grid,
        changing: document.getElementById("board").classList.contains("changing"),
        moves: [...document.querySelectorAll("#moves-now span:not(.sep)")].map(s => s.textContent),
        verdict: text("verdict"), link: !document.getElementById("link").hidden,
        wins: document.querySelectorAll("#board .cell.win").length,
        marks: [...document.querySelectorAll("#game .mark")].map(m => m.textContent),
        camera: document.getElementById("camera").naturalWidth,
        reading: text("reading-status"), reason: text("reading-reason"),
        remedy: text("reading-remedy")};
"""

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                "(./setup.sh test installs it)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if os.environ.get("C4PI_EMULATED"):
        pytest.skip(f"Chromium's driver does not start under {os.environ['C4PI_EMULATED']} "
                    "emulation (tools/device/arm64_check.sh); these tests run on real machines")
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed "
                    "(./setup.sh test installs them)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument("--window-size=1280,800")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    port = free_port()
    path = tmp_path_factory.mktemp("hud") / "c4pi.toml"
    path.write_text(f"[hud]\nport = {port}\n[speech]\nenabled = false\n"
                    "[led]\nactivity = \"none\"\n")
    return path, port


def start(config: Path, *command: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "firmware_py", "--config", str(config),
                             *command], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until(driver: object, predicate: object, timeout: float, what: str,
               script: str = SCREEN) -> dict:
    deadline = time.monotonic() + timeout
    screen: dict = {}
    while time.monotonic() < deadline:
        screen = driver.execute_script(script)
        if predicate(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the page never showed {what}; it shows {screen}")


def load(driver: object, port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("c4pi did not serve its page: "
                                     + process.stderr.read().decode()[-2000:]) from None
            time.sleep(0.2)
    driver.get(f"http://127.0.0.1:{port}/")


def expected_headline(grid: str) -> tuple[str, str]:
    """What the page must say for ``grid``, from the solver (as ``c4pi solve`` answers)."""
    board = Board.from_grid(grid.split("/"))
    answer = Solver.from_config(load_config(None)).best(board)
    if answer.score == 0:
        verdict = f"Draw in {answer.plies}"
    else:
        winner = board.to_move if answer.score > 0 else ("Y" if board.to_move == "R" else "R")
        verdict = f"{COLOUR_NAMES[winner]} wins in {answer.plies}"
    return f"{board.to_move}→{answer.column}", verdict


def test_the_demo_page_follows_the_game_and_survives_a_restart(browser, config_file) -> None:
    config, port = config_file
    demo = start(config, "demo", "--seed", "11")
    try:
        load(browser, port, demo)
        browser.save_screenshot(str(ARTEFACTS / "1-scanning.png"))
        seen_solved = 0
        seen_grids = set()
        deadline = time.monotonic() + 60
        while seen_solved < 3 and time.monotonic() < deadline:
            screen = wait_until(browser, lambda s: s["state"] == "solved" and s["moves"]
                                and s["grid"] not in seen_grids, 30, "a new solved board")
            move, verdict = expected_headline(screen["grid"])
            assert screen["moves"][0] == move and screen["verdict"] == verdict, screen
            seen_grids.add(screen["grid"])
            seen_solved += 1
            browser.save_screenshot(str(ARTEFACTS / f"2-solved-{seen_solved}.png"))
        assert seen_solved == 3
        screen = wait_until(browser, lambda s: s["reason"] and not s["reading"].startswith(
            ("camera reads: ok", "camera reads: finished")), 30, "a rejected reading")
        status = screen["reading"].split()[2]  # "camera reads: STATUS (markers ...)"
        assert screen["remedy"] == remedy(status, screen["reason"]) != "", screen
        browser.save_screenshot(str(ARTEFACTS / "2-rejected-reading.png"))
        picture = browser.find_element("id", "camera")
        first = picture.screenshot_as_png
        time.sleep(1.0)
        assert wait_until(browser, lambda s: s["camera"] > 0, 5, "a camera picture")
        assert picture.screenshot_as_png != first  # the camera picture refreshes
        stop(demo)
        wait_until(browser, lambda s: s["link"], 10, "that the connection was lost")
        browser.save_screenshot(str(ARTEFACTS / "3-server-gone.png"))
        before = browser.execute_script(SCREEN)["seq"]
        demo = start(config, "demo", "--seed", "12")
        wait_until(browser, lambda s: not s["link"] and s["seq"] != before, 40,
                   "the restarted server's state")
        wait_until(browser, lambda s: s["camera"] > 0 and s["state"] == "solved", 40,
                   "a solved board after the restart")
        browser.save_screenshot(str(ARTEFACTS / "4-after-restart.png"))
    finally:
        stop(demo)


def test_a_finished_game_is_shown_with_its_four_and_its_review(browser, config_file) -> None:
    config, port = config_file
    watch = start(config, "watch", "sim", "--moves", "4455667", "--seed", "3", "--hud")
    try:
        load(browser, port, watch)
        screen = wait_until(browser, lambda s: s["state"] == "finished" and s["marks"], 90,
                            "the finished game with its review")
        assert screen["verdict"] == "Red has won" and screen["wins"] == 4
        assert len(screen["marks"]) == 7 and "threw the win away" in screen["marks"]
        browser.save_screenshot(str(ARTEFACTS / "5-finished.png"))
        browser.set_window_size(400, 860)
        browser.save_screenshot(str(ARTEFACTS / "6-phone.png"))
        browser.set_window_size(800, 480)
        browser.save_screenshot(str(ARTEFACTS / "7-pi-touchscreen.png"))
        browser.set_window_size(1280, 800)
    finally:
        stop(watch)


PLAY_SCREEN = """
return {moves: document.body.dataset.moves || "", over: document.body.dataset.over === "true",
        grid: document.getElementById("board").dataset.grid,
        message: document.getElementById("message").textContent,
        legal: [...document.querySelectorAll("#columns button")].filter(b => !b.disabled)
                 .map(b => Number(b.dataset.column))};
"""


def test_a_whole_game_on_the_play_page_on_a_phone(browser, config_file) -> None:
    config, port = config_file
    demo = start(config, "demo", "--seed", "13")

    def on_play(predicate: object, what: str) -> dict:
        return wait_until(browser, predicate, 30, what, PLAY_SCREEN)

    try:
        load(browser, port, demo)
        browser.set_window_size(400, 860)
        browser.get(f"http://127.0.0.1:{port}/play")
        browser.find_element("css selector", "#level option[value='3']").click()
        browser.find_element("id", "new").click()
        screen = on_play(lambda s: s["legal"], "a new game")
        browser.find_element("id", "hint").click()
        assert "Hint: play" in on_play(lambda s: "Hint" in s["message"],
                                               "a hint")["message"]
        browser.find_element("css selector", "#columns button[data-column='1']").click()
        screen = on_play(lambda s: len(s["moves"]) == 2 and s["legal"],
                                 "c4pi's reply")
        browser.find_element("id", "undo").click()
        screen = on_play(lambda s: s["moves"] == "" and s["legal"], "the undo")
        browser.save_screenshot(str(ARTEFACTS / "8-play-start.png"))
        while not screen["over"]:
            moves = screen["moves"]
            browser.find_element(
                "css selector", f"#columns button[data-column='{screen['legal'][0]}']").click()
            screen = on_play(lambda s, m=moves: s["moves"] != m
                                     and (s["legal"] or s["over"]), "the next position")
        board = Board.from_moves(screen["moves"])
        assert board.is_finished and screen["grid"] == "/".join(board.grid_lines())
        assert "Game over" in screen["message"]
        browser.save_screenshot(str(ARTEFACTS / "9-play-over.png"))
    finally:
        browser.set_window_size(1280, 800)
        stop(demo)

