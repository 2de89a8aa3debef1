"""The bundled model loads through the TFLite runtime and has the agreed shape."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from c4game.exc import ModelError
from firmware_py.vision.classifier import (
    BUNDLED_MODEL,
    INPUT_SHAPE,
    TFLiteCellClassifier,
    load_interpreter_class,
)


def test_bundled_model_is_small_and_loads() -> None:
    assert BUNDLED_MODEL.is_file()
    assert BUNDLED_MODEL.stat().st_size <= 2 * 1024 * 1024
    classifier = TFLiteCellClassifier()
    logits = classifier.logits(np.zeros(INPUT_SHAPE, np.float32))
    assert logits.shape == (42, 3) and np.all(np.isfinite(logits))


def test_cells_are_read_beside_their_frame() -> None:
    """Each cell's logits depend on the frame's other cells, not on their order."""
    rng = np.random.default_rng(5)
    batch = rng.uniform(0, 255, INPUT_SHAPE).astype(np.float32)
    classifier = TFLiteCellClassifier()
    logits = classifier.logits(batch)
    order = rng.permutation(INPUT_SHAPE[0])
    np.testing.assert_allclose(classifier.logits(batch[order]), logits[order], atol=1e-4)
    others_changed = batch.copy()
    others_changed[1:] = rng.uniform(0, 255, others_changed[1:].shape)
    assert np.abs(classifier.logits(others_changed)[0] - logits[0]).max() > 1e-3


def test_runtime_is_ai_edge_litert_or_tflite_runtime() -> None:
    interpreter = load_interpreter_class()
    assert interpreter.__module__.split(".")[0] in ("ai_edge_litert", "tflite_runtime")


def test_missing_or_broken_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        TFLiteCellClassifier(tmp_path / "none.tflite")
    broken = tmp_path / "broken.tflite"
    broken.write_bytes(b"not a flatbuffer at all" * 10)
    with pytest.raises(ModelError, match="broken.tflite"):
        TFLiteCellClassifier(broken)


def test_batch_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        TFLiteCellClassifier().logits(np.zeros((41, 32, 32, 3), np.float32))
