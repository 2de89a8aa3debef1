"""The live terminal view of ``c4pi demo``: the board as seen, its state and the move."""

from __future__ import annotations

from typing import Any, TextIO

from firmware_py.board import COLOUR_NAMES, Board
from firmware_py.board_text import draw_board
from firmware_py.scores import verdict


def render_view(view: Any, t: float, *, colour: bool, header: str = "") -> str:
    """The view as text: header, board, state and recommendation."""
    lines = [header] if header else []
    lines.append(f"t = {t:7.1f} s   state: {view.state}")
    if view.grid is None:
        lines.append("(no board in view)" if view.state == "scanning"
                     else "(the board is changing: waiting for it to settle)")
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
