"""``c4pi selftest``: checks of the device that can be run over SSH."""

from firmware_py.selftest.core import (
    FAIL,
    PASS,
    SKIP,
    CheckResult,
    Fail,
    SelftestOptions,
    Skip,
    exit_status,
    format_json,
    format_table,
    run_checks,
)

__all__ = ["FAIL", "PASS", "SKIP", "CheckResult", "Fail", "SelftestOptions", "Skip",
           "exit_status", "format_json", "format_table", "run_checks"]
