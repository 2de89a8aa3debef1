"""The play page when either colour may start: ``first`` in ``POST /play/new``, whose
turn the state says, and a bad ``first`` answered with a 400 that says why.

Before, Red always moved first on the page.
"""

from __future__ import annotations

import http.client
import random
from collections.abc import Iterator

import pytest

from c4game.exc import PlayError
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.hud.hub import HudHub
from firmware_py.hud.play_games import PlayGames
from firmware_py.hud.server import HudServer
from tests.hud.chromium import chromium, wait_until
from tests.hud.test_hud_play import post


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver.from_config(load_config(None).solver)


def games(solver: Solver, rule: str = "either") -> PlayGames:
    return PlayGames(solver.analyze, rng=random.Random(4), first=rule)


def test_the_person_starts_with_yellow(solver: Solver) -> None:
    play = games(solver)
    state = play.new(6, "Y", "yellow")
    assert state["first"] == "Y" and state["to_move"] == "Y" and state["moves"] == ""
    assert "You start" in state["text"]
    state = play.act(state["game"], "3")
    assert len(state["moves"]) == 2 and state["moves"][0] == "3"
    assert state["grid"][-1][2] == "Y" and state["to_move"] == "Y"  # c4pi answered in Red
    assert state["grid"][-1].count("R") + state["grid"][-2].count("R") == 1


def test_c4pi_starts_with_yellow(solver: Solver) -> None:
    state = games(solver).new(6, "R", "Y")
    assert state["first"] == "Y" and state["moves"] == "4" and state["to_move"] == "R"
    assert state["grid"][-1] == "...Y..." and "I start" in state["text"]


def test_bad_or_forbidden_starters_are_refused(solver: Solver) -> None:
    for bad in ("green", 3, "", ["Y"]):
        with pytest.raises(PlayError, match="who starts must be red or yellow"):
            games(solver).new(3, "R", bad)
    with pytest.raises(PlayError, match=r"Red always starts here \(\[game\] first = red\)"):
        games(solver, "red").new(3, "R", "Y")
    assert games(solver, "yellow").new(3, "Y")["first"] == "Y"  # no choice: the rule's
    assert games(solver).new(3, "R")["first"] == "R"  # no choice under either: Red


def test_the_options_say_who_starts_and_whether_it_can_change(solver: Solver) -> None:
    assert games(solver).options()["first"] == "R"
    assert not games(solver).options()["first_fixed"]
    options = games(solver, "yellow").options()
    assert options["first"] == "Y" and options["first_fixed"]


def test_the_routes_take_first(solver: Solver) -> None:
    server = HudServer(HudHub(), port=0, games=games(solver)).start()
    try:
        status, state = post(server.port, "/play/new",
                             {"level": 6, "colour": "R", "first": "yellow"})
        assert status == 200 and state["first"] == "Y" and len(state["moves"]) == 1
        assert state["to_move"] == "R"
        status, after = post(server.port, f"/play/{state['game']}", {"input": "1"})
        assert status == 200 and len(after["moves"]) == 3 and after["to_move"] == "R"
        assert after["grid"][-1][0] == "R"
        status, error = post(server.port, "/play/new",
                             {"level": 2, "colour": "R", "first": "green"})
        assert status == 400 and error == {
            "error": "who starts must be red or yellow, got 'green'"}
        assert post(server.port, "/play/new", {"level": 2, "colour": "R", "first": 1})[0] == 400
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/play")
        page = connection.getresponse().read()
        assert b'name="first" value="Y"' in page and b"Yellow starts" in page
        connection.close()
    finally:
        server.stop()


PAGE = """
return {options: document.body.dataset.options || "", moves: document.body.dataset.moves || "",
        listed: document.getElementById("moves").textContent,
        grid: document.getElementById("board").dataset.grid,
        legal: [...document.querySelectorAll("#columns button")].filter(b => !b.disabled)
                 .map(b => b.dataset.column),
        starts: [...document.querySelectorAll("input[name=first]")]
                  .map(i => [i.value, i.checked, i.disabled])};
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium()


def open_page(browser: object, server: HudServer) -> dict:
    browser.get(f"http://127.0.0.1:{server.port}/play")
    return wait_until(browser, lambda s: s["options"] == "loaded", 20, "the options", PAGE)


def test_the_page_plays_a_game_yellow_starts(browser: object, solver: Solver) -> None:
    server = HudServer(HudHub(), port=0, games=games(solver)).start()
    try:
        screen = open_page(browser, server)
        assert screen["starts"] == [["R", True, False], ["Y", False, False]]
        browser.find_element("css selector", "input[name=colour][value=Y]").click()
        browser.find_element("css selector", "input[name=first][value=Y]").click()
        browser.find_element("id", "new").click()
        wait_until(browser, lambda s: s["legal"] and not s["moves"], 30, "the new game", PAGE)
        browser.find_element("css selector", "#columns button[data-column='1']").click()
        screen = wait_until(browser, lambda s: len(s["moves"]) == 2, 30, "c4pi's reply", PAGE)
        assert screen["listed"] == f"Moves so far: Y1 R{screen['moves'][1]}", screen
        assert screen["grid"].split("/")[-1][0] == "Y", screen
    finally:
        server.stop()


def test_a_fixed_rule_leaves_no_choice_on_the_page(browser: object, solver: Solver) -> None:
    server = HudServer(HudHub(), port=0, games=games(solver, "yellow")).start()
    try:
        screen = open_page(browser, server)
        assert screen["starts"] == [["R", False, True], ["Y", True, False]]
        browser.find_element("id", "new").click()  # you: Red; c4pi starts with Yellow
        screen = wait_until(browser, lambda s: len(s["moves"]) == 1, 30, "c4pi's opening",
                            PAGE)
        assert screen["listed"] == f"Moves so far: Y{screen['moves']}", screen
    finally:
        server.stop()
