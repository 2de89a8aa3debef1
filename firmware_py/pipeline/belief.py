"""The one game filter (#53): what is on the table, as one belief.

A person watching a game holds one belief: "the board is R; the next thing
that can happen is one of the seven next moves, or the board is cleared, or
something I do not understand". Each frame, :func:`believe` weighs exactly
those hypotheses with the frame's evidence:

* **R**, the committed board;
* each board **one disc after R** (:func:`~firmware_py.succession.next_boards`);
* before any board, **the empty board** (a game's start) and the board the
  reader decided on this frame;
* a board **read again** (:attr:`BeliefState.reread`: after no board has led
  for :data:`SETTLE_S`, the board the reader decided on this frame becomes a
  hypothesis: a cleared board, two discs at once, a disc taken out);
* **something else**: the grid seen, hole by hole, explaining every change
  (a hand, a falling disc, a cheat), at a cost of :data:`SURPRISE` nats.

The evidence for a board is the sum over its 42 holes of the readers'
log-probability of what it says the hole holds (``Reading.cell_log_probs``).
The filter hands the reader, with each frame, its :class:`Expectation`
(:func:`expectation_of`): each hole's look when R was committed and what R
says it holds. The reader holds a hole that still looks so to what R says
(a red wall behind an empty hole stays empty,
:mod:`firmware_py.vision.expectation`), and decides the frame's board once,
on that evidence, under the game's rule (``Reading.cell_held``); the filter
decides nothing again.
A hole whose look changed is *unexplained* by every board whose class there
the readers do not favour over both others by :data:`CONFIRM_MARGIN` (a
board read again answers only for the holes it keeps): each such hole costs
that board the threshold less :data:`CONFIRM_MARGIN`, so the next disc leads
R once the readers favour the side to move's colour there by
:data:`CONFIRM_MARGIN`. A reading without looks, or not read under the
filter's expectation, has no hole held or unexplained: its evidence alone
decides; one read under another expectation (held to another board) is no
evidence at all.
Before the first board, the expectation is the room seen through the holes
gravity proved empty (:mod:`.first_sight`): such a hole that still shows the
room is held empty; and the empty board has :data:`SURPRISE` over any other
(a game starts on the empty board). A board the reader decides is a
hypothesis then only if the holes changed to it as discs do
(:class:`~.first_sight.SteadyGrid`, each hole's class held once the readers
were sure of it for :data:`SETTLE_S`): no disc held changed colour, and
none came to stand under one; and once the holes did change so (the readers
took the room for a disc), only if each of its discs was seen to arrive or
stands under one that was.

A board is **committed** when its lead over every other hypothesis passes
the one threshold, the reader's accept margin (``[vision] accept_margin``),
for :data:`COMMIT_S` and :data:`COMMIT_FRAMES` frames (a disc taken out or
recoloured: :data:`SETTLE_S`); R is **shown** while its own lead passes it.
A board other than R must lead in frames in a row, except a board read again
that adds two discs or more (moves missed): a frame where no board leads and
the reader decided no other board (a hand, a flicker, a doubt) pauses its
count of frames (its clock runs on) but does not end it; R leading, another
board leading, a frame the reader read as another board, or :data:`SETTLE_S`
in a row without a leader does.

Each frame's evidence is weighed once, with the committed board as the
prior's memory, and not multiplied into the last frame's belief: successive
frames of a still table are one observation seen again, not independent
ones, and multiplying them would turn one steady misreading into certainty.
Time enters only through "for :data:`COMMIT_S`" and "for :data:`SETTLE_S`".

The committed board's looks (the *baseline*) are taken at each commit, drift
towards unchanged frames (:data:`DRIFT_RATE`), and are taken again when the
readers have confirmed R through changed looks for :data:`REBASE_S` (the
light changed for good, the camera was nudged).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

import numpy as np

from c4game.board import HEIGHT, WIDTH, Board, game_rule, starter
from firmware_py.config import VisionConfig
from firmware_py.pipeline.events import Grid
from firmware_py.pipeline.evidence import (
    classes_of,
    evidence_of,
    grid_of,
    held_by,
    leads_of,
    read_board,
)
from firmware_py.pipeline.first_sight import LOOK_FEATURES, RoomLooks, SteadyGrid
from firmware_py.succession import (
    COMMIT_NEXT,
    COMMIT_OVERRIDE,
    commit_kind,
    next_boards,
    with_history,
)
from firmware_py.vision.reading import Expectation, Reading

LOG = logging.getLogger(__name__)

# nats: the prior cost of what a watcher does not expect: "something else" against a
# board that explains the frame, and, before any board, a game begun elsewhere than
# on the empty board (one number, as the start prior of before was for both)
SURPRISE = 3.0
CONFIRM_MARGIN = 1.0  # nats: a changed hole the readers read as before is confirmed
COMMIT_S = 0.3  # a next board leads this long: committed
COMMIT_FRAMES = 4  # ... and in at least this many frames (a slow camera)
SETTLE_S = 1.0  # no board leads this long: read again; any other board leads: committed
REBASE_S = 5.0  # R confirmed through changed looks this long: new baseline
DRIFT_RATE = 0.1  # share of an unchanged frame's looks taken into the baseline

UNCHANGED = "unchanged"  # every hole looks as at the commit (the teacher learns these)
CHANGED = "changed"
READING = "reading"  # nothing committed yet
AWAY = "away"  # no board in the frame, or nothing read of it


@dataclass(frozen=True)
class BeliefParams:
    """The filter's numbers: the threshold and who may start come from config."""

    margin: float = VisionConfig.accept_margin  # nats: the one threshold
    first: str = "either"  # who may start ([game] first, SPEC §1)
    commit_s: float = COMMIT_S
    settle_s: float = SETTLE_S


@dataclass(frozen=True)
class BeliefState:
    """What the filter remembers between frames."""

    committed: Board | None = None
    baseline: np.ndarray | None = None  # (42, 12) looks of the committed board
    room: RoomLooks | None = None  # before the first board
    steady: SteadyGrid | None = None  # before the first board
    reread: Board | None = None  # a board read again: a hypothesis until R is back, lost() too
    leader: Grid | None = None  # the board whose lead passes the threshold
    leader_since: float = 0.0
    leader_frames: int = 0
    unsure_since: float | None = None  # since when no board passes the threshold
    confirmed_since: float | None = None  # R confirmed through changed looks since
    expectation: Expectation | None = None  # handed to the reader with the next frame

    def lost(self) -> BeliefState:
        """The board left the view: its committed board and looks stay (it usually
        comes back), and so does a board read again (a hypothesis, weighed again on
        every frame); the clocks of what was happening start again."""
        return replace(self, leader=None, leader_frames=0, unsure_since=None,
                       confirmed_since=None)


@dataclass(frozen=True)
class Verdict:
    """One frame's outcome: ``shown`` (R passes the threshold), ``committed`` (the kind
    of a commit on this frame, else ""), ``leader`` (the leading board, for
    speculative solving) and the ``kind`` of frame."""

    kind: str
    shown: bool = False
    committed: str = ""
    board: Board | None = None  # the board committed on this frame
    leader: Board | None = None


@dataclass(frozen=True)
class _Hypothesis:
    board: Board
    prior: float
    reread: bool = False  # a board read again: its own changes were judged by the reader


def believe(state: BeliefState, reading: Reading, now: float,
            params: BeliefParams) -> tuple[BeliefState, Verdict]:
    """Weigh one frame (see the module docstring)."""
    after, verdict = _weigh(state, reading, now, params)
    if (after.committed is state.committed and after.baseline is state.baseline
            and after.room is state.room and _steady_looks(after) is _steady_looks(state)
            and after.expectation is not None):
        return after, verdict  # nothing it is made of changed: the same expectation
    return replace(after, expectation=expectation_of(after, params)), verdict


def expectation_of(state: BeliefState, params: BeliefParams) -> Expectation:
    """What the next frame should show, for the reader: the game's rule of who started
    and, where known, each hole's look and class: the committed board's looks and
    classes, or before any board the room seen through the holes gravity proved
    empty, held empty, and each disc held steadily (:class:`~.first_sight.SteadyGrid`),
    its look compared but not held, in place of a room look (NaN looks: nothing
    expected of the hole)."""
    rule = game_rule(state.committed, params.first)
    unknown = np.full((WIDTH * HEIGHT, LOOK_FEATURES), np.nan, np.float32)
    if state.committed is not None:
        looks = state.baseline if state.baseline is not None else unknown
        return Expectation(looks, classes_of(state.committed), rule)
    looks = state.room.looks.copy() if state.room is not None else unknown
    classes = np.zeros(WIDTH * HEIGHT, int)
    hold = ~np.isnan(looks[:, 0])  # the room is held empty ...
    if state.steady is not None:  # ... unless a disc is held there: its look is compared
        disc = ~np.isnan(state.steady.looks[:, 0])
        looks[disc] = state.steady.looks[disc]
        classes[disc] = state.steady.held[disc].astype(int)
        hold &= ~disc
    return Expectation(looks, classes, rule, hold)


def _steady_looks(state: BeliefState) -> np.ndarray | None:
    return None if state.steady is None else state.steady.looks


def _weigh(state: BeliefState, reading: Reading, now: float,
           params: BeliefParams) -> tuple[BeliefState, Verdict]:
    log_probs = evidence_of(reading)
    if not reading.found or log_probs is None or _read_under_another(reading, state):
        return state, Verdict(AWAY)  # no evidence: the belief stands
    committed, looks = state.committed, reading.cell_looks
    held_holes = held_by(reading, state.expectation)
    if committed is None:
        room = state.room or RoomLooks.empty()
        if looks is not None:
            room = room.learn(looks, log_probs)
        steady = _seen_steadily(state.steady, looks, _compared(reading, held_holes, state),
                                log_probs, now, params)
        state = replace(state, room=room, steady=steady)
        kind, changed = READING, np.zeros(WIDTH * HEIGHT, bool)
        against = changed
    else:
        committed_classes = classes_of(committed)
        if held_holes is None or state.baseline is None:  # the readers alone
            changed = np.zeros(WIDTH * HEIGHT, bool)
            kind = CHANGED
        else:
            changed = ~held_holes
            kind = UNCHANGED if not changed.any() else CHANGED
        against = changed & (leads_of(log_probs, committed_classes) < CONFIRM_MARGIN)
    hypotheses = _hypotheses(state, reading, now, params)
    boards, leads = _posterior(hypotheses, log_probs, changed, params.margin - CONFIRM_MARGIN)
    top = int(np.argmax(leads))
    leader = boards[top] if top < len(boards) and leads[top] >= params.margin else None
    state = _after_frame(state, reading, kind, leader, against, now, params)
    if leader is None:
        return _unsure(state, reading, kind, now, params)
    if committed is not None and grid_of(leader) == grid_of(committed):
        return (replace(state, leader=None, leader_frames=0, reread=None, unsure_since=None),
                Verdict(kind, shown=True, leader=leader))
    return _lead(state, leader, kind, reading, now, params)


def _compared(reading: Reading, held_holes: np.ndarray | None,
              state: BeliefState) -> np.ndarray | None:
    """(42,) False only for the holes whose look the expectation compares without holding
    them (held discs before the first board) and that look otherwise, uncovered."""
    hold = None if state.expectation is None else state.expectation.hold
    if held_holes is None or hold is None:
        return held_holes
    still: np.ndarray = held_holes | hold  # a hole held to the room is no disc's look
    if reading.cell_covered is not None:
        still |= np.asarray(reading.cell_covered, bool)  # a hand over it: no new look
    return still


def _seen_steadily(steady: SteadyGrid | None, looks: np.ndarray | None,
                   still: np.ndarray | None, log_probs: np.ndarray, now: float,
                   params: BeliefParams) -> SteadyGrid:
    """The holes held steadily before the first board, with this frame's evidence (its
    ``looks``, and which holes were ``still`` as the filter expected)."""
    before = steady or SteadyGrid()
    after = before.see(log_probs, now, params.margin, params.settle_s, looks, still)
    if after.contradiction and not before.contradiction:
        LOG.warning("the room shows as a disc (%s): a game begun before is followed only "
                    "from the discs seen to land", after.contradiction)
    return after


def _possible(steady: SteadyGrid | None, board: Board, now: float) -> bool:
    """Whether ``board``, first seen mid-game, can stand where the holes held what they
    held before it (:class:`~.first_sight.SteadyGrid`)."""
    why = "" if steady is None else steady.why_not(classes_of(board), now)
    if why:
        LOG.debug("%s is no game first seen mid-game: %s", "/".join(board.grid_lines()), why)
    return not why


def _read_under_another(reading: Reading, state: BeliefState) -> bool:
    """Whether ``reading`` was read under an expectation that is not this state's: its
    evidence holds holes to another board's classes, so it is no evidence here."""
    stale = reading.expectation is not None and reading.expectation is not state.expectation
    if stale:
        LOG.debug("a reading read under another expectation is not weighed")
    return stale


def first_sight_doubt(state: BeliefState) -> str:
    """While nothing is committed: what the holes did that no disc does ("a red disc
    seen at column 2 row 2 became yellow"), after which a game first seen mid-game is
    believed only as far as its discs were seen to arrive; "" otherwise."""
    return "" if state.steady is None else state.steady.contradiction  # none once committed


def starts_empty(reading: Reading, params: BeliefParams) -> bool:
    """Whether, with nothing committed, this one frame (read without an expectation:
    nothing seen before it) leads with the empty board by the start prior alone."""
    _, verdict = believe(BeliefState(), reading, 0.0, params)
    return verdict.leader is not None and verdict.leader.n_discs == 0


def _hypotheses(state: BeliefState, reading: Reading, now: float,
                params: BeliefParams) -> list[_Hypothesis]:
    """R, its next boards and a board read again; before any board, the empty board
    and the board the reader decided (:data:`SURPRISE` behind)."""
    committed = state.committed
    if committed is None:
        rule = params.first
        found = [_Hypothesis(Board.empty(starter(0, 0, rule)), 0.0)]
        board = read_board(reading, rule)
        if board is not None and board.n_discs and _possible(state.steady, board, now):
            found.append(_Hypothesis(board, -SURPRISE))
        return found
    found = [_Hypothesis(committed, 0.0)]
    found += [_Hypothesis(board, 0.0) for board in next_boards(committed, params.first)]
    if state.reread is not None:
        found.append(_Hypothesis(state.reread, 0.0, reread=True))
    unique: dict[Grid, _Hypothesis] = {}
    for hypothesis in found:
        unique.setdefault(grid_of(hypothesis.board), hypothesis)
    return list(unique.values())


def _posterior(hypotheses: list[_Hypothesis], log_probs: np.ndarray, changed: np.ndarray,
               unexplained_cost: float) -> tuple[list[Board], np.ndarray]:
    """The boards and each one's lead in nats over the best of the rest (the margin
    :func:`~firmware_py.vision.decide.decide` uses too); the last entry, when
    present, is "something else". A changed hole whose class on a board the readers
    do not favour by :data:`CONFIRM_MARGIN` is unexplained by that board; a board
    read again answers only for the holes it says hold what they held (its own
    changes passed the decision's margin)."""
    rows = np.arange(len(log_probs))
    scores = []
    explains_all = False
    seen = np.argmax(log_probs, axis=1)
    any_changed = bool(changed.any())
    for hypothesis in hypotheses:
        classes = classes_of(hypothesis.board)
        unexplained = 0
        if any_changed:
            weak = changed & (leads_of(log_probs, classes) < CONFIRM_MARGIN)
            if hypothesis.reread:
                weak &= classes == classes_of(hypotheses[0].board)  # R's classes
            unexplained = int(np.count_nonzero(weak))
        score = float(log_probs[rows, classes].sum()) - unexplained_cost * unexplained
        scores.append(score + hypothesis.prior)
        explains_all |= unexplained == 0 and bool(np.all(classes == seen))
    boards = [hypothesis.board for hypothesis in hypotheses]
    if not explains_all:  # the grid seen is no hypothesis, or leaves a change unexplained
        scores.append(float(log_probs.max(axis=1).sum()) - SURPRISE)
    values = np.array(scores)
    leads = np.array([value - np.max(np.delete(values, index), initial=-np.inf)
                     for index, value in enumerate(values)])
    return boards, leads


def _after_frame(state: BeliefState, reading: Reading, kind: str, leader: Board | None,
                 against: np.ndarray, now: float, params: BeliefParams) -> BeliefState:
    """The baseline's drift on unchanged frames and its renewal after a lasting change
    the readers confirm."""
    committed, looks = state.committed, reading.cell_looks
    if committed is None or looks is None:
        return state
    if state.baseline is None:  # committed on a frame without looks: the first one shown
        shown = leader is not None and grid_of(leader) == grid_of(committed)
        return replace(state, baseline=np.array(looks, np.float32)) if shown else state
    if kind == UNCHANGED:
        drifted = (1 - DRIFT_RATE) * state.baseline + DRIFT_RATE * looks
        return replace(state, baseline=drifted.astype(np.float32), confirmed_since=None)
    if leader is None or grid_of(leader) != grid_of(committed) or against.any():
        return replace(state, confirmed_since=None)
    since = state.confirmed_since if state.confirmed_since is not None else now
    if now - since >= REBASE_S:  # a lasting change of light, a camera nudged
        return replace(state, baseline=np.array(looks, np.float32), confirmed_since=None)
    return replace(state, confirmed_since=since)


def _unsure(state: BeliefState, reading: Reading, kind: str, now: float,
            params: BeliefParams) -> tuple[BeliefState, Verdict]:
    """No board passes the threshold; after :data:`SETTLE_S` the board the reader
    decided on this frame (under the game's rule) becomes a hypothesis."""
    since = state.unsure_since if state.unsure_since is not None else now
    state = replace(state, unsure_since=since)
    if now - since < params.settle_s and _paused(state, reading, params):
        return state, Verdict(kind)  # discs read again: their frames so far still count
    state = replace(state, leader=None, leader_frames=0)
    committed = state.committed
    if committed is None or now - since < params.settle_s:
        return state, Verdict(kind)
    board = read_board(reading, game_rule(committed, params.first))
    if board is None:
        return state, Verdict(kind)
    return replace(state, reread=board), Verdict(kind)


def _paused(state: BeliefState, reading: Reading, params: BeliefParams) -> bool:
    """Whether this frame, where no board leads, only pauses the leader's count: the
    leader is a board read again that adds two discs or more to R (moves missed), and
    the reader decided no other board on this frame (a hand, a flicker, a doubt).
    Any other leader must lead in frames in a row (one disc: a next board; a disc
    taken out or recoloured, a new game: a cheat or a hand over the discs must
    last), and a frame the reader read as another board ends any count."""
    reread, committed = state.reread, state.committed
    if reread is None or committed is None or state.leader != grid_of(reread):
        return False
    if commit_kind(committed, reread) != COMMIT_NEXT or reread.n_discs < committed.n_discs + 2:
        return False
    decided = read_board(reading, game_rule(committed, params.first))
    return decided is None or grid_of(decided) == state.leader


def _lead(state: BeliefState, leader: Board, kind: str, reading: Reading, now: float,
          params: BeliefParams) -> tuple[BeliefState, Verdict]:
    """A board other than R leads: committed once it has led for ``commit_s`` (or
    ``settle_s`` for a disc taken out or recoloured: a cheat must last) and in
    :data:`COMMIT_FRAMES` frames."""
    grid = grid_of(leader)
    same = state.leader == grid
    since = state.leader_since if same else now
    frames = state.leader_frames + 1 if same else 1
    state = replace(state, leader=grid, leader_since=since, leader_frames=frames,
                    unsure_since=None)
    why = commit_kind(state.committed, leader)
    wait = params.settle_s if why == COMMIT_OVERRIDE else params.commit_s
    if now - since < wait - 1e-9 or frames < COMMIT_FRAMES:
        return state, Verdict(kind, leader=leader)
    board = with_history(state.committed, leader)
    looks = reading.cell_looks
    baseline = None if looks is None else np.array(looks, np.float32)
    state = BeliefState(committed=board, baseline=baseline)
    return state, Verdict(kind, shown=True, committed=why, board=board, leader=board)
