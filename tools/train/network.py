"""The cell classifier's shape, shared by the PyTorch trainer and the Keras export.

One place for the layer sizes, so that ``train_cells_torch.py`` trains exactly
the network ``train_cells.py export`` rebuilds (see ``train_cells.py``).
"""

from __future__ import annotations

import numpy as np

CHANNELS = (16, 32, 48, 64)
STRIDES = (2, 2, 2, 1)
BN_EPSILON = 1e-3
INPUT_SHAPE = (42, 32, 32, 3)
CLASS_COUNT = 3
CONTEXT_UNITS = 96  # the layer that sees each cell beside its frame's mean and max


def report(logits: np.ndarray, targets: np.ndarray) -> None:
    """Print the accuracy on labelled validation cells and the worst error's confidence."""
    known = targets.max(axis=1) > 0.5
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    correct = probs.argmax(axis=1) == targets.argmax(axis=1)
    wrong = probs[known][~correct[known]]
    print(f"validation cells: {int(known.sum())} labelled, accuracy "
          f"{correct[known].mean():.5f}, errors {len(wrong)}, max confidence of an error "
          f"{wrong.max(axis=1).max(initial=0):.3f}", flush=True)
