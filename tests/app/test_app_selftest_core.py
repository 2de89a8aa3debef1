"""Self-test framework and the system checks, on fake /proc and /sys files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_py.config import Config
from firmware_py.selftest import (
    FAIL,
    PASS,
    SKIP,
    Fail,
    SelftestOptions,
    Skip,
    exit_status,
    format_json,
    format_table,
    run_checks,
    system,
)

OPTIONS = SelftestOptions()


def passing(config: Config, options: SelftestOptions) -> str:
    return "fine"


def skipping(config: Config, options: SelftestOptions) -> str:
    raise Skip("no camera attached")


def failing(config: Config, options: SelftestOptions) -> str:
    raise Fail("book checksum mismatch")


def crashing(config: Config, options: SelftestOptions) -> str:
    raise RuntimeError("boom")


def test_results_table_and_exit_status() -> None:
    results = run_checks([("a", passing), ("camera", skipping)], Config(), OPTIONS)
    assert [r.status for r in results] == [PASS, SKIP]
    assert exit_status(results) == 0
    table = format_table(results)
    assert "camera  SKIP    no camera attached" in table
    assert table.splitlines()[-1] == "1 passed, 0 failed, 1 skipped"


def test_fail_and_crash_are_failures() -> None:
    results = run_checks([("book", failing), ("x", crashing)], Config(), OPTIONS)
    assert [r.status for r in results] == [FAIL, FAIL]
    assert results[1].detail == "RuntimeError: boom"
    assert exit_status(results) == 1
    data = json.loads(format_json(results))
    assert data["ok"] is False and data["checks"][0]["detail"] == "book checksum mismatch"


def test_memory_check(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:  1000000 kB\nMemAvailable:  500000 kB\n")
    assert "488 MB of 977 MB" in system.check_memory(Config(), OPTIONS, meminfo)
    meminfo.write_text("MemTotal:  1000000 kB\nMemAvailable:  50000 kB\n")
    with pytest.raises(Fail, match="only 49 MB"):
        system.check_memory(Config(), OPTIONS, meminfo)


def test_temperature_check(tmp_path: Path) -> None:
    zone = tmp_path / "temp"
    with pytest.raises(Skip):
        system.check_temperature(Config(), OPTIONS, zone)
    zone.write_text("51234\n")
    assert system.check_temperature(Config(), OPTIONS, zone) == "CPU at 51.2 °C"
    zone.write_text("85000\n")
    with pytest.raises(Fail, match="85.0"):
        system.check_temperature(Config(), OPTIONS, zone)


def test_disk_check(tmp_path: Path) -> None:
    assert "MB free" in system.check_disk(Config(), OPTIONS, tmp_path)
