"""The doubt from this frame's own looks (firmware_py/vision/frame_doubt.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tools.train.real_composites as rc
from firmware_py.vision.decide import DEFAULT_MARGIN, decide
from firmware_py.vision.frame_doubt import ALIKE, NOT_DOUBTED, doubt
from firmware_py.vision.reading import cell_name
from firmware_py.vision.remedy import remedy
from tests.vision.conftest import random_board
from tools.shared_data import missing_reason

EMPTY_LOOK, RED_LOOK, YELLOW_LOOK = 40.0, 120.0, 200.0


def _frame(kinds: list[int], rng: np.random.Generator, spread: float = 2.0) -> np.ndarray:
    """(42, 12) looks: each hole's kind's look plus noise."""
    looks = np.array([EMPTY_LOOK, RED_LOOK, YELLOW_LOOK])[kinds]
    return looks[:, None] + rng.normal(0.0, spread, size=(42, 12))


def _read(kinds: list[int], sure: float = 0.98) -> np.ndarray:
    other = (1.0 - sure) / 2
    probs = np.full((42, 3), other)
    probs[np.arange(42), kinds] = sure
    return np.log(probs)


def _kinds(grid: list[str]) -> list[int]:
    return [".RY".index(char) for line in grid for char in line]


GRID = [".......", ".......", ".......", "...Y...", "..RR...", ".RYYR.."]
LONE_RED = 36  # row 5 column 1: the only disc of its column


def test_a_hole_read_empty_that_looks_like_the_sure_red_discs_ties_with_red() -> None:
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(1))
    misread = LONE_RED
    log_probs = _read(kinds)
    log_probs[misread] = np.log([0.95, 0.04, 0.01])  # the readers call it empty
    doubted = doubt(log_probs, features)
    assert doubted.looks_like[misread] == 1
    assert np.isclose(doubted.log_probs[misread, 0], doubted.log_probs[misread, 1])
    assert np.allclose(np.exp(doubted.log_probs).sum(axis=1), 1.0)
    assert doubted.note(misread) == "looks like this frame's red discs"
    others = np.arange(42) != misread
    assert np.all(doubted.looks_like[others] == NOT_DOUBTED)
    assert np.allclose(doubted.log_probs[others], log_probs[others])
    assert decide(log_probs, DEFAULT_MARGIN, rule="either").status == "ok"  # read without the disc
    assert decide(doubted.log_probs, DEFAULT_MARGIN, rule="either").status == "invalid"


ORANGE_LOOK = 160.0  # between the red and the yellow discs' looks


def test_two_discs_alike_read_in_two_colours_both_tie() -> None:
    """Two orange discs alone on the board, one read red and one yellow: the readers
    contradict themselves, and neither colour is taken."""
    grid = [".......", ".......", ".......", ".......", ".......", "....R.Y"]
    kinds = _kinds(grid)
    features = _frame([0] * 42, np.random.default_rng(3))
    left, right = 39, 41
    features[[left, right]] = ORANGE_LOOK + np.random.default_rng(4).normal(0, 2, (2, 12))
    log_probs = _read(kinds)
    log_probs[left], log_probs[right] = np.log([0.01, 0.9, 0.09]), np.log([0.04, 0.1, 0.86])
    doubted = doubt(log_probs, features)
    assert doubted.looks_like[left] == 2 and doubted.looks_like[right] == 1
    assert np.isclose(doubted.log_probs[left, 1], doubted.log_probs[left, 2])
    assert np.isclose(doubted.log_probs[right, 1], doubted.log_probs[right, 2])
    assert doubted.note(left) == "looks like this frame's discs read yellow"
    assert doubted.note(right) == "looks like this frame's discs read red"
    assert doubted.log_probs[right].argmax() == 2  # what was read is still what is seen
    others = ~np.isin(np.arange(42), [left, right])
    assert np.allclose(doubted.log_probs[others], log_probs[others])
    assert decide(log_probs, DEFAULT_MARGIN, rule="either").status == "ok"
    assert decide(doubted.log_probs, DEFAULT_MARGIN, rule="either").status == "invalid"


def test_a_disc_nearer_its_own_colour_than_the_other_is_not_doubted() -> None:
    kinds = _kinds(GRID)
    rng = np.random.default_rng(5)
    features = _frame(kinds, rng)
    reds = [i for i, kind in enumerate(kinds) if kind == 1]
    features[reds[0]] = YELLOW_LOOK - 25.0 / np.sqrt(12)  # 25 from the yellows: alike,
    features[reds[1]] = YELLOW_LOOK - 30.0 / np.sqrt(12)  # but 5 from another red
    doubted = doubt(_read(kinds), features)
    assert np.all(doubted.looks_like == NOT_DOUBTED)
    features[reds[1]] = RED_LOOK  # now its nearest red is far: the yellows are nearer
    assert doubt(_read(kinds), features).looks_like[reds[0]] == 2


def test_a_hole_read_as_a_disc_that_looks_like_the_empty_holes_is_not_doubted() -> None:
    """Only a hole read empty is doubted (a disc seen is never deleted): a disc that
    looks like the empty holes (a yellow disc beside a beige wall seen through them)
    stays as the readers read it."""
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(6))
    features[LONE_RED] = EMPTY_LOOK
    doubted = doubt(_read(kinds), features)
    assert np.all(doubted.looks_like == NOT_DOUBTED)
    assert np.allclose(doubted.log_probs, _read(kinds))


def test_holes_like_their_own_kind_or_unlike_every_kind_are_not_doubted() -> None:
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(3))
    features[0] = 500.0  # a hole unlike every other: left to the readers
    doubted = doubt(_read(kinds), features)
    assert np.all(doubted.looks_like == NOT_DOUBTED)
    assert doubted.note(0) == ""


def test_a_look_between_two_kinds_is_not_doubted() -> None:
    """Only a look within ALIKE of a sure disc and at most NEARER times as far from it as
    from the nearest sure empty hole is doubted."""
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(4), spread=0.5)
    features[35] = (EMPTY_LOOK + RED_LOOK) / 2  # read empty, halfway to red
    assert doubt(_read(kinds), features).looks_like[35] == NOT_DOUBTED
    features[35] = RED_LOOK - ALIKE / np.sqrt(12) * 1.2  # alike red by more than ALIKE
    assert doubt(_read(kinds), features).looks_like[35] == NOT_DOUBTED
    features[35] = RED_LOOK - 20.0 / np.sqrt(12)  # 20 from the red discs: doubted ...
    assert doubt(_read(kinds), features).looks_like[35] == 1
    features[0] = RED_LOOK - 50.0 / np.sqrt(12)  # ... unless a sure empty hole is 30 away
    assert doubt(_read(kinds), features).looks_like[35] == NOT_DOUBTED


def test_only_holes_read_surely_are_examples_of_their_kind() -> None:
    """A hole read empty that looks like discs the readers are not sure of (below SURE)
    is not doubted."""
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(7))
    log_probs = _read(kinds)
    log_probs[LONE_RED] = np.log([0.95, 0.04, 0.01])
    assert doubt(log_probs, features).looks_like[LONE_RED] == 1
    unsure = _read(kinds, sure=0.85)
    unsure[LONE_RED] = np.log([0.95, 0.04, 0.01])
    assert doubt(unsure, features).looks_like[LONE_RED] == NOT_DOUBTED


def test_covered_holes_are_no_examples_and_are_never_doubted() -> None:
    kinds = _kinds(GRID)
    features = _frame(kinds, np.random.default_rng(5))
    hand = [0, 1, 2]
    features[hand] = RED_LOOK  # a hand in a red sleeve over empty holes
    covered = np.zeros(42, bool)
    covered[hand] = True
    doubted = doubt(_read(kinds), features, covered)
    assert np.all(doubted.looks_like == NOT_DOUBTED)
    assert np.allclose(doubted.log_probs, _read(kinds))
    reds = [index for index, kind in enumerate(kinds) if kind == 1 and index != LONE_RED]
    features = _frame(kinds, np.random.default_rng(5))
    log_probs = _read(kinds)
    log_probs[LONE_RED] = np.log([0.95, 0.04, 0.01])  # read empty, looks like the reds
    covered = np.zeros(42, bool)
    covered[reds] = True  # ... which a hand covers: no examples
    assert doubt(log_probs, features, covered).looks_like[LONE_RED] == NOT_DOUBTED
    covered[reds[0]] = False
    assert doubt(log_probs, features, covered).looks_like[LONE_RED] == 1


@pytest.mark.parametrize("margin", [2.0, DEFAULT_MARGIN])  # [vision] accept_margin's lowest
def test_the_doubt_never_makes_a_board_read_that_was_not_read_before(margin: float) -> None:
    """Sureness is only taken away: on random legal boards whose holes sometimes look
    like another kind and whose readers are sometimes wrong, a board accepted after the
    doubt was accepted before it with the same grid (so an illegal board is never made
    legal and no disc seen is deleted by it); and the doubt does refuse boards read
    wrong before it."""
    refused_wrong = doubted_frames = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        truth_grid = random_board(rng).grid_lines()
        truth = _kinds(truth_grid)
        looks = np.array(truth)
        swapped = rng.random(42) < 0.05  # a hole that looks like another kind
        looks[swapped] = (looks[swapped] + rng.integers(1, 3, swapped.sum())) % 3
        features = _frame(list(looks), rng, spread=float(rng.uniform(1.0, 12.0)))
        read = np.array(truth)
        misread = rng.random(42) < 0.04  # the readers sure of the wrong kind
        read[misread] = looks[misread] if rng.random() < 0.5 else (read[misread] + 1) % 3
        log_probs = _read(list(read), sure=float(rng.uniform(0.9, 0.999)))
        doubted = doubt(log_probs, features)
        doubted_frames += bool((doubted.looks_like != NOT_DOUBTED).any())
        for rule in ("red", "either"):
            before = decide(log_probs, margin, rule=rule)
            after = decide(doubted.log_probs, margin, rule=rule)
            if after.status in ("ok", "finished"):
                assert (before.status, before.grid) == (after.status, after.grid), seed
                assert np.all(doubted.looks_like == NOT_DOUBTED), seed  # a tie: refused
            refused_wrong += (before.status in ("ok", "finished")
                              and list(before.grid) != truth_grid and after.status == "invalid")
    assert refused_wrong > 0 and doubted_frames > 20


def test_the_sweep_counts_boards_read_right_refused_and_wrong_boards_caught() -> None:
    """tools/bench/frame_doubt.py's sweep, on frames built by hand."""
    from tools.bench.frame_doubt import Frame, sweep

    far = np.full(42, 100.0)
    misread = np.zeros(42, bool)
    misread[5] = True
    near_other = far.copy()
    near_other[5] = 10.0  # the misread hole: 10 from another kind, 100 from its own
    right_but_alike = far.copy()
    right_but_alike[7] = 25.0
    frames = [Frame(False, True, misread, far, near_other),
              Frame(True, False, np.zeros(42, bool), far, right_but_alike),
              Frame(True, False, np.zeros(42, bool), far, far)]
    rows = sweep(frames, [20.0, 30.0], [0.5])
    json.dumps(rows)  # printed as JSON by the bench: plain numbers only
    assert rows == [{"alike": 20.0, "nearer": 0.5, "right_refused": 0, "wrong_caught": 1,
                     "wrong": 1},
                    {"alike": 30.0, "nearer": 0.5, "right_refused": 1, "wrong_caught": 1,
                     "wrong": 1}]


LABELS = rc.real_dev_dir() / "labels.jsonl"


@pytest.mark.skipif(not LABELS.is_file(), reason=missing_reason(LABELS))
@pytest.mark.parametrize("seed", [20_111, 20_195])
def test_a_pink_disc_both_readers_call_empty_is_refused_not_deleted(reader, seed: int) -> None:
    """Two frames of the benchmark's pink and orange restyles (``tools/bench/vision.py
    --sources look-orange-pink``, seeds 20,000+, whose frame ``seed`` is of the
    turquoise board): a pink disc both readers call empty, the board without it read as
    ok before the doubt. With it the board is refused, naming the hole of that disc."""
    from tools.bench.vision_sources import appearance_frame

    grid, _, frame, board = appearance_frame(rc.default_composer(), seed - 20_000, 20_000,
                                             "orange-pink")
    assert board == "zam"
    before = reader.frame_doubt
    try:
        reader.frame_doubt = False
        undoubted = reader.read(frame)
        reader.frame_doubt = True
        reading = reader.read(frame)
    finally:
        reader.frame_doubt = before
    assert undoubted.status == "ok" and list(undoubted.grid) != grid  # the wrong board
    assert reading.status == "invalid"
    missing = [cell_name(row * 7 + column) for row, line in enumerate(grid)
               for column, char in enumerate(line) if undoubted.grid[row][column] != char]
    assert len(missing) == 1 and missing[0] in reading.reason
    assert "looks like this frame's red discs" in reading.reason
    assert "c4pi calibrate --discs" in remedy(reading.status, reading.reason)  # README's


@pytest.mark.skipif(not LABELS.is_file(), reason=missing_reason(LABELS))
def test_two_orange_discs_read_as_a_red_and_a_yellow_are_refused(reader) -> None:
    """A fresh illegal board of the pink and orange restyles (``tools/bench/vision.py
    --sources look-illegal-orange-pink --seed-base 30000``, frame 131): two orange
    discs, Yellow and Yellow, 14 apart in look; the readers call one red (0.90), so the
    legal Red-and-Yellow board was read. Discs alike are one colour: refused, naming the
    disc read red."""
    from tools.bench.vision_sources import appearance_frame

    grid, _, frame, _ = appearance_frame(rc.default_composer(), 131, 30_000, "orange-pink",
                                         illegal=True)
    assert grid[-1] == "....Y.Y" and all(line == "......." for line in grid[:-1])
    reading = reader.read(frame)
    assert reading.status == "invalid"
    assert "column 5 row 1" in reading.reason  # the disc read red, like the yellow one
    assert "looks like this frame's discs read yellow" in reading.reason
    assert "c4pi calibrate --discs" in remedy(reading.status, reading.reason)
    assert "read as two colours" in remedy(reading.status, reading.reason)
