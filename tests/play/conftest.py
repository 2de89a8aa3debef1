"""Fixtures of the play tests."""

from __future__ import annotations

import pytest

from cython_solver import Solver
from firmware_py.config import load_config


@pytest.fixture(scope="module")
def solver() -> Solver:
    """With the opening book (setup.sh builds it): early positions are looked up."""
    solver = Solver.from_config(load_config(None).solver)
    if not solver.has_book:
        pytest.skip("no opening book (./setup.sh builds it)")
    return solver
