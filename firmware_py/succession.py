"""What may follow what: the one rule the live game asks (#53).

A person watching a game knows what can happen next: one disc of the side to
move lands on top of one of at most seven columns (on an empty board where
either colour may start, a disc of either colour: the first says who
started). :func:`next_boards` lists exactly those boards.

A board read again may also be a few discs further when moves were missed
(a hand over the board while two discs landed): :func:`why_not_after` says
why a board cannot follow another that way ("" when it can): every disc still
there with its colour, at most ``max_added`` new ones.

The game filter (``pipeline.belief``), the reducer's speculative solves and
the teacher (``pipeline.teach``) ask these two functions and nothing else.
"""

from __future__ import annotations

from c4game.board import EMPTY, HEIGHT, PLAYERS, Board, starter


def next_boards(board: Board, rule: str = "either") -> list[Board]:
    """The boards one disc after ``board`` (none once it is finished). On an empty
    board ``rule`` (``[game] first``) says whose disc may come first."""
    if board.is_finished:
        return []
    if board.n_discs:
        starts = [board]
    elif rule == "either":
        starts = [Board.empty(colour) for colour in PLAYERS]
    else:
        starts = [Board.empty(starter(0, 0, rule))]
    return [start.play(column) for start in starts for column in start.legal_columns()]


def is_next(before: Board, after: Board, rule: str = "either") -> bool:
    """True when ``after`` is one of :func:`next_boards` of ``before`` (same grid)."""
    if after.n_discs != before.n_discs + 1:
        return False
    lines = after.grid_lines()
    return any(board.grid_lines() == lines for board in next_boards(before, rule))


def why_not_after(before: Board | None, after: Board, max_added: int) -> str:
    """Why ``after`` cannot follow ``before`` with moves missed ("" when it can): a
    disc of ``before`` gone or of another colour, or more than ``max_added`` cells
    changed. Anything may follow no board at all."""
    if before is None:
        return ""
    changed = removed = recoloured = 0
    for old_stack, new_stack in zip(before.columns, after.columns, strict=True):
        for row in range(HEIGHT):
            old = old_stack[row] if row < len(old_stack) else EMPTY
            new = new_stack[row] if row < len(new_stack) else EMPTY
            if old == new:
                continue
            changed += 1
            if new == EMPTY:
                removed += 1
            elif old != EMPTY:
                recoloured += 1
    if removed or recoloured:
        return f"monotonicity: {removed} disc(s) removed, {recoloured} changed colour"
    if changed > max_added:
        return f"{changed} cells changed (at most {max_added})"
    return ""
