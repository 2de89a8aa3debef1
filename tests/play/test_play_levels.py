"""Strength levels: what each level does, measured over seeded trials."""

from __future__ import annotations

import math
import random

import pytest

from c4game.board import Board
from cython_solver import Solver
from firmware_py.play.levels import (
    LEVELS,
    PERFECT,
    choose,
    immediate_loss_score,
    immediate_win_score,
    level,
)

TRIALS = 4000


def _rate(hits: int, trials: int, expected: float) -> bool:
    """Within 4 standard deviations of a binomial rate (never flaky in practice)."""
    sigma = math.sqrt(max(expected * (1 - expected), 1e-9) / trials)
    return abs(hits / trials - expected) <= 4 * sigma + 1e-9


def test_the_scores_of_immediate_wins_and_losses_follow_the_spec() -> None:
    solver = Solver(tt_mb=16)
    win = Board.from_moves("445566")  # Red plays 3 or 7 and wins at once
    scores = solver.analyze(win)
    assert [c for c in range(1, 8) if scores[c - 1] == immediate_win_score(6)] == [3, 7]
    threat = Board.from_moves("15253")  # Red has 1-2-3: Yellow must block at 4
    scores = solver.analyze(threat)
    assert [c for c in range(1, 8) if scores[c - 1] != immediate_loss_score(5)] == [4]


@pytest.mark.parametrize("number", sorted(LEVELS))
def test_each_level_misses_an_immediate_win_as_defined(number: int) -> None:
    chosen = level(number)
    scores = [3, -2, 16, 0, -16, None, 1]  # n = 10: column 3 wins at once (16)
    rng = random.Random(number)
    missed = sum(choose(scores, 10, chosen, rng) != 3 for _ in range(TRIALS))
    # overlooked: a blind pick among the 6 playable columns still wins 1 time in 6
    assert _rate(missed, TRIALS, chosen.miss_win * 5 / 6)


@pytest.mark.parametrize("number", sorted(LEVELS))
def test_each_level_overlooks_a_forced_block_as_defined(number: int) -> None:
    chosen = level(number)
    n = 11
    loss = immediate_loss_score(n)  # every column but 5 lets the opponent win at once
    scores = [loss, loss, loss, loss, -3, loss, loss]
    rng = random.Random(100 + number)
    missed = sum(choose(scores, n, chosen, rng) != 5 for _ in range(TRIALS))
    # overlooked: a blind pick among the 7 columns, 6 of which lose
    assert _rate(missed, TRIALS, chosen.miss_block * 6 / 7)


def test_weaker_levels_give_away_more() -> None:
    scores = [-5, -1, 2, 6, 2, -1, -5]
    given_away = []
    for number in sorted(LEVELS):
        rng = random.Random(number)
        picks = [choose(scores, 12, level(number), rng) for _ in range(TRIALS)]
        given_away.append(sum(6 - scores[c - 1] for c in picks) / TRIALS)
    assert given_away[-1] == 0
    assert all(a > b for a, b in zip(given_away, given_away[1:], strict=False))


def test_perfect_play_picks_a_best_column_centre_first_and_never_an_illegal_one() -> None:
    rng = random.Random(3)
    assert choose([1, 1, None, 1, 0, -3, 1], 20, level(PERFECT), rng) == 4
    assert choose([2, 5, None, 1, 5, -3, 1], 20, level(PERFECT), rng) == 5
    for number in sorted(LEVELS):
        for _ in range(500):
            assert choose([None, 0, None, None, -2, None, 3], 35, level(number), rng) in (2, 5, 7)
    with pytest.raises(ValueError, match="full"):
        choose([None] * 7, 42, level(3), rng)
    with pytest.raises(ValueError, match="level must be 1-6"):
        level(7)
