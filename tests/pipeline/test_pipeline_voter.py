"""The stability voter, as plain functions: each rule of issue 6 has a test."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c4game.board import Board
from firmware_py.pipeline.voter import (
    COMMIT_FIRST,
    COMMIT_NEW_GAME,
    COMMIT_NEXT,
    COMMIT_OVERRIDE,
    UNKNOWN,
    VoterParams,
    VoterState,
    consensus,
    grid_of,
    masked_grid,
    vote,
    with_history,
)

P = VoterParams()


def g(moves: str) -> tuple[str, ...]:
    return tuple(Board.from_moves(moves).grid_lines())


def with_cell(grid: tuple[str, ...], row: int, col: int, char: str) -> tuple[str, ...]:
    """``grid`` with the cell at (row from the top, col), both 0-based, set to ``char``."""
    rows = list(grid)
    rows[row] = rows[row][:col] + char + rows[row][col + 1:]
    return tuple(rows)


def feed(state: VoterState, grids: list) -> tuple[VoterState, list]:
    votes = []
    for grid in grids:
        state, verdict = vote(state, grid, P)
        votes.append(verdict)
    return state, votes


def at_ref(moves: str) -> VoterState:
    return VoterState(reference=Board.from_moves(moves))


# ------------------------------------------------------------------ consensus


def test_consensus_needs_agree_readings():
    assert consensus((g("4"),) * 3, 4) is None
    assert consensus((g("4"),) * 4, 4) == g("4")


def test_consensus_four_of_five_whole_grids():
    assert consensus((g("4"), g("4"), g("43"), g("4"), g("4")), 4) == g("4")
    assert consensus((g("4"), g("43"), g("43"), g("4"), g("4")), 4) is None


def test_consensus_is_per_cell():
    # every grid has one different wrong cell: no grid repeats, yet every cell agrees 4/5
    truth = g("4433")
    noisy = tuple(with_cell(truth, 0, col, "R") for col in range(5))
    assert len(set(noisy)) == 5
    assert consensus(noisy, 4) == truth


def test_consensus_fails_when_one_cell_splits():
    truth = g("44")
    window = (truth, truth, truth, with_cell(truth, 0, 0, "Y"), with_cell(truth, 0, 0, "R"))
    assert consensus(window, 4) is None


def test_missing_board_agrees_with_nothing():
    assert consensus((g("4"),) * 4 + (None,), 4) == g("4")
    assert consensus((g("4"),) * 3 + (None, None), 4) is None


CELL = st.sampled_from(".RY")
GRIDS = st.lists(st.tuples(*[st.text(CELL, min_size=7, max_size=7)] * 6) | st.none(),
                 min_size=1, max_size=7)


@settings(max_examples=200, deadline=None)
@given(GRIDS, st.integers(1, 7))
def test_consensus_against_brute_force(window, agree):
    got = consensus(tuple(window), agree)
    present = [grid for grid in window if grid is not None]
    counts = [[Counter(grid[r][c] for grid in present) for c in range(7)] for r in range(6)]
    every_cell_agrees = bool(present) and all(
        counts[r][c].most_common(1)[0][1] >= agree for r in range(6) for c in range(7))
    if not every_cell_agrees:
        assert got is None
    else:
        assert got is not None
        for r in range(6):
            for c in range(7):
                assert counts[r][c][got[r][c]] >= agree


# ------------------------------------------------------------------ commits


def test_first_board_committed_on_the_fourth_reading():
    state, votes = feed(VoterState(), [g("44")] * 5)
    assert [v.committed for v in votes] == ["", "", "", COMMIT_FIRST, ""]
    assert [v.stable for v in votes] == [False, False, False, True, True]
    assert state.reference.grid_lines() == list(g("44"))
    assert votes[3].consensus == g("44")


def test_next_board_committed_and_moves_kept():
    state = VoterState(reference=Board.from_moves("44"), recent=(g("44"),) * 5)
    state, votes = feed(state, [g("443")] * 4)
    assert [v.committed for v in votes] == ["", "", "", COMMIT_NEXT]
    assert state.reference.moves == "443"
    assert [v.stable for v in votes] == [True, False, False, True]


def test_stable_reference_is_not_recommitted():
    state = at_ref("4")
    state, votes = feed(state, [g("4")] * 6)
    assert [v.committed for v in votes] == [""] * 6
    assert [v.stable for v in votes] == [False, False, False, True, True, True]


def test_gravity_violation_never_committed():
    floating = with_cell(g(""), 4, 3, "R")  # a red disc in row 2 above an empty row 1
    state, votes = feed(at_ref(""), [floating] * 12)
    assert all(not v.committed and not v.stable for v in votes)
    assert votes[-1].reason.startswith("not a position: floating disc")
    assert state.reference.n_discs == 0


def test_parity_violation_never_committed():
    two_reds = g("4")[:5] + ("...RR..",)
    state, votes = feed(at_ref(""), [two_reds] * 12)
    assert all(not v.committed for v in votes)
    assert "parity" in votes[-1].reason


def test_at_most_three_cells_may_change():
    state, votes = feed(at_ref(""), [g("4444")] * 4)
    assert votes[-1].committed == ""
    assert votes[-1].reason == "4 cells changed (at most 3)"
    state, votes = feed(at_ref(""), [g("444")] * 4)
    assert votes[-1].committed == COMMIT_NEXT
    assert state.reference.moves is None  # three discs added: their order is unknown


def test_monotonicity_removed_disc():
    state, votes = feed(at_ref("4433"), [g("443")] * 4)
    assert votes[-1].reason == "monotonicity: 1 disc(s) removed, 0 changed colour"
    assert state.reference.moves == "4433"


def test_monotonicity_recoloured_disc():
    swapped = g("34")  # red at 3, yellow at 4 instead of red at 4, yellow at 3
    state, votes = feed(at_ref("43"), [swapped] * 4)
    assert votes[-1].reason == "monotonicity: 0 disc(s) removed, 2 changed colour"


def test_rejected_consensus_overrides_after_ten_consecutive_frames():
    state, votes = feed(at_ref("4433"), [g("443")] * 13)
    kinds = [v.committed for v in votes]
    assert kinds == [""] * 12 + [COMMIT_OVERRIDE]  # consensus from frame 4, 10th on frame 13
    assert [state.pending_frames, state.pending] == [0, None]
    assert state.reference.grid_lines() == list(g("443"))


def test_override_count_restarts_when_the_consensus_breaks():
    state, votes = feed(at_ref("4433"), [g("443")] * 11)
    assert state.pending_frames == 8
    state, votes = feed(state, [None, None])  # 4 of 5 (9th frame), then 3 of 5: none
    assert [v.consensus for v in votes] == [g("443"), None]
    assert state.pending_frames == 0
    state, votes = feed(state, [g("443")] * 13)
    # 4 of the last 5 again on the 4th frame, then 10 consecutive frames
    assert [v.committed for v in votes].index(COMMIT_OVERRIDE) == 12


def test_override_count_restarts_for_another_board():
    state, _ = feed(at_ref("4433"), [g("443")] * 11)
    assert state.pending_frames == 8
    state, votes = feed(state, [g("4455")] * 16)
    assert [v.consensus for v in votes[:4]] == [g("443"), None, None, g("4455")]
    kinds = [v.committed for v in votes]
    assert kinds.index(COMMIT_OVERRIDE) == 12  # g("4455") agreed from frame 3, 10th on 12
    assert state.reference.grid_lines() == list(g("4455"))


def test_more_than_six_removed_is_a_new_game():
    state, votes = feed(at_ref("4433221"), [g("")] * 4)
    assert votes[-1].committed == COMMIT_NEW_GAME
    assert state.reference.moves == ""


def test_six_removed_is_not_a_new_game_yet():
    state, votes = feed(at_ref("4433221"), [g("4")] * 4)
    assert votes[-1].committed == ""
    assert "6 disc(s) removed" in votes[-1].reason


def test_a_cleared_board_is_a_new_game_at_once():
    state, votes = feed(at_ref("4"), [g("")] * 4)
    assert votes[-1].committed == COMMIT_NEW_GAME
    assert state.reference.moves == ""


def test_new_game_with_discs_already_played():
    state, votes = feed(at_ref("44443333"), [g("5")] * 4)
    assert votes[-1].committed == COMMIT_NEW_GAME


def test_finished_board_is_committed():
    state, votes = feed(at_ref("121312"), [g("1213121")] * 4)
    assert votes[-1].committed == COMMIT_NEXT
    assert state.reference.winner == "R"
    assert state.reference.moves == "1213121"


def test_cleared_keeps_the_reference():
    state, _ = feed(at_ref("4"), [g("4")] * 5)
    cleared = state.cleared()
    assert cleared.recent == () and cleared.reference == state.reference


def test_window_length_is_bounded():
    state, _ = feed(VoterState(), [g("")] * 9)
    assert len(state.recent) == P.window


@pytest.mark.parametrize("window, agree", [(5, 6), (5, 0)])
def test_bad_params_rejected(window, agree):
    with pytest.raises(ValueError, match="agree must be"):
        VoterParams(window=window, agree=agree)


def test_with_history_only_when_certain():
    ref = Board.from_moves("44")
    assert with_history(ref, Board.from_grid(g("443"))).moves == "443"
    assert with_history(ref, Board.from_grid(g("4435"))).moves is None
    assert with_history(Board.from_grid(g("44")), Board.from_grid(g("443"))).moves is None
    assert with_history(None, Board.from_grid(g(""))).moves == ""


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 7), max_size=42), st.integers(0, 42))
def test_the_bitboard_finished_check_agrees_with_the_cell_by_cell_fours(columns, cut):
    board = Board.empty()
    for column in columns[:cut]:
        if board.is_full or board.winning_lines() or not board.can_play(column):
            break
        board = board.play(column)
    assert board.is_finished == (board.is_full or bool(board.winning_lines()))
    assert grid_of(board) == tuple(board.grid_lines())


def test_fast_finished_on_a_full_draw():
    board = Board.from_moves("472424756645422154157737216635626711335331")
    assert board.is_draw and board.is_finished


def test_unknown_cells_agree_with_nothing():
    truth = g("44")
    unsure = with_cell(truth, 4, 3, UNKNOWN)  # the yellow disc read without confidence
    assert consensus((unsure,) * 5, 4) is None
    assert consensus((unsure, truth, truth, truth, truth), 4) == truth
    assert consensus((unsure, unsure, truth, truth, truth), 4) is None


def test_masked_grid_marks_doubtful_cells():
    truth = g("4")
    confidence = [0.9] * 42
    confidence[38] = 0.3  # bottom row, column 4
    assert masked_grid(truth, tuple(confidence), 0.6)[5] == "...?..."
    assert masked_grid(truth, tuple(confidence), 0.2) == truth
    assert masked_grid(truth, (), 0.6) == truth
