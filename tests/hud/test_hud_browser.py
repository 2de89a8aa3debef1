"""The kiosk page in a real browser (Debian's Chromium driven by Selenium), as a person sees it.

``c4pi demo`` (and ``c4pi watch sim --hud`` for a finished game) serve the
page; the test reads what is on screen and checks it against the solver.
Screenshots of each state go to ``build/test-artefacts/hud/``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from c4game.board import COLOUR_NAMES, Board
from cython_solver import Solver
from firmware_py.config import load_config
from tests.hud.chromium import ARTEFACTS, chromium, free_port, load, start, stop, write_config
from tests.hud.chromium import wait_until as wait_for

SCREEN = """
const text = (id) => document.getElementById(id).textContent;
const kiosk = document.querySelector(".kiosk");
return {seq: Number(document.body.dataset.seq || 0),
        state: document.getElementById("state").dataset.state || "",
        grid: document.getElementById("board").dataset.grid,
        changing: document.getElementById("board").classList.contains("changing"),
        moves: [...document.querySelectorAll("#moves-now span:not(.then)")].map(s => s.textContent),
        verdict: text("verdict"), explain: text("explain"),
        offline: document.body.classList.contains("offline")
                 && !document.getElementById("offline").hidden,
        offline_text: text("offline"),
        health: text("health"),
        body_box: (() => { const r = document.body.getBoundingClientRect();
                           return [r.left, r.top, r.width, r.height,
                                   getComputedStyle(document.body).position]; })(),
        view: [innerWidth, innerHeight],
        grey: getComputedStyle(kiosk).filter + " " + getComputedStyle(kiosk).opacity,
        wins: document.querySelectorAll("#board .cell.win").length,
        marks: [...document.querySelectorAll("#game .mark")].map(m => m.textContent),
        listed: [...document.querySelectorAll("#game li")].map(m => m.firstChild.textContent),
        camera: document.getElementById("camera").naturalWidth,
        qr_shown: getComputedStyle(document.getElementById("phone")).display !== "none",
        reading: text("reading-status"), reason: text("reading-reason"),
        remedy: text("reading-remedy")};
"""


def wait_until(driver: object, predicate: object, timeout: float, what: str,
               script: str = SCREEN) -> dict:
    return wait_for(driver, predicate, timeout, what, script)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium()


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    port = free_port()
    return write_config(tmp_path_factory.mktemp("hud"), port), port


def expected_headline(grid: str) -> tuple[str, str]:
    """What the page must say for ``grid``, from the solver (as ``c4pi solve`` answers).

    The demo runs under ``[game] first = "either"``: on the empty board nobody has
    started, so no colour is named (SPEC §1)."""
    board = Board.from_grid(grid.split("/"), "either")
    answer = Solver.from_config(load_config(None).solver).best(board)
    unstarted = board.n_discs == 0
    if answer.score == 0:
        verdict = f"Draw in {answer.plies}"
    elif unstarted:
        verdict = f"{'First' if answer.score > 0 else 'Second'} player wins in {answer.plies}"
    else:
        winner = board.to_move if answer.score > 0 else ("Y" if board.to_move == "R" else "R")
        verdict = f"{COLOUR_NAMES[winner]} wins in {answer.plies}"
    return f"{'' if unstarted else board.to_move}→{answer.column}", verdict


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
            plies = verdict.split()[-1]
            assert f"play column {move[-1]}" in screen["explain"], screen
            assert f'"In {plies}": {plies} disc' in screen["explain"], screen
            seen_grids.add(screen["grid"])
            seen_solved += 1
            browser.save_screenshot(str(ARTEFACTS / f"2-solved-{seen_solved}.png"))
        assert seen_solved == 3
        screen = wait_until(browser, lambda s: s["reading"].startswith("Camera ") and not
                            s["reading"].startswith("Camera reads"), 30,
                            "a refused reading (a disc dropping, a hand)")
        # Normal play refuses frames now and then: the line says so; the reader's reason
        # and advice for a fault would be wrong here.
        assert screen["reading"].endswith("(a hand or a falling disc: normal)"), screen
        assert screen["remedy"] == "" and screen["reason"] == "", screen
        browser.save_screenshot(str(ARTEFACTS / "2-refused-reading.png"))
        picture = browser.find_element("id", "camera")
        first = picture.screenshot_as_png
        time.sleep(1.0)
        assert wait_until(browser, lambda s: s["camera"] > 0, 5, "a camera picture")
        assert picture.screenshot_as_png != first  # the camera picture refreshes
        stop(demo)
        screen = wait_until(browser, lambda s: s["offline"], 10, "that the connection was lost")
        assert "Connection lost" in screen["offline_text"], screen
        # the bar's old camera rate and solver state are not shown as if current
        assert screen["health"] == "no connection to c4pi", screen
        # the page stays the page, greyed (a re-test found the body styled as the box)
        left, top, width, _, position = screen["body_box"]
        assert (left, top, position) == (0, 0, "static") and width == screen["view"][0], screen
        grey, opacity = screen["grey"].rsplit(" ", 1)
        assert grey == "grayscale(1)" and float(opacity) <= 0.5, screen  # not alive-looking
        browser.save_screenshot(str(ARTEFACTS / "3-server-gone.png"))
        before = browser.execute_script(SCREEN)["seq"]
        demo = start(config, "demo", "--seed", "12")
        wait_until(browser, lambda s: not s["offline"] and s["seq"] != before, 40,
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
        assert not screen["qr_shown"]  # [hud] lan = false: no phone can open the page
        assert len(screen["marks"]) == 7 and "threw the win away" in screen["marks"]
        assert screen["listed"] == [f"{n}. {'RY'[(n - 1) % 2]}{c}"
                                    for n, c in enumerate("4455667", start=1)], screen
        browser.save_screenshot(str(ARTEFACTS / "5-finished.png"))
    finally:
        stop(watch)


PLAY_SCREEN = """
return {moves: document.body.dataset.moves || "", over: document.body.dataset.over === "true",
        options: document.body.dataset.options || "", level: document.getElementById("level").value,
        grid: document.getElementById("board").dataset.grid,
        message: document.getElementById("message").textContent,
        listed: document.getElementById("moves").textContent,
        again: document.getElementById("new").textContent,
        message_px: parseFloat(getComputedStyle(document.getElementById("message")).fontSize),
        hinted: [...document.querySelectorAll("#columns button.hinted")]
                  .map(b => Number(b.dataset.column)),
        hinted_holes: document.querySelectorAll("#board .cell.hinted").length,
        status: document.getElementById("play-status").textContent,
        offline: document.body.classList.contains("offline")
                 && !document.getElementById("offline").hidden,
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
        screen = on_play(lambda s: s["options"] == "loaded", "the levels")
        assert screen["level"] == str(load_config(None).play.level)  # [play] level, as `c4pi play`
        browser.find_element("css selector", "#level option[value='3']").click()
        browser.find_element("id", "new").click()
        screen = on_play(lambda s: s["legal"], "a new game")
        browser.find_element("id", "hint").click()
        screen = on_play(lambda s: "Hint: play" in s["message"], "a hint")
        named = screen["message"].split("Hint: play ", 1)[1].split(" —")[0]
        assert screen["hinted"] == [int(c) for c in named.split(" or ")], screen  # lit up
        assert screen["hinted_holes"] == 6 * len(screen["hinted"]), screen
        during_px = screen["message_px"]
        browser.find_element("css selector", "#columns button[data-column='1']").click()
        screen = on_play(lambda s: len(s["moves"]) == 2 and s["legal"],
                                 "c4pi's reply")
        assert screen["listed"] == f"Moves so far: R1 Y{screen['moves'][1]}", screen
        assert screen["hinted"] == [] and screen["hinted_holes"] == 0, screen
        browser.find_element("id", "new").click()  # mid-game: asked first, and kept
        alert = browser.switch_to.alert
        assert "Give up this game" in alert.text
        alert.dismiss()
        time.sleep(0.5)
        assert on_play(lambda s: True, "the page")["moves"] == screen["moves"]
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
        assert "Game over" in screen["message"] and screen["again"] == "Play again"
        assert screen["message_px"] >= 1.4 * during_px, screen  # the end is said big
        browser.save_screenshot(str(ARTEFACTS / "9-play-over.png"))
        stop(demo)  # the bar says the connection is lost, as the table's screen does
        screen = wait_until(browser, lambda s: s["offline"], 15, "the lost connection",
                            PLAY_SCREEN)
        assert screen["status"] == "no connection to c4pi", screen
    finally:
        browser.set_window_size(1280, 800)
        stop(demo)

