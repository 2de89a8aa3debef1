"""The cell classifier: a small CNN in TFLite giving empty/red/yellow logits.

The model takes the 42 cell crops of one frame as one batch, float32
[42, 32, 32, 3] in the HSV encoding of :func:`firmware_py.vision.cells.to_model_input`,
and returns float32 logits [42, 3] in the order of :data:`CLASSES`. It reads
each cell beside the frame's others (their mean and maximum features), as a
person compares a hole with the rest of the board: a batch must be one frame's
cells, and reordering them only reorders the logits. It runs through
``ai_edge_litert`` (the maintained successor of tflite-runtime), or
``tflite_runtime`` where only that is installed. TensorFlow is needed only to
train the model (``tools/train/train_cells.py``), never at run time.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from c4game.exc import ModelError
from firmware_py.vision.geometry import CROP_SIDE
from firmware_py.vision.reading import CLASS_NAMES, CLASSES

__all__ = ["CLASSES", "CLASS_NAMES", "CellClassifier", "TFLiteCellClassifier", "softmax"]

BATCH = 42
INPUT_SHAPE = (BATCH, CROP_SIDE, CROP_SIDE, 3)
BUNDLED_MODEL = Path(__file__).resolve().parent / "cells.tflite"
RUNTIMES = ("ai_edge_litert.interpreter", "tflite_runtime.interpreter")


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable for any finite logits (the row maximum is subtracted)."""
    values = np.asarray(logits, dtype=np.float64)
    shifted = values - values.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=-1, keepdims=True)


class CellClassifier(Protocol):
    """Anything that turns a model-input batch into logits (N, 3)."""

    def logits(self, batch: np.ndarray) -> np.ndarray: ...


def load_interpreter_class() -> type:
    """The TFLite ``Interpreter`` class of the first runtime that imports."""
    errors = []
    for name in RUNTIMES:
        try:
            return importlib.import_module(name).Interpreter
        except ImportError as error:
            errors.append(f"{name}: {error}")
    raise ModelError("no TFLite runtime: install ai-edge-litert (or tflite-runtime); "
                     + "; ".join(errors))


log = logging.getLogger(__name__)
RUNTIME_CHATTER = ("INFO: Created TensorFlow Lite XNNPACK delegate",)  # lines TFLite prints


@contextlib.contextmanager
def quiet_runtime() -> Iterator[None]:
    """Hold back what the TFLite runtime prints to the process's standard error while
    the model loads ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU." on every
    command): its known chatter goes to the debug log, anything else is written back."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real standard error (an embedding host)
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            _pass_on(held.read().decode("utf-8", "replace"))


def _pass_on(text: str) -> None:
    for line in text.splitlines(keepends=True):
        if line.startswith(RUNTIME_CHATTER):
            log.debug("%s", line.rstrip())
        else:
            sys.stderr.write(line)


class TFLiteCellClassifier:
    """The bundled (or a given) ``.tflite`` cell classifier, single-threaded by default."""

    def __init__(self, model_path: str | Path | None = None, *, num_threads: int = 1) -> None:
        self.path = Path(model_path) if model_path else BUNDLED_MODEL
        if not self.path.is_file():
            raise ModelError(f"cell classifier model not found: {self.path}")
        interpreter_class = load_interpreter_class()
        try:
            with quiet_runtime():
                self._interpreter = interpreter_class(model_path=str(self.path),
                                                      num_threads=num_threads)
                self._interpreter.allocate_tensors()
        except (ValueError, RuntimeError) as error:
            raise ModelError(f"cannot load cell classifier {self.path}: {error}") from None
        self._input = self._interpreter.get_input_details()[0]
        self._output = self._interpreter.get_output_details()[0]
        self._check_shapes()

    def _check_shapes(self) -> None:
        shape_in = tuple(int(v) for v in self._input["shape"])
        shape_out = tuple(int(v) for v in self._output["shape"])
        if shape_in != INPUT_SHAPE or self._input["dtype"] != np.float32:
            raise ModelError(f"{self.path}: input is {shape_in} {self._input['dtype']}, "
                             f"expected {INPUT_SHAPE} float32")
        if shape_out != (BATCH, len(CLASSES)):
            raise ModelError(f"{self.path}: output is {shape_out}, "
                             f"expected {(BATCH, len(CLASSES))}")

    def logits(self, batch: np.ndarray) -> np.ndarray:
        """Logits (42, 3) for a float32 batch (42, 32, 32, 3): one frame's cells."""
        if batch.shape != INPUT_SHAPE:
            raise ValueError(f"expected a batch of shape {INPUT_SHAPE}, got {batch.shape}")
        self._interpreter.set_tensor(self._input["index"], np.asarray(batch, np.float32))
        self._interpreter.invoke()
        return np.array(self._interpreter.get_tensor(self._output["index"]))
