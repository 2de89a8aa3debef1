"""Where the project's shared data lies, for tests and tools (one helper for all).

The shared folder holds the public solver test sets (``data/test-sets``) and
the labelled real photographs (``data/real-dev``). It is ``$C4PI_SHARED``
when set, else ``shared`` beside the checkout (``../shared``). A user's clone
has none: tests that need it skip, saying so.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENV = "C4PI_SHARED"


def shared_dir() -> Path:
    """``$C4PI_SHARED``, else ``../shared`` beside the checkout (it may not exist)."""
    return Path(os.environ.get(ENV) or REPO.parent / "shared")


def solver_sets_dir() -> Path:
    """The public solver test sets (``Test_L3_R1`` etc. as ``<name>.txt``)."""
    return shared_dir() / "data" / "test-sets"


def real_dev_dir() -> Path:
    """The labelled real photographs (``labels.jsonl`` and the images)."""
    return shared_dir() / "data" / "real-dev"


def missing_reason(path: Path) -> str:
    """Why a test that needs ``path`` is skipped."""
    return (f"shared data not found at {path} (put the shared folder beside the checkout "
            f"as ../shared, or set {ENV})")
