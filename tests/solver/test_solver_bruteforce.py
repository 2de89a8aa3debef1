"""The solver against an independent brute force on positions with few empty cells.

The reference knows nothing of bitboards, bounds, tables or books: it plays
every legal move on a list of columns, finds the game's outcome and length by
plain minimax (winner: fastest win, loser: slowest loss) and only then turns
(outcome, plies) into a SPEC §2 score.
"""

from __future__ import annotations

from functools import cache

import pytest

from c4game.board import Board
from cython_solver import Solver

from .conftest import random_positions, read_set

WIDTH, HEIGHT = 7, 6


def _wins(columns: tuple[str, ...], col: int, colour: str) -> bool:
    """Does dropping ``colour`` into ``col`` make four in a row?"""
    row = len(columns[col])

    def at(c: int, r: int) -> str:
        if not (0 <= c < WIDTH and 0 <= r < HEIGHT) or r >= len(columns[c]):
            return "."
        return columns[c][r]

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while at(c, r) == colour:
                count += 1
                c, r = c + sign * dc, r + sign * dr
        if count >= 4:
            return True
    return False


@cache
def _outcome(columns: tuple[str, ...], colour: str) -> tuple[int, int]:
    """(result, plies): +1 the side to move wins, 0 draw, -1 loses, after plies discs."""
    other = "Y" if colour == "R" else "R"
    options = []
    for col in range(WIDTH):
        if len(columns[col]) == HEIGHT:
            continue
        if _wins(columns, col, colour):
            options.append((1, 1))
            continue
        after = columns[:col] + (columns[col] + colour,) + columns[col + 1:]
        if all(len(c) == HEIGHT for c in after):
            options.append((0, 1))
            continue
        result, plies = _outcome(after, other)
        options.append((-result, plies + 1))
    # prefer a win (sooner is better), then a draw, then a loss (later is better)
    return max(options, key=lambda o: (o[0], -o[1] if o[0] > 0 else o[1]))


def reference_score(board: Board) -> int:
    _outcome.cache_clear()
    result, plies = _outcome(board.columns, board.to_move)
    n = board.n_discs
    if result > 0:
        return (43 - n) // 2 - (plies + 1) // 2 + 1
    if result < 0:
        return -((42 - n) // 2 - plies // 2 + 1)
    assert plies == 42 - n
    return 0


POSITIONS = random_positions(seed=11, count=150, low=34, high=41)


@pytest.mark.parametrize("use_book", [False, True])
def test_scores_match_brute_force(use_book: bool, book_path) -> None:
    solver = Solver(tt_mb=8, book=book_path if use_book else None)
    for board in POSITIONS:
        expected = reference_score(board)
        assert solver.solve(board) == expected, board.moves
        assert solver.solve(board.moves) == expected, board.moves


def test_analyze_matches_brute_force() -> None:
    solver = Solver(tt_mb=8)
    for board in POSITIONS[:60]:
        scores = solver.analyze(board)
        for col in range(1, 8):
            if not board.can_play(col):
                assert scores[col - 1] is None
                continue
            child = board.play(col)
            if child.winner is not None:
                expected = (43 - board.n_discs) // 2
            elif child.is_full:
                expected = 0
            else:
                expected = -reference_score(child)
            assert scores[col - 1] == expected, (board.moves, col)


def test_reference_agrees_with_the_published_scores() -> None:
    """The brute force itself, on the end-easy positions with at most 8 empty cells."""
    pairs = [(moves, score) for moves, score in read_set("end-easy") if len(moves) >= 34]
    assert len(pairs) > 100
    for moves, score in pairs[:150]:
        assert reference_score(Board.from_moves(moves)) == score, moves


def test_best_columns_match_brute_force() -> None:
    solver = Solver(tt_mb=8)
    for board in POSITIONS[60:]:
        column_scores = {}
        for col in board.legal_columns():
            child = board.play(col)
            if child.winner is not None:
                column_scores[col] = (43 - board.n_discs) // 2
            elif child.is_full:
                column_scores[col] = 0
            else:
                column_scores[col] = -reference_score(child)
        top = max(column_scores.values())
        answer = solver.best(board)
        assert answer.score == top, board.moves
        assert answer.best_columns == tuple(sorted(c for c, s in column_scores.items()
                                                   if s == top)), board.moves
