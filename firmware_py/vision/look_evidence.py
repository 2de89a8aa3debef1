"""A hole's look, and looks as evidence: one rule for scoring a look against each kind's.

A hole's *look* (:func:`~firmware_py.vision.cells.cell_features`) is the mean
CIE Lab colour of four concentric rings of its colour-normalised crop (centre,
disc body, disc rim, hole edge): 12 numbers, compared by Euclidean distance.
Pure numpy: the pipeline asks it too (:func:`familiar`). A model of what the
three kinds (empty, red disc, yellow disc) look like gives per hole and kind
a mean look and a spread: a Gaussian per feature, no spread narrower than
:data:`FLOOR_VARIANCE` (:func:`gaussian_logs`), mixed with a uniform
background (:data:`OUTLIER`: a look like no kind's, a hand, glare, gets no
opinion), tempered by :data:`WEIGHT` (the 12 numbers are far from
independent). Two models use it:

* this installation's memory of its holes (:mod:`.hole_looks`), by
  :func:`recall`: a hole that looks as one of its known looks (within its
  spread, not moved by :data:`CHANGED_DISTANCE`) is what that look was; a
  hole unlike all of them is left to the readers;
* where a hole is unfamiliar, and in the frame fit (:mod:`.frame_fit`, off
  live), by :func:`as_evidence`: capped log-evidence (:data:`CAP`) added to the
  readers' opinion.
"""

from __future__ import annotations

import numpy as np

FEATURES = 12  # a look: 4 rings x Lab (cells.cell_features)
WEIGHT = 0.25  # a look's log-likelihoods are tempered by this
CAP = 4.0  # nats: the most an unfamiliar look moves a hole between two kinds
FLOOR_VARIANCE = 9.0  # Lab units squared: no kind's look is sharper than 3 units a feature
OUTLIER = 0.05  # share of looks that belong to no kind (uniform over the Lab range)
LAB_RANGE = 256.0
FLOOR = 1e-3  # a recalled class's probability never falls below FLOOR / 3 (as combine's)
CHANGED_DISTANCE = 24.0  # Lab units (12 ring means): a look moved this far is something else
FAMILIAR_DOUBT = 3.0  # nats: a hole is taken for a known look only when its look says so


def gaussian_logs(features: np.ndarray, means: np.ndarray, variances: np.ndarray) -> np.ndarray:
    """(N, 3) log-likelihood of each hole's look (N, 12) under each kind's (N, 3, 12)
    mean and variance (floored at :data:`FLOOR_VARIANCE`)."""
    variances = np.maximum(variances, FLOOR_VARIANCE)
    residual = (np.asarray(features, np.float64)[:, None, :] - means) ** 2
    logs: np.ndarray = -0.5 * (np.log(2 * np.pi * variances) + residual / variances).sum(axis=2)
    return logs


def as_evidence(logs: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(N, 3) normalised log-evidence from log-likelihoods ``logs`` (N, 3); ``known``
    (N, 3) bools: where the model knows a kind's look at a hole (see the module)."""
    logs = np.logaddexp(np.log1p(-OUTLIER) + logs, _background())
    known = np.asarray(known, bool)
    best_known = np.where(known, logs, -np.inf).max(axis=1, keepdims=True)
    logs = np.where(known, logs, np.where(np.isfinite(best_known), best_known, 0.0))
    logs = WEIGHT * (logs - logs.max(axis=1, keepdims=True))
    logs = np.maximum(logs, -CAP)
    return logs - np.logaddexp.reduce(logs, axis=1, keepdims=True)


def _background() -> float:
    """Log-likelihood of a look under the uniform background, weighed by :data:`OUTLIER`."""
    return float(np.log(OUTLIER) - FEATURES * np.log(LAB_RANGE))


def recall(log_probs: np.ndarray, features: np.ndarray, means: np.ndarray,
           variances: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(N, 3) log-probabilities: the readers' ``log_probs`` where a hole looks unlike
    what it held before, the remembered kinds where it looks as one of them.

    ``features`` (N, 12): each hole's look now; ``means``, ``variances`` (N, 3, 12):
    each kind's remembered look at each hole; ``known`` (N, 3): where a kind's look is
    remembered. A hole is *familiar* with a known kind's look (f) by the odds of its
    look under that look's spread (floored at :data:`FLOOR_VARIANCE`) against the
    same look moved by about :data:`CHANGED_DISTANCE` (something else now stands
    there: a disc before a wall of its colour, a hand), less :data:`FAMILIAR_DOUBT`
    (a look that tells little, one whose spread is wide, is left to the readers);
    f is the best of the known kinds'. The memory's opinion m is the known kinds'
    shares among themselves (tempered by :data:`WEIGHT`). An unfamiliar hole keeps
    the readers' opinion, weighed by how the known kinds' looks compare
    (:func:`as_evidence`: capped at :data:`CAP`, no opinion between a known and an
    unknown kind); the result is (1 - f) that + f m. So a hole that looks as it did
    empty is empty whatever colour the room shows through it, a first disc at a hole
    only the empty look is known of is read by the readers alone, and a disc of a
    kind seen elsewhere on the board is told by its look as far as the looks differ.
    """
    known = np.asarray(known, bool)
    result = np.array(log_probs, np.float64, copy=True)
    rows = known.any(axis=1)  # holes with no known look keep the readers' opinion as it is
    if not rows.any():
        return result
    features = np.asarray(features, np.float64)[rows]
    means, variances = np.asarray(means)[rows], np.asarray(variances)[rows]
    same = gaussian_logs(features, means, variances)
    odds = np.where(known[rows], _familiar_odds(features, means, variances, same), -np.inf)
    familiarity = _sigmoid(odds.max(axis=1))[:, None]
    tempered = np.where(known[rows], WEIGHT * same, -np.inf)
    memory = np.exp(tempered - np.logaddexp.reduce(tempered, axis=1, keepdims=True))
    weighed = np.exp(result[rows] + as_evidence(same, known[rows]))
    weighed /= weighed.sum(axis=1, keepdims=True)
    mixed = (1.0 - familiarity) * weighed + familiarity * memory
    result[rows] = np.log((1.0 - FLOOR) * mixed + FLOOR / 3)
    return result


def familiar(features: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """(N,) True where each hole's look (N, 12) is still its earlier look ``looks``
    (N, 12), by :func:`recall`'s familiarity (the spread :data:`FLOOR_VARIANCE`: about
    13 Lab units or less), as the game filter asks of the looks of the board it follows."""
    features = np.asarray(features, np.float64)
    means = np.asarray(looks, np.float64)[:, None, :]
    variances = np.full_like(means, FLOOR_VARIANCE)
    same = gaussian_logs(features, means, variances)
    return _familiar_odds(features, means, variances, same)[:, 0] > 0.0


def _familiar_odds(features: np.ndarray, means: np.ndarray, variances: np.ndarray,
                   same: np.ndarray) -> np.ndarray:
    """(N, K) log-odds that each look is each known look (``same``: its log-likelihood)
    rather than that look moved by about :data:`CHANGED_DISTANCE`, less
    :data:`FAMILIAR_DOUBT`."""
    moved = np.maximum(variances, FLOOR_VARIANCE) + CHANGED_DISTANCE ** 2 / FEATURES
    odds: np.ndarray = same - gaussian_logs(features, means, moved) - FAMILIAR_DOUBT
    return odds


def _sigmoid(odds: np.ndarray) -> np.ndarray:
    share: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(odds, -50.0, 50.0)))
    return share
