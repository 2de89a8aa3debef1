"""The pipeline's brain: one pure function, ``reduce(state, event, now)``.

No I/O, no threads, no clock: the caller passes the time ``now`` (seconds,
any origin) and executes the returned effects. The rules:

* **belief** (:mod:`.belief`, the one game filter) decides the committed
  board (the *reference*) and whether it is shown; a frame without a board
  leaves the belief as it was;
* **presence**: the board is in view from the first reading that finds it,
  and lost once no reading found it for ``lost_s`` (0.5 s); losing it forgets
  the belief's leader (the reference stays: it usually comes back);
* **solving**: the reference is solved unless its answer is known; otherwise
  the belief's leading board (unfinished, and one that may follow the
  reference) is solved speculatively, so that its answer is ready when it
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
from firmware_py.pipeline.belief import BeliefParams, BeliefState, Verdict, believe
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
from firmware_py.pipeline.evidence import grid_of
from firmware_py.succession import COMMIT_FIRST, COMMIT_NEXT, commit_kind
from firmware_py.vision.reading import Reading

EPSILON = 1e-9


@dataclass(frozen=True)
class PipelineParams:
    """The reducer's tunables (from ``[vision]`` and ``[game]``: :meth:`from_config`)."""

    belief: BeliefParams = field(default_factory=BeliefParams)
    lost_s: float = VisionConfig.debounce_lost_ms / 1000.0  # every default is [vision]'s
    speculate: bool = True

    @classmethod
    def from_config(cls, vision: VisionConfig, speculate: bool = True,
                    first: str = "either") -> PipelineParams:
        """Build from the ``[vision]`` config and ``[game] first``."""
        return cls(belief=BeliefParams(margin=vision.accept_margin, first=first),
                   lost_s=vision.debounce_lost_ms / 1000.0, speculate=speculate)


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

    belief: BeliefState = field(default_factory=BeliefState)
    frame_kind: str = ""  # the latest frame's kind (:mod:`.belief`: unchanged, changed, ...)
    present: bool = False
    last_found: float | None = None
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
        return self.belief.committed


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
        state = _on_presence(state, now, params)
    else:
        raise TypeError(f"not a pipeline event: {event!r}")
    state = _schedule(state, params, effects)
    state = _render(state, params, effects)
    return state, effects


# --------------------------------------------------------------------- events


def _on_reading(state: PipelineState, reading: Reading, now: float, params: PipelineParams,
                effects: list[Effect]) -> PipelineState:
    belief, verdict = believe(state.belief, reading, now, params.belief)
    # a frame that did not find the board leaves it shown; one that found it and read
    # nothing of it does not
    stable = state.stable if not reading.found else verdict.shown
    state = replace(state, belief=belief, stable=stable, frame_kind=verdict.kind)
    if reading.found:
        state = replace(state, present=True, last_found=now)
    state = _on_presence(state, now, params)
    if verdict.committed and verdict.board is not None:
        effects.append(Committed(verdict.board, verdict.committed))
        cache = state.cache
        grid = grid_of(verdict.board)
        known = cache.result if cache is not None and cache.grid == grid else None
        state = replace(state, result=known, failed=None)
    return replace(state, candidate=_plausible(state, verdict, params))


def _on_presence(state: PipelineState, now: float, params: PipelineParams) -> PipelineState:
    """The board is lost once no reading found it for ``lost_s``."""
    if state.present and (state.last_found is None
                          or now - state.last_found >= params.lost_s - EPSILON):
        return replace(state, present=False, stable=False, candidate=None,
                       belief=state.belief.lost())
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


def _plausible(state: PipelineState, verdict: Verdict, params: PipelineParams) -> Board | None:
    """The leading board, when it is not the reference and worth solving before it is
    committed (a winning or filling disc has nothing to solve)."""
    board = verdict.leader
    reference = state.reference
    if not params.speculate or board is None or board.is_finished or verdict.committed:
        return None
    if reference is not None and grid_of(board) == grid_of(reference):
        return None
    return board if commit_kind(reference, board) in (COMMIT_FIRST, COMMIT_NEXT) else None


def _wanted(state: PipelineState) -> tuple[Board, bool] | None:
    """The board that should be solving now, and whether it is speculative."""
    if not state.present:
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
    wanted = _wanted(state)
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
    view = view_of(state, params.belief.first)
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
