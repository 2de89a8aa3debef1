"""The simulated camera's person, playing against the kiosk opponent (``c4pi demo``).

:func:`opponent_games` is an endless script of actions
(:mod:`~firmware_py.simtable.script`) that reacts to the appliance: on the
person's turns a random legal move; on the appliance's turns it waits until
the appliance asks for a column (``asked_for(board)``, see
:meth:`firmware_py.play.opponent.Opponent.asked_for`) and drops its disc there.
For the appliance's moves numbered in ``mistakes`` (1 = its first move of a
game) the disc goes into a wrong column first, waits to be refused, and is
lifted out again before it goes where it was asked. The games numbered in
``yellow_first`` are started by Yellow (the others by Red): the person's
own start when the appliance plays Red (``[game] first = either``), the
appliance's when it plays Yellow (``[game] first = yellow``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterator

from c4game.board import RED, YELLOW, Board
from firmware_py.simtable.script import Action, Drop, Lift, Reset, Wait

POLL_S = 0.2
REFUSAL_WAIT_S = 3.0  # long enough for the pipeline to commit the wrong disc


def opponent_games(rng: random.Random, asked_for: Callable[[Board], int | None],
                   appliance: str, *, mistakes: Collection[int] = (),
                   think_s: tuple[float, float] = (0.8, 1.6), max_wait_s: float = 30.0,
                   games: int | None = None,
                   yellow_first: Collection[int] = ()) -> Iterator[Action]:
    """Games of a random person against the appliance playing ``appliance``."""
    played = 0
    if 1 in yellow_first:
        yield Reset(first=YELLOW)  # the table starts empty for Red: this game Yellow starts
    while games is None or played < games:
        board = Board.empty(YELLOW if played + 1 in yellow_first else RED)
        yield Wait(1.5)
        own_moves = 0
        while not board.is_finished:
            if board.to_move == appliance:
                column = yield from _wait_for_request(asked_for, board, max_wait_s)
                if column is None:
                    break  # the appliance never asked: clear the board, start again
                own_moves += 1
                if own_moves in mistakes:
                    yield from _wrong_column_first(rng, board, column)
            else:
                column = rng.choice(board.legal_columns())
            yield Wait(rng.uniform(*think_s))
            yield Drop(column)
            board = board.play(column)
        yield Wait(3.0)
        played += 1
        yield Reset(first=YELLOW if played + 1 in yellow_first else RED)
        yield Wait(1.5)


def _wait_for_request(asked_for: Callable[[Board], int | None], board: Board,
                      max_wait_s: float) -> Iterator[Action]:
    waited = 0.0
    while (column := asked_for(board)) is None:
        if waited >= max_wait_s:
            return None
        yield Wait(POLL_S)
        waited += POLL_S
    return column


def _wrong_column_first(rng: random.Random, board: Board, column: int) -> Iterator[Action]:
    wrong = rng.choice([c for c in board.legal_columns() if c != column] or [column])
    if wrong == column:
        return
    yield Wait(rng.uniform(0.5, 1.0))
    yield Drop(wrong)
    yield Wait(REFUSAL_WAIT_S)
    yield Lift(wrong)
    yield Wait(2.0)
