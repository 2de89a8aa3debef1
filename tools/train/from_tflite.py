"""Weights of a shipped ``cells.tflite`` as a trainer's weight file, to fine-tune it.

The converter folds each batch normalisation into its convolution (weights and
a bias) and the input's 1/255 into the first convolution, so the weight file
written here has each normalisation as the identity (gamma 1, mean 0, variance
1 - epsilon) carrying the folded bias as its beta, and the first kernel scaled
back by 255. Fine-tune it with ``train --frozen-norms`` (the normalisations
keep these statistics: a batch's own would change the network's function).
The file's check batch holds the ``.tflite``'s own logits, so the trainer
start and the later export are both checked against the shipped model::

    ../trainenv/bin/python -m tools.train.from_tflite firmware_py/vision/cells.tflite \\
        --check-data render.npz -o shipped.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from firmware_py.vision.cells import to_model_input
from tools.train.network import BN_EPSILON, CHANNELS


def _interpreter(path: Path):  # noqa: ANN202 (the runtime is optional)
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        from tflite_runtime.interpreter import Interpreter
    interpreter = Interpreter(str(path))
    interpreter.allocate_tensors()
    return interpreter


def _constant(interpreter, *, shape: tuple[int, ...], name_part: str) -> np.ndarray:  # noqa: ANN001
    found = [t for t in interpreter.get_tensor_details()
             if tuple(t["shape"]) == shape and name_part in t["name"]]
    if len(found) != 1:
        raise SystemExit(f"expected one tensor {shape} named *{name_part}*, found {len(found)}")
    return np.array(interpreter.get_tensor(found[0]["index"]), np.float32)


def weights_of(path: Path, first_scale: float) -> dict[str, np.ndarray]:
    """The network's weights in the trainer's (Keras) layout."""
    interpreter = _interpreter(path)
    arrays: dict[str, np.ndarray] = {}
    inputs = (3,) + CHANNELS[:-1]
    for index, (cin, cout) in enumerate(zip(inputs, CHANNELS, strict=True)):
        kernel = _constant(interpreter, shape=(cout, 3, 3, cin), name_part=f"conv{index}_")
        arrays[f"conv{index}/kernel"] = kernel.transpose(1, 2, 3, 0) * (
            first_scale if index == 0 else 1.0)
        arrays[f"bn{index}/gamma"] = np.ones(cout, np.float32)
        arrays[f"bn{index}/beta"] = _constant(interpreter, shape=(cout,),
                                              name_part=f"bn{index}_")
        arrays[f"bn{index}/mean"] = np.zeros(cout, np.float32)
        arrays[f"bn{index}/var"] = np.full(cout, 1.0 - BN_EPSILON, np.float32)
    for name, shape in (("context", (96, 192)), ("dense", (3, 96))):
        arrays[f"{name}/kernel"] = _constant(interpreter, shape=shape,
                                             name_part=f"{name}_1/MatMul").T.copy()
        arrays[f"{name}/bias"] = _constant(interpreter, shape=(shape[0],),
                                           name_part=f"{name}_1/")
    return arrays


def tflite_logits(path: Path, x: np.ndarray) -> np.ndarray:
    """The ``.tflite``'s logits of one frame's model input (42, 32, 32, 3)."""
    interpreter = _interpreter(path)
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return np.array(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--check-data", required=True, help="a data file (.npz) of the trainer")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    x = to_model_input(np.load(args.check_data)["crops"][:42]).astype(np.float32)
    expected = tflite_logits(args.model, x)
    import torch

    from tools.train.train_cells_torch import build_torch, load_weights, predict

    for first_scale in (1.0, 255.0):  # the converter may or may not fold the 1/255
        arrays = weights_of(args.model, first_scale)
        model = build_torch()
        load_weights(model, arrays)
        difference = float(np.abs(predict(model, torch.from_numpy(x)) - expected).max())
        print(f"first kernel x {first_scale:g}: max difference to the .tflite {difference:.2e}")
        if difference < 1e-3:
            np.savez(args.output, **arrays, **{"check/x": x, "check/logits": expected})
            print(f"wrote {args.output}")
            return 0
    raise SystemExit("no reading of the .tflite reproduces its logits; not written")


if __name__ == "__main__":
    raise SystemExit(main())
