"""Same-frame context for doubtful cells.

The classifier sees one cell at a time. A human reading a doubtful cell
compares it with the rest of the board: a red disc washed pink by glare, or
seen against a red backdrop, still looks like the frame's other red discs.
This module does that comparison for the cells the classifier is unsure of.

Each cell is described by the mean CIE Lab colour of four concentric rings of
its crop (centre, disc body, disc rim, hole edge: 12 numbers; the rings keep
apart a disc, which fills the hole, and a backdrop, which the hole's edge
shadows). The *references* are the cells the classifier is sure of
(>= ``sure``), grouped by class. A doubtful cell (< ``query_below``) that
is close to a reference of another class (distance < ``max_distance``) and
much closer to it than to any reference of its own class (distance ratio <
``max_ratio``) gets that class as its most probable one, and only weakly:
its probabilities become the mean of the classifier's and that class's
one-hot vector. Since the new class had at most half of the classifier's
probability, the cell ends at 0.5-0.75, below the frontier bound: it is
doubtful, so the rules of :mod:`firmware_py.vision.postprocess` settle it
(only when exactly one legal grid remains) or reject the frame. The context
changes which grid a doubtful frame reports, and can make doubtful a cell
the classifier was wrongly fairly sure of (0.85-0.9); it never makes a
frame ``ok`` by itself. A cell whose own class has no reference in the frame is
left alone (nothing to compare with).

Bounds chosen on 2,000 development frames (seeds 52,000-53,999): of the
doubtful cells below 0.9, 18 that the classifier got wrong are changed to
their true class and none that it got right; at a ratio of 0.3 without the
distance bound, one right cell was changed, and three on another 1,000
frames: glare-whitened red discs that looked like pale backdrops (see
``docs/vision.md``).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

FEATURE_SIDE = 32  # crops are compared at half resolution (the reader's warp)
RING_EDGES = (5.0, 9.0, 13.0)  # ring radii in px of the 32 x 32 crop


@functools.cache
def _ring_weights() -> np.ndarray:
    """(S*S, 4) weights: column r averages the pixels of ring r."""
    centre = (FEATURE_SIDE - 1) / 2
    yy, xx = np.mgrid[0:FEATURE_SIDE, 0:FEATURE_SIDE]
    radius = np.hypot(yy - centre, xx - centre).ravel()
    edges = (0.0, *RING_EDGES, np.inf)
    rings = np.stack([(radius >= lo) & (radius < hi)
                      for lo, hi in zip(edges, edges[1:], strict=False)], axis=1)
    return (rings / rings.sum(axis=0)).astype(np.float32)


def ring_features(crops: np.ndarray) -> np.ndarray:
    """(N, 12) mean Lab colour of four rings of each BGR crop (N, S, S, 3) uint8."""
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise ValueError(f"expected (N, S, S, 3) uint8 crops, got {crops.shape} {crops.dtype}")
    if crops.shape[1:3] != (FEATURE_SIDE, FEATURE_SIDE):
        crops = np.array([cv2.resize(crop, (FEATURE_SIDE, FEATURE_SIDE),
                                     interpolation=cv2.INTER_AREA) for crop in crops])
    count = len(crops)
    lab = cv2.cvtColor(crops.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)
    channels = lab.reshape(count, FEATURE_SIDE * FEATURE_SIDE, 3).transpose(0, 2, 1)
    rings = channels.reshape(count * 3, -1).astype(np.float32) @ _ring_weights()
    return rings.reshape(count, 3, -1).transpose(0, 2, 1).reshape(count, -1)


def context_classes(crops: np.ndarray, probabilities: np.ndarray, *, query_below: float = 0.9,
                    sure: float = 0.95, max_ratio: float = 0.15,
                    max_distance: float = 25.0) -> dict[int, int]:
    """Cell index → class for the doubtful cells whose context says another class."""
    probs = np.asarray(probabilities)
    confidence = probs.max(axis=1)
    labels = probs.argmax(axis=1)
    queries = np.flatnonzero(confidence < query_below)
    if not queries.size:
        return {}
    features = ring_features(crops)
    gaps = features[queries, None, :] - features[None, :, :]
    distances = np.sqrt((gaps * gaps).sum(axis=2))           # (queries, cells)
    distances[np.arange(queries.size), queries] = np.inf      # never its own reference
    nearest = np.full((queries.size, probs.shape[1]), np.inf)
    for label in range(probs.shape[1]):
        references = (confidence >= sure) & (labels == label)
        if references.any():
            nearest[:, label] = distances[:, references].min(axis=1)
    found: dict[int, int] = {}
    for row, cell in enumerate(queries):
        closest = int(nearest[row].argmin())
        own = nearest[row, labels[cell]]
        if (closest != labels[cell] and np.isfinite(own) and nearest[row, closest] < max_distance
                and nearest[row, closest] < max_ratio * own):
            found[int(cell)] = closest
    return found


def apply_context(crops: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """``probabilities`` with each cell of :func:`context_classes` averaged with its class."""
    changed = context_classes(crops, probabilities)
    result = np.array(probabilities, dtype=np.float64, copy=True)
    for cell, label in changed.items():
        result[cell] = (result[cell] + np.eye(result.shape[1])[label]) / 2.0
    return result.astype(np.asarray(probabilities).dtype, copy=False)
