"""Weigh a frame against what the game expects, then decide: the reader's last stage.

The game filter (:mod:`firmware_py.pipeline.belief`) hands the reader, with
each frame, an :class:`~firmware_py.vision.reading.Expectation`: each hole's
look when the filter last knew what it held, and what it held. A hole whose
look is still that look (:func:`~firmware_py.vision.look_evidence.familiar`)
is **held** to its class: a prior of 1 - 2 :data:`HELD_DOUBT` on it (the other
classes :data:`HELD_DOUBT` each), so only readers more than 6.9 nats sure of
another class overrule it. A red wall seen through an empty hole stays empty;
an unchanged disc stays.

The decision (:func:`~firmware_py.vision.decide.decide`) is then made once, on
the held evidence, under the expectation's rule of who may have started: so
a board read again in a live game is the most probable legal board of that
game, with the holes nobody touched as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from firmware_py.vision.decide import Decision, decide
from firmware_py.vision.look_evidence import familiar
from firmware_py.vision.reading import CLASSES, Expectation

HELD_DOUBT = 1e-3  # a held hole's doubt about the class it is held to


@dataclass(frozen=True)
class Weighed:
    """The frame's evidence after the expectation, and the decision made on it."""

    log_probs: np.ndarray  # (42, 3)
    held: np.ndarray | None  # (42,) bools: still as expected; None: no expectation or looks
    decision: Decision


def weigh_and_decide(log_probs: np.ndarray, features: np.ndarray | None,
                     expectation: Expectation | None, *, margin: float, rule: str,
                     explain: Callable[[int], str] | None = None) -> Weighed:
    """Hold the holes that look as ``expectation`` says (none without one, or without
    ``features``), then decide under the expectation's rule (``rule`` without one)."""
    holes = None
    if expectation is not None:
        rule = expectation.rule
        if features is not None:
            holes = still_as_expected(features, expectation)
            kept = holes if expectation.hold is None else holes & expectation.hold
            log_probs = held(log_probs, expectation.classes, kept)
    return Weighed(log_probs, holes, decide(log_probs, margin, explain=explain, rule=rule))


def still_as_expected(features: np.ndarray, expectation: Expectation) -> np.ndarray:
    """(42,) True where a hole has an expected look and still looks so."""
    known = ~np.isnan(expectation.looks[:, 0])
    still: np.ndarray = known & familiar(features, np.nan_to_num(expectation.looks))
    return still


def held(log_probs: np.ndarray, classes: np.ndarray, holes: np.ndarray) -> np.ndarray:
    """``log_probs`` with a prior on each of ``holes`` for its class in ``classes``
    (1 - 2 :data:`HELD_DOUBT`; the others :data:`HELD_DOUBT` each)."""
    prior = np.full((len(classes), len(CLASSES)), np.log(HELD_DOUBT))
    prior[np.arange(len(classes)), classes] = np.log(1 - 2 * HELD_DOUBT)
    result = np.array(log_probs, np.float64, copy=True)
    result[holes] += prior[holes]
    result[holes] -= np.logaddexp.reduce(result[holes], axis=1, keepdims=True)
    return result
