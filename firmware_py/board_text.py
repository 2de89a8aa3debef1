"""The board as terminal text (``c4pi demo``, ``c4pi play``).

Discs are the letters ``R`` and ``Y`` whether or not the terminal shows colour
(a colour-blind player, a monochrome SSH client, ``NO_COLOR``), coloured when
it does; the rows are numbered (1 at the bottom). The discs of a four are
shown in reverse video with colour; without it they are lower-case (``r``,
``y``) and a line under the board names them.
"""

from __future__ import annotations

from c4game.board import HEIGHT, Board

_COLOURED = {"R": "\033[1;31mR\033[0m", "Y": "\033[1;33mY\033[0m", ".": "\033[2m·\033[0m"}
_FOUR_COLOURED = {"R": "\033[1;7;31mR\033[0m", "Y": "\033[1;7;33mY\033[0m"}


def draw_board(grid: list[str] | tuple[str, ...], *, colour: bool) -> list[str]:
    """The board as text lines: column numbers, the six rows, the base; a four is marked."""
    four = _four_cells(grid)
    lines = ["  1 2 3 4 5 6 7"]
    for line_index, row in enumerate(grid):
        cells = [_cell(char, (column + 1, HEIGHT - line_index) in four, colour)
                 for column, char in enumerate(row)]
        lines.append(" |" + " ".join(cells) + f"| {HEIGHT - line_index}")
    lines.append(" +" + "-" * 13 + "+")
    if four and not colour:
        cells = " ".join(f"({column},{row})" for column, row in sorted(four))
        lines.append(f" four in a row (lower-case; column,row): {cells}")
    return lines


def _cell(char: str, in_four: bool, colour: bool) -> str:
    if not colour:
        return char.lower() if in_four else char
    return _FOUR_COLOURED[char] if in_four else _COLOURED[char]


def _four_cells(grid: list[str] | tuple[str, ...]) -> set[tuple[int, int]]:
    """The (column, row) cells of every four in ``grid`` (none when it is no position)."""
    try:
        return Board.from_grid(list(grid), "either").winning_cells()
    except ValueError:
        return set()
