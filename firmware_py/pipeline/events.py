"""Values that flow through the pipeline: events in, effects out, the view.

Everything is a frozen dataclass, so the reducer's inputs and outputs compare
by value and tests can state them exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from c4game.board import Board
from firmware_py.json_types import JsonObject
from firmware_py.vision.reading import Reading

if TYPE_CHECKING:
    from cython_solver.solver import Answer

Grid = tuple[str, ...]

SCANNING = "scanning"
TRANSITIONAL = "transitional"
SOLVED = "solved"
FINISHED = "finished"


@dataclass(frozen=True)
class SolveResult:
    """What the pipeline keeps of a solver answer (SPEC §2 conventions)."""

    column: int
    score: int
    plies: int
    scores: tuple[int | None, ...] = ()
    ms: float = 0.0

    @classmethod
    def from_answer(cls, answer: Answer) -> SolveResult:
        """The worker's answer as the pipeline keeps it."""
        return cls(column=int(answer.column), score=int(answer.score), plies=int(answer.plies),
                   scores=tuple(answer.scores or ()), ms=float(answer.ms))


# --------------------------------------------------------------------- events


@dataclass(frozen=True)
class ReadingSeen:
    """The reader's verdict on one frame."""

    reading: Reading


@dataclass(frozen=True)
class SolveDone:
    """A solve finished; ``grid`` is the board it was started for."""

    job: int
    grid: Grid
    result: SolveResult


@dataclass(frozen=True)
class SolveFailed:
    """A solve ended without an answer (``cancelled``: by the worker or by us)."""

    job: int
    grid: Grid
    error: str
    cancelled: bool = False


@dataclass(frozen=True)
class Tick:
    """Time passed without a frame (lets the board-lost debounce run out)."""


Event = ReadingSeen | SolveDone | SolveFailed | Tick


# --------------------------------------------------------------------- effects


@dataclass(frozen=True)
class StartSolve:
    """Solve ``board``; answer with :class:`SolveDone` / :class:`SolveFailed` for ``job``."""

    job: int
    board: Board
    speculative: bool


@dataclass(frozen=True)
class CancelSolve:
    """Cancel ``job`` if it still runs (a late :class:`SolveDone` is still welcome)."""

    job: int


@dataclass(frozen=True)
class View:
    """What the pipeline shows: SPEC §6 ``c4pi watch --json`` without ``t``."""

    state: str = SCANNING
    grid: Grid | None = None
    best: int | None = None
    score: int | None = None
    plies: int | None = None
    # the colour that started the game shown (None: nobody yet, either may); not in the
    # SPEC §6 JSON, which is fixed: there whose turn it is follows from the grid's counts
    first: str | None = field(default=None, compare=False)

    @property
    def board(self) -> Board | None:
        """The board shown (who started included), or None."""
        if self.grid is None:
            return None
        return Board.from_grid(self.grid, "either", self.first)

    @property
    def to_move(self) -> str | None:
        """"R" or "Y": whose turn it is on the board shown; None when no board is shown
        or nobody has started (an empty board when either colour may). Without
        ``first`` a board with discs is read from its counts (SPEC §1)."""
        board = self.board
        if board is None or (self.first is None and board.n_discs == 0):
            return None
        return board.to_move

    def as_json(self, t: float) -> JsonObject:
        """The SPEC §6 JSON object at time ``t`` (seconds)."""
        return {"t": round(t, 3), "state": self.state,
                "grid": list(self.grid) if self.grid is not None else None,
                "best": self.best, "score": self.score, "plies": self.plies}


@dataclass(frozen=True)
class Show:
    """The view changed."""

    view: View


@dataclass(frozen=True)
class Announce:
    """Speak about ``board``: its best move (``result``), or that the game is over.

    ``unstarted``: nobody has started the game (an empty board when either
    colour may, SPEC §1), so the side to move is named by no colour."""

    board: Board
    result: SolveResult | None
    unstarted: bool = False

    @property
    def to_move(self) -> str | None:
        """"R" or "Y": the side to move; None when nobody has started."""
        return None if self.unstarted else self.board.to_move


@dataclass(frozen=True)
class Silence:
    """Stop speaking: what was announced is no longer on the table (``lost``: no board)."""

    lost: bool = False


@dataclass(frozen=True)
class Committed:
    """The game filter committed ``board`` as the table's real position (``kind``: why)."""

    board: Board
    kind: str


@dataclass(frozen=True)
class Log:
    """A message for the log (``level`` as in :mod:`logging`: "info", "warning" …)."""

    level: str
    message: str


Effect = StartSolve | CancelSolve | Show | Announce | Silence | Committed | Log
