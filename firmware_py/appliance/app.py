"""The appliance: camera pipeline, serial service, LEDs and speech around one solver.

:class:`Appliance` wires the parts together; every part is built by a
factory in :class:`Parts`, so tests (and ``c4pi demo``) swap hardware for
fakes explicitly. Start-up order: activity LED solid → solver (+ book) →
worker → announcer → serial service → camera loop → ``READY=1`` and LED off.
A part that fails at start or at run time is logged and retried; the rest
keeps working. :meth:`Appliance.stop` shuts everything down within about 2 s.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from c4game.board import Board
from c4game.exc import SolverError
from firmware_py.appliance.retry import PartRetry
from firmware_py.backoff import Backoff
from firmware_py.config import Config
from firmware_py.notify import Notifier, Watchdog, watchdog_interval

if TYPE_CHECKING:  # the parts, imported where they are made
    from cython_solver import Answer, Solver
    from firmware_py.frames import Frame, FrameSource
    from firmware_py.hud.hub import HudHub
    from firmware_py.hud.play_games import PlayGames
    from firmware_py.hud.server import HudServer
    from firmware_py.leds import ActivityLight, AdvantageLights, Led
    from firmware_py.pipeline.events import View
    from firmware_py.pipeline.runtime import FrameReader, Pipeline
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.play.opponent import Opponent
    from firmware_py.serial_link.service import SerialService
    from firmware_py.serial_link.transport import PortOpener
    from firmware_py.speech.announcer import Announcer, MutedAnnouncer
    from firmware_py.vision.hole_looks import HoleLooks
    from firmware_py.vision.reader import BoardReader
    from firmware_py.vision.reading import Reading
    from firmware_py.worker import SolverWorker

log = logging.getLogger(__name__)

VISION_LOOP = "vision"
SERIAL_LOOP = "serial"
MAIN_LOOP = "main"
SERIAL_READY_S = 2.0  # start waits this long at most for the robot port to open


def _default_solver(config: Config) -> Solver:
    from cython_solver import Solver

    solver = Solver.from_config(config.solver)
    log.info("solver ready (tt %d MB); %s", solver.tt_mb, solver.book_status)
    return solver


def _default_activity_led(config: Config) -> Led:
    from firmware_py.leds import open_activity_led

    return open_activity_led(config.led)


def _default_advantage(config: Config) -> AdvantageLights | None:
    from firmware_py.leds import open_advantage_lights

    return open_advantage_lights(config.led)


def _default_port_opener(config: Config) -> PortOpener:
    from firmware_py.serial_link.transport import pyserial_opener

    return pyserial_opener(config.serial.port, config.serial.baud)


def _default_source(config: Config, wait: Callable[[float], bool]) -> FrameSource:
    from firmware_py.sources.factory import open_source

    return open_source(config.camera.source, config.camera, wait=wait, strict_open=False,
                       first=config.game.first)


def _default_reader(config: Config, source: FrameSource) -> BoardReader:
    from firmware_py.pipeline.assemble import make_reader

    return make_reader(config, source)


def _default_hud(config: Config, hub: HudHub, games: PlayGames | None) -> HudServer:
    from firmware_py.hud.server import HudServer

    return HudServer.from_config(config, hub, games).start()


def _default_announcer(config: Config) -> Announcer | MutedAnnouncer:
    from firmware_py.speech import open_announcer

    return open_announcer(config.speech)


@dataclass
class Parts:
    """Factories for everything that touches hardware (swap them in tests and the demo)."""

    solver: Callable[[Config], Solver] = _default_solver
    activity_led: Callable[[Config], Led] = _default_activity_led
    advantage: Callable[[Config], AdvantageLights | None] = _default_advantage
    port_opener: Callable[[Config], PortOpener] = _default_port_opener
    source: Callable[[Config, Callable[[float], bool]], FrameSource] = _default_source
    reader: Callable[[Config, FrameSource], BoardReader] = _default_reader
    announcer: Callable[[Config], Announcer | MutedAnnouncer] = _default_announcer
    # None: no web page
    hud: Callable[[Config, HudHub, PlayGames | None], HudServer] | None = _default_hud
    on_view: Callable[[View, float], None] | None = None
    on_opponent: Callable[[str], None] | None = None  # the opponent's new message
    retry_s: tuple[float, float] = field(default=(0.5, 10.0))


class Appliance:
    """One c4pi process: see the module docstring."""

    def __init__(self, config: Config, notifier: Notifier, parts: Parts | None = None, *,
                 watchdog_s: float | None = None, stale_s: float = 15.0) -> None:
        self.config = config
        self.notifier = notifier
        self.parts = parts or Parts()
        interval = watchdog_s if watchdog_s is not None else watchdog_interval()
        self.watchdog = Watchdog(notifier, interval_s=interval, stale_s=stale_s)
        self.stopping = threading.Event()
        self.started = time.monotonic()
        self.activity: ActivityLight | None = None
        self.advantage: AdvantageLights | None = None
        self.solver: Solver | None = None
        self.worker: SolverWorker | None = None
        self.announcer: Announcer | MutedAnnouncer | None = None
        self.serial: SerialService | None = None
        self.pipeline: Pipeline | None = None
        self.hub: HudHub | None = None
        self.hud: HudServer | None = None
        self.opponent: Opponent | None = None
        self.frames = 0
        self.view: View | None = None
        self.serial_answers = 0
        self._threads: list[threading.Thread] = []
        self.retries: dict[str, PartRetry] = {}
        self._status = ""

    # ------------------------------------------------------------ start

    def start(self) -> None:
        """Bring every enabled part up, then notify ``READY=1``."""
        from firmware_py.leds import ActivityLight

        activity = self.activity = ActivityLight(self.parts.activity_led(self.config),
                                                 self.config.led.blink_hz)
        self.advantage = self.parts.advantage(self.config)
        self.solver = self.parts.solver(self.config)
        self.worker = self._start_worker(self.solver, activity)
        self.watchdog.register(MAIN_LOOP)
        if self.config.hud.enabled and self.parts.hud is not None:
            self._start_hud()
        if self.config.speech.enabled:
            self._start_announcer()
        if self.config.play.mode == "opponent":
            self.opponent = self._make_opponent()
        if self.config.serial.enabled:
            serial = self._start_serial()
            serial.wait_connected(SERIAL_READY_S)  # READY=1: the robot link answers
        if self.config.camera.enabled:
            self._spawn(VISION_LOOP, self._vision_loop)
        activity.ready()
        self.watchdog.start()
        self.notifier.notify("READY=1")
        self.update_status(force=True)
        log.info("c4pi ready in %.2f s", time.monotonic() - self.started)

    def _start_worker(self, solver: Solver, activity: ActivityLight) -> SolverWorker:
        from firmware_py.worker import SolverWorker

        rng = random.Random() if self.config.solver.tie_break == "random" else None
        worker = SolverWorker(solver, self.config.solver.tie_break, rng).start()
        worker.add_busy_listener(activity.set_busy)
        return worker

    @property
    def running_worker(self) -> SolverWorker:
        """The solver worker, which :meth:`start` starts before any other part."""
        if self.worker is None:
            raise SolverError("the appliance's solver worker has not started")
        return self.worker

    def _start_hud(self) -> None:
        from firmware_py.hud.hub import HudHub
        from firmware_py.hud.play_games import PlayGames, worker_scorer
        from firmware_py.hud.taps import HUD_PRIORITY, WorkerAnalyst

        worker = self.running_worker
        hub = self.hub = HudHub(WorkerAnalyst(worker))
        worker.add_busy_listener(hub.set_solver_busy)
        games = (PlayGames(worker_scorer(worker, HUD_PRIORITY),
                           default_level=self.config.play.level,
                           first=self.config.game.first)
                 if self.config.play.web else None)
        factory = self.parts.hud
        assert factory is not None
        self.retries["screen"] = PartRetry(
            "the screen (web page)", lambda: factory(self.config, hub, games),
            self._hud_up, self.stopping, first_s=self.parts.retry_s[0])
        self.retries["screen"].begin()

    def _hud_up(self, hud: HudServer) -> None:
        if self.stopping.is_set():  # came up while the appliance stops
            hud.stop()
            return
        self.hud = hud

    def _make_opponent(self) -> Opponent:
        from c4game.board import other
        from firmware_py.play.levels import level
        from firmware_py.play.opponent import Opponent, worker_thinker
        from firmware_py.worker import VISION_PRIORITY

        play = self.config.play

        def speak(clips: tuple[str, ...], key: object) -> None:
            if self.announcer is not None:  # speech may come up later
                self.announcer.say(clips, key)

        if self.hub is not None:
            colour = "Red" if play.colour == "R" else "Yellow"
            self.hub.set_person(other(play.colour), f"c4pi plays {colour} at level {play.level}")
        log.info("opponent mode: c4pi plays %s at level %d", play.colour, play.level)
        thinker = worker_thinker(self.running_worker, VISION_PRIORITY)
        return Opponent(play.colour, level(play.level), thinker, speak, random.Random(),
                        on_change=self._opponent_said)

    def _opponent_said(self, message: str) -> None:
        if self.hub is not None:
            self.hub.set_message(message)
        if self.parts.on_opponent is not None:
            self.parts.on_opponent(message)

    def _start_announcer(self) -> None:
        def start() -> Announcer | MutedAnnouncer:
            announcer = self.parts.announcer(self.config)
            announcer.start()
            return announcer

        self.retries["speech"] = PartRetry("speech", start, self._speech_up, self.stopping,
                                           first_s=self.parts.retry_s[0])
        self.retries["speech"].begin()

    def _speech_up(self, announcer: Announcer | MutedAnnouncer) -> None:
        if self.stopping.is_set():
            announcer.close()
            return
        self.announcer = announcer
        announcer.say_startup()
        if self.hub is not None:
            self.hub.set_part("speech", "on")

    def _start_serial(self) -> SerialService:
        from firmware_py.play.levels import level
        from firmware_py.serial_link.service import SerialService
        from firmware_py.serial_link.transport import HeartbeatPort

        serial = self.config.serial
        opener = self.parts.port_opener(self.config)
        self.watchdog.register(SERIAL_LOOP)

        def beating_opener() -> HeartbeatPort:
            self.watchdog.beat(SERIAL_LOOP)
            return HeartbeatPort(opener(), lambda: self.watchdog.beat(SERIAL_LOOP))

        service = self.serial = SerialService(
            beating_opener, self.running_worker, reconnect_min_s=serial.reconnect_min_s,
            reconnect_max_s=serial.reconnect_max_s, on_answer=self._on_serial_answer,
            level=level(serial.level))
        service.start()
        return service

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=self._supervise, args=(name, target),
                                  name=f"c4pi-{name}", daemon=True)
        self._threads.append(thread)
        self.watchdog.register(name)
        thread.start()

    def _supervise(self, name: str, target: Callable[[], None]) -> None:
        """Run ``target`` until stopping; restart it with backoff when it fails."""
        backoff = Backoff(*self.parts.retry_s)
        while not self.stopping.is_set():
            try:
                target()
                backoff.reset()
                delay = backoff.next()
            except Exception:
                delay = backoff.next()
                log.exception("%s loop failed; restarting in %.1f s", name, delay)
            if self._wait_beating(name, delay):
                return

    def _wait_beating(self, name: str, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.watchdog.beat(name)
            if self.stopping.wait(min(1.0, left)):
                return True
        return self.stopping.is_set()

    # ------------------------------------------------------------ vision

    def _vision_loop(self) -> None:
        from firmware_py.pipeline.assemble import (
            make_teacher,
            params_from_config,
            teaches_this_board,
        )
        from firmware_py.pipeline.runtime import FrameLoop, Pipeline, RebasedSource, WorkerPort

        loop: FrameLoop | None = None
        teacher: LookTeacher | None = None

        def wait(seconds: float) -> bool:
            return self._wait_beating(VISION_LOOP, seconds)

        source = self.parts.source(self.config, wait)
        try:
            source.open()
            board_reader = self.parts.reader(self.config, source)
            reader: FrameReader = board_reader
            if self.hub is not None:
                from firmware_py.hud.taps import AnalysingReader

                reader = AnalysingReader(board_reader, self.hub)
            rebased = RebasedSource(source, time.monotonic())
            coach = self.opponent is None  # an opponent does not tell the person their move
            port = WorkerPort(self.running_worker)
            self.pipeline = Pipeline(params_from_config(self.config), port,
                                     announcer=LateAnnouncer(self) if coach else None,
                                     on_show=self._on_view, on_commit=self._on_commit,
                                     clock=rebased.now)
            teacher = make_teacher(self.config, board_reader, store=teaches_this_board(source),
                                   on_learnt=self._on_looks_learnt)
            loop = FrameLoop(rebased, reader, self.pipeline,
                             stop=self.stopping, on_frame=self._on_frame, teacher=teacher)
            loop.run()
        finally:
            if teacher is not None:
                teacher.close()
            source.close()
        if not self.stopping.is_set():
            log.warning("camera source %r ended", self.config.camera.source)

    def _on_looks_learnt(self, looks: HoleLooks) -> None:
        if self.hub is not None:
            self.hub.set_part("looks", f"board learnt from {looks.boards} positions")

    def _on_frame(self, frame: Frame, reading: Reading) -> None:
        self.frames += 1
        self.watchdog.beat(VISION_LOOP)
        if self.hub is not None and self.pipeline is not None:
            self.hub.set_part("first_sight", _first_sight_note(self.pipeline.first_sight_doubt))

    def _on_view(self, view: View, t: float) -> None:
        self.view = view
        if self.hub is not None:
            self.hub.on_view(view, t)
        board, score = view.board, view.score
        if view.best is not None and board is not None and score is not None and (
                self.advantage is not None):
            self.advantage.show(board, score)
        if self.parts.on_view is not None:
            self.parts.on_view(view, t)
        self.update_status(force=True)

    def _on_commit(self, board: Board, kind: str, t: float) -> None:
        if self.hub is not None:
            self.hub.on_commit(board, kind, t)
        if self.opponent is not None:
            self.opponent.on_commit(board, kind, t)

    def _on_serial_answer(self, board: Board, answer: Answer) -> None:
        self.serial_answers += 1
        if self.advantage is not None:
            self.advantage.show(board, answer.score)

    # ------------------------------------------------------------ main loop

    def run(self, stop: threading.Event) -> None:
        """Block until ``stop`` is set, beating the main loop and refreshing the status."""
        while not stop.wait(0.5):
            self.watchdog.beat(MAIN_LOOP)
            if self.hub is not None and not self.running_worker.alive:
                self.hub.set_solver_gone()
            self.update_status()

    def status_line(self) -> str:
        """One line for ``STATUS=`` and the log."""
        parts = [f"book {'on' if getattr(self.solver, 'has_book', False) else 'off'}"]
        if self.serial is not None:
            link = "connected" if self.serial.connected else "waiting for port"
            parts.append(f"serial {link}, {self.serial_answers} answers")
        if self.config.camera.enabled:
            parts.append(f"camera {self.frames} frames")
            if self.view is not None:
                parts.append(_describe_view(self.view))
        if self.config.speech.enabled:
            parts.append(self._speech_status())
        if self.retries.get("screen") and self.retries["screen"].down:
            parts.append(f"screen down: {self.retries['screen'].down}")
        return "; ".join(parts)

    def _speech_status(self) -> str:
        state, why = self.speech_state()
        return f"speech {state}: {why}" if why else f"speech {state}"

    def speech_state(self) -> tuple[str, str]:
        """(``on`` | ``failing`` | ``down`` | ``starting``, why)."""
        retry = self.retries.get("speech")
        if self.announcer is None:
            return ("down", retry.down) if retry and retry.down else ("starting", "")
        failure = getattr(getattr(self.announcer, "sink", None), "failure", None)
        return ("failing", failure) if failure else ("on", "")

    def update_status(self, force: bool = False) -> None:
        line = self.status_line()
        if self.hub is not None and self.config.speech.enabled:
            self.hub.set_part("speech", self.speech_state()[0])
        if self.hub is not None and self.serial is not None:  # the screen says a dead link
            self.hub.set_part("serial", "connected" if self.serial.connected
                              else f"{self.config.serial.port} does not open")
        if force or line.split(";")[0:2] != self._status.split(";")[0:2]:
            self.notifier.notify(f"STATUS={line}")
        self._status = line

    # ------------------------------------------------------------ stop

    def stop(self) -> None:
        """Stop every part: port closed, audio stopped, LED trigger restored."""
        self.notifier.notify("STOPPING=1")
        self.stopping.set()
        self.watchdog.stop()
        for closer in (self._stop_serial, self._stop_worker, self._join_threads,
                       self._close_announcer, self._close_leds, self._stop_hud):
            try:
                closer()
            except Exception:
                log.exception("error while stopping")

    def _stop_serial(self) -> None:
        if self.serial is not None:
            self.serial.stop(timeout=1.0)

    def _stop_worker(self) -> None:
        if self.worker is not None:
            self.worker.stop(timeout=1.0)

    def _join_threads(self) -> None:
        for thread in self._threads:
            thread.join(timeout=1.0)

    def _stop_hud(self) -> None:
        if self.hud is not None:
            self.hud.stop()

    def _close_announcer(self) -> None:
        if self.announcer is not None:
            self.announcer.close()

    def _close_leds(self) -> None:
        if self.advantage is not None:
            self.advantage.close()
        if self.activity is not None:
            self.activity.close()


class LateAnnouncer:
    """The appliance's announcer as it is now (the pipeline's :class:`Announcer`):
    speech that comes up late is heard; before it is up, nothing is said."""

    def __init__(self, appliance: Appliance) -> None:
        self.appliance = appliance

    def show_recommendation(self, player: str | None, column: int, outcome: str,
                            plies: int) -> None:
        if (announcer := self.appliance.announcer) is not None:
            announcer.show_recommendation(player, column, outcome, plies)

    def show_finished(self, winner: str | None, key: str | None = None) -> None:
        if (announcer := self.appliance.announcer) is not None:
            announcer.show_finished(winner, key)

    def show_scanning(self) -> None:
        if (announcer := self.appliance.announcer) is not None:
            announcer.show_scanning()

    def show_board_lost(self) -> None:
        if (announcer := self.appliance.announcer) is not None:
            announcer.show_board_lost()


def _first_sight_note(doubt: str) -> str:
    """The screen's short note while a game begun before it looked is followed only
    from discs seen to land ("" if none; the log says what was seen)."""
    return "room seen as a disc: clear the board" if doubt else ""


def _describe_view(view: View) -> str:
    if view.best is None:
        return f"board {view.state}"
    return f"board {view.state}: play {view.best} (score {view.score:+d}, {view.plies} plies)"
