"""``c4pi serve``: run the serial solver service for the Arduino robot alone (SPEC §3).

Under systemd (``systemd/c4pi-robot.service``) it says ``READY=1`` once the
solver, the book and the port are up, and pings the watchdog while the serial
loop keeps reading (:class:`~firmware_py.notify.Watchdog`): a hung link is
restarted by systemd."""

from __future__ import annotations

import argparse
import logging
import random
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

from firmware_py.config import Config
from firmware_py.serial_link.transport import baud_rates

if TYPE_CHECKING:
    from c4game.board import Board
    from cython_solver import Answer, Solver
    from firmware_py.serial_link.ptywire import PtyWire
    from firmware_py.serial_link.service import SerialService
    from firmware_py.serial_link.transport import HeartbeatPort
    from firmware_py.worker import SolverWorker

# what signal.signal returns: a handler, a default, or None for one not set from Python
SignalHandler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

log = logging.getLogger(__name__)

SERIAL_LOOP = "serial"
STALE_S = 15.0  # the serial loop silent this long: no more watchdog pings

def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="answer robot queries on the serial port (the serial solver alone)",
        description="Run the serial solver service: answer !MOVES? queries from the Arduino "
                    "robot with NxMM (SPEC §3), drive the activity/advantage LEDs, reopen a "
                    "lost port. Stops on SIGINT/SIGTERM.")
    parser.add_argument("--port", metavar="DEV", help="serial device (default: [serial] port)")
    parser.add_argument("--baud", type=int, choices=baud_rates(), metavar="BAUD",
                        help="baud rate (default: [serial] baud)")
    parser.add_argument("--pty", action="store_true",
                        help="serve on a new pseudo-terminal pair instead of a real port and "
                             "print the robot-side device (try it with c4pi client --port)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    stop = threading.Event()
    previous = _on_signals(stop)
    try:
        with _Appliance(config) as appliance:
            device = args.port or config.serial.port
            if args.pty:
                device = appliance.open_pty()
            service = appliance.serve(device, args.baud or config.serial.baud)
            appliance.notifier.notify("READY=1")
            if args.pty and service.wait_connected(10):
                print(f"robot side: {appliance.robot_path}", flush=True)
            stop.wait()
            log.info("stopping")
            appliance.notifier.notify("STOPPING=1")
    finally:
        _restore_signals(previous)
    return 0


class _Appliance:
    """Everything ``serve`` runs, closed in reverse order (LED trigger restored last)."""

    def __init__(self, config: Config) -> None:
        from firmware_py.leds import ActivityLight, open_activity_led, open_advantage_lights
        from firmware_py.notify import SystemdNotifier, Watchdog, watchdog_interval

        self.config = config
        self.notifier = SystemdNotifier()
        self.watchdog = Watchdog(self.notifier, interval_s=watchdog_interval(),
                                 stale_s=STALE_S)
        self.activity = ActivityLight(open_activity_led(config.led), config.led.blink_hz)
        self.advantage = open_advantage_lights(config.led)
        self.worker: SolverWorker | None = None
        self.service: SerialService | None = None
        self.wire: PtyWire | None = None
        self.robot_path = ""

    def __enter__(self) -> _Appliance:
        return self

    def __exit__(self, *exc: object) -> None:
        self.watchdog.stop()
        if self.service is not None:
            self.service.stop()
        if self.worker is not None:
            self.worker.stop()
        if self.wire is not None:
            self.wire.close()
        if self.advantage is not None:
            self.advantage.close()
        self.activity.close()

    def open_pty(self) -> str:
        from firmware_py.serial_link.ptywire import PtyWire

        self.wire = PtyWire()
        self.robot_path = self.wire.robot_path
        return self.wire.service_path

    def serve(self, device: str, baud: int) -> SerialService:
        """Start answering the robot on ``device``; returns the running service."""
        from firmware_py.play.levels import level
        from firmware_py.serial_link.service import SerialService
        from firmware_py.serial_link.transport import HeartbeatPort, pyserial_opener
        from firmware_py.worker import SolverWorker

        solver, rng = _make_solver(self.config)
        worker = self.worker = SolverWorker(solver, self.config.solver.tie_break, rng).start()
        worker.add_busy_listener(self.activity.set_busy)
        serial = self.config.serial
        opener = pyserial_opener(device, baud)
        link = (f"a pseudo-terminal (the robot's side: {self.robot_path})" if self.robot_path
                else device)  # never name the service's own end to a robot builder
        self.watchdog.register(SERIAL_LOOP)

        def beating_opener() -> HeartbeatPort:  # the loop beats while it opens or reads the port
            self.watchdog.beat(SERIAL_LOOP)
            return HeartbeatPort(opener(), lambda: self.watchdog.beat(SERIAL_LOOP))

        service = self.service = SerialService(
            beating_opener, worker,
            reconnect_min_s=serial.reconnect_min_s, reconnect_max_s=serial.reconnect_max_s,
            on_answer=self._show_advantage, on_connect=lambda _name: self.activity.ready(),
            level=level(serial.level), name=link)
        log.info("serving robot queries on %s at %d baud", link, baud)
        service.start()
        self.watchdog.start()
        return service

    def _show_advantage(self, board: Board, answer: Answer) -> None:
        if self.advantage is not None:
            self.advantage.show(board, answer.score)


def _make_solver(config: Config) -> tuple[Solver, random.Random | None]:
    """The solver (with the book when configured and present) and the tie-break rng."""
    from cython_solver import Solver

    solver = Solver.from_config(config.solver)
    log.info("solver ready (tt %d MB); %s", solver.tt_mb, solver.book_status)
    rng = random.Random() if config.solver.tie_break == "random" else None
    return solver, rng


def _on_signals(stop: threading.Event) -> dict[int, SignalHandler]:
    """SIGTERM and SIGINT set ``stop`` (so the LED trigger is restored on the way out)."""
    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("signal %s received: stopping", signal.Signals(signum).name)
        stop.set()

    previous: dict[int, SignalHandler] = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous[signum] = signal.signal(signum, handler)
    return previous


def _restore_signals(previous: dict[int, SignalHandler]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
