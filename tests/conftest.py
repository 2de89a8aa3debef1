"""Fixtures shared by every test folder: where the shared data lies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """``$C4PI_SHARED``, else ``../shared`` beside the checkout (it may not exist)."""
    return Path(os.environ.get("C4PI_SHARED") or REPO.parent / "shared")


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder; the test is skipped, saying why, when it is absent."""
    folder = shared_dir()
    if not (folder / "data").is_dir():
        pytest.skip(f"no shared data at {folder} (set C4PI_SHARED or put it beside the checkout)")
    return folder
