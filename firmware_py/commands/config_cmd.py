"""``c4pi config``: validate the config and print the effective values."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from firmware_py.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config", help="validate the config file and print the effective settings",
        description="Validate the config (exit 78 naming the bad key on an error) and print "
                    "every effective setting.")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    values = asdict(config)
    source = values.pop("source")
    if args.json:
        print(json.dumps({"source": source, **values}, indent=2))
        return 0
    print(f"# effective config, loaded from {source}")
    for section, keys in values.items():
        print(f"\n[{section}]")
        for key, value in keys.items():
            print(f"{key} = {json.dumps(value)}")
    return 0
