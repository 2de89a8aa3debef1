"""Kiosk opponent mode when either colour may start: whose turn it is comes from the
board's starter, and the person may start instead while c4pi asks for its first disc.

Before, a Yellow disc on the empty board while c4pi (Red) asked for its opening was
refused as "not that column".
"""

from __future__ import annotations

import random

from c4game.board import Board
from cython_solver import Solver
from firmware_py.play.levels import PERFECT, level
from firmware_py.play.opponent import ASKING, THINKING, YOUR_MOVE, Opponent
from firmware_py.simtable.opponent import opponent_games
from firmware_py.simtable.script import Drop, Lift, Reset


def make(solver: Solver, colour: str) -> tuple[Opponent, list[tuple[str, ...]]]:
    said: list[tuple[str, ...]] = []
    opponent = Opponent(colour, level(PERFECT), lambda board, done: done(solver.analyze(board)),
                        lambda clips, key: said.append(clips), random.Random(1))
    return opponent, said


def test_the_person_may_start_with_yellow_while_c4pi_asks_as_red(solver: Solver) -> None:
    opponent, said = make(solver, "R")
    opponent.on_commit(Board.empty())
    assert opponent.state == ASKING and said == [("i-play-4",)]  # Red may start
    started = Board.from_moves("3", first="Y")  # the person starts instead, with Yellow
    opponent.on_commit(started)
    assert opponent.state == ASKING and opponent.refused == 0
    column = opponent.asked_for(started)
    assert column is not None and all(clips[0] != "wrong-column" for clips in said)
    mine = started.play(column)
    assert mine.cell(column, mine.heights[column - 1]) == "R"
    opponent.on_commit(mine)  # equal counts, Yellow started: Yellow (the person) to move
    assert opponent.state == YOUR_MOVE and opponent.message == "Your move"
    opponent.on_commit(mine.play(3))
    assert opponent.state == ASKING and opponent.asked_for(mine.play(3)) is not None


def test_whose_turn_comes_from_the_starter_not_the_disc_counts(solver: Solver) -> None:
    opponent, _ = make(solver, "Y")
    equal = Board.from_moves("44", first="Y")  # one disc each, Yellow started
    opponent.on_commit(equal)
    assert opponent.state == ASKING and opponent.asked_for(equal) is not None
    opponent, _ = make(solver, "Y")
    opponent.on_commit(Board.from_moves("44", first="R"))  # the same discs, Red started
    assert opponent.state == YOUR_MOVE
    opponent, said = make(solver, "Y")
    opponent.on_commit(Board.empty("Y"))  # [game] first = yellow: c4pi (Yellow) starts
    assert opponent.state == ASKING and said == [("i-play-4",)]


def test_a_wrong_column_of_its_own_colour_is_still_refused(solver: Solver) -> None:
    opponent, said = make(solver, "R")
    opponent.on_commit(Board.empty())
    wrong = Board.empty().play(2)  # a Red disc, not in column 4
    opponent.on_commit(wrong)
    assert opponent.state == ASKING and opponent.refused == 1
    assert said[-1] == ("wrong-column", "i-play-4")
    assert opponent.state != THINKING


def play_script(opponent: Opponent, appliance: str, yellow_first: tuple[int, ...],
                games: int) -> tuple[list[Board], list[tuple[Board, int, int | None]]]:
    """Run the simulated person's script against ``opponent``, committing every board the
    table shows as the live game filter does (an empty board under ``either``: Red to move).
    The finished games, and every drop: the board, its column, the column c4pi asked."""
    board = Board.empty()
    opponent.on_commit(board)
    finished, drops = [], []
    for action in opponent_games(random.Random(5), opponent.asked_for, appliance,
                                 think_s=(0.0, 0.0), max_wait_s=0.0, games=games,
                                 yellow_first=yellow_first):
        if isinstance(action, Drop):
            drops.append((board, action.column, opponent.asked_for(board)))
            board = board.play(action.column)
        elif isinstance(action, Reset):
            board = Board.empty(action.first)
        elif isinstance(action, Lift):
            raise AssertionError("no mistakes were asked for")
        else:
            continue
        opponent.on_commit(board if board.n_discs else Board.empty())
        finished += [board] if board.is_finished else []
    return finished, drops


def test_the_simulated_person_starts_some_games_with_yellow(solver: Solver) -> None:
    opponent, said = make(solver, "R")
    finished, drops = play_script(opponent, "R", (1, 3), games=3)
    assert [board.first for board in finished] == ["Y", "R", "Y"]
    assert opponent.refused == 0 and all(clips[0] != "wrong-column" for clips in said)
    mine = [(column, asked) for board, column, asked in drops if board.to_move == "R"]
    assert len(mine) >= 3 * 4 and all(column == asked for column, asked in mine)
    for game in finished:  # the first disc is the starter's
        assert game.cell(int(game.moves[0]), 1) == game.first
