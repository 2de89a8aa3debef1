"""The board as terminal text (``c4pi demo``, ``c4pi play``)."""

from __future__ import annotations

_DISC = {"R": "\033[31m●\033[0m", "Y": "\033[33m●\033[0m", ".": "\033[2m·\033[0m"}
_PLAIN = {"R": "R", "Y": "Y", ".": "."}


def draw_board(grid: list[str] | tuple[str, ...], *, colour: bool) -> list[str]:
    """The board as text lines: column numbers, the six rows, the base."""
    discs = _DISC if colour else _PLAIN
    lines = ["  1 2 3 4 5 6 7"]
    lines.extend(" |" + " ".join(discs[c] for c in row) + "|" for row in grid)
    lines.append(" +" + "-" * 13 + "+")
    return lines
