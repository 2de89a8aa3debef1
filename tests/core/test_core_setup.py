"""setup.sh: argument handling and the pure logic of its steps."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "setup.sh"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"source {SETUP}; {script}"],
                          capture_output=True, text=True, timeout=60)


def test_sourcing_runs_nothing() -> None:
    result = bash("echo sourced")
    assert result.returncode == 0
    assert result.stdout.strip() == "sourced"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs dpkg")
def test_missing_apt_packages_lists_only_missing() -> None:
    result = bash("missing_apt_packages bash c4pi-no-such-package-xyz")
    assert result.stdout.split() == ["c4pi-no-such-package-xyz"]


def test_unknown_argument_fails_readably() -> None:
    result = subprocess.run(["bash", str(SETUP), "--bogus"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown argument: --bogus" in result.stderr


def test_help_lists_commands() -> None:
    result = subprocess.run(["bash", str(SETUP), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "./setup.sh test" in result.stdout and "./setup.sh run" in result.stdout


def test_failed_step_names_itself() -> None:
    result = bash('CURRENT_STEP="Opening book"; die "boom"')
    assert result.returncode == 1
    assert 'step "Opening book" failed: boom' in result.stderr


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    result = bash(f'DRY_RUN=1; VENV={tmp_path}/venv; PY=$VENV/bin/python; create_venv')
    assert result.returncode == 0
    assert "would run: python3 -m venv" in result.stdout
    assert not (tmp_path / "venv").exists()
