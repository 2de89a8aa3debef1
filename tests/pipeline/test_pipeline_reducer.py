"""The pure reducer: given states and events, exact new states and effects."""

from __future__ import annotations

from dataclasses import replace

import pytest

from c4game.board import Board
from firmware_py.config import VisionConfig
from firmware_py.pipeline.belief import BeliefParams, BeliefState
from firmware_py.pipeline.events import (
    FINISHED,
    SCANNING,
    SOLVED,
    TRANSITIONAL,
    Announce,
    CancelSolve,
    Committed,
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
from firmware_py.pipeline.reducer import (
    Cached,
    PipelineParams,
    PipelineState,
    Solving,
    reduce,
    view_of,
)
from firmware_py.vision.reading import FINISHED as READ_FINISHED
from firmware_py.vision.reading import INVALID, NO_BOARD, OK, Reading

P = PipelineParams()
R_EMPTY = SolveResult(column=4, score=1, plies=41)
R_4 = SolveResult(column=4, score=-2, plies=36)


def g(moves: str) -> tuple[str, ...]:
    return tuple(Board.from_moves(moves).grid_lines())


def seen(moves: str, confidence: float = 0.9) -> ReadingSeen:
    board = Board.from_moves(moves)
    status = READ_FINISHED if board.is_finished else OK
    return ReadingSeen(Reading(status, g(moves), board, confidence))


def invalid(grid: tuple[str, ...], confidence: float = 0.9) -> ReadingSeen:
    return ReadingSeen(Reading(INVALID, grid, None, confidence))


NOTHING = ReadingSeen(Reading(NO_BOARD))


def run(state: PipelineState, events: list, t0: float = 0.0, dt: float = 0.1,
        params: PipelineParams = P) -> tuple[PipelineState, list[list]]:
    """Feed ``events`` at t0, t0+dt, …; return the final state and each step's effects."""
    steps = []
    for index, event in enumerate(events):
        state, effects = reduce(state, event, t0 + index * dt, params)
        steps.append(effects)
    return state, steps


def solved_at(moves: str, result: SolveResult, t: float = 1.0) -> PipelineState:
    """A state that shows ``moves`` solved, present and stable, last seen at ``t``."""
    board = Board.from_moves(moves)
    return PipelineState(
        belief=BeliefState(committed=board), present=True, last_found=t, stable=True,
        result=result,
        cache=Cached(g(moves), result), next_job=5,
        view=View(SOLVED, g(moves), result.column, result.score, result.plies),
        announced=g(moves))


# ------------------------------------------------------------------ presence


def test_board_found_at_once_and_its_leading_board_speculated():
    state, steps = run(PipelineState(), [seen("")])
    assert steps[0] == [StartSolve(1, Board.from_moves(""), True), Show(View(TRANSITIONAL))]
    assert state.present and state.last_found == 0.0


def test_board_lost_after_the_lost_debounce():
    state = solved_at("", R_EMPTY, t=1.0)
    state, steps = run(state, [NOTHING] * 5, t0=1.1)  # 1.1 .. 1.5
    assert steps[:4] == [[], [], [], []]  # a frame without the board changes no belief
    assert steps[4] == [Show(View(SCANNING)), Silence(lost=True)]
    assert not state.present and state.announced is None and not state.stable
    assert state.reference == Board.from_moves("")
    assert state.result == R_EMPTY  # the board's answer survives its absence


def test_tick_lets_the_board_go_when_frames_stop():
    state = solved_at("", R_EMPTY, t=1.0)
    state, effects = reduce(state, Tick(), 1.49, P)
    assert effects == [] and state.present
    state, effects = reduce(state, Tick(), 1.5, P)
    assert effects == [Show(View(SCANNING)), Silence(lost=True)]


def test_a_board_found_but_not_read_is_not_shown():
    state = solved_at("44", SolveResult(4, 2, 35), t=1.0)
    unread = ReadingSeen(Reading(INVALID, markers=4, reason="cannot tell white from black"))
    state, steps = run(state, [unread] * 8, t0=1.1)
    assert steps[0] == [Show(View(TRANSITIONAL))] and state.present


def test_tick_on_a_quiet_state_does_nothing():
    state, effects = reduce(PipelineState(), Tick(), 5.0, P)
    assert (state, effects) == (PipelineState(), [])


def test_back_after_loss_the_board_is_shown_at_once():
    state = solved_at("", R_EMPTY, t=1.0)
    state, _ = run(state, [NOTHING] * 5, t0=1.1)
    state, steps = run(state, [seen("")] * 2, t0=2.0)
    assert steps[0] == [Show(View(SOLVED, g(""), 4, 1, 41)),
                        Announce(Board.from_moves(""), R_EMPTY, unstarted=True)]
    assert steps[1] == []


# ------------------------------------------------------------------ evidence


def test_a_board_read_without_confidence_is_neither_committed_nor_solved():
    state, steps = run(PipelineState(), [seen("", 0.3)] * 6)
    assert steps == [[Show(View(TRANSITIONAL))]] + [[]] * 5  # found, nothing read of it
    assert state.reference is None
    state, steps = run(state, [seen("", 0.9)] * 4, t0=0.6)
    assert steps[0] == [StartSolve(1, Board.from_moves(""), True)]
    assert steps[3] == [Committed(Board.from_moves(""), "first"),
                        Show(View(TRANSITIONAL, g("")))]  # the solve in flight, promoted
    assert state.solving == Solving(1, g(""), False)


# ------------------------------------------------------------------ solving


def test_committed_board_solved_and_shown():
    params = replace(P, speculate=False)
    state, steps = run(PipelineState(), [seen("")] * 4, params=params)
    assert steps[3] == [Committed(Board.from_moves(""), "first"),
                        StartSolve(1, Board.from_moves(""), False),
                        Show(View(TRANSITIONAL, g("")))]
    state, effects = reduce(state, SolveDone(1, g(""), R_EMPTY), 0.35, params)
    assert effects == [Show(View(SOLVED, g(""), 4, 1, 41)),
                       Announce(Board.from_moves(""), R_EMPTY, unstarted=True)]
    assert state.solving is None and state.cache == Cached(g(""), R_EMPTY)


def test_speculative_result_is_used_instantly_on_commit():
    state = solved_at("", R_EMPTY)
    state, effects = reduce(state, seen("4"), 1.1, P)  # the next board leads: "" is hidden
    assert effects == [StartSolve(5, Board.from_moves("4"), True), Show(View(TRANSITIONAL))]
    state, effects = reduce(state, SolveDone(5, g("4"), R_4), 1.15, P)
    assert effects == []  # not stable yet: cached, not shown
    assert state.cache == Cached(g("4"), R_4) and state.view == View(TRANSITIONAL)
    state, steps = run(state, [seen("4")] * 3, t0=1.2)
    assert steps[:2] == [[], []]  # led since 1.1: committed at 1.4
    assert steps[2] == [Committed(Board.from_moves("4"), "next"),
                        Show(View(SOLVED, g("4"), 4, -2, 36)),
                        Announce(Board.from_moves("4"), R_4)]


def test_speculative_solve_is_not_restarted_and_is_promoted():
    state = solved_at("", R_EMPTY)
    state, steps = run(state, [seen("4")] * 5, t0=1.1)
    starts = [e for step in steps for e in step if isinstance(e, (StartSolve, CancelSolve))]
    assert starts == [StartSolve(5, Board.from_moves("4"), True)]
    assert state.solving == Solving(5, g("4"), False)  # the reference's solve now
    assert state.view == View(TRANSITIONAL, g("4"))
    assert Silence() in steps[3]  # the old board's announcement is obsolete


def test_speculation_never_displaces_the_reference_solve():
    params = replace(P, speculate=True)
    state, _ = run(PipelineState(), [seen("")] * 4, params=params)
    assert state.solving == Solving(1, g(""), False)
    state, steps = run(state, [seen("4")] * 2, t0=0.4)
    assert steps == [[Show(View(TRANSITIONAL))], []]
    assert state.solving == Solving(1, g(""), False) and state.candidate is not None


def test_new_reference_cancels_another_solve():
    state = replace(solved_at("", R_EMPTY), solving=Solving(5, g("3"), True), next_job=6)
    state, steps = run(state, [seen("4")] * 4, t0=1.1)
    assert steps[0] == [CancelSolve(5), StartSolve(6, Board.from_moves("4"), True),
                        Show(View(TRANSITIONAL))]
    state = replace(state, solving=Solving(6, g("3"), True))  # pretend another one runs
    state, effects = reduce(state, seen("4"), 1.5, P)
    assert effects == [CancelSolve(6), StartSolve(7, Board.from_moves("4"), False)]


def test_stale_result_is_cached_not_shown():
    state = replace(solved_at("4", R_4), result=None, solving=Solving(5, g("4"), False),
                    view=View(TRANSITIONAL, g("4")), announced=None)
    state, effects = reduce(state, SolveDone(3, g(""), R_EMPTY), 1.1, P)
    assert effects == [] and state.cache == Cached(g(""), R_EMPTY)
    assert state.solving == Solving(5, g("4"), False)


def test_a_newer_candidate_replaces_the_speculative_solve():
    state = solved_at("", R_EMPTY)
    state, steps = run(state, [seen("4"), seen("3")], t0=1.1)
    assert steps[0] == [StartSolve(5, Board.from_moves("4"), True), Show(View(TRANSITIONAL))]
    assert steps[1] == [CancelSolve(5), StartSolve(6, Board.from_moves("3"), True)]


def test_implausible_readings_are_not_speculated():
    state = solved_at("4433", SolveResult(4, 1, 37))
    events = [seen("44"),              # discs removed
              seen("4433" + "1234"),   # four discs added
              seen("4433"),            # the reference itself
              invalid(("RRRRRRR",) * 6)]  # no board at all
    state, steps = run(state, events, t0=1.1)
    assert not any(isinstance(e, StartSolve) for step in steps for e in step)


def test_finished_board_is_shown_not_solved():
    state = solved_at("121312", SolveResult(1, 18, 1))
    state, steps = run(state, [seen("1213121")] * 4, t0=1.1)
    assert not any(isinstance(e, StartSolve) for step in steps for e in step)
    won = Board.from_moves("1213121")
    assert steps[3] == [Committed(won, "next"), Show(View(FINISHED, g("1213121"))),
                        Announce(won, None)]


def test_failed_solve_is_logged_and_not_retried():
    params = replace(P, speculate=False)
    state, _ = run(PipelineState(), [seen("")] * 4, params=params)
    state, effects = reduce(state, SolveFailed(1, g(""), "boom"), 0.35, params)
    assert effects == [Log("error", "solve of ......./......./......./......./......./....... "
                                    "failed: boom")]
    state, steps = run(state, [seen("")] * 3, t0=0.4, params=params)
    assert steps == [[], [], []] and state.view == View(TRANSITIONAL, g(""))


def test_failure_of_an_old_job_is_ignored():
    state = replace(solved_at("", R_EMPTY), solving=Solving(5, g("4"), True))
    new_state, effects = reduce(state, SolveFailed(4, g("3"), "late"), 1.1, P)
    assert (new_state, effects) == (state, [])


def test_cancelled_current_job_is_restarted():
    params = replace(P, speculate=False)
    state, _ = run(PipelineState(), [seen("")] * 4, params=params)
    state, effects = reduce(state, SolveFailed(1, g(""), "cancelled", cancelled=True), 0.35,
                            params)
    assert effects == [StartSolve(2, Board.from_moves(""), False)]


def test_a_still_hand_read_without_confidence_never_votes_a_disc_in():
    state = solved_at("44", SolveResult(4, 2, 35))
    wrong = Board.from_moves("443")  # what the hand over column 3 looks like
    confidence = [0.95] * 42
    confidence[37] = 0.3  # column 3, bottom row: under the hand
    unsure = ReadingSeen(Reading(OK, g("443"), wrong, 0.3, tuple(confidence)))
    state, steps = run(state, [unsure] * 12, t0=1.1)
    assert not any(isinstance(e, (Committed, StartSolve)) for step in steps for e in step)
    assert state.reference == Board.from_moves("44")
    sure = ReadingSeen(Reading(OK, g("443"), wrong, 0.95, (0.95,) * 42))
    state, steps = run(state, [sure] * 4, t0=2.3)
    assert steps[3][0] == Committed(Board.from_moves("443"), "next")
    # solved speculatively as soon as it leads
    assert [any(isinstance(e, StartSolve) for e in step) for step in steps] == [
        True, False, False, False]


# ------------------------------------------------------------------ view and speech


def test_a_hand_over_the_board_keeps_the_announcement():
    state = solved_at("44", SolveResult(4, 2, 35))
    hand = invalid(("RRRRRRR",) * 6)
    state, steps = run(state, [hand, hand] + [seen("44")] * 4, t0=1.1)
    assert steps[0] == [Show(View(TRANSITIONAL))]  # the hand: not the board
    assert steps[1] == []
    assert steps[2] == [Show(View(SOLVED, g("44"), 4, 2, 35))]  # no second Announce
    assert steps[3] == steps[4] == steps[5] == []


def test_new_board_without_answer_silences():
    state = solved_at("", R_EMPTY)
    params = replace(P, speculate=False)
    state, steps = run(state, [seen("4")] * 4, t0=1.1, params=params)
    assert steps[3] == [Committed(Board.from_moves("4"), "next"),
                        StartSolve(5, Board.from_moves("4"), False),
                        Show(View(TRANSITIONAL, g("4"))), Silence()]


def test_reset_to_an_empty_board_after_a_long_game_is_a_new_game():
    state = solved_at("4444333", SolveResult(3, -1, 30))
    state, steps = run(state, [seen("")] * 15, t0=1.1)
    # 7 discs gone: no next board (nothing speculated); read again after 1 s, then
    # committed as a new game once it has led for 0.3 s
    assert steps[:14] == [[Show(View(TRANSITIONAL))]] + [[]] * 13
    assert steps[14] == [Committed(Board.from_moves(""), "new-game"),
                        StartSolve(5, Board.from_moves(""), False),
                        Show(View(TRANSITIONAL, g(""))), Silence()]


@pytest.mark.parametrize("state, expected", [
    (PipelineState(), View(SCANNING)),
    (PipelineState(present=True), View(TRANSITIONAL)),
    (PipelineState(present=True, belief=BeliefState(committed=Board.from_moves("4"))),
     View(TRANSITIONAL)),
    (PipelineState(present=True, stable=True, belief=BeliefState(committed=Board.from_moves("4"))),
     View(TRANSITIONAL, g("4"))),
    (PipelineState(present=True, stable=True, result=R_4,
                   belief=BeliefState(committed=Board.from_moves("4"))),
     View(SOLVED, g("4"), 4, -2, 36)),
])
def test_view_of(state, expected):
    assert view_of(state) == expected


def test_view_json_keys_follow_the_spec():
    assert View(SOLVED, g("4"), 4, -2, 36).as_json(1.23456) == {
        "t": 1.235, "state": "solved", "grid": list(g("4")), "best": 4, "score": -2, "plies": 36}
    assert View().as_json(0) == {"t": 0, "state": "scanning", "grid": None, "best": None,
                                 "score": None, "plies": None}


def test_params_from_config():
    vision = VisionConfig(debounce_lost_ms=900, accept_margin=3.0)
    assert PipelineParams.from_config(vision, first="red") == PipelineParams(
        belief=BeliefParams(margin=3.0, first="red"), lost_s=0.9)


def test_unknown_event_rejected():
    with pytest.raises(TypeError, match="not a pipeline event"):
        reduce(PipelineState(), "frame", 0.0, P)
