"""Looks as evidence: one rule for scoring a hole's look against each kind's look.

A hole's *look* is the 12 numbers of
:func:`~firmware_py.vision.empty_board.cell_features`. A model of what the
three kinds (empty, red disc, yellow disc) look like, whether fitted to one
frame (:mod:`.frame_fit`) or learnt from the boards this installation
followed (:mod:`.board_looks`), gives per hole and kind a mean look and a
spread; this module turns them into log-evidence the reader adds to the
generic readers' opinion:

* a Gaussian per feature, no spread narrower than :data:`FLOOR_VARIANCE`;
* mixed with a uniform background (:data:`OUTLIER`): a look like no kind's
  (a hand, glare, a new object behind the hole) gets no opinion;
* a kind the model does not know at a hole gets the best known kind's
  likelihood: no opinion between them (a hole unlike every known look is not
  a disc for that alone);
* tempered by :data:`WEIGHT` (the 12 numbers are far from independent) and
  capped at :data:`CAP` nats between two kinds.
"""

from __future__ import annotations

import numpy as np

WEIGHT = 0.25  # a look's log-likelihoods are tempered by this
CAP = 4.0  # nats: the most a look moves a hole between two kinds
FLOOR_VARIANCE = 9.0  # Lab units squared: no kind's look is sharper than 3 units a feature
OUTLIER = 0.05  # share of looks that belong to no kind (uniform over the Lab range)
LAB_RANGE = 256.0


def gaussian_logs(features: np.ndarray, means: np.ndarray, variances: np.ndarray) -> np.ndarray:
    """(N, 3) log-likelihood of each hole's look (N, 12) under each kind's (N, 3, 12)
    mean and variance (floored at :data:`FLOOR_VARIANCE`)."""
    variances = np.maximum(variances, FLOOR_VARIANCE)
    residual = (np.asarray(features, np.float64)[:, None, :] - means) ** 2
    return -0.5 * (np.log(2 * np.pi * variances) + residual / variances).sum(axis=2)


def as_evidence(logs: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(N, 3) normalised log-evidence from log-likelihoods ``logs`` (N, 3); ``known``
    (N, 3) bools: where the model knows a kind's look at a hole (see the module)."""
    features = 12
    logs = np.logaddexp(np.log1p(-OUTLIER) + logs,
                        np.log(OUTLIER) - features * np.log(LAB_RANGE))
    known = np.asarray(known, bool)
    best_known = np.where(known, logs, -np.inf).max(axis=1, keepdims=True)
    logs = np.where(known, logs, np.where(np.isfinite(best_known), best_known, 0.0))
    logs = WEIGHT * (logs - logs.max(axis=1, keepdims=True))
    logs = np.maximum(logs, -CAP)
    return logs - np.logaddexp.reduce(logs, axis=1, keepdims=True)
