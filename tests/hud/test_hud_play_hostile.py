"""The play API against a hostile client: parallel inputs to one game, and floods of
new games.

Before, 36 parallel ``POST /play/<game>`` answered 500s (``IllegalMoveError``) and left
the game broken (every later request a 500), and 16 ``POST /play/new`` pushed out a
game played seconds earlier.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from typing import Any

import pytest

from c4game.board import Board
from c4game.exc import PlayError
from firmware_py.hud.hub import HudHub
from firmware_py.hud.play_games import ACTIVE_S, MAX_GAMES, PlayGames
from firmware_py.hud.server import HudServer


def quick_scorer(board: Board) -> list[int | None]:
    """Column 4 best, the rest level: at level 6, c4pi answers 4 with 4 while it can."""
    return [None if not board.can_play(c) else 1 if c == 4 else 0 for c in range(1, 8)]


def slow_scorer(board: Board) -> list[int | None]:
    """:func:`quick_scorer`, slow enough that parallel inputs overlap."""
    time.sleep(0.02)
    return quick_scorer(board)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def at_once(count: int, call: Any) -> list[Any]:
    """``call()`` from ``count`` threads released together; each one's answer or error."""
    barrier = threading.Barrier(count)
    answers: list[Any] = []

    def one() -> None:
        barrier.wait()
        try:
            answers.append(call())
        except Exception as error:  # noqa: BLE001 - the test sorts them
            answers.append(error)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers


def assert_consistent(state: dict[str, Any], played: int) -> None:
    """A legal board where each accepted input added the person's move and the reply."""
    board = Board.from_moves(state["moves"], state["first"])
    assert board.grid_lines() == state["grid"]
    assert len(state["moves"]) in (2 * played, 2 * played - 1)  # -1: the person won
    assert state["over"] or state["to_move"] == state["person"]


def test_parallel_inputs_to_one_game_are_taken_one_at_a_time() -> None:
    games = PlayGames(slow_scorer, rng=random.Random(3))
    game = games.new(6, "R")["game"]
    played = 0
    for _ in range(6):  # column 4 fills on the way: later rounds are all refused
        answers = at_once(12, lambda: games.act(game, "4"))
        assert all(isinstance(a, dict | PlayError) for a in answers), answers
        played += sum(isinstance(a, dict) for a in answers)
        assert_consistent(games.state(game), played)
    assert played == 3  # one input a round until column 4 filled (4 and 4 each time)
    assert all("Column 4 is full" in str(a) or "still answering" in str(a)
               for a in answers), answers
    state = games.state(game)
    if not state["over"]:  # the game still answers
        assert len(games.act(game, str(state["legal"][0]))["moves"]) > len(state["moves"])


def request(port: int, method: str, path: str, body: object = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sent = None if body is None else json.dumps(body)
    connection.request(method, path, body=sent, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    try:
        return response.status, json.loads(data)
    except ValueError:  # aiohttp's own error page (text)
        return response.status, {"page": data.decode(errors="replace")}


def test_parallel_posts_to_one_game_get_no_5xx_and_leave_it_playable() -> None:
    server = HudServer(HudHub(), port=0, games=PlayGames(slow_scorer,
                                                          rng=random.Random(3))).start()
    try:
        game = request(server.port, "POST", "/play/new", {"level": 6, "colour": "R"})[1]["game"]
        answers = at_once(36, lambda: request(server.port, "POST", f"/play/{game}",
                                              {"input": "4"}))
        statuses = sorted(status for status, _ in answers)
        assert statuses[-1] < 500, statuses
        assert all("error" in answer for status, answer in answers if status != 200)
        assert all(status in (200, 409) for status in statuses), statuses
        status, state = request(server.port, "GET", f"/play/{game}")
        assert status == 200
        assert_consistent(state, statuses.count(200))
        if not state["over"]:
            column = str(state["legal"][0])
            assert request(server.port, "POST", f"/play/{game}", {"input": column})[0] == 200
    finally:
        server.stop()


def test_an_illegal_input_is_a_conflict_that_says_why() -> None:
    games = PlayGames(quick_scorer, rng=random.Random(1))
    game = games.new(1, "R")["game"]
    games.act(game, "q")
    with pytest.raises(PlayError, match="over"):
        games.act(game, "4")
    game = games.new(6, "R")["game"]
    for _ in range(3):
        moves = games.act(game, "4")["moves"]
    assert moves == "444444"
    with pytest.raises(PlayError, match="Column 4 is full"):
        games.act(game, "4")
    assert games.state(game)["moves"] == moves


def test_a_failed_reply_takes_the_input_back() -> None:
    """A solver that fails after the person's move leaves it still the person's turn."""
    fail = [False]

    def scorer(board: Board) -> list[int | None]:
        if fail[0]:
            raise PlayError("the solver is busy: try again")
        return quick_scorer(board)

    games = PlayGames(scorer, rng=random.Random(1))
    game = games.new(1, "R")["game"]
    fail[0] = True
    with pytest.raises(PlayError, match="busy"):
        games.act(game, "4")
    assert games.state(game)["moves"] == "" and games.state(game)["to_move"] == "R"
    fail[0] = False
    assert games.act(game, "4")["moves"][0] == "4"


def test_new_games_never_push_out_a_game_in_play() -> None:
    clock = Clock()
    games = PlayGames(quick_scorer, clock=clock, rng=random.Random(1))
    playing = games.new(1, "R")["game"]
    games.act(playing, "4")
    clock.now += 5.0
    made = 0
    for _ in range(MAX_GAMES):  # the flood: the 16th finds every slot in use
        try:
            games.new(1, "R")
            made += 1
        except PlayError as error:
            assert "try again" in str(error)
    assert made == MAX_GAMES - 1
    assert games.state(playing)["moves"][0] == "4"


def test_the_idlest_game_goes_once_idle_long_enough() -> None:
    clock = Clock()
    games = PlayGames(quick_scorer, clock=clock, rng=random.Random(1))
    idle = games.new(1, "R")["game"]
    clock.now += 100.0
    playing = games.new(1, "R")["game"]
    others = [games.new(1, "R")["game"] for _ in range(MAX_GAMES - 2)]
    clock.now += 100.0
    games.act(playing, "4")  # the oldest-made game, played since
    clock.now = 1000.0 + ACTIVE_S + 1  # only the first game is idle that long
    fresh = games.new(1, "R")["game"]
    with pytest.raises(PlayError):
        games.state(idle)
    with pytest.raises(PlayError, match="try again"):
        games.new(1, "R")
    clock.now = 1100.0 + ACTIVE_S + 1  # the others idle that long; the played one not
    games.new(1, "R")
    assert games.state(playing)["game"] == playing and games.state(fresh)["game"] == fresh
    assert sum(1 for game in others if _known(games, game)) == len(others) - 1


def test_inputs_that_play_nothing_keep_no_place() -> None:
    """A hostile re-test: poking 16 finished games (a 409) or sending "x" every few
    minutes kept all 16 places "in play" for good."""
    clock = Clock()
    games = PlayGames(quick_scorer, clock=clock, rng=random.Random(1))
    held = [games.new(1, "R")["game"] for _ in range(MAX_GAMES)]
    for _ in range(4):
        clock.now += ACTIVE_S - 10
        for game in held:
            games.act(game, "x")  # no move: answered, but nothing played
    games.new(1, "R")  # the idlest place is free again
    assert sum(1 for game in held if _known(games, game)) == MAX_GAMES - 1


def _known(games: PlayGames, game: str) -> bool:
    try:
        games.state(game)
    except PlayError:
        return False
    return True


def test_a_full_store_of_active_games_is_a_503_that_says_why() -> None:
    games = PlayGames(quick_scorer, rng=random.Random(1))
    server = HudServer(HudHub(), port=0, games=games).start()
    try:
        for _ in range(MAX_GAMES):
            assert request(server.port, "POST", "/play/new", {"level": 1, "colour": "R"})[0] \
                == 200
        status, answer = request(server.port, "POST", "/play/new", {"level": 1, "colour": "R"})
        assert status == 503 and "try again" in answer["error"]
    finally:
        server.stop()
