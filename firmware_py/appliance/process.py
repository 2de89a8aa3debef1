"""Running an :class:`Appliance` as a process: signals, notify, clean exit."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from firmware_py.appliance.app import Appliance

# what signal.signal() returns: a handler, SIG_DFL/SIG_IGN, or None (set outside Python)
SignalHandler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None
log = logging.getLogger(__name__)


def run_until_signalled(appliance: Appliance,
                        on_started: Callable[[], None] | None = None) -> int:
    """Start ``appliance``, call ``on_started``, run until SIGTERM/SIGINT, stop it
    cleanly; exit status."""
    stop = threading.Event()

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %s received: stopping", signal.Signals(signum).name)
        stop.set()

    previous: dict[int, SignalHandler] = {
        signum: signal.signal(signum, handler) for signum in (signal.SIGTERM, signal.SIGINT)
    }
    try:
        appliance.start()
        if on_started is not None:
            on_started()
        appliance.run(stop)
    finally:
        appliance.stop()
        for signum, old in previous.items():
            signal.signal(signum, old)
    log.info("stopped")
    return 0


def exit_after_stop(status: int) -> int:
    """End the process right after the appliance's own clean stop, with ``status``.

    Everything c4pi owns is shut down by then (LED restored, port closed,
    audio stopped, threads joined). What is left are native libraries' worker
    threads (LiteRT, OpenCV), which Python's interpreter teardown does not
    join: under qemu-aarch64 a clean stop was followed by a C++ abort in that
    teardown ("terminate called without an active exception", exit 134). So
    the daemon flushes its output and leaves without the teardown.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream
            stream.flush()
    os._exit(status)
