"""Strength levels: how the appliance picks a move when it should not always win.

A level is a policy over the solver's exact column scores (SPEC §2, for the
side to move; ``None`` for a full column), defined by what it does, not by a
search depth:

* ``miss_win``: the chance that it overlooks a column winning at once;
* ``miss_block``: the chance that it overlooks the opponent's immediate
  threat;
* a move that overlooks plays as if blind to it: uniformly among the
  playable columns (so it still hits the win or the block by chance, one
  time in as many columns as are playable);
* otherwise it draws a column from a softmax over the scores with
  ``temperature`` (score points; ``inf`` = uniformly), leaving out the
  columns that lose at once, so a weaker level gives away more each move.

Level 6 is perfect play: a best column, centre first among equals (SPEC §2).
Every level only ever picks a playable column. The randomness comes from the
``random.Random`` passed in, so a seeded game is reproducible.

Scores tell both special cases without looking at the board: with ``n``
discs played, a column that wins at once scores ``(43 - n) // 2`` and one that
lets the opponent win at once scores ``-((42 - n) // 2)``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from c4game.scores import CENTRE_FIRST

PERFECT = 6


@dataclass(frozen=True)
class Level:
    """One strength level (see the module docstring)."""

    number: int
    name: str
    miss_win: float
    miss_block: float
    temperature: float  # 0: always a best column; inf: uniform


LEVELS: dict[int, Level] = {level.number: level for level in (
    Level(1, "beginner", miss_win=0.5, miss_block=0.6, temperature=math.inf),
    Level(2, "novice", miss_win=0.25, miss_block=0.35, temperature=6.0),
    Level(3, "casual", miss_win=0.1, miss_block=0.15, temperature=3.0),
    Level(4, "club", miss_win=0.03, miss_block=0.05, temperature=1.5),
    Level(5, "strong", miss_win=0.0, miss_block=0.0, temperature=0.5),
    Level(PERFECT, "perfect", miss_win=0.0, miss_block=0.0, temperature=0.0),
)}


def level(number: int) -> Level:
    """The level called ``number`` (1-6); ValueError names a bad one."""
    if number not in LEVELS:
        raise ValueError(f"level must be 1-{PERFECT}, got {number!r}")
    return LEVELS[number]


def immediate_win_score(n_discs: int) -> int:
    """The score of a column that wins with the mover's next disc."""
    return (43 - n_discs) // 2


def immediate_loss_score(n_discs: int) -> int:
    """The score of a column after which the opponent wins with its next disc."""
    return -((42 - n_discs) // 2)


def choose(scores: Sequence[int | None], n_discs: int, chosen: Level,
           rng: random.Random) -> int:
    """The column (1-7) ``chosen`` plays, given each column's exact score."""
    legal = [column for column in range(1, 8) if scores[column - 1] is not None]
    if not legal:
        raise ValueError("no playable column: the board is full")
    score = {column: int(scores[column - 1]) for column in legal}  # type: ignore[arg-type]
    if chosen.temperature == 0:
        return _centre_first([c for c in legal if score[c] == max(score.values())])
    wins = [c for c in legal if score[c] == immediate_win_score(n_discs)]
    if wins:
        return _centre_first(wins) if rng.random() >= chosen.miss_win else rng.choice(legal)
    losing = [c for c in legal if score[c] == immediate_loss_score(n_discs)]
    safe = [c for c in legal if c not in losing]
    if losing and safe and rng.random() < chosen.miss_block:
        return rng.choice(legal)
    return _softmax_pick(safe or legal, score, chosen.temperature, rng)


def _softmax_pick(columns: list[int], score: dict[int, int], temperature: float,
                  rng: random.Random) -> int:
    if math.isinf(temperature):
        return rng.choice(columns)
    top = max(score[c] for c in columns)
    weights = [math.exp((score[c] - top) / temperature) for c in columns]
    return rng.choices(columns, weights=weights)[0]


def _centre_first(columns: list[int]) -> int:
    return min(columns, key=CENTRE_FIRST.index)
