"""Score conventions shared by solver, serial link, speech and screens (SPEC.md §2).

A score is for the side to move: with n discs played, winning with its k-th
disc from now scores ``(43 - n) // 2 - k + 1``; losing to the opponent's k-th
disc scores ``-((42 - n) // 2 - k + 1)``; a draw scores 0.
"""

from __future__ import annotations

from c4game.board import CELLS, COLOUR_NAMES, Board, other
from c4game.exc import PositionError

WIN, LOSS, DRAW = "+", "-", "="
CENTRE_FIRST = (4, 3, 5, 2, 6, 1, 7)


def max_score(n_discs: int) -> int:
    """The best possible score with ``n_discs`` played (win with the next disc)."""
    return (43 - n_discs) // 2


def min_score(n_discs: int) -> int:
    """The worst possible score (lose to the opponent's next disc)."""
    return -((42 - n_discs) // 2)


def outcome(score: int) -> str:
    """``+`` the side to move wins, ``-`` it loses, ``=`` draw."""
    return WIN if score > 0 else LOSS if score < 0 else DRAW


def plies_to_end(score: int, n_discs: int) -> int:
    """Discs (both players', the recommended one included) until the game ends."""
    if not min_score(n_discs) <= score <= max_score(n_discs):
        raise PositionError(f"score {score} impossible with {n_discs} discs played")
    if score > 0:
        own_discs = max_score(n_discs) - score + 1
        return 2 * own_discs - 1
    if score < 0:
        opponent_discs = (42 - n_discs) // 2 + score + 1
        return 2 * opponent_discs
    return CELLS - n_discs


def serial_answer(column: int, score: int, n_discs: int) -> str:
    """The robot answer ``NxMM`` (SPEC §3): MM counts the plies after the disc."""
    if not 1 <= column <= 7:
        raise PositionError(f"column {column!r} is not 1-7")
    remaining = plies_to_end(score, n_discs) - 1
    return f"{column}{outcome(score)}{remaining:02d}"


def pick_centre_first(columns: list[int] | tuple[int, ...]) -> int:
    """The deterministic tie-break: the first of 4, 3, 5, 2, 6, 1, 7 in ``columns``."""
    for column in CENTRE_FIRST:
        if column in columns:
            return column
    raise PositionError(f"no column to choose from {columns!r}")


DISTANCE_MEANS = "discs still to play, both players', the best one included"


def verdict(board: Board, score: int, plies: int, *, named: bool = True) -> str:
    """``"Red wins in 13"`` / ``"Yellow wins in 12"`` / ``"Draw in 20"``: the one way a
    person is told the outcome and its distance (SPEC §2 plies to the end,
    :data:`DISTANCE_MEANS`), on the screen, in speech and in the commands.

    ``named`` False: nobody has started (an empty board when either colour may,
    SPEC §1), so no colour is named: ``"First player wins in 41"``."""
    result = outcome(score)
    if result == "=":
        return f"Draw in {plies}"
    winner = board.to_move if result == "+" else other(board.to_move)
    if not named:
        return f"{'First' if winner == board.first else 'Second'} player wins in {plies}"
    return f"{COLOUR_NAMES[winner]} wins in {plies}"
