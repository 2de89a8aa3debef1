"""The live terminal view of ``c4pi demo``: the board as seen, its state and the move."""

from __future__ import annotations

from typing import Any, TextIO

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


def render_view(view: Any, t: float, *, colour: bool, header: str = "") -> str:
    """The view as text: header, board, state and recommendation."""
    lines = [header] if header else []
    lines.append(f"t = {t:7.1f} s   state: {view.state}")
    if view.grid is None:
        lines.append("(no board in view)")
        return "\n".join(lines)
    board = Board.from_grid(view.grid)
    lines.extend(draw_board(view.grid, colour=colour))
    if board.is_finished:
        winner = board.winner
        lines.append(f"game over: {COLOUR_NAMES[winner]} wins" if winner else "game over: draw")
    elif view.best is not None:
        mover = COLOUR_NAMES[board.to_move]
        lines.append(f"{mover} to move: play column {view.best} — "
                     f"{verdict(board, view.score, view.plies)}")
    else:
        lines.append(f"{COLOUR_NAMES[board.to_move]} to move: thinking…")
    return "\n".join(lines)


class TerminalView:
    """Redraws the view in place on a terminal, or prints blocks to a pipe/file."""

    def __init__(self, out: TextIO, header: str = "") -> None:
        self.out = out
        self.header = header
        self.tty = out.isatty()

    def show(self, view: Any, t: float) -> None:
        text = render_view(view, t, colour=self.tty, header=self.header if self.tty else "")
        if self.tty:
            self.out.write("\033[H\033[J" + text + "\n")
        else:
            self.out.write(text + "\n\n")
        self.out.flush()
