"""The repository holds no path of any particular machine: a clone works anywhere."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Absolute paths that only exist on some machine: home and build directories.
MACHINE_PATH = re.compile(r"(?<![\w.~$])/(?:work|home|root|Users|mnt/data|opt/build|builds?)/[\w.]")
ALLOWED = (
    re.compile(r"/home/pi\b"),  # the Raspberry Pi's documented default user, in examples
    re.compile(r"/home/tester\b"),  # the user tools/device/arm64_check.sh creates in its own root
)
TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".sh", ".md", ".toml", ".txt", ".service", ".cfg",
                 ".ini", ".json", ".yml", ".yaml", ".c", ".h", ""}


def tracked_text_files() -> list[Path]:
    try:
        names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / name for name in names
            if Path(name).suffix in TEXT_SUFFIXES and (REPO / name).is_file()]


def machine_paths(text: str) -> list[str]:
    """The machine-specific absolute paths in ``text`` (allowed examples left out)."""
    found = []
    for line in text.splitlines():
        if MACHINE_PATH.search(line) and not any(ok.search(line) for ok in ALLOWED):
            found.append(line.strip())
    return found


def test_the_pattern_catches_build_machine_paths() -> None:
    assert machine_paths('TEST_SETS = Path("/work/shared/data/test-sets")')
    assert machine_paths("python at /home/alice/venv/bin/python")
    assert machine_paths("see /root/.cache/x")
    assert not machine_paths("../trainenv/bin/python -m tools.train.train_cells")
    assert not machine_paths("/var/lib/c4pi/empty-board.json and /opt/c4pi/.venv/bin/c4pi")
    assert not machine_paths("$HOME/work/x and ~/work/y")


def test_no_tracked_file_names_a_path_of_some_machine() -> None:
    offenders = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        offenders += [f"{path.relative_to(REPO)}: {line}" for line in machine_paths(text)]
    assert not offenders, "machine-specific paths:\n" + "\n".join(offenders[:20])
