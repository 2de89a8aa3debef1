"""What the HUD shows, gathered from the running pipeline (any thread in, states out).

:class:`HudHub` is fed by the appliance: every pipeline view
(:meth:`~HudHub.on_view`), every committed board (:meth:`~HudHub.on_commit`),
every frame with its reading (:meth:`~HudHub.on_frame`) and the solver's
busy flag. It keeps one state, a JSON-ready dict with a sequence number
``seq``, and calls each subscriber with the new state whenever something a
person would see changes: a view, the reading's grid or status, the health
(camera, solver, frame rate; :meth:`~HudHub.refresh_health` once a second).
Frames themselves are never pushed: the camera feed takes the latest one
(:meth:`~HudHub.latest_frame`) at its own pace.

An ``analyst`` (the shared solver worker at low priority, or a fake) finds
the other colour's reply to the recommended move, and reviews a finished
game (:func:`firmware_py.hud.game.review`) in a thread of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from c4game.board import COLOUR_NAMES, Board
from c4game.scores import verdict
from firmware_py.hud.game import GameLog, MoveMark, review
from firmware_py.json_types import JsonObject
from firmware_py.vision.remedy import ACCEPTED, remedy

if TYPE_CHECKING:
    import numpy as np

    from firmware_py.vision.reader import FrameAnalysis
    from firmware_py.vision.reading import Reading

log = logging.getLogger(__name__)


class ShownView(Protocol):
    """What the screen takes from a pipeline view (``firmware_py.pipeline.events.View``)."""

    @property
    def state(self) -> str: ...
    @property
    def grid(self) -> tuple[str, ...] | None: ...
    @property
    def best(self) -> int | None: ...
    @property
    def score(self) -> int | None: ...
    @property
    def plies(self) -> int | None: ...
    @property
    def board(self) -> Board | None: ...
    @property
    def to_move(self) -> str | None: ...

CAMERA_STALE_S = 3.0  # no frame for this long: the page says the camera is gone
REMEDY_AFTER_S = 10.0  # advice for a fault only once frames are refused this long
FPS_WINDOW_S = 2.0

Subscriber = Callable[[JsonObject], None]


class Solved(Protocol):
    """What the HUD reads of a solver's answer (``cython_solver.Answer``)."""

    @property
    def column(self) -> int: ...
    @property
    def score(self) -> int: ...
    @property
    def scores(self) -> Sequence[int | None] | None: ...  # each column's, if asked


class Analyst(Protocol):
    """Solves positions for the HUD, off the vision loop."""

    def solve(self, board: Board, on_done: Callable[[Solved | None], None], *,
              tag: str = "hud") -> None:
        """Later call ``on_done(answer)`` (``answer.column``/``score``/``plies``) or
        ``on_done(None)`` when the position cannot be solved now. A new position
        with the same ``tag`` may supersede one not yet solved (no call then)."""


@dataclass(frozen=True)
class LatestFrame:
    """The newest camera frame and what the reader made of it."""

    seq: int
    image: np.ndarray  # BGR
    analysis: FrameAnalysis | None  # None when the reader gives only readings
    reading: Reading


class HudHub:
    """The HUD's state (see the module docstring)."""

    def __init__(self, analyst: Analyst | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.analyst = analyst
        self.clock = clock
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._seq = 0
        self._frame_seq = 0
        self._frame: LatestFrame | None = None
        self._frame_times: list[float] = []
        self._refused_since: float | None = None  # the first of the refused frames in a row
        self._game = GameLog()
        self._person: str | None = None  # opponent mode: the person's colour (no hints)
        self._state: JsonObject = {
            "seq": 0, "state": "scanning", "grid": None, "committed": None, "to_move": None,
            "best": None, "score": None, "plies": None, "verdict": None, "reply": None,
            "winning": [],
            "reading": None,
            "game": {"start": None, "first": "R", "moves": "", "review": None},
            "mode": "coach", "message": "", "opponent": "",
            "health": {"camera": "starting", "solver": "ready", "fps": 0.0},
        }

    # ------------------------------------------------------------ subscribers

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(state)`` after every change; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)
        return unsubscribe

    def snapshot(self) -> JsonObject:
        """The current state (a copy)."""
        with self._lock:
            return _copy(self._state)

    def _publish(self, **changes: object) -> None:
        with self._lock:
            self._seq += 1
            self._state.update(changes, seq=self._seq)
            state = _copy(self._state)
            for callback in list(self._subscribers):
                try:
                    callback(state)
                except Exception:
                    log.exception("HUD subscriber failed")

    # ------------------------------------------------------------ inputs

    def on_view(self, view: ShownView, t: float) -> None:
        """A pipeline view; ``to_move`` is None when nobody has started (no colour is
        named then)."""
        board = view.board
        to_move = view.to_move
        changes: JsonObject = {
            "state": view.state, "grid": list(view.grid) if view.grid is not None else None,
            "to_move": to_move if board is not None and not board.is_finished else None,
            "best": view.best, "score": view.score, "plies": view.plies, "reply": None,
            "verdict": None, "winning": [],
        }
        if (board is not None and view.best is not None and view.score is not None
                and view.plies is not None):
            changes["verdict"] = verdict(board, view.score, view.plies,
                                         named=to_move is not None)
        if self._person is not None:  # opponent mode: no move or outcome to give away
            changes.update(best=None, score=None, plies=None,
                           verdict=None if view.best is not None else changes["verdict"])
        if board is not None and board.is_finished:
            changes["winning"] = sorted([c, r] for c, r in board.winning_cells())
            changes["verdict"] = self._result(board.winner)
        self._publish(**changes)
        if board is not None and view.best is not None and self._person is None:
            self._ask_reply(board, view.best, named=to_move is not None)

    def _result(self, winner: str | None) -> str:
        """How a finished game is told: by colour, or to the person playing c4pi (the
        words the speaker says: "I win" is "c4pi wins" on the screen)."""
        if winner is None:
            return "Draw"
        if self._person is None:
            return f"{COLOUR_NAMES[winner]} has won"
        return "You win" if winner == self._person else "c4pi wins"

    def on_commit(self, board: Board, kind: str, t: float) -> None:
        """A board the pipeline committed: the game's moves follow it."""
        with self._lock:
            self._game.commit(board)
            game = self._game_json(None)
        self._publish(game=game, committed=board.grid_lines())
        if board.is_finished and self.analyst is not None and self._game.moves:
            start, moves = self._game.start, list(self._game.moves)
            threading.Thread(target=self._review, args=(start, moves), daemon=True,
                             name="c4pi-hud-review").start()

    def on_frame(self, image: np.ndarray, reading: Reading,
                 analysis: FrameAnalysis | None = None) -> None:
        """Every frame (the vision loop's thread): cheap, publishes only changes."""
        now = self.clock()
        with self._lock:
            self._frame_seq += 1
            self._frame = LatestFrame(self._frame_seq, image, analysis, reading)
            self._frame_times = [t for t in self._frame_times if now - t <= FPS_WINDOW_S]
            self._frame_times.append(now)
            seen = _reading_json(reading, analysis, self._lasting_refusal(reading, now))
            changed = seen != self._state["reading"]
            camera_was = self._state["health"]["camera"]
        if changed:
            self._publish(reading=seen)
        if camera_was != "live":
            self.refresh_health()

    def _lasting_refusal(self, reading: Reading | None, now: float) -> bool:
        """True once every frame for :data:`REMEDY_AFTER_S` was refused: a fault to fix,
        not a hand dropping a disc or a board being cleared."""
        if reading is None or reading.status in ACCEPTED:
            self._refused_since = None
            return False
        if self._refused_since is None:
            self._refused_since = now
        return now - self._refused_since >= REMEDY_AFTER_S

    def set_person(self, colour: str, opponent: str = "") -> None:
        """Opponent mode: the person plays ``colour``; the page gives no hints and shows
        who c4pi is (``opponent``, e.g. "c4pi plays Yellow at level 3")."""
        self._person = colour
        self._publish(mode="opponent", opponent=opponent)

    def set_message(self, message: str) -> None:
        """What the opponent says ("I play 4", "Your move", "I win")."""
        self._publish(message=message)

    def set_solver_busy(self, busy: bool) -> None:
        self._set_health(solver="busy" if busy else "ready")

    def set_solver_gone(self) -> None:
        self._set_health(solver="gone")

    def set_part(self, name: str, state: str) -> None:
        """The health of another part (``speech``: ``on``, ``failing``)."""
        self._set_health(**{name: state})

    def refresh_health(self) -> None:
        """Recompute the camera's health and the frame rate; publish if they changed."""
        now = self.clock()
        with self._lock:
            times = [t for t in self._frame_times if now - t <= FPS_WINDOW_S]
            fps = round((len(times) - 1) / (times[-1] - times[0]), 1) if len(times) > 1 else 0.0
            last = self._frame_times[-1] if self._frame_times else None
        if last is None:
            camera = "starting"
        else:
            camera = "live" if now - last <= CAMERA_STALE_S else "no frames"
        self._set_health(camera=camera, fps=fps if camera == "live" else 0.0)

    def _set_health(self, **changes: object) -> None:
        with self._lock:
            health = {**self._state["health"], **changes}
            if health == self._state["health"]:
                return
        self._publish(health=health)

    # ------------------------------------------------------------ camera

    def latest_frame(self) -> LatestFrame | None:
        with self._lock:
            return self._frame

    # ------------------------------------------------------------ analyst

    def _ask_reply(self, board: Board, best: int, *, named: bool = True) -> None:
        """The other side's best reply to ``best`` (its colour None when not ``named``)."""
        after = board.play(best)
        if self.analyst is None or after.is_finished:
            return
        grid = board.grid_lines()

        def on_done(answer: Solved | None) -> None:
            if answer is None:
                return
            with self._lock:
                if self._state["grid"] != grid or self._state["best"] != best:
                    return  # the table moved on
            colour = after.to_move if named else None
            self._publish(reply={"colour": colour, "column": int(answer.column)})

        self.analyst.solve(after, on_done, tag="hud-reply")

    def _review(self, start: Board, moves: list[int]) -> None:
        try:
            marks = review(start, moves, self._score_of)
        except Exception as error:
            log.warning("game review failed: %s", error)
            return
        with self._lock:
            if self._game.start != start or self._game.moves != moves:
                return
            game = self._game_json(marks)
        self._publish(game=game)

    def _score_of(self, board: Board) -> int:
        done = threading.Event()
        result: list[Solved | None] = []

        def on_done(answer: Solved | None) -> None:
            result.append(answer)
            done.set()

        assert self.analyst is not None
        self.analyst.solve(board, on_done, tag="hud-review")
        if not done.wait(30.0) or result[0] is None:
            raise TimeoutError("the solver did not answer")
        return int(result[0].score)

    def _game_json(self, marks: list[MoveMark] | None) -> JsonObject:
        start = self._game.start
        return {"start": None if start.n_discs == 0 else start.grid_lines(),
                "first": start.first, "moves": self._game.notation,
                "review": None if marks is None else [mark.as_json() for mark in marks]}


def _reading_json(reading: Reading | None, analysis: FrameAnalysis | None,
                  lasting: bool) -> JsonObject | None:
    """The reading for the page; the advice only for a ``lasting`` refusal."""
    if reading is None:
        return None
    markers = getattr(analysis, "markers", None)
    return {"status": reading.status,
            "grid": list(reading.grid) if reading.grid is not None else None,
            "reason": reading.reason or "",
            "remedy": remedy(reading.status, reading.reason or "") if lasting else "",
            "markers": sorted(int(m) for m in markers) if markers else None,
            "marker_count": int(reading.markers)}


def _copy(state: JsonObject) -> JsonObject:
    """A copy deep enough that later changes do not show through (values are JSON)."""
    return {key: (dict(value) if isinstance(value, dict) else value)
            for key, value in state.items()}
