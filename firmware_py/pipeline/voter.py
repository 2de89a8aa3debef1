"""Stability voting: which board does the camera really see?

A pure function, :func:`vote`, takes the voter's immutable state and the grid
of one reading (``None`` when no board was found) and returns the new state
and a :class:`Vote`. Nothing here keeps time or does I/O.

Rules:

* the last ``window`` grids are kept (5 by default); the *consensus* exists
  when every one of the 42 cells holds the same value in at least ``agree``
  of them (4 by default). A missing board (``None``) and a cell read with
  too little confidence (:data:`UNKNOWN`, see :func:`masked_grid`) agree with
  nothing, so a hand held still over a cell cannot vote a disc in;
* the consensus must be a legal position (gravity, parity, a plausible four
  in a row) — a grid that is no position is never committed;
* against the *reference* (the last committed board): discs are only added
  (monotonicity) and at most ``max_changed`` cells differ (3). More than
  ``new_game_removed`` (6) reference discs gone, or an empty board, means a
  new game: committed at once;
* a legal consensus that breaks those rules for ``override_frames`` (10)
  consecutive frames replaces the reference anyway (a misread reference, or a
  move the camera missed, must not freeze the board forever).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, replace

from c4game.board import COLOUR_NAMES, HEIGHT, WIDTH, Board, added_column
from c4game.exc import PositionError
from firmware_py.config import VisionConfig
from firmware_py.succession import why_not_after

Grid = tuple[str, ...]

UNKNOWN = "?"  # a cell read without enough confidence: a vote for nothing

COMMIT_FIRST = "first"
COMMIT_NEXT = "next"
COMMIT_NEW_GAME = "new-game"
COMMIT_OVERRIDE = "override"


@dataclass(frozen=True)
class VoterParams:
    """The voting rules' numbers (window and agree from ``[vision]``)."""

    window: int = VisionConfig.vote_window
    agree: int = VisionConfig.vote_agree
    max_changed: int = 3
    new_game_removed: int = 6
    override_frames: int = 10
    first: str = "either"  # who may start ([game] first, SPEC §1)

    def __post_init__(self) -> None:
        if not 1 <= self.agree <= self.window:
            raise ValueError(f"agree must be 1..window ({self.window}), got {self.agree}")
        if self.override_frames < 1:
            raise ValueError(f"override_frames must be >= 1, got {self.override_frames}")


@dataclass(frozen=True)
class VoterState:
    """What the voter remembers: the recent grids, the reference, a pending override."""

    recent: tuple[Grid | None, ...] = ()
    reference: Board | None = None
    pending: Grid | None = None
    pending_frames: int = 0

    def cleared(self) -> VoterState:
        """Forget the recent grids (the board left the view); keep the reference."""
        return replace(self, recent=(), pending=None, pending_frames=0)


@dataclass(frozen=True)
class Vote:
    """The verdict on one frame.

    ``consensus`` is the agreed grid (or ``None``); ``board`` the consensus as
    a legal position (or ``None``); ``stable`` is true when the consensus is
    the (possibly just committed) reference; ``committed`` names why the
    reference changed on this frame (``first``, ``next``, ``new-game``,
    ``override``) or is ``""``; ``reason`` says why a consensus was not
    committed.
    """

    consensus: Grid | None = None
    board: Board | None = None
    stable: bool = False
    committed: str = ""
    reason: str = ""


def consensus(recent: tuple[Grid | None, ...], agree: int) -> Grid | None:
    """The grid whose every cell agrees in at least ``agree`` of ``recent``.

    An :data:`UNKNOWN` cell (read without confidence) agrees with nothing.
    """
    grids = [grid for grid in recent if grid is not None]
    if len(grids) < agree:
        return None
    top, count = Counter(grids).most_common(1)[0]
    if count >= agree and not any(UNKNOWN in line for line in top):
        return top
    rows = []
    for row in range(HEIGHT):
        chars = []
        for col in range(WIDTH):
            votes = Counter(grid[row][col] for grid in grids)
            votes.pop(UNKNOWN, None)
            if not votes:
                return None
            value, count = votes.most_common(1)[0]
            if count < agree:
                return None
            chars.append(value)
        rows.append("".join(chars))
    return tuple(rows)


def masked_grid(grid: Grid, cell_confidence: tuple[float, ...], threshold: float) -> Grid:
    """``grid`` with every cell read below ``threshold`` confidence made :data:`UNKNOWN`.

    ``cell_confidence`` holds 42 values, top row first; empty = nothing masked.
    """
    if not cell_confidence or min(cell_confidence) >= threshold:
        return grid
    rows = []
    for row, line in enumerate(grid):
        confidences = cell_confidence[row * WIDTH:(row + 1) * WIDTH]
        rows.append("".join(UNKNOWN if c < threshold else char
                            for char, c in zip(line, confidences, strict=True)))
    return tuple(rows)


def check_successor(reference: Board | None, board: Board, params: VoterParams) -> str:
    """Why ``board`` cannot follow ``reference`` directly ("" when it can): the shared
    rule (:func:`~firmware_py.succession.why_not_after`) with ``max_changed``."""
    return why_not_after(reference, board, params.max_changed)


def removed_discs(reference: Board | None, board: Board) -> int:
    """How many of the reference's discs are gone from ``board``."""
    if reference is None:
        return 0
    gone = 0
    for ref_col, new_col in zip(reference.columns, board.columns, strict=True):
        gone += sum(1 for row in range(len(ref_col)) if row >= len(new_col))
    return gone


@functools.lru_cache(maxsize=256)
def grid_of(board: Board) -> Grid:
    """``board``'s grid lines as a tuple (memoised: boards are immutable)."""
    return tuple(board.grid_lines())


def vote(state: VoterState, grid: Grid | None, params: VoterParams) -> tuple[VoterState, Vote]:
    """Push one reading's grid (``None``: no board) and judge the consensus."""
    recent = (*state.recent, grid)[-params.window:]
    state = replace(state, recent=recent)
    agreed = consensus(recent, params.agree)
    if agreed is None:
        return replace(state, pending=None, pending_frames=0), Vote(reason="no consensus")
    reference = state.reference
    if reference is not None and agreed == grid_of(reference):
        return (replace(state, pending=None, pending_frames=0),
                Vote(consensus=agreed, board=reference, stable=True))
    try:  # the game's starter carries over equal counts (its first disc said who)
        board = Board.from_grid(agreed, params.first, game_starter(reference))
    except PositionError as error:
        return (replace(state, pending=None, pending_frames=0),
                Vote(consensus=agreed, reason=f"not a position: {error}"))
    wrong_starter = other_starter(reference, board)
    if wrong_starter:  # no position of this game, as a parity error is (never overridden)
        return (replace(state, pending=None, pending_frames=0),
                Vote(consensus=agreed, reason=f"not a position: {wrong_starter}"))
    why = check_successor(reference, board, params)
    if not why:
        kind = COMMIT_FIRST if reference is None else COMMIT_NEXT
        return _commit(state, board, agreed, kind)
    if removed_discs(reference, board) > params.new_game_removed or board.n_discs == 0:
        board = Board.from_grid(agreed, params.first)  # a new game forgets who started
        return _commit(state, board, agreed, COMMIT_NEW_GAME)
    frames = state.pending_frames + 1 if state.pending == agreed else 1
    if frames >= params.override_frames:
        return _commit(state, board, agreed, COMMIT_OVERRIDE)
    return (replace(state, pending=agreed, pending_frames=frames),
            Vote(consensus=agreed, board=board, reason=why))


def other_starter(reference: Board | None, board: Board) -> str:
    """Why ``board`` is no position of the committed game (its counts say the other
    colour started), "" when it may be one. Only a starter the voter assumed (a game
    first seen mid-way with equal counts, never followed from its empty board) may
    turn out to be the other colour."""
    if reference is None or not reference.n_discs or board.first == reference.first:
        return ""
    if reference.moves is None and reference.red_count == reference.yellow_count:
        return ""
    return (f"{COLOUR_NAMES[reference.first]} started this game; this board was started "
            f"by {COLOUR_NAMES[board.first]}")


def game_starter(reference: Board | None) -> str | None:
    """The colour that started the committed game, once a disc has shown it."""
    return reference.first if reference is not None and reference.n_discs else None


def with_history(reference: Board | None, board: Board) -> Board:
    """``board`` with its move sequence when it is known for sure.

    Known for the empty board, and for a board that adds exactly one disc to a
    reference whose moves are known; otherwise ``moves`` stays ``None``.
    """
    if board.n_discs == 0:
        return Board.empty(board.first)
    if reference is None or reference.moves is None:
        return board
    col = added_column(reference, board)
    if col is None or (reference.n_discs and reference.first != board.first):
        return board
    return Board(columns=board.columns, moves=reference.moves + str(col), first=board.first)


def _commit(state: VoterState, board: Board, agreed: Grid, kind: str) -> tuple[VoterState, Vote]:
    board = with_history(state.reference, board)
    new_state = replace(state, reference=board, pending=None, pending_frames=0)
    return new_state, Vote(consensus=agreed, board=board, stable=True, committed=kind)
