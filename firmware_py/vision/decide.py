"""The most probable legal position, and whether it is far enough ahead to be read.

Given each cell's log-probabilities (42 x 3, top row first; the combined,
calibrated readers of :mod:`.combine`), the cells are taken as independent,
so a grid's log-probability is the sum of its cells'. A game can leave only
grids whose columns are stacks from the bottom (gravity), with the disc counts
the rule of who may start allows (``rule``: Red first, as many red discs as
yellow or one more; Yellow first, the other way; either, both), and no four
that its last disc did not make (:meth:`~c4game.board.Board.from_grid`). Among those:

* ``best``: the most probable legal board, ``runner_up``: the next one;
* ``seen``: the most probable grid of all (each cell's own most probable
  class), legal or not.

A board is read (``ok``/``finished``) only as it is seen: ``seen`` must be a
legal board (so ``seen`` is ``best``), ahead of the runner-up by ``margin``
nats (e to the margin times more probable). A grid seen illegal is refused,
showing what is seen and the rule it breaks, with what the nearest legal
board would change: a board is never made legal by deleting a disc the
readers see, recolouring it, or adding one they do not see (a position
nobody played, read with confidence). The legal-position model still
weighs doubt: the runner-up is the next legal board or the most probable
illegal grid one cell away, counted less likely a priori (a board played
illegally is rare, not impossible), so a doubtful cell whose other readings
are illegal is read when it leads them by ``margin`` less that prior. Gravity
settles more than the rules of play: a disc floating at rest is physics no
game leaves (:data:`FLOATING_PRIOR`), while a colour that moved twice, the
wrong colour first or play after a four are games people do play
(:data:`RULES_PRIOR`), and a camera that shows one must not see it mended.
With a margin at or under a prior, a rival of that kind never decides: at the
default margin (2.5 nats) a hole under a disc is read as a disc whenever the
readers favour a disc there at all (favoured empty, it is seen floating and
refused). The margin is chosen on calibration data (``firmware_py/vision/MODEL.md``).

Each column's contents is one of 127 stacks (height 0-6, each disc red or
yellow)::

    row 6  . . . . . . .     a column is read bottom (row 1) to top (row 6);
    row 5  . . . . . . .     stack = the discs from row 1 up, every cell above
    ...                      its height empty; diff = reds - yellows
    row 1  R Y . . . . .

The best boards come from a small dynamic programme over the columns on
``diff``, each column keeping only the stacks within :data:`WINDOW` nats of
its best one (at most :data:`MAX_STACKS`): a board further behind can never
be read nor decide a refusal.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from c4game.board import COUNT_DIFFERENCES, HEIGHT, WIDTH, Board, floating_discs
from c4game.exc import InvalidGridError
from firmware_py.config import VisionConfig
from firmware_py.vision.reading import CLASS_NAMES, FINISHED, INVALID, OK, cell_name
from firmware_py.vision.reading import CLASSES as CLASS_CHARS

# nats: the board read is e^2.5 = 12 times as probable as its runner-up ([vision] accept_margin)
DEFAULT_MARGIN: float = VisionConfig.accept_margin

WINDOW = 10.0  # nats behind a column's best stack that are still considered (> any margin)
MAX_STACKS = 12  # stacks kept per column
KEEPS = (4, 32, 256)  # boards kept per disc-count difference, then more if fours crowd
MAX_LISTED = 4
DOUBT = 0.5  # the most a cell in doubt is sure of (no evidence either way)
FLOATING_PRIOR = 3.0  # nats: a disc held in the air (gravity) is e^3 times less likely
RULES_PRIOR = 1.75  # nats: a game played against the rules (the counts, two fours)
TIE = 1e-9  # nats: grids this close are equally probable


def _all_stacks() -> tuple[np.ndarray, np.ndarray]:
    """(127, 6) class per row, bottom first, and (127,) reds minus yellows."""
    stacks, diffs = [], []
    for height in range(HEIGHT + 1):
        for colours in itertools.product((1, 2), repeat=height):
            stacks.append(list(colours) + [0] * (HEIGHT - height))
            diffs.append(colours.count(1) - colours.count(2))
    return np.array(stacks, np.int64), np.array(diffs, np.int64)


STACKS, STACK_DIFFS = _all_stacks()


@dataclass(frozen=True)
class Decision:
    """What the cell probabilities amount to (see the module docstring)."""

    status: str  # ok | finished | invalid
    grid: tuple[str, ...]  # the board read, or the one shown with a refusal
    board: Board | None  # for ok / finished
    reason: str  # why it is not ok ("" when ok)
    margin: float  # nats of ``best`` over its runner-up (or of the illegal grid seen over it)
    confidence: float  # the share of ``best`` against its runner-up (or against the
    # illegal grid seen, below 0.5): read boards are at least 1 / (1 + e^-margin)
    cell_confidence: tuple[float, ...]  # 42: each cell's probability of the grid's class


def decide(log_probs: np.ndarray, margin: float,
           explain: Callable[[int], str] | None = None, rule: str = "red") -> Decision:
    """Decide the board (see the module docstring) from (42, 3) log-probabilities.

    ``explain(cell)`` may add to a refusal what is known of a doubtful cell
    (the two readers' views: "CNN red, colour empty"). ``rule``: who may start
    (``red``, ``yellow``, ``either``: SPEC §1); the legal boards are those it allows.
    """
    log_probs = np.asarray(log_probs, np.float64)
    if log_probs.shape != (WIDTH * HEIGHT, len(CLASS_CHARS)):
        raise ValueError(f"expected log-probabilities of shape (42, 3), got {log_probs.shape}")
    if not np.all(np.isfinite(log_probs)):
        raise ValueError("log-probabilities must be finite")
    seen = grid_of(log_probs.argmax(axis=1))
    seen_score = float(log_probs.max(axis=1).sum())
    ranked = legal_boards(log_probs, count=2, rule=rule)
    if not ranked:
        return _refused(log_probs, seen, illegal_reason(seen, rule), math.inf, 0.0, seen)
    (best_score, best), *rest = ranked
    if best_score >= seen_score - TIE:  # a tie between classes: the legal one is seen
        seen = tuple(best.grid_lines())
    if best.grid_lines() != list(seen):  # the grid seen is illegal: never corrected
        reason = (f"{illegal_reason(seen, rule)}; the nearest legal board "
                  f"{changes(log_probs, best, explain)}")
        return _refused(log_probs, seen, reason, seen_score - best_score,
                        _share(best_score, seen_score), best.grid_lines())
    runner_score, runner = (rest[0][0], rest[0][1].grid_lines()) if rest else (-math.inf, [])
    flip_score, flip = _illegal_rival(log_probs, seen, seen_score, best_score, margin, rule)
    if flip_score > runner_score:
        runner_score, runner = flip_score, flip
    confidence = _share(best_score, runner_score)
    lead = best_score - runner_score
    if lead < margin:
        reason = _doubt(log_probs, best.grid_lines(), runner, explain)
        return _refused(log_probs, best.grid_lines(), reason, lead, confidence, runner)
    cells = _cell_confidence(log_probs, best.grid_lines(), floor=confidence)
    status = FINISHED if best.is_finished else OK
    return Decision(status, tuple(best.grid_lines()), best, finished_reason(best), lead,
                    confidence, cells)


def _illegal_rival(log_probs: np.ndarray, seen: tuple[str, ...], seen_score: float,
                   best_score: float, margin: float, rule: str = "red"
                   ) -> tuple[float, list[str]]:
    """The most probable illegal grid one cell away from the legal grid ``seen``, counted
    its prior down (:func:`illegal_prior`), among those that cost at most ``margin`` and
    the larger prior (no grid further behind can decide; the margin a board is read by
    counts only those): (that log-probability, its lines), or (-inf, []). A board is
    read against it too: a doubtful cell is not settled by the rules alone, since the
    camera may show a board played illegally. An illegal grid the readers see as much
    as the board (a tie, :mod:`.frame_doubt`) is seen as much: no prior breaks a tie of
    what is seen."""
    costs = log_probs.max(axis=1, keepdims=True) - log_probs  # 0 at each cell's class
    reach = margin + max(FLOATING_PRIOR, RULES_PRIOR)
    chars_seen = "".join(seen)
    found: tuple[float, list[str]] = (-math.inf, [])
    for cost, cell, kind in sorted((float(costs[c, k]), c, k) for c in range(len(costs))
                                   for k in range(3) if CLASS_CHARS[k] != chars_seen[c]
                                   and costs[c, k] <= reach):
        if seen_score - cost <= found[0]:
            break  # no grid further on can lead the one found, whatever its prior
        chars = list(chars_seen)
        chars[cell] = CLASS_CHARS[kind]
        lines = ["".join(chars[row * WIDTH:(row + 1) * WIDTH]) for row in range(HEIGHT)]
        if not _legal(lines, rule):
            score = seen_score - cost
            prior = illegal_prior(lines) if score < best_score - TIE else 0.0
            found = max(found, (score - prior, lines), key=lambda pair: pair[0])
    return found


def illegal_prior(lines: list[str] | tuple[str, ...]) -> float:
    """Nats by which the illegal grid ``lines`` is less likely a priori than a game's:
    :data:`FLOATING_PRIOR` when a disc floats (no game nor cheat leaves one at rest:
    only a disc falling past, or held), else :data:`RULES_PRIOR` (a game played against
    the rules: a colour moved twice, the wrong colour started, play after a four)."""
    return FLOATING_PRIOR if floating_discs(lines) else RULES_PRIOR


def _legal(lines: list[str], rule: str) -> bool:
    try:
        Board.from_grid(lines, rule)
    except InvalidGridError:
        return False
    return True


def changes(log_probs: np.ndarray, board: Board,
            explain: Callable[[int], str] | None = None) -> str:
    """What ``board`` changes of the grid seen: "drops the red disc at column 4 row 2
    (0.81)", "makes the red disc at column 3 row 1 (0.62) yellow", "adds a yellow disc
    at column 5 row 1 (0.30)" (each with the readers' probability of what is seen, or of
    the disc added, and ``explain(cell)``'s readers' views where they differ: "; CNN
    red, colour empty")."""
    probs = np.exp(log_probs)
    found = []
    for cell, (char, seen) in enumerate(zip("".join(board.grid_lines()),
                                            probs.argmax(axis=1), strict=True)):
        wanted = CLASS_CHARS.index(char)
        if wanted == seen:
            continue
        what = f"the {CLASS_NAMES[seen]} disc at {cell_name(cell)} ({probs[cell, seen]:.2f})"
        if not seen:
            change = (f"adds a {CLASS_NAMES[wanted]} disc at {cell_name(cell)} "
                      f"({probs[cell, wanted]:.2f}")
        elif not wanted:
            change = f"drops {what[:-1]}"
        else:
            change = f"makes {what[:-1]}"
        note = explain(cell) if explain else ""
        change += f"; {note})" if note else ")"
        found.append(change + (f" {CLASS_NAMES[wanted]}" if seen and wanted else ""))
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    return ", ".join(found[:MAX_LISTED]) + more


def legal_boards(log_probs: np.ndarray, count: int, rule: str = "red"
                 ) -> list[tuple[float, Board]]:
    """The ``count`` most probable legal boards, best first, with their log-probabilities.

    The programme keeps :data:`KEEPS` boards per count difference; where boards with
    a four their last disc did not make crowd out the ones asked for, it is run
    again keeping more. Fewer than ``count`` come back only when no other board
    is within reach (:data:`WINDOW` of each column's best stack).
    """
    column_scores = _column_scores(log_probs)
    for keep in KEEPS:
        found, dropped = _first_legal(
            _best_by_diff(column_scores, keep, COUNT_DIFFERENCES[rule]), count, rule)
        if len(found) == count or not dropped:
            return found
    return found


def _first_legal(candidates: list[tuple[float, tuple[int, ...]]], count: int, rule: str
                 ) -> tuple[list[tuple[float, Board]], bool]:
    """The first ``count`` candidates that are legal boards, and whether any was dropped."""
    found: list[tuple[float, Board]] = []
    dropped = False
    for score, choice in sorted(candidates, key=lambda item: -item[0]):
        try:
            board = Board.from_grid(_grid_of_stacks(choice), rule)
        except InvalidGridError:  # a four its last disc did not make
            dropped = True
            continue
        found.append((score, board))
        if len(found) == count:
            break
    return found, dropped


def _column_scores(log_probs: np.ndarray) -> np.ndarray:
    """(7, 127) log-probability of each stack in each column."""
    by_column = log_probs.reshape(HEIGHT, WIDTH, 3)[::-1].transpose(1, 0, 2)  # col, row up, class
    rows = np.arange(HEIGHT)
    return by_column[:, rows, STACKS].sum(axis=2)


def _best_by_diff(column_scores: np.ndarray, keep: int, differences: tuple[int, ...]
                  ) -> list[tuple[float, tuple[int, ...]]]:
    """The best boards (score, one stack per column) whose reds minus yellows is one of
    ``differences``."""
    states: dict[int, list[tuple[float, tuple[int, ...]]]] = {0: [(0.0, ())]}
    for scores in column_scores:
        order = np.argsort(-scores)[:MAX_STACKS]
        kept = [int(s) for s in order if scores[s] >= scores[order[0]] - WINDOW]
        grown: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
        for diff, boards in states.items():
            for stack in kept:
                bucket = grown.setdefault(diff + int(STACK_DIFFS[stack]), [])
                bucket.extend((score + float(scores[stack]), choice + (stack,))
                              for score, choice in boards)
        states = {diff: sorted(bucket, key=lambda item: -item[0])[:keep]
                  for diff, bucket in grown.items()}
    return [board for difference in differences for board in states.get(difference, [])]


def _grid_of_stacks(choice: tuple[int, ...]) -> list[str]:
    rows = []
    for row in range(HEIGHT - 1, -1, -1):  # top row first
        rows.append("".join(CLASS_CHARS[STACKS[stack][row]] for stack in choice))
    return rows


def grid_of(labels: np.ndarray) -> tuple[str, ...]:
    """42 class indices (top row first) to 6 grid lines."""
    chars = [CLASS_CHARS[int(label)] for label in np.asarray(labels).ravel()]
    return tuple("".join(chars[row * WIDTH:(row + 1) * WIDTH]) for row in range(HEIGHT))


def illegal_reason(grid: tuple[str, ...], rule: str = "red") -> str:
    """Why a grid cannot be a position of a game under ``rule`` ("floating disc …",
    the parity, fours)."""
    floating = floating_discs(grid)
    if floating:
        column, row = floating[0]
        return f"floating disc at column {column} row {row}"
    try:
        Board.from_grid(list(grid), rule)
    except InvalidGridError as error:
        return str(error)
    return "no legal board is close to what the camera sees"


def finished_reason(board: Board) -> str:
    """Why a finished board is finished ("" for a game still on)."""
    if not board.is_finished:
        return ""
    if board.winner is None:
        return "draw: the board is full"
    return f"{'Red' if board.winner == 'R' else 'Yellow'} has four in a row"


def _doubt(log_probs: np.ndarray, best_grid: list[str], rival_grid: list[str],
           explain: Callable[[int], str] | None) -> str:
    """"uncertain cells: column 3 row 1 (red 0.62 or empty)": where best and rival differ."""
    cells = [row * WIDTH + column for row in range(HEIGHT) for column in range(WIDTH)
             if best_grid[row][column] != rival_grid[row][column]]
    listed = []
    for cell in cells[:MAX_LISTED]:
        row, column = divmod(cell, WIDTH)
        mine = CLASS_CHARS.index(best_grid[row][column])
        other = CLASS_CHARS.index(rival_grid[row][column])
        chance = math.exp(log_probs[cell, mine])
        note = explain(cell) if explain else ""
        listed.append(f"{cell_name(cell)} ({CLASS_NAMES[mine]} {chance:.2f} or {CLASS_NAMES[other]}"
                      + (f"; {note})" if note else ")"))
    more = f" and {len(cells) - MAX_LISTED} more" if len(cells) > MAX_LISTED else ""
    return "uncertain cells: " + ", ".join(listed) + more


def _share(score: float, *rivals: float) -> float:
    """exp(score) / (exp(score) + sum of exp(rivals)), computed stably."""
    top = max(score, *rivals)
    total = math.exp(score - top) + sum(math.exp(r - top) for r in rivals if r > -math.inf)
    return math.exp(score - top) / total


def _cell_confidence(log_probs: np.ndarray, grid: tuple[str, ...] | list[str],
                     floor: float = 0.0) -> tuple[float, ...]:
    labels = [CLASS_CHARS.index(char) for line in grid for char in line]
    chances = np.exp(log_probs[np.arange(len(labels)), labels])
    return tuple(float(max(c, floor)) for c in chances)


def _refused(log_probs: np.ndarray, grid: tuple[str, ...] | list[str], reason: str,
             margin: float, confidence: float, rival: tuple[str, ...] | list[str]) -> Decision:
    """A refusal showing ``grid``; the cells where ``rival`` differs from it are in doubt
    and at most :data:`DOUBT` sure, so they give the live game filter no evidence."""
    cells = list(_cell_confidence(log_probs, grid))
    for row in range(HEIGHT):
        for column in range(WIDTH):
            if grid[row][column] != rival[row][column]:
                cells[row * WIDTH + column] = min(cells[row * WIDTH + column], DOUBT)
    return Decision(INVALID, tuple(grid), None, reason, margin, confidence, tuple(cells))
