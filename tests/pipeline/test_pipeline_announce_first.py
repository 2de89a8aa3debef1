"""The pipeline announces the real side to move (SPEC §1: either colour may start), and
names no colour before anyone has started."""

from __future__ import annotations

from dataclasses import replace

import pytest

from c4game.board import Board
from firmware_py.pipeline.belief import BeliefParams
from firmware_py.pipeline.events import Announce, SolveResult
from firmware_py.pipeline.fakes import FakeSolver, RecordingAnnouncer
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import Pipeline, SyncPort, speak
from firmware_py.vision.reading import OK, Reading


def ok(board: Board) -> Reading:
    return Reading(OK, tuple(board.grid_lines()), board, 0.9)


def announced(rule: str, *boards: Board) -> list[tuple]:
    """The announcer calls for ``boards`` each seen for 0.6 s under ``[game] first = rule``."""
    params = replace(PipelineParams(), belief=replace(BeliefParams(), first=rule))
    announcer = RecordingAnnouncer()
    pipeline = Pipeline(params, SyncPort(FakeSolver()), announcer=announcer)
    t = 0.0
    for board in boards:
        for _ in range(6):
            pipeline.feed(ok(board), t)
            t += 0.1
    return [call[:2] for call in announcer.calls]


def test_an_empty_board_under_either_names_no_colour() -> None:
    assert announced("either", Board.empty()) == [("recommend", None)]


@pytest.mark.parametrize(("rule", "mover"), [("red", "R"), ("yellow", "Y")])
def test_an_empty_board_under_a_fixed_starter_names_it(rule: str, mover: str) -> None:
    assert announced(rule, Board.empty()) == [("recommend", mover)]


def test_a_yellow_first_disc_makes_red_the_side_to_move() -> None:
    calls = announced("either", Board.empty(), Board.from_moves("4", "Y"),
                      Board.from_moves("43", "Y"))
    assert calls == [("recommend", None), ("recommend", "R"), ("recommend", "Y")]


def test_a_red_first_game_is_announced_as_before() -> None:
    calls = announced("either", Board.empty(), Board.from_moves("4"), Board.from_moves("43"))
    assert calls == [("recommend", None), ("recommend", "Y"), ("recommend", "R")]


def test_speak_passes_the_effects_side_to_move() -> None:
    announcer = RecordingAnnouncer()
    speak(announcer, Announce(Board.empty(), SolveResult(4, 1, 41), unstarted=True))
    speak(announcer, Announce(Board.from_moves("4", "Y"), SolveResult(4, -1, 40)))
    speak(announcer, Announce(Board.from_moves("1212121", "Y"), None))
    assert announcer.calls == [("recommend", None, 4, "+", 41), ("recommend", "R", 4, "-", 40),
                               ("finished", "Y")]
    assert Announce(Board.empty("Y"), None).to_move == "Y"
    assert Announce(Board.empty("Y"), None, unstarted=True).to_move is None
