"""Running an :class:`Appliance` as a process: signals, notify, clean exit."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType
from typing import Any

from firmware_py.appliance.app import Appliance

log = logging.getLogger(__name__)


def run_until_signalled(appliance: Appliance) -> int:
    """Start ``appliance``, run until SIGTERM/SIGINT, stop it cleanly; exit status."""
    stop = threading.Event()

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %s received: stopping", signal.Signals(signum).name)
        stop.set()

    previous: dict[int, Any] = {
        signum: signal.signal(signum, handler) for signum in (signal.SIGTERM, signal.SIGINT)
    }
    try:
        appliance.start()
        appliance.run(stop)
    finally:
        appliance.stop()
        for signum, old in previous.items():
            signal.signal(signum, old)
    log.info("stopped")
    return 0
