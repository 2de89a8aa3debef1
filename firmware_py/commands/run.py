"""``c4pi run``: the appliance daemon, as the systemd service runs it."""

from __future__ import annotations

import argparse

from firmware_py.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="run the appliance (camera, solver, speech, serial) from the config",
        description="Run the whole appliance as configured: the camera pipeline, the serial "
                    "robot link, the LEDs and speech around one solver. Speaks the systemd "
                    "notify protocol (READY, STATUS, WATCHDOG) when NOTIFY_SOCKET is set. "
                    "SIGTERM or SIGINT stop it cleanly.")
    parser.set_defaults(func=run, needs=("camera", "speech", "screen"))


def run(args: argparse.Namespace, config: Config) -> int:
    from firmware_py.appliance import Appliance
    from firmware_py.appliance.process import exit_after_stop, run_until_signalled
    from firmware_py.notify import SystemdNotifier

    return exit_after_stop(run_until_signalled(Appliance(config, SystemdNotifier())))
