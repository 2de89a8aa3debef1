"""Games on the play page: each browser's game against c4pi, apart from the table.

:class:`PlayGames` keeps up to :data:`MAX_GAMES` :class:`~firmware_py.play.session.PlaySession`
games, each under a random id that only its browser knows (the id is the
only way to play a game, so one person cannot play another's). A game idle
for :data:`IDLE_S` is forgotten; a new game takes the place of the idlest
one, but never of one played in the last :data:`ACTIVE_S` (then it is refused:
:class:`GamesFull`). One game takes one input at a time: another input while
c4pi answers is refused (:class:`GameBusy`), and so is an input the game
cannot take (:class:`IllegalInput`: a full column, a game over). The games
never touch the board on the table, the speaker or the robot: they only ask
the solver, through ``scorer`` (the shared worker below the vision loop's and
the robot's priority in the appliance).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from c4game.board import Board
from c4game.exc import PlayError
from firmware_py.json_types import JsonObject
from firmware_py.play.levels import LEVELS, level
from firmware_py.play.session import WEB_HELP, PlaySession, Scorer, starting_colour

if TYPE_CHECKING:
    from firmware_py.hud.hub import Solved
    from firmware_py.hud.taps import Submits

MAX_GAMES = 16
IDLE_S = 3600.0
# A game played within this long is never pushed out by a new one: a person
# thinking over a move takes a minute or two, so 5 minutes keeps every game in
# play, while a page left alone frees its place soon. A flood of new games then
# gets refusals (503) instead of taking the games of people playing.
ACTIVE_S = 300.0


class GameBusy(PlayError):
    """The game is still answering its last input (a 409 on the page's API)."""


class IllegalInput(PlayError):
    """An input the game cannot take now: a full column, a game over (a 409)."""


class GamesFull(PlayError):
    """Every place holds a game played within :data:`ACTIVE_S` (a 503)."""


@dataclass
class _Game:
    """One stored game: its session, when last played, its latest state (for lookups
    that must not wait on a solve), and the lock its inputs take one at a time."""

    session: PlaySession
    seen: float
    state: JsonObject
    lock: threading.Lock = field(default_factory=threading.Lock)


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
        self._games: dict[str, _Game] = {}
        self._lock = threading.Lock()

    def options(self) -> JsonObject:
        """What the page offers: the levels and the one chosen at first; who starts at
        first, and whether the person may choose it (``[game] first = either``)."""
        return {"level": self.default_level,
                "levels": [{"number": n, "name": LEVELS[n].name} for n in sorted(LEVELS)],
                "first": starting_colour(self.rule), "first_fixed": self.rule != "either"}

    def new(self, level_number: object, person: object,
            first: object = None) -> JsonObject:
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
        with self._lock:
            self._make_room()  # before the opening move's solve: a refusal costs nothing
        session = PlaySession(level(level_number), person, self.scorer,
                              random.Random(self.rng.random()), first=starter, draw=False,
                              help_text=WEB_HELP)
        text = session.start()
        game = secrets.token_urlsafe(12)
        state = self._state(game, session, text)
        with self._lock:
            self._make_room()
            self._games[game] = _Game(session, self.clock(), state)
        return dict(state)

    def act(self, game: object, line: object) -> JsonObject:
        """The person's input: a column "1"-"7", "h" (hint), "u" (undo) or "q".
        Raises :class:`GameBusy` while the game answers another input."""
        if not isinstance(line, str) or len(line) > 10:
            raise PlayError(f"input must be a column 1-7, h, u or q, got {line!r}")
        entry = self._entry(game)
        if not entry.lock.acquire(blocking=False):
            raise GameBusy("c4pi is still answering this game's last input: try again")
        try:
            before = entry.session.moves
            entry.state = self._apply(str(game), entry.session, line)  # found: a str
            if entry.session.moves != before or line.strip().lower() in ("h", "hint"):
                self._touch(entry)  # played: an input refused or ignored keeps no place
            return dict(entry.state)
        finally:
            entry.lock.release()

    def state(self, game: object) -> JsonObject:
        """The game's state after its latest input (never waits for a solve)."""
        return dict(self._entry(game).state)

    def _entry(self, game: object) -> _Game:
        with self._lock:
            self._forget_idle()
            entry = self._games.get(game) if isinstance(game, str) else None
        if entry is None:
            raise PlayError(f"no such game: {game!r} (it may have ended after an hour idle)")
        return entry

    def _touch(self, entry: _Game) -> None:
        """Mark the game as just played."""
        with self._lock:
            entry.seen = self.clock()

    def _apply(self, game: str, session: PlaySession, line: str) -> JsonObject:
        """Check and play ``line`` (the game's lock held); on an error the game is as
        it was (a failed solve leaves no move of the person's without a reply)."""
        _check(session, line)
        moves, over = session.moves, session.over
        try:
            text = session.handle(line)
        except BaseException:
            session.moves, session.over = moves, over
            raise
        return self._state(game, session, text)

    def _make_room(self) -> None:
        """Room for one more game: the idlest goes, unless it was played within
        :data:`ACTIVE_S` (:class:`GamesFull`). Call with the store's lock held."""
        self._forget_idle()
        if len(self._games) < MAX_GAMES:
            return
        game, entry = min(self._games.items(), key=lambda item: item[1].seen)
        if self.clock() - entry.seen < ACTIVE_S:
            raise GamesFull(f"c4pi is playing {MAX_GAMES} games already: try again in a few "
                            "minutes")
        del self._games[game]

    def _forget_idle(self) -> None:
        """Drop the games idle for :data:`IDLE_S` (a lookup never drops any other)."""
        now = self.clock()
        for game in [g for g, entry in self._games.items() if now - entry.seen > IDLE_S]:
            del self._games[game]

    @staticmethod
    def _state(game: str, session: PlaySession, text: str) -> JsonObject:
        board: Board = session.board
        return {"game": game, "level": session.level.number, "level_name": session.level.name,
                "person": session.person, "first": session.first, "moves": session.moves,
                "grid": board.grid_lines(), "to_move": board.to_move, "over": session.over,
                "winning": sorted([c, r] for c, r in board.winning_cells()),
                "legal": board.legal_columns() if not session.over else [], "text": text,
                "hint": list(session.hint)}


def _check(session: PlaySession, line: str) -> None:
    """Raise :class:`IllegalInput` for an input the game cannot take now."""
    if session.over:
        raise IllegalInput("the game is over: start a new one")
    text = line.strip()
    if len(text) == 1 and text in "1234567" and not session.board.can_play(int(text)):
        raise IllegalInput(f"Column {text} is full: choose another.")


def worker_scorer(worker: Submits, priority: int, timeout_s: float = 30.0) -> Scorer:
    """Every column's exact score, solved on the shared solver worker (blocking)."""
    def scores(board: Board) -> Sequence[int | None]:
        done = threading.Event()
        result: list[tuple[Solved | None, BaseException | None]] = []

        def on_done(_board: Board, answer: Solved | None, error: BaseException | None) -> None:
            result.append((answer, error))
            done.set()

        worker.submit(board, priority=priority, tag=f"play-{id(done)}", on_done=on_done,
                      scores=True)
        if not done.wait(timeout_s):
            raise PlayError("the solver is busy: try again")
        answer, error = result[0]
        if error is not None or answer is None or answer.scores is None:
            raise PlayError(f"the solver failed: {error}")
        return answer.scores
    return scores
