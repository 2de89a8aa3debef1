"""Properties of the one game filter (:mod:`firmware_py.pipeline.belief`), on games
and noise drawn by Hypothesis; the truth (the script) is independent of the code.

Each frame's readers see every hole's true class at 0.9 or more, except up to two
holes where they favour a wrong class by at most 1 nat each, so no other board is
ever 2.5 nats (the threshold) ahead of the true one. Then:

* no wrong board is ever committed, however the game goes and wherever the noise
  falls (safety);
* a board that has stood for 2.2 s of quiet frames is the committed one, even when
  moves before it were too quick to see (liveness: read again after 1 s, then led
  1 s when it is no next board, e.g. seven discs after the empty board).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from c4game.board import Board
from firmware_py.pipeline.belief import BeliefParams, BeliefState
from firmware_py.vision.reading import OK, Reading
from tests.pipeline.as_read import believe

PARAMS = BeliefParams()


def frame_of(board: Board, sure: float, noise: list[tuple[int, int, float]]) -> Reading:
    """A reading of ``board``: each hole's class at ``sure``; each ``(cell, other
    class, lead)`` in ``noise`` favours that other class by ``lead`` nats."""
    classes = np.array([".RY".index(char) for char in "".join(board.grid_lines())])
    probs = np.full((42, 3), (1 - sure) / 2)
    probs[np.arange(42), classes] = sure
    for cell, shift, lead in noise:
        wrong = (classes[cell] + shift) % 3
        probs[cell] = 0.05
        probs[cell, wrong] = 0.9 * np.exp(lead) / (1 + np.exp(lead))
        probs[cell, classes[cell]] = 0.9 / (1 + np.exp(lead))
    return Reading(OK, grid=tuple(board.grid_lines()), cell_log_probs=np.log(probs))


noise_strategy = st.lists(st.tuples(st.integers(0, 41), st.integers(1, 2),
                                    st.floats(0.0, 1.0)), max_size=2)


QUIET = 22  # frames of one board without noise after which it must be committed


@settings(max_examples=80, deadline=None)
@given(moves=st.lists(st.integers(1, 7), min_size=1, max_size=10),
       holds=st.lists(st.integers(1, 26), min_size=11, max_size=11),
       sure=st.floats(0.9, 0.999),
       noises=st.lists(noise_strategy, min_size=160, max_size=160))
def test_no_wrong_board_is_committed_and_a_quiet_board_is(moves, holds, sure, noises):
    boards = [Board.empty()]
    for column in moves:
        if boards[-1].can_play(column) and not boards[-1].is_finished:
            boards.append(boards[-1].play(column))
    truths = [board for board, hold in zip(boards, holds, strict=False) for _ in range(hold)]
    state, t, quiet = BeliefState(), 0.0, 0
    for index, truth in enumerate(truths[:len(noises)]):
        state, verdict = believe(state, frame_of(truth, sure, noises[index]), t, PARAMS)
        if verdict.committed:
            recent = {tuple(b.grid_lines()) for b in truths[max(0, index - 4):index + 1]}
            assert tuple(verdict.board.grid_lines()) in recent, (index, verdict.board)
        same = index and truths[index - 1] == truth
        quiet = quiet + 1 if same and not noises[index] else (0 if noises[index] else 1)
        if quiet >= QUIET:
            assert state.committed is not None
            assert state.committed.grid_lines() == truth.grid_lines(), index
        t += 0.1
