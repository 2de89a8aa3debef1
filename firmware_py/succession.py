"""What may follow what: the one rule the live game asks (#53).

A person watching a game knows what can happen next: one disc of the side to
move lands on top of one of at most seven columns (on an empty board where
either colour may start, a disc of either colour: the first says who
started). :func:`next_boards` lists exactly those boards.

A board read again may also be discs further when moves were missed (a hand
over the board while two discs landed, a filter that fell behind):
:func:`why_not_after` says why a board cannot follow another that way (""
when it can): every disc still there with its colour, however many new ones.
:func:`commit_kind` names how a board the game filter commits replaces the
one before it, and :func:`with_history` keeps its moves where they are sure.

The game filter (``pipeline.belief``), the reducer's speculative solves and
the teacher (``pipeline.teach``) ask these functions and nothing else.
"""

from __future__ import annotations

from c4game.board import PLAYERS, Board, added_column, starter

COMMIT_FIRST = "first"
COMMIT_NEXT = "next"
COMMIT_NEW_GAME = "new-game"
COMMIT_OVERRIDE = "override"


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


def why_not_after(before: Board | None, after: Board) -> str:
    """Why ``after`` cannot follow ``before`` with moves missed ("" when it can): a
    disc of ``before`` gone or of another colour. Anything may follow no board at all."""
    if before is None:
        return ""
    removed = recoloured = 0
    for old_stack, new_stack in zip(before.columns, after.columns, strict=True):
        removed += max(0, len(old_stack) - len(new_stack))  # discs on top may be added
        recoloured += sum(old != new for old, new in zip(old_stack, new_stack, strict=False))
    if removed or recoloured:
        return f"monotonicity: {removed} disc(s) removed, {recoloured} changed colour"
    return ""


def commit_kind(reference: Board | None, board: Board) -> str:
    """How ``board`` replaces ``reference``: ``first``, ``next`` (moves added, one or
    more), ``new-game`` (the empty board: a game starts there) or ``override`` (a
    disc taken out or recoloured)."""
    if reference is None:
        return COMMIT_FIRST
    if board.n_discs == 0:
        return COMMIT_NEW_GAME
    return COMMIT_OVERRIDE if why_not_after(reference, board) else COMMIT_NEXT


def with_history(reference: Board | None, board: Board) -> Board:
    """``board`` with its move sequence when it is known for sure: the empty board, and
    a board one disc after a reference whose moves are known."""
    if board.n_discs == 0:
        return Board.empty(board.first)
    if reference is None or reference.moves is None:
        return board
    column = added_column(reference, board)
    if column is None or (reference.n_discs and reference.first != board.first):
        return board
    return Board(columns=board.columns, moves=reference.moves + str(column), first=board.first)
