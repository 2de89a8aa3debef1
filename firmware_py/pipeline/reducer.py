"""The pipeline's brain: one pure function, ``reduce(state, event, now)``.

No I/O, no threads, no clock: the caller passes the time ``now`` (seconds,
any origin) and executes the returned effects. The rules:

* **presence**, debounced asymmetrically: the board counts as found after
  readings that saw it for ``found_s`` (0.16 s) without a miss, and as lost
  once no reading saw it for ``lost_s`` (0.5 s). Losing it clears the voter's
  recent grids (the reference board stays: it usually comes back);
* **confidence**: an exponential moving average of the readings' confidence
  (``alpha`` = 0.25 for the new value, started at the first value); below the
  ``gate`` (0.6) nothing is solved;
* **voting** (:mod:`.voter`) decides the reference board (*committed*);
  cells read with less than ``min_cell_confidence`` do not vote;
* **solving**: the reference is solved unless its answer is known; otherwise
  a *plausible* reading (a confident legal unfinished board that may follow
  the reference) is solved speculatively, so that its answer is ready when it
  becomes stable. At most one solve runs; the one in flight is never
  restarted for the same board and is cancelled only for a different one;
  a speculative solve never displaces the reference's;
* **single-slot cache**: every answer lands in it (stale ones too); a board
  committed while the cache holds its answer is solved at once;
* **view** (SPEC §6): ``scanning`` (no board), ``transitional`` (the board
  moves, or its answer is pending; grid only when stable), ``solved``,
  ``finished``; a :class:`Show` effect on every change, :class:`Announce` when
  a stable board's answer (or its end) is first shown, :class:`Silence` when
  it is no longer on the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from c4game.board import Board
from firmware_py.config import VisionConfig
from firmware_py.pipeline.events import (
    FINISHED,
    SCANNING,
    SOLVED,
    TRANSITIONAL,
    Announce,
    CancelSolve,
    Committed,
    Effect,
    Event,
    Grid,
    Log,
    ReadingSeen,
    Show,
    Silence,
    SolveDone,
    SolveFailed,
    SolveResult,
    StartSolve,
    Tick,
    View,
)
from firmware_py.pipeline.follow import (
    SUCCESSOR,
    Followed,
    FollowParams,
    FollowState,
    follow,
    rebase,
)
from firmware_py.pipeline.voter import (
    VoterParams,
    VoterState,
    check_successor,
    grid_of,
    masked_grid,
    vote,
)
from firmware_py.vision.reading import OK, Reading

EPSILON = 1e-9


@dataclass(frozen=True)
class PipelineParams:
    """The reducer's tunables (from ``[vision]``: :meth:`from_config`)."""

    voter: VoterParams = field(default_factory=VoterParams)
    found_s: float = VisionConfig.debounce_found_ms / 1000.0  # every default is [vision]'s
    lost_s: float = VisionConfig.debounce_lost_ms / 1000.0
    alpha: float = 0.25
    gate: float = VisionConfig.confidence_gate
    min_cell_confidence: float = VisionConfig.min_cell_confidence
    speculate: bool = True
    follow: FollowParams = field(default_factory=FollowParams)

    @classmethod
    def from_config(cls, vision: VisionConfig, speculate: bool = True,
                    first: str = "either") -> PipelineParams:
        """Build from the ``[vision]`` config and ``[game] first``."""
        return cls(voter=VoterParams(window=vision.vote_window, agree=vision.vote_agree,
                                     first=first),
                   found_s=vision.debounce_found_ms / 1000.0,
                   lost_s=vision.debounce_lost_ms / 1000.0,
                   gate=vision.confidence_gate,
                   min_cell_confidence=vision.min_cell_confidence, speculate=speculate,
                   follow=FollowParams(accept_margin=vision.accept_margin, first=first))


@dataclass(frozen=True)
class Solving:
    """The one solve in flight."""

    job: int
    grid: Grid
    speculative: bool


@dataclass(frozen=True)
class Cached:
    """The single cache slot: the last answer that came back."""

    grid: Grid
    result: SolveResult


@dataclass(frozen=True)
class PipelineState:
    """Everything the reducer remembers between events."""

    voter: VoterState = field(default_factory=VoterState)
    follow: FollowState = field(default_factory=FollowState)
    followed: str = ""  # the kind of the latest frame (:mod:`.follow`)
    present: bool = False
    found_since: float | None = None
    last_found: float | None = None
    ema: float | None = None
    stable: bool = False
    result: SolveResult | None = None
    candidate: Board | None = None
    cache: Cached | None = None
    solving: Solving | None = None
    failed: Grid | None = None
    next_job: int = 1
    view: View = field(default_factory=View)
    announced: Grid | None = None

    @property
    def reference(self) -> Board | None:
        """The last committed board."""
        return self.voter.reference


def reduce(state: PipelineState, event: Event, now: float,
           params: PipelineParams) -> tuple[PipelineState, list[Effect]]:
    """Apply ``event`` at time ``now``; return the new state and the effects to run."""
    effects: list[Effect] = []
    if isinstance(event, ReadingSeen):
        state = _on_reading(state, event.reading, now, params, effects)
    elif isinstance(event, SolveDone):
        state = _on_done(state, event)
    elif isinstance(event, SolveFailed):
        state = _on_failed(state, event, effects)
    elif isinstance(event, Tick):
        state = _on_presence(state, None, now, params)
    else:
        raise TypeError(f"not a pipeline event: {event!r}")
    state = _schedule(state, params, effects)
    state = _render(state, params, effects)
    return state, effects


# --------------------------------------------------------------------- events


def _on_reading(state: PipelineState, reading: Reading, now: float, params: PipelineParams,
                effects: list[Effect]) -> PipelineState:
    full_grid = None
    if reading.found and reading.grid is not None:
        full_grid = masked_grid(reading.grid, reading.cell_confidence,
                                params.min_cell_confidence)
    follow_state, followed = follow(state.follow, state.reference, reading, now,
                                    params.follow, full_grid)
    state = _on_presence(state, reading, now, params, followed.confidence)
    voter, verdict = vote(state.voter, followed.grid, params.voter)
    state = replace(state, voter=voter, stable=verdict.stable, follow=follow_state,
                    followed=followed.kind)
    if verdict.committed and verdict.board is not None:
        effects.append(Committed(verdict.board, verdict.committed))
        cache = state.cache
        known = cache.result if cache is not None and cache.grid == verdict.consensus else None
        state = replace(state, result=known, failed=None, follow=rebase(follow_state, reading))
    return replace(state, candidate=_plausible(state, reading, followed, params))


def _on_presence(state: PipelineState, reading: Reading | None, now: float,
                 params: PipelineParams, confidence: float | None = None) -> PipelineState:
    """Debounce found/lost and keep the average of ``confidence`` (the frame's verdict's,
    by default the reading's)."""
    if reading is not None and reading.found:
        since = state.found_since if state.found_since is not None else now
        value = reading.confidence if confidence is None else confidence
        ema = value if state.ema is None else params.alpha * value + (1 - params.alpha) * state.ema
        state = replace(state, found_since=since, last_found=now, ema=ema)
    elif reading is not None:
        state = replace(state, found_since=None)
    if (not state.present and state.found_since is not None
            and now - state.found_since >= params.found_s - EPSILON):
        return replace(state, present=True)
    if state.present and (state.last_found is None
                          or now - state.last_found >= params.lost_s - EPSILON):
        return replace(state, present=False, found_since=None, ema=None, stable=False,
                       candidate=None, voter=state.voter.cleared())
    return state


def _on_done(state: PipelineState, event: SolveDone) -> PipelineState:
    solving = None if state.solving is not None and state.solving.job == event.job \
        else state.solving
    state = replace(state, solving=solving, cache=Cached(event.grid, event.result))
    reference = state.reference
    if reference is not None and state.result is None and event.grid == grid_of(reference):
        state = replace(state, result=event.result)
    return state


def _on_failed(state: PipelineState, event: SolveFailed,
               effects: list[Effect]) -> PipelineState:
    if state.solving is None or state.solving.job != event.job:
        return state
    if event.cancelled:
        return replace(state, solving=None)
    effects.append(Log("error", f"solve of {'/'.join(event.grid)} failed: {event.error}"))
    return replace(state, solving=None, failed=event.grid)


# --------------------------------------------------------------------- rules


def _plausible(state: PipelineState, reading: Reading, followed: Followed,
               params: PipelineParams) -> Board | None:
    """The followed next board, or the reading's, when worth solving before it is stable."""
    if followed.kind == SUCCESSOR:  # a winning or filling disc has nothing to solve
        board = followed.board
        return board if params.speculate and board and not board.is_finished else None
    board = reading.board
    if (not params.speculate or reading.status != OK or board is None
            or reading.confidence < params.min_cell_confidence - EPSILON):
        return None
    reference = state.reference
    if reference is not None and grid_of(board) == grid_of(reference):
        return None
    if check_successor(reference, board, params.voter):
        return None
    return board


def _wanted(state: PipelineState, params: PipelineParams) -> tuple[Board, bool] | None:
    """The board that should be solving now, and whether it is speculative."""
    if not state.present or state.ema is None or state.ema < params.gate - EPSILON:
        return None
    reference = state.reference
    if (reference is not None and state.result is None and not reference.is_finished
            and state.failed != grid_of(reference)):
        return reference, False
    candidate = state.candidate
    if candidate is None:
        return None
    grid = grid_of(candidate)
    if (state.cache is not None and state.cache.grid == grid) or state.failed == grid:
        return None
    return candidate, True


def _schedule(state: PipelineState, params: PipelineParams,
              effects: list[Effect]) -> PipelineState:
    wanted = _wanted(state, params)
    if wanted is None:
        return state
    board, speculative = wanted
    grid = grid_of(board)
    solving = state.solving
    if solving is not None and solving.grid == grid:
        if solving.speculative and not speculative:
            return replace(state, solving=replace(solving, speculative=False))
        return state
    if solving is not None:
        effects.append(CancelSolve(solving.job))
    job = state.next_job
    effects.append(StartSolve(job, board, speculative))
    return replace(state, solving=Solving(job, grid, speculative), next_job=job + 1)


def view_of(state: PipelineState, rule: str = "red") -> View:
    """What ``state`` shows (SPEC §6); ``rule``: who may start (under ``either`` nobody
    has started an empty board)."""
    reference = state.reference
    if not state.present:
        return View(SCANNING)
    if reference is None or not state.stable:
        return View(TRANSITIONAL)
    grid = grid_of(reference)
    first = None if rule == "either" and reference.n_discs == 0 else reference.first
    if reference.is_finished:
        return View(FINISHED, grid, first=first)
    result = state.result
    if result is None:
        return View(TRANSITIONAL, grid, first=first)
    return View(SOLVED, grid, result.column, result.score, result.plies, first=first)


def _render(state: PipelineState, params: PipelineParams,
            effects: list[Effect]) -> PipelineState:
    view = view_of(state, params.voter.first)
    if view != state.view:
        effects.append(Show(view))
    reference = state.reference
    if view.state in (SOLVED, FINISHED):
        wanted = view.grid
    elif view.state == TRANSITIONAL and reference is not None \
            and state.announced == grid_of(reference):
        wanted = state.announced  # the same board, only hidden for a moment
    else:
        wanted = None
    if wanted != state.announced:
        if wanted is not None and reference is not None:
            effects.append(Announce(reference, state.result if view.state == SOLVED else None,
                                    unstarted=view.to_move is None))
        else:
            effects.append(Silence(lost=view.state == SCANNING))
    return replace(state, view=view, announced=wanted)
