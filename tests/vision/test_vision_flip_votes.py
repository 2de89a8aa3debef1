"""Flip votes and the same-frame context of the reader, driven by a scripted
classifier on a rendered frame.

The scripted classifier answers each call with the next logits of its script
and records the batches it was given, so the tests see how many views the
reader asked for, what those views were and what it made of the answers.
"""

from __future__ import annotations

import numpy as np
import pytest

from firmware_py.board import Board
from firmware_py.config import VisionConfig
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.render import RenderSpec, render_frame

MOVES = "4453343"  # from the bottom: column 3 Y R R, column 4 R Y Y, column 5 R


class ScriptedClassifier:
    """Returns scripted logits call after call; keeps every batch it saw."""

    def __init__(self, script: list[np.ndarray]) -> None:
        self.script = list(script)
        self.batches: list[np.ndarray] = []

    def logits(self, batch: np.ndarray) -> np.ndarray:
        self.batches.append(np.array(batch))
        return self.script[len(self.batches) - 1]


def cell(column: int, row: int) -> int:
    """Index (top row first) of a cell given 1-based column and row from the bottom."""
    return (6 - row) * 7 + (column - 1)


def logits(grid: list[str], changes: dict[int, tuple[float, float, float]] | None = None
           ) -> np.ndarray:
    """Confident logits for ``grid``, with some cells' probabilities replaced."""
    probs = np.full((42, 3), 0.005)
    for index, char in enumerate("".join(grid)):
        probs[index, CLASSES.index(char)] = 0.99
    for index, values in (changes or {}).items():
        probs[index] = values
    return np.log(probs)


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return render_frame(Board.from_moves(MOVES), RenderSpec(), seed=7_900)


@pytest.fixture(scope="module")
def grid() -> list[str]:
    return Board.from_moves(MOVES).grid_lines()


def reader_with(script: list[np.ndarray], **options: bool | float) -> BoardReader:
    """A reader of ``script``; the same-frame context is off unless asked for (the
    flip-vote tests look at the votes alone, the context has its own test)."""
    options.setdefault("context_check", False)
    return BoardReader(ScriptedClassifier(script), **options)


def test_a_doubtful_cell_takes_the_mean_of_four_views(frame: np.ndarray,
                                                      grid: list[str]) -> None:
    top = cell(4, 4)  # empty, above column 4: yellow there would be legal too
    doubtful = logits(grid, {top: (0.5, 0.05, 0.45)})
    sure = logits(grid)
    reader = reader_with([doubtful, sure, sure, sure])
    analysis = reader.analyse(frame)
    batches = reader.classifier.batches
    assert len(batches) == 4
    np.testing.assert_array_equal(batches[1], batches[0][:, :, ::-1])
    np.testing.assert_array_equal(batches[2], batches[0][:, ::-1])
    np.testing.assert_array_equal(batches[3], batches[0][:, ::-1, ::-1])
    one = np.exp(doubtful[top]) / np.exp(doubtful[top]).sum()
    three = np.exp(sure[top]) / np.exp(sure[top]).sum()
    np.testing.assert_allclose(analysis.probabilities[top], (one + 3 * three) / 4, rtol=1e-6)
    others = np.arange(42) != top
    np.testing.assert_allclose(analysis.probabilities[others],
                               np.exp(sure[others]) / np.exp(sure[others]).sum(1, keepdims=True))
    assert analysis.reading.status == "ok"
    assert list(analysis.reading.grid) == grid


def test_without_flip_votes_the_doubtful_frontier_stays_invalid(frame: np.ndarray,
                                                                grid: list[str]) -> None:
    doubtful = logits(grid, {cell(4, 4): (0.5, 0.05, 0.45)})
    reader = reader_with([doubtful], flip_votes=False)
    reading = reader.read(frame)
    assert len(reader.classifier.batches) == 1
    assert reading.status == "invalid"


def test_a_confident_frame_is_classified_once(frame: np.ndarray, grid: list[str]) -> None:
    reader = reader_with([logits(grid)])
    assert reader.read(frame).status == "ok"
    assert len(reader.classifier.batches) == 1


def test_votes_that_break_gravity_are_settled_by_the_rules(frame: np.ndarray,
                                                           grid: list[str]) -> None:
    covered = cell(4, 2)  # yellow, under two discs
    first = logits(grid, {covered: (0.6, 0.001, 0.4)})
    flipped = logits(grid, {covered: (0.94, 0.001, 0.06)})
    reader = reader_with([first, flipped, flipped, flipped])
    analysis = reader.analyse(frame)
    assert analysis.probabilities[covered].argmax() == 0  # the votes say empty, confidently
    assert analysis.reading.status == "ok", analysis.reading.reason
    assert list(analysis.reading.grid) == grid


def test_votes_never_settle_against_the_rules_when_two_readings_remain(
        frame: np.ndarray, grid: list[str]) -> None:
    top = cell(5, 1)  # the only disc of column 5 (red): empty and red are both legal
    first = logits(grid, {top: (0.5, 0.45, 0.05)})
    flipped = logits(grid, {top: (0.3, 0.65, 0.05)})
    reader = reader_with([first, flipped, flipped, flipped])
    reading = reader.read(frame)
    assert reading.status == "invalid"


def test_the_config_switches_the_votes_off() -> None:
    assert BoardReader.from_config(VisionConfig()).flip_votes
    assert not BoardReader.from_config(VisionConfig(flip_votes=False)).flip_votes


def test_a_shaky_frontier_cell_gets_the_four_views(frame: np.ndarray, grid: list[str]) -> None:
    # Column 5's only disc (red) read empty at 0.9: above the frontier bound,
    # so one view alone would accept a legal-looking wrong grid. The flipped
    # views disagree, the mean falls below the bound and the rules cannot
    # choose between red and empty there: invalid, not a wrong ok.
    top = cell(5, 1)
    first = logits(grid, {top: (0.9, 0.09, 0.01)})
    flipped = logits(grid, {top: (0.4, 0.59, 0.01)})
    reader = reader_with([first, flipped, flipped, flipped])
    analysis = reader.analyse(frame)
    assert len(reader.classifier.batches) == 4
    assert analysis.probabilities[top][0] == pytest.approx((0.9 + 3 * 0.4) / 4, rel=1e-6)
    assert analysis.reading.status == "invalid"
    single = reader_with([first], frontier_vote_confidence=0.85)
    wrong = single.read(frame)
    assert len(single.classifier.batches) == 1
    assert wrong.status == "ok" and list(wrong.grid) != grid  # what the votes prevent


def test_a_sure_frontier_and_a_shaky_inner_cell_are_not_voted(frame: np.ndarray,
                                                              grid: list[str]) -> None:
    covered = cell(4, 2)  # yellow under two discs: not on the frontier
    reader = reader_with([logits(grid, {covered: (0.05, 0.04, 0.91)})])
    assert reader.read(frame).status == "ok"
    assert len(reader.classifier.batches) == 1


def test_the_config_sets_the_frontier_vote_bound() -> None:
    reader = BoardReader.from_config(VisionConfig(frontier_vote_confidence=0.9))
    assert reader.frontier_vote_confidence == 0.9


def test_the_config_switches_the_context_off() -> None:
    assert BoardReader.from_config(VisionConfig()).context_check
    assert not BoardReader.from_config(VisionConfig(context_check=False)).context_check


def test_the_reader_reports_the_context_class_and_stays_invalid(grid: list[str]) -> None:
    # In this frame column 5's only disc (red; empty would be legal as well)
    # looks like the other red discs, far more than like any empty hole.
    frame = render_frame(Board.from_moves(MOVES), RenderSpec(), seed=7_901)
    top = cell(5, 1)
    doubtful = logits(grid, {top: (0.55, 0.44, 0.01)})
    script = [doubtful] * 4
    with_context = reader_with(script, context_check=True).read(frame)
    assert list(with_context.grid) == grid
    assert with_context.status == "invalid"  # two legal grids: never ok on context alone
    without = reader_with(script).read(frame)
    assert list(without.grid) != grid and without.grid[5][4] == "."
