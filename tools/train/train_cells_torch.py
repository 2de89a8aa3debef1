"""PyTorch trainer of the cell classifier (see ``tools/train/train_cells.py train``).

Trains exactly the network of ``train_cells.build_keras`` (TensorFlow's "same"
padding of the stride-2 convolutions is reproduced by padding one pixel at the
bottom and right; a batch is whole frames of 42 cells, as the network reads each
cell beside its frame's others) and writes its weights, in Keras layout, to an ``.npz`` file
together with a check batch and its logits; ``train_cells.py export`` turns
that file into the ``.tflite``. Needs torch, numpy and OpenCV only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from firmware_py.vision.cells import to_model_input
from tools.train.cells_data import CELLS_PER_FRAME, augment_parallel
from tools.train.network import BN_EPSILON, CHANNELS, CLASS_COUNT, CONTEXT_UNITS, STRIDES, report


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
            self.context = nn.Linear(3 * CHANNELS[-1], CONTEXT_UNITS)
            self.dense = nn.Linear(CONTEXT_UNITS, CLASS_COUNT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            """Logits of whole frames: x is (frames * 42, 32, 32, 3), frame by frame."""
            x = x.permute(0, 3, 1, 2) / 255.0
            for conv, norm, stride in zip(self.convs, self.norms, STRIDES, strict=True):
                if stride == 2:
                    x = functional.pad(x, (0, 1, 0, 1))
                x = functional.relu(norm(conv(x)))
            cells = x.mean(dim=(2, 3)).reshape(-1, CELLS_PER_FRAME, CHANNELS[-1])
            frame = torch.cat([cells.mean(dim=1, keepdim=True).expand_as(cells),
                               cells.amax(dim=1, keepdim=True).expand_as(cells)], dim=2)
            features = functional.relu(self.context(torch.cat([cells, frame], dim=2)))
            return self.dense(features).reshape(-1, CLASS_COUNT)

    return CellNet()


def load_cells(paths: list[str], truth: tuple[str, ...] = ()
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops, targets and, per cell, whether its file is in ``truth`` (taught its truth,
    never distilled), of the data files, concatenated."""
    files = [np.load(path) for path in paths]
    for path, data in zip(paths, files, strict=True):
        print(f"  {path}: {len(data['crops'])} cells{' (truth)' if path in truth else ''}",
              flush=True)
    return (np.concatenate([f["crops"] for f in files]),
            np.concatenate([f["targets"] for f in files]),
            np.concatenate([np.full(len(f["crops"]), path in truth)
                            for path, f in zip(paths, files, strict=True)]))


def train_torch(args: argparse.Namespace) -> None:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.workers))
    strays = [path for path in args.truth if path not in args.data]
    if strays:
        raise SystemExit(f"--truth {strays[0]}: not among the data files (give it as data too, "
                         "spelt the same)")
    crops, targets, truth = load_cells(args.data, tuple(args.truth))
    frames = len(crops) // CELLS_PER_FRAME
    order = np.random.default_rng(args.seed).permutation(frames)
    cut = int(frames * args.validation_share)
    val_crops, val_targets = frame_cells(crops, order[:cut]), frame_cells(targets, order[:cut])
    crops, targets = frame_cells(crops, order[cut:]), frame_cells(targets, order[cut:])
    truth = torch.from_numpy(frame_cells(truth, order[cut:]))
    val_x = torch.from_numpy(to_model_input(val_crops))
    model = build_torch()
    if args.init:
        load_weights(model, np.load(args.init))
    teacher = _teacher(args)
    val_logits = predict(model, val_x)
    if args.init:
        print(f"initialised from {args.init}: validation accuracy "
              f"{cell_accuracy(val_logits, val_targets):.5f}", flush=True)
    glimpse_check = (_glimpse_check(val_crops, val_targets, args) if args.glimpses > 0
                     else lambda model: None)
    if args.init and args.glimpses > 0:
        print("  the --init network:", end="")
        glimpse_check(model)
    print(f"model: {sum(p.numel() for p in model.parameters())} parameters; "
          f"{len(crops)} training cells, {len(val_crops)} validation", flush=True)
    batch = max(1, args.batch // CELLS_PER_FRAME) * CELLS_PER_FRAME  # whole frames
    steps = args.epochs * (len(crops) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps,
                                                   pct_start=0.15)
    for epoch in range(args.epochs):
        start = time.time()
        x, y, labelled = augment_parallel(crops, targets, args.seed + epoch, args.workers,
                                          glimpses=args.glimpses, stickers=args.stickers)
        x = torch.from_numpy(x)
        y = torch.from_numpy(y) * 0.98 + 0.02 / CLASS_COUNT
        labelled = torch.from_numpy(labelled)
        model.train()
        if args.frozen_norms:  # keep the statistics of the --init weights (from_tflite.py)
            for norm in model.norms:
                norm.eval()
        shuffled = frame_cells(np.arange(len(x)), torch.randperm(len(x) // CELLS_PER_FRAME).numpy())
        total = 0.0
        for first in range(0, len(shuffled) - batch + 1, batch):
            index = torch.from_numpy(shuffled[first:first + batch])
            batch_x = x[index].float()
            logits = model(batch_x)
            if teacher is not None:  # its own answer, but where the augmentation labelled
                with torch.no_grad():
                    taught = torch.softmax(teacher(batch_x), dim=1)
                keep = labelled[index] | truth[index]
                if args.distil == "unless-wrong":  # where the teacher is wrong, the truth
                    keep = keep | (taught.argmax(dim=1) != y[index].argmax(dim=1))
                y[index] = torch.where(keep[:, None], y[index], taught)
            loss = -(y[index] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        val_logits = predict(model, val_x)
        print(f"epoch {epoch + 1}/{args.epochs} {time.time() - start:.0f} s loss "
              f"{total / (len(shuffled) // batch):.4f} val accuracy "
              f"{cell_accuracy(val_logits, val_targets):.5f}, frames exact "
              f"{frames_exact(val_logits, val_targets):.4f}", flush=True)
        glimpse_check(model)
    report(val_logits, val_targets)
    save_weights(model, val_x[:CELLS_PER_FRAME], Path(args.weights_out))


def _glimpse_check(crops: np.ndarray, targets: np.ndarray, args: argparse.Namespace):  # noqa: ANN202
    """A reporter of the share of validation cells with a glimpsed spare disc read empty."""
    import torch

    x, seen, marked = augment_parallel(crops, targets, 999, args.workers, glimpses=1.0)
    glimpsed = marked & (seen[:, 0] > 0.5)  # (a finger over a cell makes it uniform)
    x = torch.from_numpy(x).float()

    def check(model) -> None:  # noqa: ANN001
        if not glimpsed.any():
            print("  no validation cell with a glimpsed spare disc", flush=True)
            return
        empty = predict(model, x).argmax(axis=1)[glimpsed] == 0
        print(f"  validation cells with a glimpsed spare disc: {glimpsed.sum()}, "
              f"read empty {empty.mean():.4f}", flush=True)

    return check


def _teacher(args: argparse.Namespace):  # noqa: ANN202 (torch is optional)
    """The network of ``--init``, frozen, when ``--distil`` asks to learn from it."""
    if not args.distil:
        return None
    if not args.init:
        raise SystemExit("--distil learns from the --init network: give --init")
    teacher = build_torch()
    load_weights(teacher, np.load(args.init))
    teacher.eval()
    for parameter in teacher.parameters():
        parameter.requires_grad_(False)
    return teacher


def frame_cells(cells: np.ndarray, frame_order: np.ndarray) -> np.ndarray:
    """The cells of the frames ``frame_order`` (indices of whole frames of 42), in that order."""
    index = (np.asarray(frame_order)[:, None] * CELLS_PER_FRAME
             + np.arange(CELLS_PER_FRAME)).ravel()
    return cells[index]


def load_weights(model, weights) -> None:  # noqa: ANN001
    """Set the network from a weight file of :func:`save_weights` (Keras layout)."""
    import torch

    with torch.no_grad():
        for index, (conv, norm) in enumerate(zip(model.convs, model.norms, strict=True)):
            conv.weight.copy_(torch.from_numpy(weights[f"conv{index}/kernel"]).permute(3, 2, 0, 1))
            norm.weight.copy_(torch.from_numpy(weights[f"bn{index}/gamma"]))
            norm.bias.copy_(torch.from_numpy(weights[f"bn{index}/beta"]))
            norm.running_mean.copy_(torch.from_numpy(weights[f"bn{index}/mean"]))
            norm.running_var.copy_(torch.from_numpy(weights[f"bn{index}/var"]))
        if "context/kernel" not in weights:  # a weight file of the per-cell network
            print("  a per-cell network's weights: the context and dense layers start fresh",
                  flush=True)
            return
        for name in ("context", "dense"):
            layer = getattr(model, name)
            layer.weight.copy_(torch.from_numpy(weights[f"{name}/kernel"]).T)
            layer.bias.copy_(torch.from_numpy(weights[f"{name}/bias"]))


def predict(model, x):  # noqa: ANN001, ANN201
    import torch

    model.eval()
    with torch.no_grad():
        step = 98 * CELLS_PER_FRAME
        return torch.cat([model(x[i:i + step]) for i in range(0, len(x), step)]).numpy()


def frames_exact(logits: np.ndarray, targets: np.ndarray) -> float:
    """Share of whole frames with every cell right (occluded cells count as right)."""
    right = (logits.argmax(axis=1) == targets.argmax(axis=1)) | (targets.max(axis=1) < 0.5)
    return float(right.reshape(-1, CELLS_PER_FRAME).all(axis=1).mean())


def cell_accuracy(logits: np.ndarray, targets: np.ndarray) -> float:
    """Share of the labelled (not occluded) cells read right."""
    known = targets.max(axis=1) > 0.5
    return float((logits.argmax(axis=1) == targets.argmax(axis=1))[known].mean())


def save_weights(model, check_x, out: Path) -> None:  # noqa: ANN001
    """Weights in Keras layout plus a check batch and its logits (exact float32)."""
    arrays = {}
    for index, (conv, norm) in enumerate(zip(model.convs, model.norms, strict=True)):
        arrays[f"conv{index}/kernel"] = conv.weight.detach().permute(2, 3, 1, 0).numpy()
        arrays[f"bn{index}/gamma"] = norm.weight.detach().numpy()
        arrays[f"bn{index}/beta"] = norm.bias.detach().numpy()
        arrays[f"bn{index}/mean"] = norm.running_mean.detach().numpy()
        arrays[f"bn{index}/var"] = norm.running_var.detach().numpy()
    for name in ("context", "dense"):
        layer = getattr(model, name)
        arrays[f"{name}/kernel"] = layer.weight.detach().T.numpy()
        arrays[f"{name}/bias"] = layer.bias.detach().numpy()
    arrays["check/x"] = check_x.numpy().astype(np.float32)
    arrays["check/logits"] = predict(model, check_x).astype(np.float32)
    np.savez(out, **arrays)
    print(f"wrote {out}; export with: python -m tools.train.train_cells export {out}", flush=True)
