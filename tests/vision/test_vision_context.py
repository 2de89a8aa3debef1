"""Same-frame context for doubtful cells (firmware_py/vision/context.py).

Crops are drawn here (a disc or a backdrop seen through a hole in a blue
plate), so every test knows what each crop shows independently of the code.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_py.vision.context import apply_context, context_classes, ring_features

PLATE = (170, 90, 20)      # BGR blue
RED = (40, 30, 200)
YELLOW = (30, 210, 230)
BACKDROP = (60, 60, 170)   # a dull red wall seen through the empty holes
EMPTY, R, Y = 0, 1, 2


def crop(kind: int, rng: np.random.Generator, side: int = 32) -> np.ndarray:
    """A 32 x 32 crop: a disc with a darker rim, or a shadowed backdrop."""
    image = np.full((side, side, 3), PLATE, np.uint8)
    centre, radius = (side // 2, side // 2), int(side * 0.42)
    if kind == EMPTY:
        cv2.circle(image, centre, radius, BACKDROP, -1)
        cv2.circle(image, (centre[0] + 3, centre[1] + 3), radius - 4, (40, 40, 110), -1)
    else:
        colour = RED if kind == R else YELLOW
        cv2.circle(image, centre, radius, tuple(int(c * 0.7) for c in colour), -1)
        cv2.circle(image, centre, radius - 3, colour, -1)
    noise = rng.normal(0, 3, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def board_of(kinds: list[int], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([crop(kind, rng) for kind in kinds])


def sure(kinds: list[int]) -> np.ndarray:
    probs = np.full((len(kinds), 3), 0.01)
    probs[np.arange(len(kinds)), kinds] = 0.98
    return probs


KINDS = [EMPTY] * 20 + [R] * 11 + [Y] * 11


def test_features_are_twelve_ring_colours_and_check_their_input() -> None:
    features = ring_features(board_of([R, Y, EMPTY]))
    assert features.shape == (3, 12)
    assert features[0, 1] != pytest.approx(features[1, 1])  # red and yellow bodies differ
    with pytest.raises(ValueError, match="uint8"):
        ring_features(np.zeros((2, 32, 32, 3), np.float32))


def test_full_resolution_crops_are_compared_at_half_resolution() -> None:
    small = board_of([R, Y, EMPTY])
    large = np.repeat(np.repeat(small, 2, axis=1), 2, axis=2)
    np.testing.assert_allclose(ring_features(large), ring_features(small), atol=1.0)


def test_a_doubtful_disc_that_looks_like_the_sure_discs_takes_their_class() -> None:
    crops = board_of(KINDS)
    probs = sure(KINDS)
    probs[25] = (0.55, 0.44, 0.01)  # a red disc the classifier leans to call empty
    assert context_classes(crops, probs) == {25: R}
    result = apply_context(crops, probs)
    assert result[25].argmax() == R
    assert result[25].max() < 0.85  # still doubtful: the rules decide
    np.testing.assert_array_equal(np.delete(result, 25, axis=0), np.delete(probs, 25, axis=0))


def test_an_empty_hole_with_a_red_backdrop_is_not_called_red() -> None:
    crops = board_of(KINDS)
    probs = sure(KINDS)
    probs[3] = (0.5, 0.45, 0.05)  # empty, right by a hair
    probs[4] = (0.4, 0.55, 0.05)  # empty, read red: the sure empties look like it
    assert context_classes(crops, probs) == {4: EMPTY}


def test_sure_cells_and_cells_without_references_are_left_alone() -> None:
    crops = board_of(KINDS)
    probs = sure(KINDS)
    probs[25] = (0.93, 0.06, 0.01)    # above query_below: not asked
    assert context_classes(crops, probs) == {}
    no_sure_yellow = sure(KINDS)
    no_sure_yellow[31:] = (0.05, 0.40, 0.55)   # every yellow disc doubtful, leaning right
    assert context_classes(crops, no_sure_yellow) == {}  # nothing to compare them with


def test_the_changed_class_never_reaches_the_frontier_bound() -> None:
    rng = np.random.default_rng(5)
    crops = board_of(KINDS)
    for _ in range(200):
        probs = sure(KINDS)
        probs[25] = rng.dirichlet((1.0, 1.0, 0.2))
        result = apply_context(crops, probs)
        assert result[25].max() <= 0.75 + 1e-9 or result[25].argmax() == probs[25].argmax()
