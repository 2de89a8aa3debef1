"""The serial solver service: reads robot queries, acknowledges at once, answers via the worker.

One reader thread owns the port: it feeds the bytes to the
:class:`~firmware_py.serial_link.protocol.FrameParser` and writes each ``!``/``?``
acknowledgement straight away, so the acknowledgement never waits for a
search. Accepted queries go to the shared :class:`~firmware_py.worker.SolverWorker`
(tag ``"serial"``, priority 10), which supersedes the previous query; the
answer is written from the worker thread in one write. A lost or missing port
is reopened with exponential backoff; the service never gives up.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from c4game.board import Board
from c4game.exc import SerialPortError, SolverError
from firmware_py.backoff import Backoff
from firmware_py.play.levels import PERFECT, Level, choose
from firmware_py.ratelog import RateLimitedLog
from firmware_py.serial_link.protocol import Accepted, Event, FrameParser, encode_answer
from firmware_py.serial_link.transport import Port, PortOpener
from firmware_py.worker import SERIAL_PRIORITY, SolverWorker

if TYPE_CHECKING:
    from cython_solver import Answer

log = logging.getLogger(__name__)

ANSWER_LOG_S = 1.0  # queries and answers logged at most this often each (a flood counted)
REMIND_S = 600.0  # while the port cannot be opened, a reminder line this often

SERIAL_TAG = "serial"
AnswerListener = Callable[[Board, "Answer"], None]


@dataclass
class ServiceStats:
    """Counters, for logs, the self-test and the benchmark."""

    accepted: int = 0
    rejected: int = 0
    answered: int = 0
    superseded: int = 0
    failed: int = 0
    opens: int = 0
    losses: int = 0
    open_failures: int = 0


class SerialService:
    """Answers robot queries on the port that ``opener`` opens (SPEC §3)."""

    def __init__(self, opener: PortOpener, worker: SolverWorker, *,
                 reconnect_min_s: float = 0.5, reconnect_max_s: float = 10.0,
                 on_answer: AnswerListener | None = None,
                 on_connect: Callable[[str], None] | None = None,
                 level: Level | None = None, rng: random.Random | None = None,
                 name: str | None = None) -> None:
        self._opener = opener
        self._name = name  # how the log names the link (default: the port's device)
        self._level = level if level is not None and level.number != PERFECT else None
        self._rng = rng or random.Random()
        self._worker = worker
        self._backoff = Backoff(reconnect_min_s, reconnect_max_s)
        self._on_answer = on_answer
        self._on_connect = on_connect
        self._parser = FrameParser()
        self._write_lock = threading.Lock()
        self._rejections = RateLimitedLog(log)  # a noisy robot or a loose wire: no flood
        self._still_closed = RateLimitedLog(log, every_s=REMIND_S)
        self._answers = RateLimitedLog(log, every_s=ANSWER_LOG_S)  # a robot's flood
        self._port: Port | None = None
        self._generation = 0
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._thread: threading.Thread | None = None
        self.stats = ServiceStats()

    # ------------------------------------------------------------ lifecycle

    def start(self) -> SerialService:
        """Run the reader in a background thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, name="c4pi-serial", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading, drop the pending query and close the port."""
        self._stop.set()
        self._worker.cancel_tag(SERIAL_TAG)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Block until the port is open (True) or ``timeout`` passes (False)."""
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def run(self) -> None:
        """The reader loop (blocks until :meth:`stop`): open, read, reopen on loss."""
        while not self._stop.is_set():
            port = self._open()
            if port is None:
                continue
            try:
                self._serve(port)
            except SerialPortError as error:
                self.stats.losses += 1
                log.warning("%s; reopening", error)
            except Exception:  # a bug must not end the service: log it, start afresh
                log.exception("serial service error on %s; reopening the port", port.name)
            finally:
                self._close(port)
            self._stop.wait(self._backoff.next())

    # ------------------------------------------------------------ port

    def _open(self) -> Port | None:
        try:
            port = self._opener()
        except SerialPortError as error:
            self.stats.open_failures += 1
            delay = self._backoff.next()
            first = self.stats.open_failures == 1  # then a reminder every REMIND_S
            self._still_closed.warning("closed", f"{error}: " + (
                "the robot gets no answer until it opens (check [serial] port and the "
                "wiring; c4pi selftest checks it); retrying in the background" if first
                else f"still retrying ({self.stats.open_failures} tries)"))
            self._stop.wait(delay)
            return None
        with self._write_lock:
            self._port = port
        self.stats.opens += 1
        self.stats.open_failures = 0
        self._still_closed = RateLimitedLog(log, every_s=REMIND_S)  # said again if lost
        self._backoff.reset()
        self._parser.reset()
        self._connected.set()
        log.info("serial link open on %s", self._name or port.name)
        if self._on_connect is not None:
            try:
                self._on_connect(port.name)
            except Exception:
                log.exception("on_connect callback failed")
        return port

    def _close(self, port: Port) -> None:
        self._connected.clear()
        with self._write_lock:
            self._port = None
            self._generation += 1  # an answer still being solved has nowhere to go
        self._worker.cancel_tag(SERIAL_TAG)
        port.close()

    def _serve(self, port: Port) -> None:
        while not self._stop.is_set():
            data = port.read()
            if not data:
                continue
            for event in self._parser.feed(data):
                self._handle(port, event)

    # ------------------------------------------------------------ queries

    def _handle(self, port: Port, event: Event) -> None:
        with self._write_lock:
            port.write(event.reply)
            if not isinstance(event, Accepted):
                self.stats.rejected += 1
                self._rejections.info("rejected", f"rejected query {event.moves!r}: "
                                                  f"{event.reason}")
                return
            self._generation += 1
            generation = self._generation
        self.stats.accepted += 1
        self._answers.info("accepted", f"query {event.moves!r} accepted")
        superseded = self._worker.cancel_tag(SERIAL_TAG)
        self.stats.superseded += superseded
        try:
            self._worker.submit(event.board, priority=SERIAL_PRIORITY, tag=SERIAL_TAG,
                                on_done=self._answer_callback(generation, time.perf_counter()),
                                scores=self._level is not None)
        except SolverError as error:  # the worker was stopped (shutting down)
            log.error("query %r not solved: %s", event.moves, error)
            self.stats.failed += 1  # counted once said (a test waits for the count)

    def _answer_callback(self, generation: int, started: float
                         ) -> Callable[[Board, Answer | None, BaseException | None], None]:
        def on_done(board: Board, answer: Answer | None, error: BaseException | None) -> None:
            if answer is None:
                log.error("no answer for %r: %s", board.moves, error)
                self.stats.failed += 1  # counted once said
                return
            column, score = self._pick(board, answer)
            data = encode_answer(column, score, board.n_discs)
            with self._write_lock:
                if generation != self._generation or self._port is None:
                    return  # superseded by a newer query, or the port went away
                try:
                    self._port.write(data)
                except SerialPortError as write_error:
                    log.warning("answer %s for %r lost: %s", data.decode(), board.moves,
                                write_error)
                    return
            self.stats.answered += 1
            self._answers.info("answer", f"{board.moves!r} -> {data.decode()} "
                               f"({(time.perf_counter() - started) * 1000:.0f} ms)")
            if self._on_answer is not None:
                self._on_answer(board, answer)

        return on_done

    def _pick(self, board: Board, answer: Answer) -> tuple[int, int]:
        """The column to send and its own score: the best one, or the level's choice."""
        if self._level is None or answer.scores is None:
            return answer.column, answer.score
        column = choose(answer.scores, board.n_discs, self._level, self._rng)
        return column, int(answer.scores[column - 1])  # type: ignore[arg-type]
