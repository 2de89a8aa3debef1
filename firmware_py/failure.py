"""How a command says that it failed: one line on stderr, and under ``--json`` one
JSON object on stdout too, so that a script reading the JSON learns why."""

from __future__ import annotations

import argparse
import json
import sys


def fail(args: argparse.Namespace, message: str, code: int) -> int:
    """Say ``message`` as ``c4pi COMMAND: message`` on stderr (see :func:`report`)."""
    return report(args, f"c4pi {args.command}: {message}", message, code)


def report(args: argparse.Namespace, line: str, message: str, code: int) -> int:
    """``line`` on stderr and, when the command was asked for ``--json``,
    ``{"error": message, "exit": code}`` on stdout; returns ``code``."""
    print(line, file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "exit": code}), flush=True)
    return code
