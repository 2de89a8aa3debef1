"""The demo's terminal lines and the advantage LEDs for a game Yellow started (SPEC §1),
and a board nobody has started yet (no colour named)."""

from __future__ import annotations

import io

from c4game.board import Board
from firmware_py.appliance.move_log import MoveLog, advice, move_label
from firmware_py.leds import AdvantageLights
from firmware_py.pipeline.events import View


def solved(moves: str, best: int, score: int, plies: int, first: str | None) -> View:
    board = Board.from_moves(moves, first or "R")
    return View("solved", tuple(board.grid_lines()), best, score, plies, first=first)


def test_the_lines_of_a_yellow_first_game() -> None:
    out = io.StringIO()
    log = MoveLog(out)
    log.start("")
    log.show(solved("", 4, 1, 41, None))            # under "either": nobody has started
    log.show(solved("4", 4, -1, 40, "Y"))
    log.show(solved("43", 3, 0, 40, "Y"))
    finished = Board.from_moves("4343434", "Y")
    log.show(View("finished", tuple(finished.grid_lines()), first="Y"))
    assert out.getvalue().splitlines() == [
        "new game      Either colour may start: play 4 - First player wins in 41",
        "move 1   Y4   Red to move: play 4 - Yellow wins in 40",
        "move 2   R3   Yellow to move: play 3 - Draw in 40",
        "move 7        game over: Yellow wins",
    ]


def test_a_yellow_start_under_the_yellow_rule_is_named() -> None:
    assert advice(Board.empty("Y"), solved("", 4, 1, 41, "Y")) == (
        "Yellow to move: play 4 - Yellow wins in 41")


def test_the_move_label_reads_the_disc_colour_from_the_board() -> None:
    assert move_label(Board.empty("Y"), Board.from_moves("4", "Y")) == "move 1   Y4"
    assert move_label(Board.from_moves("4", "Y"), Board.from_moves("43", "Y")) == "move 2   R3"
    assert move_label(Board.empty(), Board.from_moves("4")) == "move 1   R4"
    assert move_label(Board.from_moves("4"), Board.from_moves("43")) == "move 2   Y3"


class Led:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lit = False

    def on(self) -> None:
        self.lit = True

    def off(self) -> None:
        self.lit = False


def test_the_advantage_leds_light_the_real_winner_of_a_yellow_first_game() -> None:
    red, yellow = Led("red"), Led("yellow")
    lights = AdvantageLights(red, yellow)
    view = solved("4", 4, -1, 40, "Y")            # Red to move loses: Yellow, first, wins
    lights.show(view.board, view.score)           # what the appliance does with a view
    assert (red.lit, yellow.lit) == (False, True)
    view = solved("4", 4, -1, 40, "R")            # Yellow to move loses: Red wins
    lights.show(view.board, view.score)
    assert (red.lit, yellow.lit) == (True, False)
