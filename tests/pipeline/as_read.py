"""Constructed readings made as the reader makes them: its last stage applied.

A test builds a reading's evidence (log-probabilities, looks); the real reader
then weighs it against the game filter's expectation and decides the board once
(:func:`~firmware_py.vision.expectation.weigh_and_decide`). :func:`believe` does
the same before the filter weighs the frame, so a test's status and grid are
never the truth it started from but the decision on its evidence.
"""

from __future__ import annotations

from dataclasses import replace

from firmware_py.pipeline import belief
from firmware_py.pipeline.belief import BeliefParams, BeliefState, Verdict
from firmware_py.vision.expectation import weigh_and_decide
from firmware_py.vision.reading import Expectation, Reading


def as_read(reading: Reading, expectation: Expectation | None, params: BeliefParams) -> Reading:
    """``reading`` as the reader would give it under ``expectation``."""
    if not reading.found or reading.cell_log_probs is None:
        return reading
    weighed = weigh_and_decide(reading.cell_log_probs, reading.cell_looks, expectation,
                               margin=params.margin, rule=params.first)
    decision = weighed.decision
    return replace(reading, status=decision.status, grid=decision.grid, board=decision.board,
                   cell_log_probs=weighed.log_probs, cell_held=weighed.held,
                   expectation=expectation)


def believe(state: BeliefState, reading: Reading, now: float,
            params: BeliefParams) -> tuple[BeliefState, Verdict]:
    """The filter's step on ``reading`` read under ``state``'s expectation."""
    return belief.believe(state, as_read(reading, state.expectation, params), now, params)


def expecting(state: BeliefState, params: BeliefParams) -> BeliefState:
    """``state`` (built by hand) with the expectation the filter would hand the reader."""
    return replace(state, expectation=belief.expectation_of(state, params))
