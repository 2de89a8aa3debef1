"""The screen names the real colours when Yellow started (SPEC §1), and none before
anyone has started; a Red-first game reads as before."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.hud.game import GameLog, review
from firmware_py.hud.hub import HudHub
from firmware_py.hud.record import headline, hud_strip
from firmware_py.pipeline.events import View

HUD_JS = Path(__file__).resolve().parents[2] / "firmware_py" / "hud" / "static" / "hud.js"


class ReplyAnalyst:
    """Answers every position at once with column 3."""

    def solve(self, board: Board, on_done: Callable[[Any], None], *, tag: str = "hud") -> None:
        on_done(SimpleNamespace(column=3, score=0, plies=2))


def solved(board: Board, best: int, score: int, plies: int, first: str | None) -> View:
    return View("solved", tuple(board.grid_lines()), best, score, plies, first=first)


def test_the_hub_names_the_side_to_move_of_a_yellow_first_game() -> None:
    hub = HudHub(ReplyAnalyst())
    hub.on_view(solved(Board.from_moves("4", "Y"), 4, -1, 40, "Y"), 0.0)
    state = hub.snapshot()
    assert state["to_move"] == "R" and state["verdict"] == "Yellow wins in 40"
    assert state["reply"] == {"colour": "Y", "column": 3}
    hub.on_view(solved(Board.empty("Y"), 4, 1, 41, "Y"), 1.0)   # [game] first = "yellow"
    assert (hub.snapshot()["to_move"], hub.snapshot()["verdict"]) == ("Y", "Yellow wins in 41")


def test_the_hub_names_no_colour_before_anyone_has_started() -> None:
    hub = HudHub(ReplyAnalyst())
    hub.on_view(solved(Board.empty(), 4, 1, 41, None), 0.0)
    state = hub.snapshot()
    assert state["to_move"] is None and state["best"] == 4
    assert state["verdict"] == "First player wins in 41"
    assert state["reply"] == {"colour": None, "column": 3}


def test_the_hub_says_a_red_first_game_as_before() -> None:
    hub = HudHub(ReplyAnalyst())
    hub.on_view(solved(Board.from_moves("4"), 4, -1, 40, "R"), 0.0)
    state = hub.snapshot()
    assert (state["to_move"], state["verdict"]) == ("Y", "Red wins in 40")
    assert state["reply"] == {"colour": "R", "column": 3}


def commit_game(hub: HudHub, moves: str, first: str) -> None:
    """Commit the boards of a game as the game filter does under "either": the empty board
    (Red by default: nobody has started), then each disc with its real starter."""
    hub.on_commit(Board.empty(), "first", 0.0)
    for n in range(1, len(moves) + 1):
        hub.on_commit(Board.from_moves(moves[:n], first), "next", float(n))


def test_the_game_json_says_who_started() -> None:
    hub = HudHub()
    commit_game(hub, "43", "Y")
    assert hub.snapshot()["game"] == {"start": None, "first": "Y", "moves": "43",
                                      "review": None}
    hub = HudHub()
    commit_game(hub, "43", "R")
    assert hub.snapshot()["game"]["first"] == "R"


def test_the_log_of_a_yellow_first_game_starts_with_yellow() -> None:
    log = GameLog()
    log.commit(Board.empty())                      # nobody had started: Red by default
    log.commit(Board.from_moves("4", "Y"))
    log.commit(Board.from_moves("43", "Y"))
    assert log.start == Board.empty("Y") and log.notation == "43"
    marks = review(log.start, log.moves, lambda board: 0)
    assert [(mark.colour, mark.column) for mark in marks] == [("Y", 4), ("R", 3)]


def test_a_recording_names_the_real_colours() -> None:
    state = {"state": "solved", "best": 4, "to_move": "R", "verdict": "Yellow wins in 40",
             "reply": {"colour": "Y", "column": 3}}
    assert headline(state) == "R->4  Y->3   Yellow wins in 40"
    unstarted = {"state": "solved", "best": 4, "to_move": None,
                 "verdict": "First player wins in 41", "reply": {"colour": None, "column": 4}}
    assert headline(unstarted) == "->4  ->4   First player wins in 41"
    hub = HudHub()
    commit_game(hub, "43", "Y")
    strip = hud_strip({**hub.snapshot(), **unstarted}, 640, 1.0)
    assert strip.shape == (132, 640, 3) and np.any(strip != strip[0, 0])


# ------------------------------------------------------------------ the page itself

HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
class El {
  constructor(tag) {
    this.tagName = tag; this.children = []; this.className = ""; this.textContent = "";
    this.dataset = {}; this.hidden = false; this.style = { setProperty() {} };
    this.classList = { toggle() {}, add() {}, contains() { return false; } };
    this.scrollHeight = 0; this.clientHeight = 0;
  }
  replaceChildren(...children) { this.children = children; }
  appendChild(child) { this.children.push(child); }
  querySelectorAll() { return []; }
  addEventListener() {}
}
const elements = {};
const document = {
  getElementById: (id) => (elements[id] = elements[id] || new El("div")),
  createElement: (tag) => new El(tag), createTextNode: (text) => ({ textContent: text }),
  body: new El("body"),
};
const context = vm.createContext({ document, window: { addEventListener() {} }, Date });
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), context);
const shown = JSON.parse(fs.readFileSync(0, "utf8")).map((state) => {
  context.render(state);
  const texts = (id) => elements[id].children.map((child) => child.textContent);
  return { headline: texts("moves-now"), explain: elements.explain.textContent,
           verdict: elements.verdict.textContent, game: texts("game"),
           classes: elements.game.children.map((child) => child.className) };
});
process.stdout.write(JSON.stringify(shown));
"""


def page(states: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    """What hud.js draws for each state (Node with a minimal document)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (the page is checked in Chromium elsewhere)")
    script = tmp_path / "harness.js"
    script.write_text(HARNESS)
    done = subprocess.run([node, str(script), str(HUD_JS)], input=json.dumps(states),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_page_lists_a_yellow_first_game_with_yellow_first(tmp_path: Path) -> None:
    hub = HudHub()
    commit_game(hub, "43", "Y")
    hub.on_view(solved(Board.from_moves("43", "Y"), 5, 0, 40, "Y"), 2.0)
    yellow = hub.snapshot()
    hub = HudHub()
    commit_game(hub, "43", "R")
    hub.on_view(solved(Board.from_moves("43"), 5, 0, 40, "R"), 2.0)
    red = hub.snapshot()
    shown_yellow, shown_red = page([yellow, red], tmp_path)
    assert shown_yellow["game"] == ["1. Y4", "2. R3"] and shown_yellow["classes"] == ["Y", "R"]
    assert shown_yellow["headline"] == ["Y→5"]
    assert shown_yellow["explain"].startswith("Yellow to move: play column 5.")
    assert shown_red["game"] == ["1. R4", "2. Y3"] and shown_red["headline"] == ["R→5"]
    assert shown_red["explain"].startswith("Red to move: play column 5.")


def test_the_page_names_no_colour_before_anyone_has_started(tmp_path: Path) -> None:
    hub = HudHub(ReplyAnalyst())
    hub.on_commit(Board.empty(), "first", 0.0)
    hub.on_view(solved(Board.empty(), 4, 1, 41, None), 0.0)
    [shown] = page([hub.snapshot()], tmp_path)
    assert shown["headline"] == ["→4", "then", "→3"]
    assert shown["verdict"] == "First player wins in 41"
    assert shown["explain"].startswith(
        "Either colour may start: play column 4, then the best reply is 3.")
    assert shown["game"] == ["no moves yet"]


def test_the_page_numbers_discs_after_a_mid_game_start(tmp_path: Path) -> None:
    hub = HudHub()
    hub.on_commit(Board.from_moves("4", "Y"), "first", 0.0)     # the camera joined late
    hub.on_commit(Board.from_moves("43", "Y"), "next", 1.0)
    [shown] = page([hub.snapshot()], tmp_path)
    assert shown["game"] == ["1 disc at the start", "2. R3"]
