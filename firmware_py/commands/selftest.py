"""``c4pi selftest``: check the device and print a PASS/FAIL/SKIP table."""

from __future__ import annotations

import argparse

from firmware_py.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "selftest", help="check solver, book, model, camera, serial, LED, speech and system",
        description="Run every device check and print a PASS/FAIL/SKIP table; exit 1 on any "
                    "FAIL. Hardware that is absent or disabled in the config is skipped "
                    "with the reason.")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--loopback", action="store_true",
                        help="also test the serial port with TX jumpered to RX")
    parser.add_argument("--speak", action="store_true",
                        help="also play a short test phrase on the speaker")
    parser.add_argument("--frames", type=int, default=10,
                        help="camera frames to grab when timing the camera (default 10)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from firmware_py.selftest import (
        SelftestOptions,
        exit_status,
        format_json,
        format_table,
        run_checks,
    )
    from firmware_py.selftest.checks import all_checks

    options = SelftestOptions(loopback=args.loopback, speak=args.speak, frames=args.frames)
    results = run_checks(all_checks(), config, options)
    print(format_json(results) if args.json else format_table(results))
    return exit_status(results)
