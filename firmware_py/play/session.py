"""A game against the appliance at a chosen level: the rules of ``c4pi play``.

:class:`PlaySession` is the game's state machine, apart from any terminal:
``start()`` and ``handle(line)`` return the text to show, so it is tested
with scripted lines and driven by the command through stdin/stdout (over SSH
too). The person types a column 1-7, ``h`` for a hint (the perfect move and
the outcome), ``u`` to take back their last move (and the reply to it), ``q``
to quit; anything else is answered with what is wrong, and the game goes on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from c4game.board import COLOUR_NAMES, PLAYERS, RED, YELLOW, Board, other
from c4game.scores import plies_to_end, verdict
from firmware_py.board_text import draw_board
from firmware_py.play.levels import Level, choose

Scorer = Callable[[Board], Sequence[int | None]]
HELP = "type a column 1-7, h for a hint, u to undo, q to quit"
WEB_HELP = "tap a column to drop your disc; Hint shows the best move, Undo takes back yours"
_STARTERS = {"r": RED, "red": RED, "y": YELLOW, "yellow": YELLOW}


def starting_colour(rule: str, wanted: object = None) -> str:
    """The colour ("R"/"Y") that starts a game under ``rule`` (``[game] first``):
    ``wanted`` ("red"/"yellow" or "R"/"Y") where the rule allows it; without it the
    rule's colour, Red under "either". Raises ValueError saying what is wrong."""
    fixed = {"red": RED, "yellow": YELLOW}.get(rule)
    if wanted is None:
        return fixed or RED
    colour = _STARTERS.get(wanted.lower()) if isinstance(wanted, str) else None
    if colour is None:
        raise ValueError(f"who starts must be red or yellow, got {wanted!r}")
    if fixed is not None and colour != fixed:
        raise ValueError(f"{COLOUR_NAMES[fixed]} always starts here ([game] first = {rule})")
    return colour


class PlaySession:
    """One game: the person plays ``person`` ("R" or "Y") against ``level``; ``first``
    ("R" or "Y") moves first."""

    def __init__(self, level: Level, person: str, scorer: Scorer, rng: random.Random,
                 *, first: str = RED, colour: bool = False, draw: bool = True,
                 help_text: str = HELP) -> None:
        if person not in PLAYERS:
            raise ValueError(f"person must be 'R' or 'Y', got {person!r}")
        if first not in PLAYERS:
            raise ValueError(f"first must be 'R' or 'Y', got {first!r}")
        self.level, self.person, self.scorer, self.rng = level, person, scorer, rng
        self.first = first
        self.colour = colour
        self.draw = draw  # False: the answers leave the board out (a page draws its own)
        self.help_text = help_text  # how to move: typed (the terminal) or tapped (a page)
        self.moves = ""
        self.over = False
        self.hint: tuple[int, ...] = ()  # the best columns, after a hint until the next input

    @property
    def board(self) -> Board:
        return Board.from_moves(self.moves, self.first)

    def start(self) -> str:
        """The opening text (and the appliance's first move when it starts)."""
        me = COLOUR_NAMES[other(self.person)]
        how = self.help_text[:1].upper() + self.help_text[1:]
        who = "You start" if self.first == self.person else "I start"
        intro = (f"You play {COLOUR_NAMES[self.person]}, I play {me} at level "
                 f"{self.level.number} ({self.level.name}). {who}. {how}.")
        if self.first != self.person:
            return "\n".join([intro, self._reply()])
        return "\n".join([intro, self._show()])

    def handle(self, line: str) -> str:
        """The answer to one line the person typed."""
        text = line.strip().lower()
        self.hint = ()
        if self.over:
            return "The game is over."
        if text in ("q", "quit"):
            self.over = True
            return "Bye."
        if text in ("h", "hint"):
            return self._hint()
        if text in ("u", "undo"):
            return self._undo()
        if not (len(text) == 1 and text in "1234567"):
            return f"{line.strip()!r} is not a move: {self.help_text}."
        column = int(text)
        if not self.board.can_play(column):
            return f"Column {column} is full: choose another."
        self.moves += text
        if self.board.is_finished:
            return self._finish()
        return self._reply()

    def _reply(self) -> str:
        board = self.board
        column = choose(self.scorer(board), board.n_discs, self.level, self.rng)
        self.moves += str(column)
        said = f"I play {column}."
        if self.board.is_finished:
            return "\n".join([said, self._finish()])
        return "\n".join([said, self._show()])

    def _hint(self) -> str:
        board = self.board
        scores = self.scorer(board)
        best = max(s for s in scores if s is not None)
        columns = [c for c in range(1, 8) if scores[c - 1] == best]
        self.hint = tuple(columns)
        return (f"Hint: play {columns[0] if len(columns) == 1 else ' or '.join(map(str, columns))}"
                f" — {verdict(board, best, plies_to_end(best, board.n_discs))}.")

    def _undo(self) -> str:
        mine = 0 if self.person == self.first else 1  # the person's moves sit at these parities
        last = max((i for i in range(len(self.moves)) if i % 2 == mine), default=None)
        if last is None:
            return "Nothing to undo."
        taken = "your last move" if last == len(self.moves) - 1 else "your last move and my reply"
        self.moves = self.moves[:last]
        return "\n".join([f"Took back {taken}.", self._show()])

    def _finish(self) -> str:
        self.over = True
        board = self.board
        if board.winner is None:
            result = "Draw."
        elif board.winner == self.person:
            result = "You win!"
        else:
            result = "I win."
        return "\n".join([*self._board_lines(), f"Game over: {result}"])

    def _show(self) -> str:
        return "\n".join([*self._board_lines(), f"Your move ({COLOUR_NAMES[self.person]})."])

    def _board_lines(self) -> list[str]:
        return draw_board(self.board.grid_lines(), colour=self.colour) if self.draw else []
