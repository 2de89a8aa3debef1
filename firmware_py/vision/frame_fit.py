"""The board explains itself: this frame's own look of an empty hole, a red and a yellow disc.

The generic readers (:mod:`.combine`) know in advance what a disc looks like.
Within one frame the 42 holes fall into three kinds, and the rules of the
game say which arrangements are possible, so a person meeting an unfamiliar
board reads it from the board itself: "those are the discs, these the holes".
This module does the same with an EM loop over the cells' looks
(:func:`~firmware_py.vision.cells.cell_features`, 12 numbers a cell):

1. **E**: each cell's probability of each kind over the *legal* boards
   (:func:`legal_marginals`: gravity and the disc counts, summed over every
   board by a small programme over the columns), from the generic readers'
   log-probabilities plus the frame's own evidence so far;
2. **M**: each kind's look in this frame, a Gaussian per feature, fitted to
   the cells weighted by those probabilities, pulled towards the frame's
   overall look by :data:`PRIOR_CELLS` pseudo-cells;
3. the frame's evidence for cell *i* is its likelihood under each kind's look
   fitted **without cell i** (leave one out: the other 41 holes vouch for it,
   it does not vouch for itself), mixed with a uniform background
   (:data:`OUTLIER`: a look like no kind's, a hand or glare, gets no opinion);
   a kind fewer than :data:`MIN_SUPPORT` other cells show has no look in this
   frame and gets the best known kind's likelihood (a hole unlike the other
   holes is not a disc for that alone: a spare disc lying behind the board);
   cells covered by a hand are no hole of any kind and get no opinion;
   tempered and capped by the rule every model of looks shares
   (:mod:`.look_evidence`).

The result is added to the generic log-probabilities as further evidence; the
decision (:mod:`.decide`) is unchanged.
"""

from __future__ import annotations

import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.decide import STACK_DIFFS, STACKS  # one table of stacks
from firmware_py.vision.look_evidence import FLOOR_VARIANCE, as_evidence, gaussian_logs

ROUNDS = 3  # EM rounds
MIN_SUPPORT = 2.0  # cells (the one read left out) a kind needs to have a look here
PRIOR_CELLS = 2.0  # pseudo-cells of the frame's overall look in each kind's fit
MAX_DIFF = 21  # |reds - yellows| over the columns never needs more
LOWEST = -30.0  # nats: a class less probable than this counts as this (sums stay finite)


def legal_marginals(log_probs: np.ndarray) -> np.ndarray:
    """(42, 3) probability of each cell's kind over every grid with gravity and legal
    disc counts (reds minus yellows 0 or 1), each grid weighed by its probability.

    Fours are not checked (they change little here). Forward-backward over the
    columns on the count difference, each column one of 127 stacks: a column
    adds to the difference what its stacks' weights, summed by their own
    difference (-6 to 6), say, so each step is a 13-tap convolution.
    """
    stacks, diffs = STACKS, STACK_DIFFS
    log_probs = np.maximum(np.asarray(log_probs, np.float64), LOWEST)  # no underflow
    by_column = log_probs.reshape(HEIGHT, WIDTH, 3)[::-1]
    scores = by_column.transpose(1, 0, 2)[:, np.arange(HEIGHT), stacks].sum(axis=2)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))  # (7, 127), scaled
    taps = np.zeros((WIDTH, 2 * HEIGHT + 1))
    for column in range(WIDTH):
        np.add.at(taps[column], diffs + HEIGHT, weights[column])
    size = 2 * MAX_DIFF + 1
    forward = np.zeros((WIDTH + 1, size))
    forward[0, MAX_DIFF] = 1.0
    for column in range(WIDTH):
        step = np.convolve(forward[column], taps[column])[HEIGHT:HEIGHT + size]
        forward[column + 1] = step / step.sum()
    backward = np.zeros((WIDTH + 1, size))
    backward[WIDTH, MAX_DIFF:MAX_DIFF + 2] = 1.0
    for column in range(WIDTH - 1, -1, -1):
        step = np.correlate(np.pad(backward[column + 1], HEIGHT), taps[column], "valid")
        backward[column] = step / max(step.sum(), 1e-300)
    marginals = np.zeros((WIDTH, HEIGHT, 3))
    for column in range(WIDTH):
        reach = np.correlate(np.pad(backward[column + 1], HEIGHT), forward[column], "valid")
        stack_weights = weights[column] * reach[diffs + HEIGHT]
        stack_weights /= stack_weights.sum()
        for kind in range(3):
            marginals[column, :, kind] = stack_weights @ (stacks == kind)
    return marginals.transpose(1, 0, 2)[::-1].reshape(HEIGHT * WIDTH, 3)


def frame_evidence(log_probs: np.ndarray, features: np.ndarray, rounds: int = ROUNDS,
                   covered: np.ndarray | None = None) -> np.ndarray:
    """(42, 3) log-likelihoods of each cell's kind from this frame's own looks
    (normalised per cell; add them to ``log_probs``).

    ``covered`` (42 bools): cells something stands in front of (a hand, a sleeve:
    the colour reader abstains there). They are no hole of any kind: they teach
    no kind its look and get no opinion, so that a hand over several holes, whose
    cells look alike, cannot vouch for itself as a kind of disc.
    """
    features = np.asarray(features, np.float64)
    shown = np.ones(len(features), bool) if covered is None else ~np.asarray(covered, bool)
    evidence = np.zeros_like(log_probs, dtype=np.float64)
    for _ in range(rounds):
        weights = legal_marginals(log_probs + evidence) * shown[:, None]
        evidence = _leave_one_out(features, weights)
        evidence[~shown] = 0.0
    return evidence


def _leave_one_out(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each cell's tempered, capped log-likelihood of each kind, the kinds' looks
    fitted to the other cells (a Gaussian per feature, with the prior cells)."""
    mean_all = features.mean(axis=0)
    var_all = features.var(axis=0)
    means = np.zeros((len(features), 3, features.shape[1]))
    variances = np.zeros_like(means)
    support = np.zeros((len(features), 3))
    for kind in range(3):
        w = weights[:, kind][:, None]
        support[:, kind] = w.sum() - w[:, 0]  # cells of this kind, the cell itself left out
        count = w.sum() - w + PRIOR_CELLS  # (42, 1)
        first = (w * features).sum(axis=0) - w * features + PRIOR_CELLS * mean_all
        second = ((w * features ** 2).sum(axis=0) - w * features ** 2
                  + PRIOR_CELLS * (var_all + mean_all ** 2))
        means[:, kind] = first / count
        variances[:, kind] = np.maximum(second / count - means[:, kind] ** 2, 0.0) \
            + FLOOR_VARIANCE
    # a kind too few other cells show has no look in this frame: no opinion on it (a
    # hole unlike the others, spare discs behind it, is not a disc for that alone)
    return as_evidence(gaussian_logs(features, means, variances), support >= MIN_SUPPORT)
