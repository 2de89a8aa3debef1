"""The transposition table sized from the memory available (``[solver] tt_mb = 0``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cython_solver.solver import AUTO_TT_MB, Solver, auto_tt_mb
from firmware_py.config import load_config


def meminfo(tmp_path: Path, available_mb: int | None) -> Path:
    path = tmp_path / "meminfo"
    lines = ["MemTotal:        3884244 kB", "MemFree:          100000 kB"]
    if available_mb is not None:
        lines.append(f"MemAvailable:   {available_mb * 1024:>9} kB")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("available_mb", "table_mb"), [
    (330, 32),     # a 512 MB Pi Zero after boot: an eighth is 41, rounded down to 32
    (180, 16),     # a busy 512 MB board
    (40, 8),       # never below 8
    (3500, 64),    # a Pi 4: never above 64
    (None, 64),    # no MemAvailable line: the old default
])
def test_the_table_is_an_eighth_of_the_memory_available(tmp_path, available_mb,
                                                         table_mb) -> None:
    assert auto_tt_mb(meminfo(tmp_path, available_mb)) == table_mb


def test_no_meminfo_gives_the_largest_table(tmp_path) -> None:
    assert auto_tt_mb(tmp_path / "missing") == AUTO_TT_MB[1]


def test_the_default_config_sizes_the_table_from_memory() -> None:
    config = load_config(None)
    assert config.solver.tt_mb == 0
    solver = Solver.from_config(config.solver, use_book=False)
    assert solver.tt_mb == auto_tt_mb()
    assert Solver.from_config(config.solver, use_book=False, tt_mb=16).tt_mb == 16
