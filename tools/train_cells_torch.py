"""PyTorch trainer of the cell classifier (see ``tools/train_cells.py --backend torch``).

Trains exactly the network of ``train_cells.build_keras`` (TensorFlow's "same"
padding of the stride-2 convolutions is reproduced by padding one pixel at the
bottom and right) and writes its weights, in Keras layout, to an ``.npz`` file
together with a check batch and its logits; ``train_cells.py --export-from``
turns that file into the ``.tflite``. Needs torch, numpy and OpenCV only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from cells_data import augment_parallel, make_dataset, to_model_input
from train_cells import BN_EPSILON, CHANNELS, CLASS_COUNT, STRIDES


def build_torch():  # noqa: ANN201 (torch is optional)
    import torch
    from torch import nn
    from torch.nn import functional

    class CellNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            inputs = (3,) + CHANNELS[:-1]
            self.convs = nn.ModuleList(
                nn.Conv2d(cin, cout, 3, stride=stride, padding=0 if stride == 2 else 1,
                          bias=False)
                for cin, cout, stride in zip(inputs, CHANNELS, STRIDES, strict=True))
            self.norms = nn.ModuleList(nn.BatchNorm2d(c, eps=BN_EPSILON, momentum=0.01)
                                       for c in CHANNELS)
            self.dense = nn.Linear(CHANNELS[-1], CLASS_COUNT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = functional.avg_pool2d(x.permute(0, 3, 1, 2) / 255.0, 2)
            for conv, norm, stride in zip(self.convs, self.norms, STRIDES, strict=True):
                if stride == 2:
                    x = functional.pad(x, (0, 1, 0, 1))
                x = functional.relu(norm(conv(x)))
            return self.dense(x.mean(dim=(2, 3)))

    return CellNet()


def train_torch(args: argparse.Namespace) -> None:
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(args.seed_base)
    torch.set_num_threads(max(1, args.workers))
    if args.mined:
        crops, targets = load_mined(args.mined, args.hard_repeat)
    else:
        crops, targets = make_dataset(args.seed_base, args.frames, "train", args.workers)
    val_crops, val_targets = make_dataset(args.seed_base + 500_000, args.eval_frames, "val",
                                          args.workers)
    val_x = torch.from_numpy(to_model_input(val_crops)).to(device)
    model = build_torch().to(device)
    if args.init_from:
        init_from_tflite(model, Path(args.init_from), torch.from_numpy(
            to_model_input(crops[:8192])).to(device))
        print(f"initialised from {args.init_from}: val accuracy "
              f"{evaluate(model, val_x, val_targets):.5f}", flush=True)
    print(f"model: {sum(p.numel() for p in model.parameters())} parameters on {device}",
          flush=True)
    batch = max(args.batch, 256)
    steps = args.epochs * (len(crops) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps,
                                                   pct_start=0.15)
    for epoch in range(args.epochs):
        start = time.time()
        x, y = augment_parallel(crops, targets, args.seed_base + epoch, args.workers)
        x = torch.from_numpy(x).to(device)
        y = torch.from_numpy(y).to(device) * 0.98 + 0.02 / CLASS_COUNT
        model.train()
        order = torch.randperm(len(x), device=device)
        total = 0.0
        for first in range(0, len(order) - batch + 1, batch):
            index = order[first:first + batch]
            logits = model(x[index].float())
            loss = -(y[index] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        accuracy = evaluate(model, val_x, val_targets)
        print(f"epoch {epoch + 1}/{args.epochs} {time.time() - start:.0f} s loss "
              f"{total / (len(order) // batch):.4f} val accuracy {accuracy:.5f}", flush=True)
    from train_cells import report

    report(predict(model, val_x), val_targets)
    save_weights(model, val_x[:42], Path(args.weights_out))


def load_mined(paths: list[str], hard_repeat: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops and targets of ``tools/mine_cells.py`` files, each hard cell ``hard_repeat`` times."""
    files = [np.load(path) for path in paths]
    crops = np.concatenate([f["crops"] for f in files])
    targets = np.concatenate([f["targets"] for f in files])
    hard = np.flatnonzero(np.concatenate([f["hard"] for f in files]))
    order = np.concatenate([np.arange(len(crops))] + [hard] * max(0, hard_repeat - 1))
    print(f"  mined: {len(crops)} cells, {len(hard)} hard (x{hard_repeat})", flush=True)
    return crops[order], targets[order]


def tflite_weights(path: Path) -> dict[str, np.ndarray]:
    """Folded weights of a cells .tflite: conv kernels (OHWI) with biases, dense."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        from tflite_runtime.interpreter import Interpreter
    interpreter = Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    found: dict[str, np.ndarray] = {}
    for detail in interpreter.get_tensor_details():
        name, shape = detail["name"], tuple(detail["shape"])
        for index, channels in enumerate(CHANNELS):
            if f"conv{index}" in name and shape[0] == channels and len(shape) == 4:
                found[f"conv{index}/kernel"] = interpreter.get_tensor(detail["index"])
            elif f"bn{index}" in name and shape == (channels,):
                found[f"conv{index}/bias"] = interpreter.get_tensor(detail["index"])
        if "dense" in name and shape == (CLASS_COUNT, CHANNELS[-1]):
            found["dense/kernel"] = interpreter.get_tensor(detail["index"])
        elif "dense" in name and shape == (CLASS_COUNT,):
            found["dense/bias"] = interpreter.get_tensor(detail["index"])
    expected = 2 * len(CHANNELS) + 2
    if len(found) != expected:
        raise SystemExit(f"{path}: found {sorted(found)}, expected {expected} weight tensors "
                         "of this network")
    return found


def init_from_tflite(model, path: Path, sample) -> None:  # noqa: ANN001
    """Start from a trained .tflite, whose batch norms are folded into the convolutions.

    Each convolution gets the folded kernel; its batch norm is set, layer by
    layer, to undo the batch statistics of ``sample`` and add the folded bias,
    so the network computes the same function in training and in evaluation.
    """
    import torch
    from torch.nn import functional

    weights = tflite_weights(path)
    with torch.no_grad():
        x = functional.avg_pool2d(sample.permute(0, 3, 1, 2) / 255.0, 2)
        for index, (conv, norm, stride) in enumerate(
                zip(model.convs, model.norms, STRIDES, strict=True)):
            conv.weight.copy_(torch.from_numpy(weights[f"conv{index}/kernel"]).permute(0, 3, 1, 2))
            if stride == 2:
                x = functional.pad(x, (0, 1, 0, 1))
            z = conv(x)
            mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3), unbiased=False)
            std = torch.sqrt(var + BN_EPSILON)
            norm.weight.copy_(std)
            bias = torch.from_numpy(weights[f"conv{index}/bias"])
            norm.bias.copy_(mean + bias)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            x = functional.relu(z + bias[None, :, None, None])
        model.dense.weight.copy_(torch.from_numpy(weights["dense/kernel"]))
        model.dense.bias.copy_(torch.from_numpy(weights["dense/bias"]))


def predict(model, x):  # noqa: ANN001, ANN201
    import torch

    model.eval()
    with torch.no_grad():
        return torch.cat([model(x[i:i + 4096]) for i in range(0, len(x), 4096)]).cpu().numpy()


def evaluate(model, x, targets: np.ndarray) -> float:  # noqa: ANN001
    logits = predict(model, x)
    known = targets.max(axis=1) > 0.5
    return float((logits.argmax(axis=1) == targets.argmax(axis=1))[known].mean())


def save_weights(model, check_x, out: Path) -> None:  # noqa: ANN001
    """Weights in Keras layout plus a check batch and its logits (exact float32)."""
    import torch

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    arrays = {}
    for index, (conv, norm) in enumerate(zip(model.convs, model.norms, strict=True)):
        arrays[f"conv{index}/kernel"] = conv.weight.detach().permute(2, 3, 1, 0).cpu().numpy()
        arrays[f"bn{index}/gamma"] = norm.weight.detach().cpu().numpy()
        arrays[f"bn{index}/beta"] = norm.bias.detach().cpu().numpy()
        arrays[f"bn{index}/mean"] = norm.running_mean.detach().cpu().numpy()
        arrays[f"bn{index}/var"] = norm.running_var.detach().cpu().numpy()
    arrays["dense/kernel"] = model.dense.weight.detach().T.cpu().numpy()
    arrays["dense/bias"] = model.dense.bias.detach().cpu().numpy()
    arrays["check/x"] = check_x.cpu().numpy().astype(np.float32)
    arrays["check/logits"] = predict(model, check_x).astype(np.float32)
    np.savez(out, **arrays)
    print(f"wrote {out}; export with: PYTHONPATH=. <tf-python> tools/train_cells.py "
          f"--export-from {out} --out firmware_py/vision/cells.tflite", flush=True)
