"""Kiosk opponent mode: the state machine with scripted boards, and end to end on the
simulated camera with a scripted person who once drops the appliance's disc in the wrong
column."""

from __future__ import annotations

import random

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.play.levels import PERFECT, level
from firmware_py.play.opponent import ASKING, OVER, YOUR_MOVE, Opponent
from tests.emulation import EMULATED, fewer


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver.from_config(load_config(None).solver)


def sync_thinker(solver: Solver):
    return lambda board, done: done(solver.analyze(board))


def make(solver: Solver, colour: str = "Y", number: int = PERFECT):
    said: list[tuple[str, ...]] = []
    opponent = Opponent(colour, level(number), sync_thinker(solver),
                        lambda clips, key: said.append(clips), random.Random(1))
    return opponent, said


def test_it_asks_for_its_move_and_accepts_only_that_column(solver: Solver) -> None:
    opponent, said = make(solver)
    opponent.on_commit(Board.empty())
    assert opponent.state == YOUR_MOVE and opponent.asked_for(Board.empty()) is None
    after_person = Board.from_moves("4")
    opponent.on_commit(after_person)
    assert opponent.state == ASKING
    column = opponent.asked_for(after_person)
    assert column == 4 and said[-1] == ("i-play-4",)  # the only move that does not lose
    wrong = after_person.play(3)
    opponent.on_commit(wrong)
    assert opponent.state == ASKING and opponent.refused == 1
    assert said[-1] == ("wrong-column", "i-play-4") and "Not column 3" in opponent.message
    opponent.on_commit(after_person)  # the wrong disc taken out again
    assert opponent.state == ASKING and len(said) == 2
    opponent.on_commit(after_person.play(4))
    assert opponent.state == YOUR_MOVE and opponent.message == "Your move"


def test_it_says_who_won_once(solver: Solver) -> None:
    opponent, said = make(solver, colour="R")
    opponent.on_commit(Board.empty())
    assert opponent.asked_for(Board.empty()) == 4  # Red moves first
    finished = Board.from_moves("4455667")
    opponent.on_commit(finished)
    opponent.on_commit(finished)
    assert opponent.state == OVER and said.count(("i-win",)) == 1
    lost, said_lost = make(solver, colour="Y")
    lost.on_commit(finished)
    assert said_lost == [("you-win",)]


def test_a_weak_level_still_plays_legal_moves_only(solver: Solver) -> None:
    opponent, _ = make(solver, number=1)
    board = Board.empty()
    person = random.Random(3)
    while not board.is_finished:
        opponent.on_commit(board)
        if board.to_move == "Y":
            column = opponent.asked_for(board)
            assert column is not None and board.can_play(column)
        else:
            column = person.choice(board.legal_columns())
        board = board.play(column)


EMULATED_FRAMES = 90  # 5 a second: the wrong disc refused and lifted, the right one kept (80 do)


def test_end_to_end_on_the_simulated_camera_with_a_wrong_disc(solver: Solver) -> None:
    from firmware_py.pipeline.assemble import make_reader, params_from_config
    from firmware_py.pipeline.runtime import FrameLoop, Pipeline, SyncPort
    from firmware_py.sources.factory import sim_opponent_source

    config = load_config(None)
    opponent, said = make(solver, colour="Y", number=PERFECT)
    # A whole rendered game. Under emulation, where a read is 130 times slower, half the
    # frames a second (5 still show the wrong disc put in and taken out; 3 do not) and
    # only the game's start: the wrong disc comes with c4pi's first move.
    source = sim_opponent_source(config.camera, opponent.asked_for, "Y", fast=True, seed=2,
                                 mistakes=(fewer(2, emulated=1),), games=1,
                                 fps=fewer(10, emulated=5))
    source.open()
    committed: list[Board] = []

    def on_commit(board: Board, kind: str, t: float) -> None:
        committed.append(board)
        opponent.on_commit(board, kind, t)

    pipeline = Pipeline(params_from_config(config), SyncPort(solver), on_commit=on_commit)
    FrameLoop(source, make_reader(config, source, stored_looks=False),
              pipeline).run(fewer(4000, emulated=EMULATED_FRAMES))
    source.close()
    games = [board for board in committed if board.is_finished]
    assert games or EMULATED, f"no finished game was seen; last boards {committed[-3:]}"
    assert opponent.refused == 1
    assert sum(clips[0] == "wrong-column" for clips in said) == 1
    # Yellow's discs that stayed, in the order they came, against the columns it asked for
    kept = []
    for before, after, later in zip(committed[:-1], committed[1:], committed[2:] + [None],
                                    strict=True):
        added = [c for c in range(1, 8) if len(after.columns[c - 1]) > len(before.columns[c - 1])]
        lifted = later is not None and later.n_discs < after.n_discs and later.n_discs != 0
        if after.n_discs == before.n_discs + 1 and before.to_move == "Y" and not lifted:
            kept.append(added[0])
    asked = [int(clips[0][-1]) for clips in said if clips[0].startswith("i-play-")]
    if EMULATED:
        assert kept and kept == asked[:len(kept)], (kept, asked)
        return
    assert kept == asked
    assert said[-1] in (("i-win",), ("you-win",), ("final-draw",))


def test_a_stopped_solver_worker_leaves_the_opponent_without_an_answer_not_a_traceback(
        solver: Solver) -> None:
    """The appliance stopping while a disc is committed (the README walk's demo once
    logged a traceback there): the thinker says there is no answer."""
    from firmware_py.play.opponent import worker_thinker
    from firmware_py.worker import SolverWorker

    worker = SolverWorker(solver).start()
    worker.stop()
    answers: list[object] = []
    worker_thinker(worker, priority=0)(Board.from_moves("4"), answers.append)
    assert answers == [None]
