"""The book's shallow table: exact scores of the positions with few discs.

A search from a position with a handful of discs reaches thousands of 12-disc
book entries before it can prove anything; from the empty board it takes
seconds. The shallow table stores the exact score of every position with at
most ``SHALLOW_PLY`` discs (one per mirror pair, leaving out finished positions
and those where the side to move wins at once, as the 12-disc book does), so
such a search ends at its first node.

It is derived at build time from the 12-disc book: the positions with
``SHALLOW_PLY`` discs are solved by our search with the book, every shallower
level by one ply of negamax over the level below it. Keys are the canonical
position code with a marker bit above it, so that codes of different disc
counts (2n + 7 bits long) never collide.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cython_solver.engine import Engine
from cython_solver.positions import canonical_code, winning_columns

SHALLOW_PLY = 8
CELLS = 42
WIDTH = 7
COLUMN_BITS = 0x3F          # the six playable cells of column 0 (7 bits per column)

Level = dict[int, tuple[int, int]]     # canonical code -> (current, mask)
Progress = Callable[[str, float], None]


def shallow_key(cur: int, mask: int) -> int:
    """The shallow table's key of a position: its canonical code with bit
    ``2 n + 7`` set, n its number of discs."""
    return canonical_code(cur, mask) | 1 << (2 * mask.bit_count() + WIDTH)


def children(cur: int, mask: int) -> list[tuple[int, int]]:
    """The positions after each move that does not end the game, as
    ``(current, mask)`` of the side to move next."""
    wins = set(winning_columns(cur, mask))
    found = []
    for col in range(WIDTH):
        cell = (mask + (1 << (7 * col))) & (COLUMN_BITS << (7 * col))
        if cell and col not in wins:
            found.append((cur ^ mask, mask | cell))
    return found


def enumerate_levels(depth: int) -> list[Level]:
    """Every unfinished position with 0..``depth`` discs, one per mirror pair,
    level by level."""
    levels: list[Level] = [{canonical_code(0, 0): (0, 0)}]
    for _ in range(depth):
        below: Level = {}
        for cur, mask in levels[-1].values():
            for child in children(cur, mask):
                below.setdefault(canonical_code(*child), child)
        levels.append(below)
    return levels


def build_shallow(engine: Engine, depth: int = SHALLOW_PLY,
                  progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys (uint32) and scores (int8) of every position with at most
    ``depth`` discs where the side to move cannot win at once. ``engine``
    should hold the 12-disc book: without it the deepest level is slow."""
    levels = enumerate_levels(depth)
    scores: dict[int, int] = {}
    deepest = [(code, board) for code, board in levels[depth].items()
               if not winning_columns(*board)]
    for done, (code, (cur, mask)) in enumerate(deepest, start=1):
        scores[code] = engine.solve(cur, mask, depth)
        if progress and (done % 4096 == 0 or done == len(deepest)):
            progress("shallow", done / len(deepest))
    found = {shallow_key(*board): scores[code] for code, board in deepest}
    for n in range(depth - 1, -1, -1):
        level_scores: dict[int, int] = {}
        for code, (cur, mask) in levels[n].items():
            if winning_columns(cur, mask):
                continue
            level_scores[code] = max(-_child_score(child, n + 1, scores)
                                     for child in children(cur, mask))
            found[shallow_key(cur, mask)] = level_scores[code]
        scores = level_scores
    keys = np.array(sorted(found), dtype=np.uint32)
    values = np.array([found[key] for key in keys.tolist()], dtype=np.int8)
    return keys, values


def _child_score(child: tuple[int, int], n: int, scores: dict[int, int]) -> int:
    """The score of a child with ``n`` discs: a win at once, or its level's score."""
    if winning_columns(*child):
        return (CELLS + 1 - n) // 2
    return scores[canonical_code(*child)]
