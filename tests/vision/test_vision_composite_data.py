"""Training cells cut from real-photo composites (tools/train/composite_data.py).

Needs the labelled real photographs of the shared folder; skipped without them.
"""

from __future__ import annotations

import numpy as np
import pytest

from firmware_py.vision.cells import to_model_input
from firmware_py.vision.classifier import TFLiteCellClassifier
from tools.train import composite_data


@pytest.fixture(autouse=True)
def _photos(shared):  # noqa: ANN001 (the suite's fixture: skips without ../shared)
    return shared


def test_each_composite_gives_42_crops_labelled_by_its_grid_in_order():
    """The bundled network agrees with the labels on plain composites' crops: crops and
    labels are the same cells in the same order (a crop off by one cell, or labels of
    another frame, would disagree on many). Step 8 was trained on such crops (these
    seeds among them), so this checks the alignment, not the network."""
    network = TFLiteCellClassifier()
    agree = total = 0
    for seed in range(5_000_000, 5_000_006):
        crops, targets = composite_data.composite_crops((composite_data.PLAIN, seed))
        assert crops.shape == (42, 32, 32, 3) and crops.dtype == np.uint8
        assert targets.shape == (42, 3) and np.allclose(targets.sum(axis=1), 1.0)
        grid = composite_data.compose(composite_data.PLAIN, seed).grid
        assert "".join(grid) == "".join(".RY"[i] for i in targets.argmax(axis=1))
        read = network.logits(to_model_input(crops)).argmax(axis=1)
        agree += int((read == targets.argmax(axis=1)).sum())
        total += 42
    assert agree >= 0.95 * total


def test_an_unknown_appearance_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown appearance 'purple'"):
        composite_data.make_dataset(["purple"], 5_000_000, 1)
