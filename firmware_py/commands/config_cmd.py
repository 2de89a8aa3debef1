"""``c4pi config``: validate the config and print the effective values."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from firmware_py.config import EX_CONFIG, Config, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config", help="validate the config file and print the effective settings",
        description="Validate the config (exit 78 naming the bad key on an error, or a "
                    "book or model file it names that is not there) and print every "
                    "effective setting.")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    values = asdict(config)
    source = values.pop("source")
    absent = missing_files(config)
    if args.json:  # a missing file also as the --json failure's "error" and "exit"
        failure = {"error": "; ".join(absent), "exit": EX_CONFIG} if absent else {}
        print(json.dumps({"source": source, **values, **failure}, indent=2))
    else:
        print(f"# effective config, loaded from {source}")
        for section, keys in values.items():
            print(f"\n[{section}]")
            for key, value in keys.items():
                print(f"{key} = {json.dumps(value)}")
    for line in absent:
        print(f"c4pi config: {source}: {line}", file=sys.stderr)
    return EX_CONFIG if absent else 0


def missing_files(config: Config) -> list[str]:
    """What is wrong with the files the config reads (the book, the model): one line
    each, naming the key; empty when every one is there."""
    named = []
    if config.solver.use_book:
        named.append(("[solver] book", config.solver.book,
                      "build it with `c4pi book build`, or set use_book = false"))
    if config.vision.model:
        named.append(("[vision] model", config.vision.model,
                      'leave it "" for the model shipped with c4pi'))
    return [f"{key} = {path!r}: no such file{_where(path)} ({remedy})"
            for key, path, remedy in named if not resolve_path(path).is_file()]


def _where(path: str) -> str:
    """" (FULL PATH)" for a relative config path, which is taken from the project
    directory; "" for an absolute one."""
    resolved = resolve_path(path)
    return "" if str(resolved) == str(Path(path).expanduser()) else f": {resolved}"
