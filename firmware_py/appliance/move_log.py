"""The terminal of ``c4pi demo``: one line per move, that a person can follow.

::

    new game      Red to move: play 4 - Red wins in 41
    move 1   R4   Yellow to move: play 4 - Red wins in 40
    ...
    move 23  R5   game over: Red wins

A game Yellow started reads ``move 1   Y4   Red to move: …``; on an empty
board either colour may start (SPEC §1), so no colour is named there:
``new game      Either colour may start: play 4 - First player wins in 41``.

Only boards the pipeline has settled are written (the states ``solved`` with
a recommendation, and ``finished``), each once. In opponent mode the line of
a board c4pi is to move on waits for the column c4pi chooses at its level
(the one it says, "I play seven"); the perfect play's outcome is given
beside it, and when the level chose another column than the best one the
line says so and names the best, so the two are never confused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from c4game.board import COLOUR_NAMES, Board, added_column
from c4game.scores import verdict

if TYPE_CHECKING:
    from firmware_py.pipeline.events import View

AskedFor = Callable[[Board], int | None]


def move_label(before: Board | None, board: Board) -> str:
    """``"new game"``, ``"move 7   R3"`` (the disc just played), or ``"move 7"`` when
    the board is not one disc further than ``before``."""
    if board.n_discs == 0:
        return "new game"
    column = added_column(before, board) if before is not None else None
    disc = f"{board.columns[column - 1][-1]}{column}" if column is not None else ""
    return f"move {board.n_discs:<3} {disc}"


def advice(board: Board, view: View, *, c4pi: str | None = None,
           chosen: int | None = None, best: tuple[int, ...] = ()) -> str:
    """What the line says after the move: whose turn and what to play, or the result.

    ``c4pi`` is the colour c4pi plays in opponent mode, ``chosen`` its column and
    ``best`` the best columns (when known; else the view's one best column). In
    coach mode a board nobody has started (``view.to_move`` None) names no colour."""
    if board.is_finished:
        winner = board.winner
        result = f"{COLOUR_NAMES[winner]} wins" if winner else "draw"
        return f"game over: {result}" + (" (c4pi)" if winner and winner == c4pi else "")
    score, plies, column = view.score, view.plies, view.best
    if score is None or plies is None or column is None:
        raise ValueError(f"advice on an unsolved view of {board.grid_lines()}")
    if c4pi is None and view.to_move is None:
        distance = verdict(board, score, plies, named=False)
        return f"Either colour may start: play {column} - {distance}"
    mover = COLOUR_NAMES[board.to_move]
    distance = verdict(board, score, plies)
    if c4pi is None:
        return f"{mover} to move: play {column} - {distance}"
    best = best or (column,)
    if board.to_move == c4pi and chosen is not None and chosen not in best:
        # a level below perfect picks other columns on purpose: never beside a verdict
        # that reads as the column's own (#56.10: "plays 4 (perfect play: Yellow wins in 1)")
        named = " or ".join(str(column) for column in best)
        return (f"{mover} to move: c4pi plays {chosen}, not the best at this level "
                f"(the best: {named} - {distance})")
    if board.to_move == c4pi:
        return f"{mover} to move: c4pi plays {chosen} (perfect play: {distance})"
    return f"{mover} to move: the person's turn (perfect play: {distance})"


class MoveLog:
    """Writes the lines (see the module docstring) as views come (:meth:`show`).

    In opponent mode give ``c4pi`` (its colour) and ``asked_for`` (the
    opponent's :meth:`~firmware_py.play.opponent.Opponent.asked_for`), and call
    :meth:`opponent_changed` whenever the opponent's message changes. Lines
    that come before :meth:`start` (the banner) wait for it.
    """

    def __init__(self, out: TextIO, *, c4pi: str | None = None,
                 asked_for: AskedFor | None = None,
                 best_for: Callable[[Board], tuple[int, ...]] | None = None) -> None:
        if (c4pi is None) != (asked_for is None):
            raise ValueError("opponent mode needs both c4pi's colour and asked_for")
        self.out = out
        self.c4pi = c4pi
        self.asked_for = asked_for
        self.best_for = best_for  # the opponent's best columns of a board it chose on
        self._lock = threading.Lock()
        self._started = False
        self._held: list[str] = []
        self._last: Board | None = None  # the board of the last line written
        self._pending: tuple[Board, View] | None = None  # c4pi to move: its column not known

    def start(self, header: str) -> None:
        """Write ``header`` (the demo's banner), then any line that came before it."""
        with self._lock:
            self._started = True
            self._write(*([header.rstrip("\n")] if header else []), *self._held)
            self._held.clear()

    def show(self, view: View, t: float = 0.0) -> None:
        """A view of the pipeline (``Parts.on_view``): a line when a new board settles."""
        board = _settled(view)
        if board is None:
            return
        waits = self.c4pi is not None and not board.is_finished and board.to_move == self.c4pi
        chosen = self._chosen(board) if waits else None  # asked outside our lock
        with self._lock:
            if self._is_last(board):
                return
            self._pending = None
            if waits and chosen is None:
                self._pending = (board, view)
                return
            self._line(board, view, chosen)

    def opponent_changed(self, message: str = "") -> None:
        """The opponent said something: it may have chosen the column a line waits for."""
        with self._lock:
            pending = self._pending
        if pending is None:
            return
        chosen = self._chosen(pending[0])
        with self._lock:
            if chosen is not None and self._pending is pending:
                self._pending = None
                self._line(*pending, chosen)

    def _chosen(self, board: Board) -> int | None:
        return self.asked_for(board) if self.asked_for is not None else None

    def _is_last(self, board: Board) -> bool:
        last = self._pending[0] if self._pending is not None else self._last
        return last is not None and last.columns == board.columns

    def _line(self, board: Board, view: View, chosen: int | None) -> None:
        best = self.best_for(board) if self.best_for is not None and chosen is not None else ()
        said = advice(board, view, c4pi=self.c4pi, chosen=chosen, best=best)
        text = f"{move_label(self._last, board):<13} {said}"
        self._last = board
        if self._started:
            self._write(text)
        else:
            self._held.append(text)

    def _write(self, *lines: str) -> None:
        if lines:
            self.out.write("".join(line + "\n" for line in lines))
            self.out.flush()


def _settled(view: View) -> Board | None:
    """The board of a view worth a line: solved with its move, or finished."""
    if view.grid is None or view.state not in ("solved", "finished"):
        return None
    board = view.board
    if board is None or (not board.is_finished and view.best is None):
        return None  # still being solved
    return board
