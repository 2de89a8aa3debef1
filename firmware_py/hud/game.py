"""The moves of the game on the table, and what each move changed (for the HUD).

:class:`GameLog` follows the boards the pipeline commits: a board one disc
past the last one adds that move; an empty board starts a new game; any
other board (the camera joined mid-game, a disc was taken back) starts a new
log from that position. Either colour may start (SPEC §1): the log's start
knows who did, from the game's first disc.

:func:`review` marks each move of a finished game by what it did to the
outcome, from exact scores (SPEC §2: a score is for the side to move):
the outcome the mover had before the move and the outcome it has after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from c4game.board import Board, added_column
from c4game.scores import outcome

# What a move did, keyed by (outcome before, outcome after) for the mover.
BEST = "best"
MARKS = {
    ("+", "+"): "kept the win",
    ("+", "="): "threw the win away (draw)",
    ("+", "-"): "threw the win away",
    ("=", "="): "held the draw",
    ("=", "-"): "lost the draw",
    ("-", "-"): "lost anyway",
}

ScoreOf = Callable[[Board], int]  # the exact score of an unfinished position


@dataclass(frozen=True)
class MoveMark:
    """One reviewed move: who played which column, and what it changed."""

    ply: int  # 1 = the first move of the log
    colour: str  # "R" or "Y"
    column: int
    mark: str  # a value of MARKS, or BEST where the move kept the position's exact score
    before: int  # the mover's score before the move
    after: int  # the mover's score after it (its opponent's, negated)

    def as_json(self) -> dict[str, object]:
        return {"ply": self.ply, "colour": self.colour, "column": self.column,
                "mark": self.mark, "before": self.before, "after": self.after}


class GameLog:
    """The moves seen since the game (or the log) started."""

    def __init__(self) -> None:
        self.start: Board = Board.empty()
        self.moves: list[int] = []
        self.board: Board | None = None

    def commit(self, board: Board) -> bool:
        """Follow a committed board; True when it started a new log."""
        previous = self.board
        self.board = board
        if previous is not None and board.n_discs == previous.n_discs + 1:
            column = added_column(previous, board)
            if column is not None:
                if self.start.n_discs == 0 and not self.moves:
                    self.start = Board.empty(board.first)  # the first disc says who started
                self.moves.append(column)
                return False
        if previous is not None and board.grid_lines() == previous.grid_lines():
            return False
        self.start, self.moves = board, []
        return True

    @property
    def notation(self) -> str:
        """The moves as SPEC §1 digits (from :attr:`start`)."""
        return "".join(str(column) for column in self.moves)

    @property
    def from_empty(self) -> bool:
        return self.start.n_discs == 0


def review(start: Board, moves: list[int], score_of: ScoreOf) -> list[MoveMark]:
    """Mark each move of ``moves`` played from ``start`` (see the module docstring)."""
    marks = []
    board = start
    for ply, column in enumerate(moves, start=1):
        before = score_of(board)
        after_board = board.play(column)
        after = _mover_score(after_board, score_of)
        verdict = (outcome(before), outcome(after))
        mark = BEST if after == before else MARKS.get(verdict, "found a better line")
        marks.append(MoveMark(ply, board.to_move, column, mark, before, after))
        board = after_board
    return marks


def _mover_score(after: Board, score_of: ScoreOf) -> int:
    """The score of the player who just moved into ``after``."""
    if after.winner is not None:
        return (43 - after.n_discs + 1) // 2  # won with this disc: max_score before it
    if after.is_full:
        return 0
    return -score_of(after)
