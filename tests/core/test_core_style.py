"""Style and types, checked by the test suite (so CI checks them, #57).

* ``ruff check`` is clean on every Python folder.
* ``mypy`` on the package: the modules written since types were checked are
  ``--strict`` (:data:`STRICT`); the rest is held to a per-file baseline of
  errors (``mypy_baseline.json``) that may only shrink: a file with more errors
  fails, and so does one with fewer (lower its number: the ratchet moves).
  ``python -m tests.core.test_core_style`` prints the counts of today.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASELINE = Path(__file__).with_name("mypy_baseline.json")
CHECKED = ("c4game", "firmware_py", "cython_solver", "tools/scene")
STRICT = ("firmware_py/succession.py", "firmware_py/backoff.py", "firmware_py/ratelog.py",
          "firmware_py/pipeline/teach.py", "firmware_py/vision/holes.py",
          "firmware_py/vision/hole_looks.py", "firmware_py/vision/look_evidence.py",
          "firmware_py/pipeline/belief.py", "firmware_py/pipeline/first_sight.py",
          "firmware_py/pipeline/reducer.py")
ERROR = re.compile(r"^([\w/.]+\.py):\d+: error:")


def mypy(cache: str, *args: str) -> subprocess.CompletedProcess[str]:
    """mypy on ``args``, with a cache of its own per check (two may run at once)."""
    return subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports",
                           "--no-error-summary", "--cache-dir",
                           str(REPO / "build" / "mypy" / cache), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def errors_per_file() -> Counter[str]:
    result = mypy("package", *CHECKED)
    assert result.returncode in (0, 1), result.stderr[-2000:]  # 2: mypy itself failed
    return Counter(match[1] for line in result.stdout.splitlines()
                   if (match := ERROR.match(line)))


def test_ruff_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "c4game",
                             "firmware_py", "cython_solver", "tests", "tools"], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]


def test_new_modules_are_strictly_typed() -> None:
    result = mypy("strict", "--strict", "--follow-imports=silent", *STRICT)
    assert result.returncode == 0, result.stdout[-3000:]


def test_type_errors_only_shrink() -> None:
    baseline = json.loads(BASELINE.read_text())
    now = errors_per_file()
    more = {path: (count, baseline.get(path, 0)) for path, count in now.items()
            if count > baseline.get(path, 0)}
    assert not more, f"new type errors (now, baseline): {more}"
    fewer = {path: (now.get(path, 0), count) for path, count in baseline.items()
             if now.get(path, 0) < count}
    assert not fewer, f"fewer type errors: lower {BASELINE.name} to (now, baseline): {fewer}"


if __name__ == "__main__":
    print(json.dumps(dict(sorted(errors_per_file().items())), indent=1))
