"""Fixtures shared by every test folder: where the shared data lies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.shared_data import missing_reason, shared_dir


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared data folder; the test is skipped, saying why, when it is absent."""
    folder = shared_dir()
    if not (folder / "data").is_dir():
        pytest.skip(missing_reason(folder / "data"))
    return folder
