"""Board model: round trips between notations and every invalid case."""

from __future__ import annotations

import random

import pytest

from c4game.board import HEIGHT, WIDTH, Board
from c4game.exc import (
    GameOverError,
    IllegalMoveError,
    InvalidGridError,
    PositionError,
    excerpt,
)


def random_game(rng: random.Random, max_moves: int = 42) -> str:
    """A random legal move sequence that stops at a win or a full board."""
    board = Board.empty()
    for _ in range(max_moves):
        if board.is_finished:
            break
        board = board.play(rng.choice(board.legal_columns()))
    return board.moves or ""


def independent_grid(moves: str) -> list[str]:
    """Grid text computed without the Board class (a plain 2-D array)."""
    cells = [["."] * WIDTH for _ in range(HEIGHT)]  # cells[row][col], row 0 = bottom
    heights = [0] * WIDTH
    for index, char in enumerate(moves):
        col = int(char) - 1
        cells[heights[col]][col] = "R" if index % 2 == 0 else "Y"
        heights[col] += 1
    return ["".join(row) for row in reversed(cells)]


def test_empty_board() -> None:
    board = Board.empty()
    assert board.grid_lines() == ["......."] * 6
    assert board.to_move == "R"
    assert board.bitboards() == (0, 0)
    assert board.moves == ""


def test_known_position_grid() -> None:
    board = Board.from_moves("4453")
    assert board.grid_lines()[-2:] == ["...Y...", "..YRR.."]
    assert board.to_move == "R"
    assert board.cell(4, 2) == "Y"


@pytest.mark.parametrize("seed", range(40))
def test_round_trips(seed: int) -> None:
    moves = random_game(random.Random(seed), max_moves=random.Random(seed).randint(0, 42))
    board = Board.from_moves(moves)
    assert board.grid_lines() == independent_grid(moves)
    from_grid = Board.from_grid(board.grid_lines())
    assert from_grid.columns == board.columns
    assert from_grid.moves is None
    current, mask = board.bitboards()
    assert Board.from_bitboards(current, mask).columns == board.columns
    assert board.mirror().mirror() == board
    assert board.mirror().grid_lines() == [line[::-1] for line in board.grid_lines()]


def test_bitboard_layout() -> None:
    board = Board.from_moves("1277")
    current, mask = board.bitboards()
    # Red (to move) has col 1 row 1 and col 7 row 1; yellow col 2 row 1 and col 7 row 2.
    assert current == (1 << 0) | (1 << 42)
    assert mask == (1 << 0) | (1 << 7) | (1 << 42) | (1 << 43)


@pytest.mark.parametrize(
    ("moves", "fragment"),
    [
        ("48", "'8' at move 2"),
        ("4a", "'a' at move 2"),
        ("4 4", "' ' at move 2"),
        ("1111111", "move 7 of '1111111': column 1 is full"),
        ("12121213", "at move 8"),
    ],
)
def test_illegal_moves_name_the_move(moves: str, fragment: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        Board.from_moves(moves)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_last_move_may_win_but_then_game_over() -> None:
    board = Board.from_moves("1212121")
    assert board.winner == "R"
    assert board.winning_cells() == {(1, 1), (1, 2), (1, 3), (1, 4)}
    with pytest.raises(GameOverError):
        board.require_playable()


def independent_winner(grid: list[str]) -> str | None:
    """Scan every row, column and diagonal of the grid text for four in a row."""
    lines = list(grid) + ["".join(row[c] for row in grid) for c in range(WIDTH)]
    for start in range(-HEIGHT, WIDTH + HEIGHT):
        lines.append("".join(grid[r][start + r] for r in range(HEIGHT)
                             if 0 <= start + r < WIDTH))
        lines.append("".join(grid[r][start - r] for r in range(HEIGHT)
                             if 0 <= start - r < WIDTH))
    for colour in "RY":
        if any(colour * 4 in line for line in lines):
            return colour
    return None


@pytest.mark.parametrize("seed", range(200))
def test_winner_matches_independent_scan(seed: int) -> None:
    moves = random_game(random.Random(1000 + seed))
    board = Board.from_moves(moves)
    assert board.winner == independent_winner(independent_grid(moves))
    assert board.is_finished


@pytest.mark.parametrize(
    ("moves", "winner"),
    [("1122334", "R"), ("1212121", "R"), ("34366546655", "R"), ("352244334322", "Y"),
     ("7655443432", None)],
)
def test_each_direction(moves: str, winner: str | None) -> None:
    board = Board.from_moves(moves)
    assert board.winner == independent_winner(board.grid_lines())
    assert board.winner == winner


def test_draw_board() -> None:
    rng = random.Random(7)
    board = Board.empty()
    while not (board.is_full and board.winner is None):
        board = Board.from_moves(random_game(rng))
    again = Board.from_grid(board.grid_lines())
    assert again.is_full and again.is_draw and again.winner is None
    with pytest.raises(GameOverError, match="full"):
        again.require_playable()


@pytest.mark.parametrize(
    ("grid", "fragment"),
    [
        (["......."] * 5, "6 rows"),
        (["......."] * 5 + ["......"], "7 characters"),
        (["......."] * 5 + ["...X..."], "'X'"),
        (["......."] * 4 + ["...R...", "......."], "floating disc: R at column 4 row 2"),
        (["......."] * 5 + ["...Y..."], "parity"),
        (["......."] * 5 + ["RR....."], "parity"),
        (["......."] * 4 + ["YYYY...", "RRRR..."], "both Red"),
    ],
)
def test_invalid_grids(grid: list[str], fragment: str) -> None:
    with pytest.raises(InvalidGridError) as info:
        Board.from_grid(grid)
    assert fragment in str(info.value)
    assert isinstance(info.value, PositionError)


def test_win_by_wrong_player_rejected() -> None:
    # Red has four but Yellow moved last (equal counts).
    grid = ["......."] * 4 + ["Y......", "RRRRYYY"]
    with pytest.raises(InvalidGridError, match="moved last"):
        Board.from_grid(grid)


def test_two_separate_fours_rejected() -> None:
    # Red: two disjoint horizontal fours that no single disc could complete.
    grid = ["......."] * 3 + ["RRRRYYY", "YYYRRRY", "RRRRYYY"]
    with pytest.raises(InvalidGridError, match="last disc"):
        Board.from_grid(grid)


def test_finished_grid_accepted() -> None:
    board = Board.from_moves("1212121")
    again = Board.from_grid(board.grid_lines())
    assert again.winner == "R" and again.is_finished


def test_grid_as_text_block() -> None:
    board = Board.from_moves("44")
    assert Board.from_grid(board.grid_text()).columns == board.columns


def test_play_rejects_bad_column() -> None:
    with pytest.raises(IllegalMoveError):
        Board.empty().play(0)
    with pytest.raises(IllegalMoveError, match="full"):
        Board.from_moves("444444").play(4)


def test_from_bitboards_rejects_floating_mask() -> None:
    with pytest.raises(InvalidGridError):
        Board.from_bitboards(0, 1 << 1)


def test_the_terminal_board_tells_the_discs_apart_without_colour_and_marks_a_four() -> None:
    """A newcomer's report: both discs were the same glyph in two colours (nothing for a
    colour-blind player or a monochrome terminal) and a four was not marked."""
    from firmware_py.board_text import draw_board

    won = Board.from_moves("1212121").grid_lines()  # Red's four in column 1
    plain = draw_board(won, colour=False)
    assert plain[3:7] == [" |r . . . . . .| 4", " |r Y . . . . .| 3", " |r Y . . . . .| 2",
                          " |r Y . . . . .| 1"]  # the four marked on the board itself
    assert plain[-1] == " four in a row (lower-case; column,row): (1,1) (1,2) (1,3) (1,4)"
    coloured = draw_board(won, colour=True)
    assert all("R" in line for line in coloured[3:7]) and "Y" in coloured[4]
    assert coloured[6].count("\033[1;7;31mR") == 1 and "\033[1;33mY" in coloured[6]  # marked
    assert "four in a row" not in coloured[-1]
    assert not any("four" in line for line in draw_board(Board.from_moves("4453").grid_lines(),
                                                        colour=False))


def test_floating_discs_is_the_gravity_rule_from_grid_applies() -> None:
    """Random grids (any cell any of ., R, Y): from_grid refuses for gravity exactly when
    floating_discs names a disc, and names the first one it lists; against a brute
    force of each disc's column below it."""
    from c4game.board import floating_discs

    rng = random.Random(57)
    for _ in range(2000):
        fill = rng.random()
        lines = ["".join(rng.choice("RY") if rng.random() < fill else "." for _ in range(WIDTH))
                 for _ in range(HEIGHT)]
        brute = [(column + 1, HEIGHT - row) for column in range(WIDTH) for row in
                 reversed(range(HEIGHT)) if lines[row][column] != "."
                 and any(lines[below][column] == "." for below in range(row + 1, HEIGHT))]
        assert floating_discs(lines) == brute
        try:
            Board.from_grid(lines, "either")
            assert not brute
        except InvalidGridError as error:
            if brute:
                column, row = brute[0]
                assert str(error).startswith(f"floating disc: {lines[HEIGHT - row][column - 1]} "
                                             f"at column {column} row {row} ")
            else:
                assert "floating" not in str(error)


def _random_stacked_grid(rng: random.Random) -> list[str]:
    """Grid lines of random columns of random colours (gravity kept; any counts, so a
    grid may hold fours of both colours)."""
    heights = [rng.randint(0, HEIGHT) for _ in range(WIDTH)]
    cells = [[rng.choice("RY") if HEIGHT - 1 - row < heights[col] else "."
              for col in range(WIDTH)] for row in range(HEIGHT)]
    return ["".join(row) for row in cells]


def _win_plausible_by_scan(board: Board) -> str:
    """What from_grid's four check says, from winning_lines alone (the scan before the
    bitboard test): "" when a game allows the fours."""
    colours = {colour for colour, _ in board.winning_lines()}
    if not colours:
        return ""
    if len(colours) > 1:
        return "both"
    last = "R" if board.to_move == "Y" else "Y"
    if colours != {last}:
        return "moved last"
    for col in range(WIDTH):
        column = board.columns[col]
        if column and column[-1] == last:
            columns = list(board.columns)
            columns[col] = column[:-1]
            if not Board(columns=tuple(columns), moves=None, first=board.first).winning_lines():
                return ""
    return "last disc"


@pytest.mark.parametrize("seed", range(40))
def test_the_bitboard_four_test_agrees_with_the_scan(seed: int) -> None:
    """``winner`` and from_grid's four check (on bitboards) say what a scan of every
    line says, on random stacked grids with fours of one colour, both or none."""
    rng = random.Random(7000 + seed)
    for _ in range(50):
        grid = _random_stacked_grid(rng)
        columns = tuple("".join(grid[HEIGHT - 1 - row][col] for row in range(HEIGHT))
                        .replace(".", "") for col in range(WIDTH))
        board = Board(columns=columns, moves=None)
        lines = board.winning_lines()
        assert board.winner == (lines[0][0] if lines else None)
        assert (board.winner is None) == (independent_winner(grid) is None)
        expected = _win_plausible_by_scan(board)
        try:
            board._check_win_plausible()
            said = ""
        except InvalidGridError as error:
            said = str(error)
        assert (expected == "") == (said == ""), (grid, expected, said)
        assert expected in said


def test_a_long_bad_input_is_repeated_only_in_part() -> None:
    moves = "4" * 10_000
    with pytest.raises(IllegalMoveError) as error:
        Board.from_moves(moves)
    message = str(error.value)
    assert "at move 7" in message and "(10,000 characters)" in message
    assert len(message) < 400
    assert excerpt("4489") == repr("4489") and excerpt("x" * 240) == repr("x" * 240)
