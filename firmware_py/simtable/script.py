"""What the simulated camera films: a script of actions, compiled into scenes.

A script is a sequence of actions (:class:`Wait`, :class:`Drop`, :class:`Pass`,
:class:`Flicker`, :class:`Away`, :class:`Reset`). :func:`compile_scenes`
turns it, at a frame rate, into one :class:`Scene` per frame: what is in the
holes (a falling disc shows up as a floating disc), the board really on the
table (``truth``: settled discs only), a hand, the light, whether the board is
in view. Nothing here renders or keeps time, so scripts are cheap to test.

Hands are placed in the SPEC §5 warp plane (80 units per hole pitch; marker
centres at (0, 0) … (720, 560); the grid spans x 80..640, y 40..520) and are
projected by the camera that renders the scene.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from c4game.board import HEIGHT, RED, WIDTH, YELLOW, Board

Grid = tuple[str, ...]

LANDED = "landed"
RESET = "reset"


@dataclass(frozen=True)
class PlaneHand:
    """A hand in the warp plane: palm centre, finger direction (degrees, 0 = up), palm width."""

    x: float
    y: float
    angle_deg: float = 180.0
    size_pitch: float = 1.3


@dataclass(frozen=True)
class Scene:
    """One frame's content. ``event`` is ``landed``/``reset`` on the frame it happens."""

    grid: Grid
    truth: Board
    hand: PlaneHand | None = None
    light: float = 1.0
    visible: bool = True
    event: str = ""


# ------------------------------------------------------------------ actions


@dataclass(frozen=True)
class Wait:
    """Nothing happens for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """A hand brings a disc over ``column``, lets it fall, and leaves (``seconds`` in all)."""

    column: int
    seconds: float = 1.0


@dataclass(frozen=True)
class Lift:
    """A hand takes the top disc out of ``column`` (a disc dropped in the wrong column)."""

    column: int
    seconds: float = 1.0


@dataclass(frozen=True)
class Pass:
    """A hand sweeps across the board, left to right, at height ``y`` (plane units)."""

    seconds: float = 0.8
    y: float = 280.0


@dataclass(frozen=True)
class Flicker:
    """The light flickers for ``seconds`` (gain drawn per frame in ``low``..``high``)."""

    seconds: float = 1.0
    low: float = 0.55
    high: float = 1.35


@dataclass(frozen=True)
class Away:
    """The board is out of view for ``seconds``."""

    seconds: float = 1.5


@dataclass(frozen=True)
class Reset:
    """The board is emptied (a new game): a hand over it, then no discs; ``first``
    starts the next game."""

    seconds: float = 1.0
    first: str = RED


Action = Wait | Drop | Lift | Pass | Flicker | Away | Reset


# ------------------------------------------------------------------ compiling


def compile_scenes(actions: Iterable[Action], fps: float, start: Board | None = None,
                   seed: int = 0) -> Iterator[Scene]:
    """One scene per frame at ``fps`` (lazy, so an endless script works)."""
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    board = start if start is not None else Board.empty()
    rng = random.Random(seed)
    for action in actions:
        board = yield from _action_scenes(action, board, fps, rng)


def _frames(seconds: float, fps: float) -> int:
    return max(1, round(seconds * fps))


def _action_scenes(action: Action, board: Board, fps: float,
                   rng: random.Random) -> Iterator[Scene]:
    """Scenes of one action; returns the board on the table afterwards."""
    grid = tuple(board.grid_lines())
    if isinstance(action, Wait):
        for _ in range(_frames(action.seconds, fps)):
            yield Scene(grid, board)
    elif isinstance(action, Drop):
        board = yield from _drop(action, board, fps)
    elif isinstance(action, Lift):
        board = yield from _lift(action, board, fps)
    elif isinstance(action, Pass):
        count = _frames(action.seconds, fps)
        for index in range(count):
            x = -120 + (960 * (index + 0.5) / count)
            yield Scene(grid, board, PlaneHand(x, action.y, angle_deg=90.0, size_pitch=1.6))
    elif isinstance(action, Flicker):
        for _ in range(_frames(action.seconds, fps)):
            yield Scene(grid, board, light=round(rng.uniform(action.low, action.high), 2))
    elif isinstance(action, Away):
        for _ in range(_frames(action.seconds, fps)):
            yield Scene(grid, board, visible=False)
    elif isinstance(action, Reset):
        count = _frames(action.seconds, fps)
        empty = Board.empty(action.first)
        for index in range(count):
            hand = PlaneHand(360.0, 280.0 + 200 * math.sin(index), 0.0, 2.2)
            if index < count // 2:
                yield Scene(grid, board, hand)
            else:
                event = RESET if index == count // 2 else ""
                yield Scene(tuple(empty.grid_lines()), empty, hand if index < count - 1 else None,
                            event=event)
        board = empty
    else:
        raise TypeError(f"not a simulator action: {action!r}")
    return board


def _drop(action: Drop, board: Board, fps: float) -> Iterator[Scene]:
    """Hand over the column, the disc falls through the holes above its row, hand leaves."""
    column = action.column
    after = board.play(column)  # raises IllegalMoveError for a full column
    grid = tuple(board.grid_lines())
    landing = len(board.columns[column - 1]) + 1
    hand = PlaneHand(80.0 * column + 40.0, -30.0)
    total = _frames(action.seconds, fps)
    falling = [row for row in range(HEIGHT, landing, -1)][: max(1, round(0.2 * fps))]
    holding = max(1, (total - len(falling)) // 2)
    for _ in range(holding):
        yield Scene(grid, board, hand)
    for row in falling:
        yield Scene(_with_disc(grid, column, row, board.to_move), board, hand)
    after_grid = tuple(after.grid_lines())
    leaving = max(1, total - holding - len(falling))
    for index in range(leaving):
        away = PlaneHand(hand.x, hand.y - 60.0 * index, hand.angle_deg, hand.size_pitch)
        yield Scene(after_grid, after, away if index < leaving - 1 else None,
                    event=LANDED if index == 0 else "")
    return after


def _lift(action: Lift, board: Board, fps: float) -> Iterator[Scene]:
    """Hand over the column, the top disc goes up and out, hand leaves."""
    column = action.column
    if not board.columns[column - 1]:
        raise ValueError(f"no disc to lift in column {column}")
    columns = list(board.columns)
    columns[column - 1] = columns[column - 1][:-1]
    moves = board.moves[:-1] if board.moves and board.moves[-1] == str(column) else None
    after = Board(columns=tuple(columns), moves=moves, first=board.first)
    hand = PlaneHand(80.0 * column + 40.0, -30.0)
    total = _frames(action.seconds, fps)
    for _ in range(total // 2):
        yield Scene(tuple(board.grid_lines()), board, hand)
    for index in range(max(1, total - total // 2)):
        away = PlaneHand(hand.x, hand.y - 60.0 * index, hand.angle_deg, hand.size_pitch)
        yield Scene(tuple(after.grid_lines()), after, away if index else hand)
    return after


def _with_disc(grid: Grid, column: int, row: int, colour: str) -> Grid:
    lines = list(grid)
    line = lines[HEIGHT - row]
    lines[HEIGHT - row] = line[:column - 1] + colour + line[column:]
    return tuple(lines)


# ------------------------------------------------------------------ games


def random_moves(rng: random.Random, max_moves: int = WIDTH * HEIGHT) -> str:
    """A random legal game, played until a four, a full board or ``max_moves``."""
    board = Board.empty()
    while not board.is_finished and board.n_discs < max_moves:
        board = board.play(rng.choice(board.legal_columns()))
    return board.moves or ""


def game_script(moves: str, rng: random.Random, *, think_s: tuple[float, float] = (0.8, 1.6),
                pass_p: float = 0.25, flicker_p: float = 0.25, away_p: float = 0.0,
                reset: bool = True, next_first: str = RED) -> list[Action]:
    """A game played disc by disc with pauses, passing hands, flicker, absences.

    Each move is preceded by a pause (``think_s``), and with the given
    probabilities a hand passing over the board, a light flicker, the board
    leaving the view. The game ends with a pause and, with ``reset``, an
    empty board on which ``next_first`` starts the next game. The colours of
    ``moves`` are those of the board the script starts from (who started it).
    """
    actions: list[Action] = [Wait(1.5)]
    for char in moves:
        actions.append(Wait(rng.uniform(*think_s)))
        if rng.random() < pass_p:
            actions.append(Pass(y=rng.uniform(60, 500)))
        if rng.random() < flicker_p:
            actions.append(Flicker(rng.uniform(0.5, 1.5)))
        if rng.random() < away_p:
            actions.append(Away(rng.uniform(1.0, 2.0)))
            actions.append(Wait(0.5))
        actions.append(Drop(int(char)))
    actions.append(Wait(2.0))
    if reset:
        actions.extend([Reset(first=next_first), Wait(1.5)])
    return actions


YELLOW_EVERY = 3  # every third game of endless_games is started by Yellow


def endless_games(rng: random.Random, rule: str = "either",
                  **options: float) -> Iterator[Action]:
    """Random games one after the other, each ending with a reset (for ``watch sim`` and
    the demo). ``rule`` (who may start, ``[game] first``): ``red`` or ``yellow`` start
    every game; under ``either`` Yellow starts every :data:`YELLOW_EVERY`-th game, the
    2nd, 5th, ... (the first game starts from the camera's start board)."""
    index = 0
    while True:
        index += 1
        starter = (YELLOW if index % YELLOW_EVERY == 1 else RED) if rule == "either" else (
            RED if rule == "red" else YELLOW)  # who starts the next game
        yield from game_script(random_moves(rng), rng, reset=True,  # type: ignore[arg-type]
                               next_first=starter, **options)
