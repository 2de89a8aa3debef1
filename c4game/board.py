"""The board model: one place that converts between notations (SPEC.md §1).

Notations
---------
* **moves**: a string of digits ``1``-``7``, one per disc in the order played;
  ``""`` is the empty board. A move sequence is colour-free: its first digit
  is the first player's disc, and :attr:`Board.first` says which colour that
  is (Red unless told otherwise).
* **who may start** (SPEC §1, ``[game] first``): ``"red"``, ``"yellow"`` or
  ``"either"``; :func:`starter` is the one place that turns a grid's disc
  counts into the colour that started.
* **grid**: 6 strings of 7 characters, top row first; ``.`` empty, ``R`` red,
  ``Y`` yellow.
* **bitboards**: the solver's ``(current, mask)`` pair of 64-bit integers.

Bitboard layout (7 bits per column, the top bit of each column is a sentinel
that is always 0)::

        col:  1  2  3  4  5  6  7
    sentinel  6 13 20 27 34 41 48
    row 6     5 12 19 26 33 40 47
    row 5     4 11 18 25 32 39 46
    row 4     3 10 17 24 31 38 45
    row 3     2  9 16 23 30 37 44
    row 2     1  8 15 22 29 36 43
    row 1     0  7 14 21 28 35 42

``mask`` has a bit for every disc; ``current`` has a bit for every disc of the
side to move. Internally columns and rows are 0-based; every user-facing
place (messages, :meth:`Board.cell`) uses 1-based columns and rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from c4game.exc import GameOverError, IllegalMoveError, InvalidGridError, excerpt

WIDTH = 7
HEIGHT = 6
CELLS = WIDTH * HEIGHT
RED = "R"
YELLOW = "Y"
EMPTY = "."
PLAYERS = (RED, YELLOW)
COLOUR_NAMES = {RED: "Red", YELLOW: "Yellow"}
FIRST_RULES = ("red", "yellow", "either")  # who may start ([game] first)
# reds minus yellows a legal grid may show under each rule
COUNT_DIFFERENCES = {"red": (0, 1), "yellow": (-1, 0), "either": (-1, 0, 1)}

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def has_four(bits: int) -> bool:
    """True when ``bits`` (one colour's discs, the bitboard layout above) hold four in a
    row: the one Python test (the solver's Cython copy in ``cython_solver/bitboard.pxd``
    is the same in C, for its search's speed)."""
    for shift in (1, HEIGHT + 1, HEIGHT, HEIGHT + 2):  # vertical, horizontal, diagonals
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def other(player: str) -> str:
    """The opponent of ``player`` (``"R"`` or ``"Y"``)."""
    return YELLOW if player == RED else RED


def starter(red: int, yellow: int, rule: str = "red", started: str | None = None) -> str:
    """The colour that started a game whose grid shows ``red`` and ``yellow`` discs.

    ``rule`` is who may start (:data:`FIRST_RULES`). One colour more than the
    other started; with equal counts the colour that started is to move:
    ``started`` when the caller knows it (the live follower saw the game's
    first disc), else Yellow under ``"yellow"`` and Red otherwise (SPEC §1).
    Raises :class:`InvalidGridError` ("parity: …") when the counts break the rule.
    """
    if rule not in FIRST_RULES:
        raise ValueError(f"who may start must be one of {FIRST_RULES}, got {rule!r}")
    if red - yellow not in COUNT_DIFFERENCES[rule]:
        if rule == "red":
            raise InvalidGridError(
                f"parity: {red} red and {yellow} yellow discs; Red moves first, so red must "
                "equal yellow or yellow + 1")
        if rule == "yellow":
            raise InvalidGridError(
                f"parity: {red} red and {yellow} yellow discs; Yellow moves first, so yellow "
                "must equal red or red + 1")
        raise InvalidGridError(
            f"parity: {red} red and {yellow} yellow discs; the colours must differ by at most "
            "one disc")
    if red != yellow:
        return RED if red > yellow else YELLOW
    if rule != "either":
        return RED if rule == "red" else YELLOW
    return started if started in PLAYERS else RED


def game_rule(board: Board | None, rule: str) -> str:
    """Who may have started a board that follows ``board`` in the same game: once a
    disc is down the game's starter is known (``"red"``/``"yellow"``); ``rule`` before."""
    if board is None or board.n_discs == 0 or rule != "either":
        return rule
    return "red" if board.first == RED else "yellow"


@dataclass(frozen=True)
class Board:
    """An immutable Connect Four position.

    ``columns`` holds, for each of the 7 columns, its discs from the bottom
    up as a string of ``R``/``Y``. ``moves`` is the move sequence when it is
    known (built from moves), else ``None`` (built from a grid). ``first`` is
    the colour that moved first (``"R"`` or ``"Y"``).
    """

    columns: tuple[str, ...] = ("",) * WIDTH
    moves: str | None = ""
    first: str = RED

    # ------------------------------------------------------------ builders

    def __post_init__(self) -> None:
        if self.first not in PLAYERS:
            raise ValueError(f"first must be 'R' or 'Y', got {self.first!r}")

    @classmethod
    def empty(cls, first: str = RED) -> Board:
        """The empty board, ``first`` (Red unless told) to move."""
        return cls(first=first)

    @classmethod
    def from_moves(cls, moves: str, first: str = RED) -> Board:
        """Play a move sequence from the empty board, ``first`` (Red) moving first.

        Raises :class:`IllegalMoveError` naming the offending move (1-based
        index) for a character other than 1-7, a move into a full column or
        a move after the game was already won. The last move may win.
        """
        if not isinstance(moves, str):
            raise IllegalMoveError(f"moves must be a string of digits 1-7, got {moves!r}")
        board = cls(first=first)
        for index, char in enumerate(moves, start=1):
            if char not in "1234567":
                hint = " (write the moves as one word of digits, e.g. 4453)" if char.isspace() \
                    else ""
                raise IllegalMoveError(f"illegal move {char!r} at move {index} of "
                                       f"{excerpt(moves)}: columns are 1-7{hint}")
            if board.winner is not None:
                raise IllegalMoveError(
                    f"illegal move {char} at move {index} of {excerpt(moves)}: "
                    f"{COLOUR_NAMES[board.winner]} already has four in a row"
                )
            column = int(char)
            if not board.can_play(column):
                raise IllegalMoveError(
                    f"illegal move {char} at move {index} of {excerpt(moves)}: "
                    f"column {column} is full"
                )
            board = board.play(column)
        return board

    @classmethod
    def from_grid(cls, lines: Sequence[str] | str, rule: str = "red",
                  started: str | None = None) -> Board:
        """Build a board from grid text (6 lines, top row first).

        Accepts a list of 6 strings or one string with 6 lines. Checks shape,
        characters, gravity and parity under ``rule`` (who may start, with
        ``started`` for equal counts: :func:`starter`); a finished grid (four
        in a row) is accepted only if it could have arisen in play (one
        winner, who moved last). Raises :class:`InvalidGridError` naming the
        problem.
        """
        rows = _split_grid(lines)
        floating = floating_discs(rows)
        if floating:
            col, row = floating[0]
            empty = next(r for r in range(1, HEIGHT + 1) if rows[HEIGHT - r][col - 1] == EMPTY)
            raise InvalidGridError(
                f"floating disc: {rows[HEIGHT - row][col - 1]} at column {col} row {row} "
                f"above an empty cell at row {empty}"
            )
        columns = ["".join(rows[HEIGHT - 1 - row][col] for row in range(HEIGHT)).replace(EMPTY, "")
                   for col in range(WIDTH)]  # bottom up
        red = sum(column.count(RED) for column in columns)
        yellow = sum(column.count(YELLOW) for column in columns)
        if started is None and rule == "either" and red == yellow:
            winner = cls(columns=tuple(columns), moves=None).winner
            started = other(winner) if winner else None  # the winner moved last, second
        board = cls(columns=tuple(columns), moves=None,
                    first=starter(red, yellow, rule, started))
        board._check_win_plausible()
        return board

    @classmethod
    def from_bitboards(cls, current: int, mask: int, first: str = RED) -> Board:
        """Rebuild a board from the solver's ``(current, mask)`` pair, ``first`` having
        moved first."""
        discs = bin(mask).count("1")
        to_move = first if discs % 2 == 0 else other(first)
        columns = []
        for col in range(WIDTH):
            text = ""
            for row in range(HEIGHT):
                bit = 1 << (col * (HEIGHT + 1) + row)
                if not mask & bit:
                    break
                text += to_move if current & bit else other(to_move)
            columns.append(text)
        board = cls(columns=tuple(columns), moves=None, first=first)
        if board.mask_bits() != mask:
            raise InvalidGridError(f"bitboard mask {mask:#x} has a floating disc or sentinel bit")
        return board

    # ------------------------------------------------------------ queries

    @property
    def n_discs(self) -> int:
        """Number of discs on the board."""
        return sum(len(column) for column in self.columns)

    @property
    def red_count(self) -> int:
        return sum(column.count(RED) for column in self.columns)

    @property
    def yellow_count(self) -> int:
        return sum(column.count(YELLOW) for column in self.columns)

    @property
    def to_move(self) -> str:
        """``"R"`` or ``"Y"``: whose turn it is (by parity, from who moved first)."""
        return self.first if self.n_discs % 2 == 0 else other(self.first)

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(len(column) for column in self.columns)

    def cell(self, column: int, row: int) -> str:
        """The content of (column, row), both 1-based, row 1 at the bottom."""
        text = self.columns[column - 1]
        return text[row - 1] if row <= len(text) else EMPTY

    def can_play(self, column: int) -> bool:
        """True if the 1-based ``column`` has room."""
        return 1 <= column <= WIDTH and len(self.columns[column - 1]) < HEIGHT

    def legal_columns(self) -> list[int]:
        """Columns (1-based) that have room, left to right."""
        return [col for col in range(1, WIDTH + 1) if self.can_play(col)]

    @property
    def is_full(self) -> bool:
        return self.n_discs == CELLS

    @property
    def winner(self) -> str | None:
        """The colour with four in a row, or ``None`` (on bitboards; where both colours
        have one, the colour of the first four :meth:`winning_lines` lists)."""
        colours = self._colours_with_four()
        if len(colours) > 1:
            return self.winning_lines()[0][0]
        return colours[0] if colours else None

    def _colours_with_four(self) -> list[str]:
        return [colour for colour in (RED, YELLOW) if has_four(self.colour_bits(colour))]

    @property
    def is_finished(self) -> bool:
        """Four in a row, or a full board (draw); on bitboards (fast: every frame asks)."""
        return self.is_full or has_four(self.colour_bits(RED)) \
            or has_four(self.colour_bits(YELLOW))

    @property
    def is_draw(self) -> bool:
        return self.is_full and self.winner is None

    def winning_lines(self) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
        """Every four in a row as ``(colour, ((col, row) x4))``, 1-based."""
        found = []
        for col in range(1, WIDTH + 1):
            for row in range(1, HEIGHT + 1):
                colour = self.cell(col, row)
                if colour == EMPTY:
                    continue
                for dc, dr in _DIRECTIONS:
                    cells = tuple((col + i * dc, row + i * dr) for i in range(4))
                    if all(_inside(c, r) and self.cell(c, r) == colour for c, r in cells):
                        found.append((colour, cells))
        return found

    def winning_cells(self) -> set[tuple[int, int]]:
        """All cells (1-based col, row) that are part of a four."""
        return {cell for _, cells in self.winning_lines() for cell in cells}

    # ------------------------------------------------------------ changes

    def play(self, column: int) -> Board:
        """The board after the side to move drops a disc in 1-based ``column``."""
        if not 1 <= column <= WIDTH:
            raise IllegalMoveError(f"illegal move {column!r}: columns are 1-7")
        if not self.can_play(column):
            raise IllegalMoveError(f"illegal move {column}: column {column} is full")
        columns = list(self.columns)
        columns[column - 1] += self.to_move
        moves = None if self.moves is None else self.moves + str(column)
        return Board(columns=tuple(columns), moves=moves, first=self.first)

    def mirror(self) -> Board:
        """The left-right mirror image (column c becomes 8 - c)."""
        moves = None if self.moves is None else "".join(str(8 - int(m)) for m in self.moves)
        return Board(columns=tuple(reversed(self.columns)), moves=moves, first=self.first)

    def require_playable(self) -> Board:
        """Return self, or raise :class:`GameOverError` if the game is over."""
        winner = self.winner
        if winner is not None:
            raise GameOverError(f"game over: {COLOUR_NAMES[winner]} has four in a row")
        if self.is_full:
            raise GameOverError("game over: the board is full (draw)")
        return self

    # ------------------------------------------------------------ conversions

    def grid_lines(self) -> list[str]:
        """The grid text: 6 strings of 7 characters, top row first."""
        return [
            "".join(self.cell(col, row) for col in range(1, WIDTH + 1))
            for row in range(HEIGHT, 0, -1)
        ]

    def grid_text(self) -> str:
        return "\n".join(self.grid_lines())

    def mask_bits(self) -> int:
        """Bitboard of all discs (layout in the module docstring)."""
        mask = 0
        for col, column in enumerate(self.columns):
            mask |= ((1 << len(column)) - 1) << (col * (HEIGHT + 1))
        return mask

    def colour_bits(self, colour: str) -> int:
        """Bitboard of the discs of ``colour``."""
        bits = 0
        for col, column in enumerate(self.columns):
            for row, disc in enumerate(column):
                if disc == colour:
                    bits |= 1 << (col * (HEIGHT + 1) + row)
        return bits

    def bitboards(self) -> tuple[int, int]:
        """The solver's ``(current, mask)``: discs of the side to move, all discs."""
        return self.colour_bits(self.to_move), self.mask_bits()

    def __str__(self) -> str:
        return self.grid_text()

    # ------------------------------------------------------------ checks

    def _check_win_plausible(self) -> None:
        colours = self._colours_with_four()
        if not colours:
            return
        if len(colours) > 1:
            raise InvalidGridError("both Red and Yellow have four in a row")
        (winner,) = colours
        last_mover = other(self.to_move)
        if winner != last_mover:
            raise InvalidGridError(
                f"{COLOUR_NAMES[winner]} has four in a row but {COLOUR_NAMES[last_mover]} "
                "moved last"
            )
        if not any(self._removing_top_clears_win(col) for col in range(WIDTH)):
            raise InvalidGridError(
                f"{COLOUR_NAMES[winner]}'s fours cannot all have been made by the last disc"
            )

    def _removing_top_clears_win(self, col: int) -> bool:
        column = self.columns[col]
        if not column or column[-1] != other(self.to_move):
            return False
        columns = list(self.columns)
        columns[col] = column[:-1]
        return Board(columns=tuple(columns), moves=None, first=self.first).winner is None


def added_column(before: Board, after: Board) -> int | None:
    """The column of the one disc ``after`` adds on top of ``before`` (any colour), else None."""
    if after.n_discs != before.n_discs + 1:
        return None
    changed = [col for col, (old, new) in
               enumerate(zip(before.columns, after.columns, strict=True), 1) if old != new]
    if len(changed) == 1 and after.columns[changed[0] - 1].startswith(
            before.columns[changed[0] - 1]):
        return changed[0]
    return None


def _inside(col: int, row: int) -> bool:
    return 1 <= col <= WIDTH and 1 <= row <= HEIGHT


def floating_discs(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(column, row) of every disc of grid ``lines`` (6 rows, top first, checked) with an
    empty cell somewhere below it, 1-based, row 1 at the bottom: gravity, the one rule
    (:meth:`Board.from_grid` refuses them; the board reader names them)."""
    found = []
    for column in range(WIDTH):
        seen_empty = False
        for row in range(1, HEIGHT + 1):
            if lines[HEIGHT - row][column] == EMPTY:
                seen_empty = True
            elif seen_empty:
                found.append((column + 1, row))
    return found


def _split_grid(lines: Sequence[str] | str) -> list[str]:
    if isinstance(lines, str):
        rows = [line.strip() for line in lines.strip().splitlines()]
    elif isinstance(lines, Iterable):
        rows = [str(line) for line in lines]
    else:
        raise InvalidGridError(f"grid must be 6 lines of 7 characters, got {lines!r}")
    if len(rows) != HEIGHT:
        raise InvalidGridError(f"grid must have {HEIGHT} rows, got {len(rows)}: {rows!r}")
    for number, row in enumerate(rows, start=1):
        if len(row) != WIDTH:
            raise InvalidGridError(
                f"grid line {number} must have {WIDTH} characters, got {len(row)}: {row!r}"
            )
        bad = set(row) - {EMPTY, RED, YELLOW}
        if bad:
            raise InvalidGridError(
                f"grid line {number} {row!r} holds {sorted(bad)!r}; use '.', 'R' or 'Y'"
            )
    return rows
