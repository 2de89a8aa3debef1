"""The reader's last stage (:mod:`firmware_py.vision.expectation`): the holes that still
look as the game expects are held to what they held, then the board is decided once.

The truth is built here (a grid, its looks, the readers' opinion); the decision is
checked against what the rules of the game allow, not against the code's output.
"""

from __future__ import annotations

import numpy as np

from c4game.board import Board
from firmware_py.vision.expectation import HELD_DOUBT, still_as_expected, weigh_and_decide
from firmware_py.vision.reading import OK, Expectation

LOOK = {".": 40.0, "R": 140.0, "Y": 220.0}


def evidence(grid: list[str], sure: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    cells = "".join(grid)
    probs = np.full((42, 3), (1 - sure) / 2)
    probs[np.arange(42), [".RY".index(char) for char in cells]] = sure
    looks = np.array([[LOOK[char]] * 12 for char in cells], np.float32)
    return np.log(probs), looks


def expecting(board: Board, rule: str = "either") -> Expectation:
    cells = "".join(board.grid_lines())
    _, looks = evidence(board.grid_lines())
    return Expectation(looks, np.array([".RY".index(char) for char in cells]), rule)


def test_without_an_expectation_nothing_is_held_and_the_rule_given_decides():
    board = Board.from_moves("4", first="Y")  # one yellow disc: Yellow started
    log_probs, looks = evidence(board.grid_lines())
    weighed = weigh_and_decide(log_probs, looks, None, margin=2.5, rule="red")
    assert weighed.held is None and np.array_equal(weighed.log_probs, log_probs)
    assert weighed.decision.status != OK  # Red must start: a lone yellow is refused
    assert weighed.decision.board is None


def test_the_expectations_rule_decides_not_the_readers():
    board = Board.from_moves("4", first="Y")
    log_probs, looks = evidence(board.grid_lines())
    weighed = weigh_and_decide(log_probs, looks, expecting(Board.empty(), rule="yellow"),
                               margin=2.5, rule="red")
    assert weighed.decision.status == OK and weighed.decision.board.first == "Y"


def test_a_hole_that_still_looks_as_expected_is_held_to_what_it_held():
    before = Board.from_moves("44")
    log_probs, looks = evidence(before.grid_lines())
    red_wall = 3  # top row, column 4: the readers see red through an empty hole
    log_probs[red_wall] = np.log([0.02, 0.97, 0.01])
    weighed = weigh_and_decide(log_probs, looks, expecting(before), margin=2.5, rule="either")
    assert weighed.held.all()
    assert weighed.decision.status == OK and weighed.decision.grid == tuple(before.grid_lines())
    assert np.argmax(weighed.log_probs[red_wall]) == 0


def test_a_changed_look_is_not_held_and_readers_very_sure_overrule_a_held_hole():
    before = Board.from_moves("44")
    after = before.play(3)
    log_probs, looks = evidence(after.grid_lines())
    weighed = weigh_and_decide(log_probs, looks, expecting(before), margin=2.5, rule="either")
    landed = 5 * 7 + 2  # the new disc's hole: its look changed
    assert not weighed.held[landed] and weighed.held.sum() == 41
    assert weighed.decision.grid == tuple(after.grid_lines())
    # an unchanged hole the readers are far more than 1 / HELD_DOUBT sure of
    sure = np.log([1e-6, 1 - 2e-6, 1e-6])
    log_probs, looks = evidence(before.grid_lines())
    log_probs[landed] = sure
    weighed = weigh_and_decide(log_probs, looks, expecting(before), margin=2.5, rule="either")
    assert -np.log(HELD_DOUBT) < sure[1] - sure[0]
    assert weighed.decision.grid == tuple(after.grid_lines())


def test_holes_with_no_expected_look_are_never_held():
    expectation = expecting(Board.empty())
    expectation.looks[10:20] = np.nan
    _, looks = evidence(Board.empty().grid_lines())
    still = still_as_expected(looks, expectation)
    assert not still[10:20].any() and still[:10].all() and still[20:].all()


def test_a_hole_the_expectation_does_not_hold_is_compared_only():
    """``hold`` leaves a hole out: whether it still looks as expected is reported, and
    the readers' own evidence there stands (the game filter compares a disc seen before
    the first board without making the readers surer of it)."""
    before = Board.from_moves("44")
    log_probs, looks = evidence(before.grid_lines())
    red_wall = 3
    log_probs[red_wall] = np.log([0.02, 0.97, 0.01])
    expected = expecting(before)
    hold = np.ones(42, bool)
    hold[red_wall] = False
    compared = Expectation(expected.looks, expected.classes, expected.rule, hold)
    weighed = weigh_and_decide(log_probs, looks, compared, margin=2.5, rule="either")
    assert weighed.held.all()  # every hole still looks as expected ...
    assert np.argmax(weighed.log_probs[red_wall]) == 1  # ... the one not held stays red
    assert np.allclose(weighed.log_probs[red_wall], log_probs[red_wall])
