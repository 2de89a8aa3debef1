"""The robot at a chosen level: a weaker column, still a well-formed, honest answer."""

from __future__ import annotations

import random

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.config import load_config
from firmware_py.play.levels import level
from firmware_py.serial_link.protocol import decode_answer
from firmware_py.serial_link.service import SerialService
from firmware_py.serial_link.transport import MemoryPort
from firmware_py.worker import SolverWorker


def _positions(count: int, seed: int) -> list[str]:
    """Random legal unfinished positions of 6-20 discs."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        board, moves = Board.empty(), ""
        for _ in range(rng.randint(6, 20)):
            if board.is_finished:
                break
            column = rng.choice(board.legal_columns())
            board, moves = board.play(column), moves + str(column)
        if not board.is_finished:
            found.append(moves)
    return found


def test_a_weak_level_answers_its_own_column_with_that_column_s_exact_outcome() -> None:
    solver = Solver.from_config(load_config(None).solver)
    if not solver.has_book:
        pytest.skip("no opening book (./setup.sh builds it)")
    reference = Solver.from_config(load_config(None).solver)
    worker = SolverWorker(solver).start()
    port = MemoryPort("robot")
    service = SerialService(lambda: port, worker, level=level(1),
                            rng=random.Random(3)).start()
    assert service.wait_connected(5)
    not_best = total = 0
    try:
        for moves in _positions(12, seed=8):
            board = Board.from_moves(moves)
            port.inject(f"!{moves}?".encode())
            sent = port.wait_sent(total + 5, timeout=60)[total:]  # ack and answer may come
            assert sent[:1] == b"!"                               # in one write
            total += 5
            assert len(sent) == 5, sent
            column, score = decode_answer(sent[1:], board.n_discs)
            assert board.can_play(column)
            scores = reference.analyze(board)
            assert score == scores[column - 1]  # the chosen column's own outcome
            not_best += score < max(s for s in scores if s is not None)
    finally:
        service.stop()
        assert worker.stop(5)
    assert not_best >= 3  # level 1 really plays weaker columns
