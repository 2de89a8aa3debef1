"""Games on the play page: each browser's game against c4pi, apart from the table.

:class:`PlayGames` keeps up to :data:`MAX_GAMES` :class:`~firmware_py.play.session.PlaySession`
games, each under a random id that only its browser knows (the id is the
only way to play a game, so one person cannot play another's). A game idle
for :data:`IDLE_S` or pushed out by newer ones is forgotten. The games never
touch the board on the table, the speaker or the robot: they only ask the
solver, through ``scorer`` (the shared worker below the vision loop's and
the robot's priority in the appliance).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from firmware_py.board import Board
from firmware_py.exc import PlayError
from firmware_py.play.levels import LEVELS, level
from firmware_py.play.session import WEB_HELP, PlaySession, Scorer, starting_colour

MAX_GAMES = 16
IDLE_S = 3600.0


class PlayGames:
    """The play page's games (thread-safe; each call may solve, so run it off the loop)."""

    def __init__(self, scorer: Scorer, *, clock: Callable[[], float] = time.monotonic,
                 rng: random.Random | None = None, default_level: int = 4,
                 first: str = "either") -> None:
        self.scorer = scorer
        self.default_level = default_level  # [play] level: the page's choice at first
        self.rule = first  # [game] first: who may start
        self.clock = clock
        self.rng = rng or random.Random()
        self._games: OrderedDict[str, tuple[PlaySession, float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def options(self) -> dict[str, Any]:
        """What the page offers: the levels and the one chosen at first; who starts at
        first, and whether the person may choose it (``[game] first = either``)."""
        return {"level": self.default_level,
                "levels": [{"number": n, "name": LEVELS[n].name} for n in sorted(LEVELS)],
                "first": starting_colour(self.rule), "first_fixed": self.rule != "either"}

    def new(self, level_number: Any, person: Any, first: Any = None) -> dict[str, Any]:
        """Start a game; the person plays ``person`` ("R" or "Y") against ``level_number``;
        ``first`` ("R"/"Y" or "red"/"yellow"; None: as the rule says) starts."""
        if (not isinstance(level_number, int) or isinstance(level_number, bool)
                or level_number not in LEVELS):
            raise PlayError(f"level must be 1-6, got {level_number!r}")
        if person not in ("R", "Y"):
            raise PlayError(f"colour must be 'R' or 'Y', got {person!r}")
        try:
            starter = starting_colour(self.rule, first)
        except ValueError as error:
            raise PlayError(str(error)) from None
        session = PlaySession(level(level_number), person, self.scorer,
                              random.Random(self.rng.random()), first=starter, draw=False,
                              help_text=WEB_HELP)
        text = session.start()
        game = secrets.token_urlsafe(12)
        with self._lock:
            self._forget_idle()
            while len(self._games) >= MAX_GAMES:  # room for this one: the longest unplayed goes
                self._games.popitem(last=False)
            self._games[game] = (session, self.clock(), text)
        return self._state(game, session, text)

    def act(self, game: Any, line: Any) -> dict[str, Any]:
        """The person's input: a column "1"-"7", "h" (hint), "u" (undo) or "q"."""
        if not isinstance(line, str) or len(line) > 10:
            raise PlayError(f"input must be a column 1-7, h, u or q, got {line!r}")
        session = self._session(game)
        text = session.handle(line)
        with self._lock:
            if game in self._games:
                self._games[game] = (session, self.clock(), text)
                self._games.move_to_end(game)
        return self._state(game, session, text)

    def state(self, game: Any) -> dict[str, Any]:
        with self._lock:
            self._forget_idle()
            entry = self._games.get(game) if isinstance(game, str) else None
        if entry is None:
            raise PlayError(f"no such game: {game!r} (it may have ended after an hour idle)")
        return self._state(game, entry[0], entry[2])

    def _session(self, game: Any) -> PlaySession:
        with self._lock:
            self._forget_idle()
            entry = self._games.get(game) if isinstance(game, str) else None
        if entry is None:
            raise PlayError(f"no such game: {game!r} (it may have ended after an hour idle)")
        return entry[0]

    def _forget_idle(self) -> None:
        """Drop the games idle for :data:`IDLE_S` (a lookup never drops any other)."""
        now = self.clock()
        for game in [g for g, (_, seen, _) in self._games.items() if now - seen > IDLE_S]:
            del self._games[game]

    @staticmethod
    def _state(game: str, session: PlaySession, text: str) -> dict[str, Any]:
        board: Board = session.board
        return {"game": game, "level": session.level.number, "level_name": session.level.name,
                "person": session.person, "first": session.first, "moves": session.moves,
                "grid": board.grid_lines(), "to_move": board.to_move, "over": session.over,
                "winning": sorted([c, r] for c, r in board.winning_cells()),
                "legal": board.legal_columns() if not session.over else [], "text": text}


def worker_scorer(worker: Any, priority: int, timeout_s: float = 30.0) -> Scorer:
    """Every column's exact score, solved on the shared solver worker (blocking)."""
    def scores(board: Board) -> Any:
        done = threading.Event()
        result: list[Any] = []

        def on_done(_board: Board, answer: Any, error: BaseException | None) -> None:
            result.append((answer, error))
            done.set()

        worker.submit(board, priority=priority, tag=f"play-{id(done)}", on_done=on_done,
                      scores=True)
        if not done.wait(timeout_s):
            raise PlayError("the solver is busy: try again")
        answer, error = result[0]
        if error is not None or answer is None:
            raise PlayError(f"the solver failed: {error}")
        return answer.scores
    return scores
