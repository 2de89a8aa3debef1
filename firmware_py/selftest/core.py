"""Self-test framework: checks, results and the PASS/FAIL/SKIP table."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from firmware_py.config import Config

log = logging.getLogger(__name__)

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: ``status`` is PASS, FAIL or SKIP, with a reason."""

    name: str
    status: str
    detail: str
    ms: float = 0.0


@dataclass(frozen=True)
class SelftestOptions:
    """What the operator asked for on the command line."""

    loopback: bool = False
    speak: bool = False
    frames: int = 10


class Skip(Exception):
    """Raised by a check that cannot run here (missing hardware); the reason is shown."""


class Fail(Exception):
    """Raised by a check that ran and found a problem."""


Check = Callable[[Config, SelftestOptions], str]
"""A check returns a one-line PASS detail, or raises Skip/Fail (any other error is a FAIL)."""


def run_check(name: str, check: Check, config: Config, options: SelftestOptions) -> CheckResult:
    """Run one check, turning its outcome or exception into a result."""
    start = time.perf_counter()
    try:
        status, detail = PASS, check(config, options)
    except Skip as reason:
        status, detail = SKIP, str(reason)
    except Fail as reason:
        status, detail = FAIL, str(reason)
    except Exception as error:  # a crashing check is a failure, never a crash of selftest
        log.debug("check %s crashed", name, exc_info=True)
        status, detail = FAIL, f"{type(error).__name__}: {error}"
    return CheckResult(name, status, detail, round((time.perf_counter() - start) * 1000, 1))


def run_checks(checks: Sequence[tuple[str, Check]], config: Config,
               options: SelftestOptions) -> list[CheckResult]:
    return [run_check(name, check, config, options) for name, check in checks]


def format_table(results: Sequence[CheckResult]) -> str:
    """A fixed-width table, one row per check, then a summary line."""
    width = max((len(result.name) for result in results), default=5)
    lines = [f"{'check':<{width}}  result  detail"]
    for result in results:
        lines.append(f"{result.name:<{width}}  {result.status:<6}  {result.detail}")
    counts = {status: sum(r.status == status for r in results) for status in (PASS, FAIL, SKIP)}
    lines.append(f"{counts[PASS]} passed, {counts[FAIL]} failed, {counts[SKIP]} skipped")
    return "\n".join(lines)


def format_json(results: Sequence[CheckResult]) -> str:
    ok = not any(result.status == FAIL for result in results)
    return json.dumps({"ok": ok, "checks": [asdict(result) for result in results]}, indent=2)


def exit_status(results: Sequence[CheckResult]) -> int:
    return 1 if any(result.status == FAIL for result in results) else 0
