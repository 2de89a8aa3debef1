"""The ``c4pi`` command line (SPEC.md §6).

Each subcommand lives in its own module under :mod:`firmware_py.commands`
(found automatically) and exposes ``register(subparsers)``, which adds its
parser and sets ``func(args, config) -> int`` as the default, and ``needs``,
the optional parts it cannot run without (:mod:`firmware_py.parts`). Command
modules import their heavy dependencies inside ``func``, so ``c4pi --help``
stays fast and works on a robot-only install. The config is loaded and
validated once, before any command runs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from c4game.exc import ConfigError
from firmware_py import __version__
from firmware_py.config import EX_CONFIG, Config, load_config
from firmware_py.failure import report
from firmware_py.parts import EX_UNAVAILABLE, missing, needs_message, part_of_module


def command_modules() -> list[str]:
    """Names of the modules under :mod:`firmware_py.commands`, sorted."""
    package = importlib.import_module("firmware_py.commands")
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__))


class UsageError(SystemExit):
    """A command line argparse refuses (exit 2), with argparse's message."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message


class Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors raised as :class:`UsageError` (after the
    usage and the message on stderr, as argparse prints them), so that ``main`` can
    say them in JSON too under ``--json``."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand."""
    parser = Parser(
        prog="c4pi",
        description="c4pi: a Raspberry Pi appliance that plays perfect Connect Four.",
    )
    parser.add_argument("--version", action="version", version=f"c4pi {__version__}")
    parser.add_argument("--config", metavar="PATH",
                        help="config file (default: /etc/c4pi/config.toml if present, "
                             "else the bundled config/c4pi.toml)")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--json", action="store_true", dest="json_first",
                        help="JSON output, for the commands that have --json (as after "
                             "the command)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"firmware_py.commands.{name}").register(subparsers)
    for command in subparsers.choices.values():  # c4pi read --config X IMG works too
        command.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS,
                             help="config file (as before the command)")
        command.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                             help="debug logging (as before the command)")
    return parser


SERVICES = ("run", "serve")  # the commands systemd runs: their log is the journal's


def setup_logging(config: Config, verbose: bool, command: str = "run") -> None:
    """Log to stderr (journald picks it up under systemd) at ``[log] level`` for the
    services; a command a person types prints what was asked for, and logs only
    warnings and errors unless ``-v``."""
    level = logging.DEBUG if verbose else getattr(logging, config.log.level.upper())
    if not verbose and command not in SERVICES:
        level = max(level, logging.WARNING)
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _check_global_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--json`` before the command means it after (a usage error for a command
    without JSON output); an empty ``--config`` (a script's unset variable) is a
    usage error, not the default config."""
    if args.json_first:
        if not hasattr(args, "json"):
            parser.error(f"c4pi {args.command} has no --json output")
        args.json = True
    if args.config is not None and not args.config.strip():
        parser.error("--config needs a path (it was given an empty one)")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``c4pi`` console script; returns the exit status."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(words)
        if getattr(args, "func", None):
            _check_global_options(parser, args)
    except UsageError as error:
        if "--json" in words:  # a script reading the JSON learns why too
            print(json.dumps({"error": error.message, "exit": error.code}), flush=True)
        raise
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return report(args, f"c4pi: config error: {error}", f"config error: {error}", EX_CONFIG)
    setup_logging(config, args.verbose, args.command)
    absent = missing(getattr(args, "needs", ()))
    if absent:
        message = needs_message(args.command, absent)
        return report(args, message, message, EX_UNAVAILABLE)
    try:
        return int(args.func(args, config) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except ModuleNotFoundError as error:  # a part this install leaves out, found late
        part = part_of_module(error.name)
        if part is None:
            raise
        print(needs_message(args.command, [part]), file=sys.stderr)
        return EX_UNAVAILABLE


if __name__ == "__main__":
    sys.exit(main())
