"""The docstring examples (``>>>``) of every module run as written (#57)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.core.test_core_layers import REPO, ROOTS

WITH_EXAMPLES = sorted(
    ".".join(path.relative_to(REPO).with_suffix("").parts)
    for root in ROOTS if root != "tools"
    for path in (REPO / root).rglob("*.py")
    if ">>> " in path.read_text())


def test_the_examples_are_found() -> None:
    assert "cython_solver.solver" in WITH_EXAMPLES
    assert "firmware_py.serial_link.protocol" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the examples' paths are the repository's
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
