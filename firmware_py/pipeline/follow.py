"""Follow a game move by move, as a person watching the table does.

Once a board is committed, the next position is that board plus one disc, at
the lowest free hole of one of at most seven columns, in the colour of the
side to move. So per frame the question is which of these holes now holds a
disc, answered by comparing each hole with its own recent appearance (its
*look*, :func:`~firmware_py.vision.cells.cell_features`) together with
the calibrated readers (``Reading.cell_log_probs``).

A pure function, :func:`follow`, takes the follower's immutable state, the
committed board and one reading, and returns a :class:`Followed`: the grid
the voter should count for this frame (or ``None``: pause) and what kind of
frame it was:

* ``unchanged``: no hole looks different: the committed board, whatever the
  readers make of it in this frame (a red wall behind an empty hole stays an
  empty hole);
* ``successor``: one lowest free hole looks different and the readers see a
  disc of the side to move there (by :data:`DISC_MARGIN`), every other hole
  that looks different being read by them as it was (the hand leaving);
* ``confirmed``: holes look different but the readers read each as it was,
  or the frame's own reading is the committed board (a hand over empty
  holes, a change of light): the board;
* ``moving``: a hole looks different that no legal next disc explains (a
  hand, a falling disc, two discs, a disc in the wrong colour, a disc taken
  out): nothing is counted, until it has lasted :data:`SETTLE_S`;
* ``something-else``: such a change has lasted that long: the board is read
  again, every hole that still looks as it did keeping a strong prior for
  what it held (a person does not re-read what did not move:
  :func:`held_log_probs`), and the board read of that (read only as it is
  seen, by the reader's margin) goes to the voter, whose rules report it
  as it is (an illegal grid is never committed, a cleared board starts a
  new game);
* ``reading``: nothing to follow yet (no committed board, or a reader
  without looks), or no board in view: the board read in full, every hole
  that still shows the room it showed when gravity proved it empty held
  empty (:mod:`.first_sight`).

A change under way ends after :data:`CALM_FRAMES` unchanged frames in a row
(a frame without the board does not end it).

While nothing is committed, the empty board has the prior of a game's start
(:data:`START_PRIOR` nats): it is voted for when, with that prior, it is
:data:`START_MARGIN` ahead of every other legal board and of the grid seen
(:func:`start_lead`). A game starts empty; a single hole the readers doubt
(a yellow cushion behind it) must not keep a whole game from being
followed (how the prior and margin were chosen: ``docs/pipeline.md``). A
board read again is read without it: a disc the readers doubt is never
taken away by the prior.

The looks of the committed board (the *baseline*) are taken again at each
commit (:func:`rebase`), drift with slow light changes on ``unchanged``
frames (an exponential moving average, :data:`DRIFT_RATE`), and are taken
again after :data:`REBASE_S` of ``confirmed`` frames (the light changed for
good, the camera was nudged).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from c4game.board import HEIGHT, WIDTH, Board, added_column, game_rule, starter
from firmware_py.pipeline.first_sight import RoomLooks, hold_room
from firmware_py.succession import next_boards
from firmware_py.vision.decide import DEFAULT_MARGIN, decide, legal_boards
from firmware_py.vision.look_evidence import familiar
from firmware_py.vision.reading import CLASSES, FINISHED, OK, Reading

Grid = tuple[str, ...]

UNCHANGED = "unchanged"
SUCCESSOR = "successor"
MOVING = "moving"
CONFIRMED = "confirmed"
SOMETHING_ELSE = "something-else"
READING = "reading"

DISC_MARGIN = 1.0  # nats: the readers' disc of the side to move over empty and the other
SETTLE_S = 1.0  # an unexplained change that lasts this long is read again
REBASE_S = 5.0  # a change the frame's reading says is no change, this long: new looks
CALM_FRAMES = 3  # unchanged frames in a row that end a change under way
DRIFT_RATE = 0.1  # share of an unchanged frame's looks taken into the baseline
START_PRIOR = 3.0  # nats: a game starts on the empty board
START_MARGIN = 2.5  # nats: the empty board with its prior over any other legal board
HELD_DOUBT = 1e-3  # an unchanged hole's doubt about holding what it held
EMPTY_GRID: Grid = ("." * WIDTH,) * HEIGHT


@dataclass(frozen=True)
class FollowParams:
    """The follower's numbers (see the module constants)."""

    disc_margin: float = DISC_MARGIN
    settle_s: float = SETTLE_S
    rebase_s: float = REBASE_S
    drift_rate: float = DRIFT_RATE
    start_prior: float = START_PRIOR
    start_margin: float = START_MARGIN
    accept_margin: float = DEFAULT_MARGIN  # a board read again: ``[vision] accept_margin``
    first: str = "either"  # who may start ([game] first, SPEC §1)


@dataclass(frozen=True)
class FollowState:
    """The committed board's looks and since when an unexplained change lasts."""

    baseline: np.ndarray | None = None  # (42, 12) looks of the committed board
    unexplained_since: float | None = None
    calm: int = 0  # unchanged frames in a row
    room: RoomLooks | None = None  # before the first board (:mod:`.first_sight`)


@dataclass(frozen=True)
class Followed:
    """One frame's verdict: the grid the voter counts (``None``: pause) and why.

    ``confidence`` is how sure the verdict is (0-1): 1 for an unchanged board,
    the readers' share for the next disc or the empty board at a game's start,
    the reading's own confidence otherwise.
    """

    kind: str
    grid: Grid | None = None
    board: Board | None = None  # the followed board (``unchanged`` / ``successor``)
    changed: tuple[int, ...] = ()  # cell indices (top row first) whose look changed
    confidence: float = 0.0


def lowest_free_holes(board: Board) -> dict[int, int]:
    """Column (1-7) -> cell index (top row first) of its lowest free hole."""
    holes = {}
    for column, stack in enumerate(board.columns, start=1):
        if len(stack) < HEIGHT:
            holes[column] = (HEIGHT - 1 - len(stack)) * WIDTH + column - 1
    return holes


def changed_cells(baseline: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """(42,) True where a hole no longer looks as in the baseline (the one rule of
    :func:`~firmware_py.vision.look_evidence.familiar`: about 13 Lab units)."""
    return ~familiar(looks, baseline)


def follow(state: FollowState, reference: Board | None, reading: Reading, now: float,
           params: FollowParams, full_grid: Grid | None) -> tuple[FollowState, Followed]:
    """Judge one frame against the committed board ``reference``.

    ``full_grid`` is what the frame's full reading would vote for (``None``:
    no board); it is passed on when there is nothing to follow.
    """
    looks, log_probs = reading.cell_looks, reading.cell_log_probs
    if not reading.found:  # the board out of view: a change under way goes on
        return state, Followed(READING, full_grid, confidence=reading.confidence)
    if looks is None or log_probs is None:
        return FollowState(state.baseline), Followed(READING, full_grid,
                                                     confidence=reading.confidence)
    if reference is None or state.baseline is None:
        room = (state.room or RoomLooks.empty()).learn(looks, log_probs)
        held = hold_room(log_probs, room.still_room(looks))
        return (FollowState(state.baseline, room=room),
                _start(replace(reading, cell_log_probs=held), params))
    changed = changed_cells(state.baseline, looks)
    cells = tuple(int(index) for index in np.flatnonzero(changed))
    if not cells:
        return _unchanged(state, reference, looks, params)
    calm = replace(state, calm=0)
    leads = [class_lead(log_probs, cell, reference_class(reference, cell)) for cell in cells]
    against = tuple(cell for cell, lead in zip(cells, leads, strict=True)
                    if lead < params.disc_margin)  # changes the readers do not read as before
    successor = _one_disc(reference, against, log_probs, params)
    if successor is not None:
        lead = class_lead(log_probs, against[0], reference_class(successor, against[0]))
        return (replace(calm, unexplained_since=None),
                Followed(SUCCESSOR, tuple(successor.grid_lines()), successor, cells,
                         _share(lead)))
    since = state.unexplained_since if state.unexplained_since is not None else now
    calm = replace(calm, unexplained_since=since)
    reference_grid = tuple(reference.grid_lines())
    if not against or full_grid == reference_grid:  # the readers still see the board
        if now - since >= params.rebase_s:  # a lasting change of light, a camera nudged
            calm = FollowState(np.array(looks, np.float32, copy=True))
        confidence = _share(min(leads)) if not against else reading.confidence
        return calm, Followed(CONFIRMED, reference_grid, reference, cells, confidence)
    if now - since >= params.settle_s:
        return calm, _reread(reference, reading, changed, params, cells)
    return calm, Followed(MOVING, changed=cells, confidence=reading.confidence)


def _unchanged(state: FollowState, reference: Board, looks: np.ndarray,
               params: FollowParams) -> tuple[FollowState, Followed]:
    """No hole changed: the committed board; a change under way ends after
    :data:`CALM_FRAMES` such frames in a row."""
    drifted = (1 - params.drift_rate) * state.baseline + params.drift_rate * looks
    calm = state.calm + 1
    since = None if calm >= CALM_FRAMES else state.unexplained_since
    return (FollowState(drifted, since, calm),
            Followed(UNCHANGED, tuple(reference.grid_lines()), reference, confidence=1.0))


def _start(reading: Reading, params: FollowParams) -> Followed:
    """Nothing committed yet: the board read with the room held empty
    (:mod:`.first_sight`), or the empty board when its start prior puts it ahead."""
    lead = start_lead(reading, params.start_prior, params.start_margin, params.first)
    if lead >= params.start_margin:
        return Followed(READING, EMPTY_GRID, Board.empty(starter(0, 0, params.first)),
                        confidence=_share(lead))
    assert reading.cell_log_probs is not None
    decision = decide(reading.cell_log_probs, params.accept_margin, rule=params.first)
    if decision.status not in (OK, FINISHED):
        return Followed(READING, confidence=decision.confidence)
    return Followed(READING, decision.grid, decision.board, confidence=decision.confidence)


def _reread(reference: Board, reading: Reading, changed: np.ndarray, params: FollowParams,
            cells: tuple[int, ...]) -> Followed:
    """The most probable legal board when the unchanged holes keep what they held
    (:func:`held_log_probs`); ``grid`` None unless the margins accept it. No start prior
    here: a board being cleared is read as it stands."""
    held = held_log_probs(reading.cell_log_probs, reference, changed)
    decision = decide(held, params.accept_margin, rule=game_rule(reference, params.first))
    if decision.status not in (OK, FINISHED):
        return Followed(SOMETHING_ELSE, changed=cells, confidence=decision.confidence)
    return Followed(SOMETHING_ELSE, decision.grid, decision.board, cells, decision.confidence)


def held_log_probs(log_probs: np.ndarray, reference: Board, changed: np.ndarray) -> np.ndarray:
    """``log_probs`` with a prior on every unchanged hole: its class on ``reference``
    (1 - 2 :data:`HELD_DOUBT`), the others :data:`HELD_DOUBT` each, so only readers
    more than 6.9 nats sure of another class overrule what the hole held."""
    classes = np.array([CLASSES.index(char) for char in "".join(reference.grid_lines())])
    prior = np.full((len(classes), len(CLASSES)), np.log(HELD_DOUBT))
    prior[np.arange(len(classes)), classes] = np.log(1 - 2 * HELD_DOUBT)
    held = np.array(log_probs, np.float64, copy=True)
    held[~changed] += prior[~changed]
    held[~changed] -= np.logaddexp.reduce(held[~changed], axis=1, keepdims=True)
    return held


def start_lead(reading: Reading, prior: float, enough: float = np.inf,
               rule: str = "red") -> float:
    """Nats of the empty board, with ``prior``, over every other legal board and over the
    grid seen (each hole's most probable class: an illegal board the camera clearly
    shows, a yellow disc alone, is no empty board); -inf without readers. When the
    grid seen alone keeps the lead under ``enough``, that bound is returned at once.
    ``rule``: who may start (the other legal boards are those it allows)."""
    log_probs = reading.cell_log_probs
    if log_probs is None or not reading.found:
        return -np.inf
    empty_score = float(np.sum(log_probs[:, 0]))
    bound = empty_score + prior - float(np.sum(np.max(log_probs, axis=1)))
    if bound < enough:
        return bound
    others = [score for score, board in legal_boards(log_probs, count=2, rule=rule)
              if board.n_discs]
    return min(bound, empty_score + prior - max(others, default=-np.inf))


def class_lead(log_probs: np.ndarray, cell: int, wanted: str) -> float:
    """Nats of class ``wanted`` (".", "R", "Y") at ``cell`` over the other two."""
    row = log_probs[cell]
    index = CLASSES.index(wanted)
    return float(row[index] - max(row[other] for other in range(len(CLASSES))
                                  if other != index))


def reference_class(board: Board, cell: int) -> str:
    """The class of ``cell`` (top row first) on ``board``."""
    return board.grid_lines()[cell // WIDTH][cell % WIDTH]


def _share(lead: float) -> float:
    """The probability of the better of two options ``lead`` nats apart."""
    return float(1.0 / (1.0 + np.exp(-lead))) if np.isfinite(lead) else 1.0


def _one_disc(reference: Board, cells: tuple[int, ...], log_probs: np.ndarray,
              params: FollowParams) -> Board | None:
    """The next board (:func:`~firmware_py.succession.next_boards`) whose new disc is in
    the one changed cell and of the colour the readers favour there by
    ``disc_margin``."""
    if len(cells) != 1:
        return None
    holes = lowest_free_holes(reference)
    for board in next_boards(reference, params.first):
        column = added_column(reference, board)
        colour = board.columns[column - 1][-1]
        if holes[column] == cells[0] and class_lead(log_probs, cells[0], colour) >= \
                params.disc_margin:
            return board
    return None


def rebase(state: FollowState, reading: Reading) -> FollowState:
    """Take the looks of the frame that committed a board as the new baseline."""
    if reading.cell_looks is None:
        return FollowState()
    return FollowState(np.array(reading.cell_looks, np.float32, copy=True), None)
