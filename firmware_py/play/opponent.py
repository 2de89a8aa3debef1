"""Kiosk opponent mode: the appliance plays one colour on the real board.

:class:`Opponent` follows the boards the pipeline commits
(:meth:`Opponent.on_commit`) through four states:

* ``your-move``: the person is to move; a board one disc further is their move;
* ``thinking``: the appliance chooses its column at its level
  (:func:`firmware_py.play.levels.choose` over the solver's exact column scores,
  asked for through ``think``);
* ``asking``: it said "I play four" and waits until someone drops its disc
  in that column. A disc in another column is refused out loud ("Not that
  column. I play four") and is not its move: the board must go back (the
  disc taken out) and the disc go in the asked column;
* ``over``: the game is finished ("I win", "You win", "It's a draw"); the
  next empty board starts a new game.

Whose turn it is comes from the committed board's starter (``Board.first``:
either colour may start, SPEC §1), never from counting discs. An empty
board is committed with the rule's colour to move (Red under ``either``);
under ``either`` the person may start instead while the appliance asks for its
first disc: a disc of the person's colour is their first move, not a wrong
column. A board that fits none of these (the camera joined mid-game, discs
moved by hand) is taken as it is: the appliance thinks when its colour is to
move, else waits for the person. Nothing here touches hardware: ``think``
(asynchronous scores) and ``speak`` (clip names, a key) are passed in.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from c4game.board import COLOUR_NAMES, Board, added_column
from c4game.exc import SolverError
from firmware_py.play.levels import Level, choose
from firmware_py.speech.phrases import opponent_move_clips, opponent_result_clips

if TYPE_CHECKING:
    from cython_solver.solver import Answer
    from firmware_py.worker import SolverWorker

log = logging.getLogger(__name__)

YOUR_MOVE, THINKING, ASKING, OVER = "your-move", "thinking", "asking", "over"

Scores = Sequence[int | None]
Think = Callable[[Board, Callable[[Scores | None], None]], None]
Speak = Callable[[tuple[str, ...], object], None]


class Opponent:
    """See the module docstring. ``on_change(message)`` hears every new message."""

    def __init__(self, colour: str, level: Level, think: Think, speak: Speak,
                 rng: random.Random, *, on_change: Callable[[str], None] | None = None) -> None:
        if colour not in ("R", "Y"):
            raise ValueError(f"colour must be 'R' or 'Y', got {colour!r}")
        self.colour, self.level = colour, level
        self.think, self.speak, self.rng = think, speak, rng
        self.on_change = on_change
        self.state = YOUR_MOVE
        self.message = ""
        self.board: Board | None = None
        self.asked: int | None = None  # the column asked for on self.board
        self.best: tuple[int, ...] = ()  # the best columns of self.board, by the scores
        self.refused = 0  # discs dropped in a wrong column and refused
        self._lock = threading.RLock()

    # ------------------------------------------------------------ inputs

    def on_commit(self, board: Board, kind: str = "", t: float = 0.0) -> None:
        """A board the pipeline committed (the signature of ``Pipeline.on_commit``)."""
        with self._lock:
            if board.is_finished:
                self._finish(board)
            elif self.state == ASKING and self._answers_request(board):
                return
            elif self.state == OVER and board.n_discs:
                return  # the finished game is still being cleared away
            elif board.to_move == self.colour:
                self._start_thinking(board)
            else:
                self._set(YOUR_MOVE, board, "Your move")

    def asked_for(self, board: Board) -> int | None:
        """The column asked for when ``board`` is on the table (None: nothing asked)."""
        with self._lock:
            if self.state == ASKING and self.board is not None and _same(board, self.board):
                return self.asked
            return None

    def best_columns(self, board: Board) -> tuple[int, ...]:
        """The best columns of ``board`` when a column was asked for on it (``()``
        otherwise): the asked one may be one of them at any level."""
        with self._lock:
            if self.state == ASKING and self.board is not None and _same(board, self.board):
                return self.best
            return ()

    # ------------------------------------------------------------ states

    def _answers_request(self, board: Board) -> bool:
        """Handle a board seen while asking; False when it is none of the expected ones."""
        assert self.board is not None and self.asked is not None
        before, column = self.board, self.asked
        if _same(board, before):
            return True  # a wrong disc was taken back out: still asking
        if _same(board, before.play(column)):
            self._set(YOUR_MOVE, board, "Your move")
            return True
        wrong = added_column(before, board)
        if wrong is not None and board.columns[wrong - 1][-1] != self.colour:
            return False  # the person's own disc: they started instead (either may start)
        if wrong is not None:
            self.refused += 1
            self.speak(opponent_move_clips(column, wrong_column=True),
                       ("refused", tuple(board.grid_lines())))
            self._announce(f"Not column {wrong}: take it out. I play {column}")
            return True
        return False

    def _start_thinking(self, board: Board) -> None:
        self._set(THINKING, board, "Thinking…")
        grid = tuple(board.grid_lines())

        def chosen(scores: Scores | None) -> None:
            with self._lock:
                if self.state != THINKING or tuple(self.board.grid_lines()) != grid:
                    return  # the table moved on
                if scores is None:
                    self._announce("The solver is unavailable")
                    return
                column = choose(scores, board.n_discs, self.level, self.rng)
                self.asked = column
                top = max(score for score in scores if score is not None)
                self.best = tuple(c for c, score in enumerate(scores, start=1) if score == top)
                self._set(ASKING, board, f"I play {column}")
                self.speak(opponent_move_clips(column), ("ask", grid))

        self.think(board, chosen)

    def _finish(self, board: Board) -> None:
        if self.state == OVER and self.board is not None and _same(board, self.board):
            return
        winner = board.winner
        self._set(OVER, board, "Draw" if winner is None else
                  "I win" if winner == self.colour else "You win")
        self.speak(opponent_result_clips(self.colour, winner), ("over", tuple(board.grid_lines())))
        log.info("opponent game over: %s (%s played %s at level %d)", self.message,
                 "c4pi", COLOUR_NAMES[self.colour], self.level.number)

    def _set(self, state: str, board: Board, message: str) -> None:
        self.state, self.board = state, board
        if state != ASKING:
            self.asked = None
        self._announce(message)

    def _announce(self, message: str) -> None:
        if message != self.message:
            self.message = message
            if self.on_change is not None:
                self.on_change(message)


def _same(one: Board, other: Board) -> bool:
    return one.columns == other.columns


def worker_thinker(worker: SolverWorker, priority: int) -> Think:
    """``think`` on the shared solver worker: every column's exact score."""
    def think(board: Board, done: Callable[[Scores | None], None]) -> None:
        def on_done(_board: Board, answer: Answer | None, error: BaseException | None) -> None:
            if error is not None or answer is None:
                log.warning("opponent: no answer from the solver: %s", error)
            done(None if error is not None or answer is None else answer.scores)

        try:
            worker.submit(board, priority=priority, tag="opponent", on_done=on_done, scores=True)
        except SolverError as error:  # the worker was stopped: the appliance is stopping
            log.info("opponent: not thinking: %s", error)
            done(None)
    return think
