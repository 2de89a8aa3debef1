"""The play page's games and routes: a game per browser, hint, undo, bad input answered."""

from __future__ import annotations

import http.client
import json
import random

import pytest

from c4game.board import Board
from c4game.exc import PlayError
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.hud.hub import HudHub
from firmware_py.hud.play_games import ACTIVE_S, MAX_GAMES, PlayGames
from firmware_py.hud.server import HudServer


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver.from_config(load_config(None).solver)


@pytest.fixture
def games(solver: Solver) -> PlayGames:
    return PlayGames(solver.analyze, rng=random.Random(4))


def post(port: int, path: str, body: object) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, body=json.dumps(body) if not isinstance(body, bytes)
                       else body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    return response.status, answer


def test_a_whole_game_with_a_hint_and_an_undo(games: PlayGames, solver: Solver) -> None:
    state = games.new(6, "R")
    game = state["game"]
    hint = games.act(game, "h")["text"]
    assert hint.startswith("Hint: play 4") and "Red wins in" in hint
    state = games.act(game, "1")
    assert len(state["moves"]) == 2 and state["moves"][0] == "1"
    state = games.act(game, "u")
    assert state["moves"] == "" and state["legal"] == list(range(1, 8))
    person = random.Random(2)
    while not state["over"]:
        state = games.act(game, str(person.choice(state["legal"])))
    board = Board.from_moves(state["moves"])
    assert board.is_finished and board.grid_lines() == state["grid"]
    assert board.winner == "Y" and "I win" in state["text"]  # level 6 wins against random
    assert state["winning"] and state["legal"] == []


def test_bad_input_is_refused_with_the_reason(games: PlayGames) -> None:
    with pytest.raises(PlayError, match="level must be 1-6"):
        games.new(9, "R")
    with pytest.raises(PlayError, match="colour"):
        games.new(3, "G")
    with pytest.raises(PlayError, match="no such game"):
        games.act("nope", "4")
    game = games.new(3, "Y")["game"]
    assert "is not a move" in games.act(game, "8")["text"]


def test_old_games_make_room_for_new_ones(solver: Solver) -> None:
    now = [0.0]
    games = PlayGames(solver.analyze, rng=random.Random(4), clock=lambda: now[0])
    first = games.new(1, "R")["game"]
    now[0] += ACTIVE_S + 1  # a game is pushed out only once it is idle this long
    for _ in range(MAX_GAMES):
        games.new(1, "R")
    with pytest.raises(PlayError):
        games.state(first)


def test_the_store_holds_exactly_its_limit_and_a_lookup_evicts_nothing(
        games: PlayGames) -> None:
    ids = [games.new(1, "R")["game"] for _ in range(MAX_GAMES)]
    for _ in range(50):  # bad lookups, as a stranger's requests would make
        with pytest.raises(PlayError):
            games.state("bogus")
    assert [games.state(game)["game"] for game in ids] == ids  # all 16 still there


def test_a_boolean_is_no_level(games: PlayGames) -> None:
    with pytest.raises(PlayError, match="level"):
        games.new(True, "R")


def test_the_routes(games: PlayGames) -> None:
    server = HudServer(HudHub(), port=0, games=games).start()
    try:
        status, state = post(server.port, "/play/new", {"level": 2, "colour": "Y"})
        assert status == 200 and len(state["moves"]) == 1  # c4pi opened as Red
        status, after = post(server.port, f"/play/{state['game']}", {"input": "4"})
        assert status == 200 and len(after["moves"]) == 3
        assert post(server.port, "/play/new", {"level": 0, "colour": "R"})[0] == 400
        assert post(server.port, "/play/unknown", {"input": "4"})[0] == 400
        status, error = post(server.port, f"/play/{state['game']}", b"not json")
        assert status == 400 and "JSON" in error["error"]
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/play")
        response = connection.getresponse()
        assert response.status == 200 and b"New game" in response.read()
        connection.request("POST", "/state")
        assert connection.getresponse().status == 405  # nothing else takes input
    finally:
        server.stop()


def test_the_page_tells_a_person_to_tap_not_to_type(games: PlayGames) -> None:
    """The page's first message is the page's, not the terminal's ("q to quit")."""
    text = games.new(4, "R")["text"]
    assert "Tap a column" in text and "q to quit" not in text and "type a column" not in text
    assert "tap a column" in games.act(games.new(4, "R")["game"], "x")["text"]
