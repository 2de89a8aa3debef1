"""Helpers of the simulated table's tests: the vision tests' seed range and random boards."""

from __future__ import annotations

from tests.vision.conftest import SEED_BASE, random_board

__all__ = ["SEED_BASE", "random_board"]
