"""The board and its outcome as terminal text (``c4pi demo``, ``c4pi play``)."""

from __future__ import annotations

from firmware_py.board import COLOUR_NAMES, Board, other
from firmware_py.scores import outcome

_DISC = {"R": "\033[31m●\033[0m", "Y": "\033[33m●\033[0m", ".": "\033[2m·\033[0m"}
_PLAIN = {"R": "R", "Y": "Y", ".": "."}


def verdict(board: Board, score: int, plies: int) -> str:
    """``"Red wins in 13"`` / ``"Yellow wins in 12"`` / ``"draw in 20"`` (SPEC §2 plies)."""
    result = outcome(score)
    if result == "=":
        return f"draw in {plies}"
    winner = board.to_move if result == "+" else other(board.to_move)
    return f"{COLOUR_NAMES[winner]} wins in {plies}"


def draw_board(grid: list[str] | tuple[str, ...], *, colour: bool) -> list[str]:
    """The board as text lines: column numbers, the six rows, the base."""
    discs = _DISC if colour else _PLAIN
    lines = ["  1 2 3 4 5 6 7"]
    lines.extend(" |" + " ".join(discs[c] for c in row) + "|" for row in grid)
    lines.append(" +" + "-" * 13 + "+")
    return lines
