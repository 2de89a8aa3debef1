"""The one game filter (:mod:`firmware_py.pipeline.belief`) on constructed readings.

Each reading is built from a grid: every hole's look is a fixed vector per
class (plus a little noise), and the readers' log-probabilities say the
class with a chosen confidence, so each part of the model is driven on its own.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.pipeline.belief import (
    AWAY,
    CHANGED,
    REBASE_S,
    UNCHANGED,
    BeliefParams,
    BeliefState,
)
from firmware_py.pipeline.belief import believe as filter_believe
from firmware_py.pipeline.evidence import evidence_of
from firmware_py.succession import COMMIT_NEW_GAME, COMMIT_NEXT, COMMIT_OVERRIDE, commit_kind
from firmware_py.vision.decide import decide
from firmware_py.vision.hole_looks import EMPTY_GRID
from firmware_py.vision.reading import NO_BOARD, OK, Reading
from tests.pipeline.as_read import as_read, believe, expecting

LOOKS = {".": np.full(12, 40.0), "R": np.full(12, 140.0), "Y": np.full(12, 220.0)}
PARAMS = BeliefParams()


def reading_of(grid, *, sure: float = 0.95, rng=None, looks_of=None, override=None):
    """A reading whose looks and readers show ``grid`` (``override``: cell -> probs)."""
    cells = "".join(grid)
    rng = rng or np.random.default_rng(0)
    looks = np.array([(looks_of or LOOKS)[char] for char in cells], np.float32)
    looks += rng.normal(0, 1.0, looks.shape).astype(np.float32)
    probs = np.full((42, 3), (1 - sure) / 2)
    for index, char in enumerate(cells):
        probs[index, ".RY".index(char)] = sure
    for index, row in (override or {}).items():
        probs[index] = row
    return Reading(OK, grid=tuple(grid), cell_looks=looks, cell_log_probs=np.log(probs))


def committed(moves: str):
    board = Board.from_moves(moves)
    return board, expecting(BeliefState(committed=board,
                                        baseline=reading_of(board.grid_lines()).cell_looks),
                            PARAMS)


def lowest_free_hole(board: Board, column: int) -> int:
    """Cell index (top row first) of ``column``'s lowest free hole."""
    return (5 - len(board.columns[column - 1])) * 7 + column - 1


def grid(board: Board | None):
    return None if board is None else tuple(board.grid_lines())


def run(state, frames, start=0.0, step=0.1):
    """Feed ``frames`` 0.1 s apart; the last verdict and every committed kind."""
    kinds = []
    verdict = None
    for index, frame in enumerate(frames):
        state, verdict = believe(state, frame, start + index * step, PARAMS)
        kinds += [verdict.committed] if verdict.committed else []
    return state, verdict, kinds


def test_before_any_board_a_board_read_in_full_leads():
    board = Board.from_moves("44")
    _, verdict = believe(BeliefState(), reading_of(board.grid_lines()), 0.0, PARAMS)
    assert grid(verdict.leader) == grid(board)


def test_a_leading_board_is_committed_after_commit_s_not_before():
    board = Board.from_moves("44")
    frames = [reading_of(board.grid_lines())] * 4
    state, verdict, kinds = run(BeliefState(), frames[:3])
    assert state.committed is None and not kinds
    state, verdict, kinds = run(state, frames[3:], start=0.3)
    assert kinds == ["first"] and grid(state.committed) == grid(board) and verdict.shown


def test_a_reader_without_looks_or_log_probs_gives_evidence_from_its_grid():
    board = Board.from_moves("44")
    sure = Reading(OK, grid=grid(board), confidence=0.99)
    _, verdict = believe(BeliefState(), sure, 0.0, PARAMS)
    assert grid(verdict.leader) == grid(board)
    unsure = Reading(OK, grid=grid(board), confidence=0.3)  # below 1/3: no evidence at all
    assert evidence_of(unsure) is None
    one = Reading(OK, grid=grid(board), cell_confidence=(0.3,) * 41 + (0.9,))
    np.testing.assert_allclose(np.exp(evidence_of(one))[-1], [0.9, 0.05, 0.05])
    np.testing.assert_allclose(evidence_of(one)[:-1], np.log(1 / 3))


def test_a_frame_without_a_board_leaves_the_belief_as_it_was():
    board, state = committed("44")
    after, verdict = believe(state, Reading(NO_BOARD), 0.0, PARAMS)
    assert after is state and verdict.kind == AWAY and not verdict.shown


def test_the_room_seen_through_a_hole_before_the_first_board_is_never_a_disc():
    room = {20: [0.02, 0.96, 0.02]}  # column 7 row 4: a red wall, "red" to both readers
    first = reading_of(EMPTY_GRID, override=room)  # rows 1-3 empty below it: it floats
    state, _ = believe(BeliefState(), first, 0.0, PARAMS)
    later = Board.from_moves("7771")  # rows 1-3 of column 7 now hold R Y R
    reading = reading_of(later.grid_lines(), override=room)  # the wall: still read red
    reading.cell_looks[20] = first.cell_looks[20]  # ... and it looks as it did
    alone = decide(reading.cell_log_probs, 2.5)
    assert alone.board is not None and alone.board.columns[6] == "RYRR"  # legal, wrong
    _, verdict = believe(state, reading, 5.0, PARAMS)
    assert grid(verdict.leader) == grid(later)


def test_a_board_first_seen_under_an_arm_or_shadow_is_committed_as_it_stands():
    """Looks that change below an unchanged disc before the first board (an arm over
    the bottom row at first sight that leaves, a shadow settling on it) prove nothing
    about the disc above: a rule that held it empty committed a board without it."""
    board = Board.from_moves("1212")  # column 1 R R, column 2 Y Y
    arm = reading_of(board.grid_lines(), override={35: [1 / 3] * 3, 36: [1 / 3] * 3})
    arm.cell_looks[35:37] = 90.0  # the arm: no opinion, its own look
    clean = [reading_of(board.grid_lines(), rng=np.random.default_rng(i)) for i in range(1, 10)]
    shadowed = [reading_of(board.grid_lines(), rng=np.random.default_rng(i)) for i in range(1, 10)]
    for reading in shadowed:
        reading.cell_looks[35:37] -= 30.0
    for frames in ([arm, *clean], [reading_of(board.grid_lines()), *shadowed]):
        state, _, kinds = run(BeliefState(), frames)
        assert kinds == ["first"] and grid(state.committed) == grid(board)


def test_proven_empty_is_every_hole_above_a_sure_empty_one():
    from firmware_py.pipeline.first_sight import proven_empty

    probs = np.full((42, 3), 0.01)
    probs[:, 1] = 0.98  # every hole a red disc ...
    probs[38, :] = [0.98, 0.01, 0.01]  # ... but column 4 row 1 surely empty
    proven = proven_empty(np.log(probs))
    assert set(np.flatnonzero(proven)) == {3, 10, 17, 24, 31}  # column 4, rows 2-6


def test_an_unchanged_board_is_shown_whatever_the_readers_say():
    board, state = committed("44")
    doubt = {35: [0.2, 0.7, 0.1]}  # a red disc at column 1, but its hole looks as it did
    _, verdict = believe(state, reading_of(board.grid_lines(), override=doubt), 0.0, PARAMS)
    assert verdict.kind == UNCHANGED and verdict.shown and verdict.leader == board


def test_only_a_reading_made_under_the_filters_own_expectation_has_holes_held():
    board, state = committed("44")
    doubt = {35: [0.2, 0.7, 0.1]}  # as above: readers favour red where nothing changed
    frame = reading_of(board.grid_lines(), override=doubt)
    _, verdict = filter_believe(state, as_read(frame, None, PARAMS), 0.0, PARAMS)
    assert verdict.kind == CHANGED and not verdict.shown  # nothing held: no board leads
    # read under another board's expectation (one disc less): its evidence is held to
    # that board, so it is no evidence here, whatever it shows
    _, earlier = committed("4")
    after, verdict = filter_believe(state, as_read(frame, earlier.expectation, PARAMS), 0.0,
                                    PARAMS)
    assert verdict.kind == AWAY and after is state
    _, verdict = filter_believe(state, as_read(frame, state.expectation, PARAMS), 0.0, PARAMS)
    assert verdict.kind == UNCHANGED and verdict.shown


def test_the_expectation_is_the_committed_boards_looks_and_the_games_rule():
    board, state = committed("4")
    expectation = state.expectation
    assert expectation.rule == "red" and np.array_equal(expectation.looks, state.baseline)
    assert "".join(".RY"[index] for index in expectation.classes) == "".join(
        board.grid_lines())
    after, _ = believe(state, reading_of(board.grid_lines()), 0.0, PARAMS)
    assert after.expectation is not expectation  # the baseline drifted: a new one
    assert filter_believe(after, Reading(NO_BOARD), 0.1, PARAMS)[0].expectation \
        is after.expectation  # nothing it is made of changed: the same object
    room, _ = believe(BeliefState(), reading_of(EMPTY_GRID), 0.0, PARAMS)
    assert room.expectation.rule == "either" and not room.expectation.classes.any()
    assert np.isnan(room.expectation.looks[35:, 0]).all()  # the bottom row: nothing below


@pytest.mark.parametrize("column", range(1, 8))
def test_one_disc_of_the_side_to_move_at_a_lowest_hole_leads_then_is_committed(column):
    board, state = committed("4453")
    after = board.play(column)
    frames = [reading_of(after.grid_lines())] * 4
    _, first, _ = run(state, frames[:1])
    assert first.kind == CHANGED and grid(first.leader) == grid(after) and not first.shown
    state, _, kinds = run(state, frames)
    assert kinds == [COMMIT_NEXT] and state.committed.moves == "4453" + str(column)


@pytest.mark.parametrize("probs, leads", [([0.4, 0.5, 0.1], False), ([0.2, 0.7, 0.1], True)])
def test_a_next_disc_leads_once_the_readers_favour_it_by_the_confirm_margin(probs, leads):
    board, state = committed("44")
    hole = lowest_free_hole(board, 1)
    reading = reading_of(board.play(1).grid_lines(), override={hole: probs})
    _, verdict = believe(state, reading, 0.0, PARAMS)
    assert (verdict.leader is not None) == leads and not verdict.shown


def test_a_disc_of_the_wrong_colour_is_never_committed():
    board, state = committed("44")  # red to move
    wrong = list(board.grid_lines())
    wrong[5] = "Y" + wrong[5][1:]
    state, verdict, kinds = run(state, [reading_of(wrong)] * 30)
    assert not kinds and verdict.leader is None and state.committed == board


@pytest.mark.parametrize("after, kind", [("445", COMMIT_OVERRIDE), ("445512", COMMIT_NEXT),
                                         ("", COMMIT_NEW_GAME)])
def test_a_lasting_change_is_read_again_holding_the_unchanged_holes(after, kind):
    board, state = committed("4455")
    # every unchanged hole is read as a doubtful disc: only the changed ones are read again
    doubt = {index: [0.3, 0.4, 0.3] for index in range(14)}
    reading = reading_of(Board.from_moves(after).grid_lines(), override=doubt)
    state, _, kinds = run(state, [reading] * 30)
    assert kinds == [kind] and grid(state.committed) == grid(Board.from_moves(after))


@pytest.mark.parametrize("case", ["two discs", "disc taken out", "disc above the hole"])
def test_changes_no_next_disc_explains_lead_nowhere_at_once(case):
    board, state = committed("4455")
    if case == "two discs":
        seen = board.play(1).play(2).grid_lines()
    elif case == "disc taken out":
        seen = Board.from_moves("445").grid_lines()
    else:  # a falling disc, one hole above column 1's lowest free hole
        seen = list(board.grid_lines())
        seen[4] = "R" + seen[4][1:]
    _, verdict = believe(state, reading_of(seen), 0.0, PARAMS)
    assert verdict.leader is None and not verdict.shown


def test_a_hand_over_the_next_hole_and_its_neighbours_is_no_move():
    board, state = committed("44")
    hand = {lowest_free_hole(board, 1): [0.1, 0.8, 0.1],  # the hand looks like a red disc
            lowest_free_hole(board, 2): [0.45, 0.1, 0.45],  # and leaves its neighbours
            lowest_free_hole(board, 3): [0.45, 0.1, 0.45]}  # unsure
    reading = reading_of(board.play(1).grid_lines(), override=hand)
    for cell in hand:
        reading.cell_looks[cell] = 90.0  # every covered hole looks changed
    _, verdict = believe(state, reading, 0.0, PARAMS)
    assert verdict.leader is None


def test_a_hand_still_over_the_only_discs_is_no_new_game_while_it_leaves_holes_unsure():
    """A board read again answers for the holes it keeps: a hand held over the game's
    only discs, read as empty holes, leaves the empty holes around it unsure, so the
    empty board it reads never leads "something else"."""
    board, state = committed("44")  # column 4: R, Y
    covered = {38: [0.97, 0.015, 0.015], 31: [0.97, 0.015, 0.015]}  # the discs: "empty"
    around = {hole: [0.55, 0.3, 0.15] for hole in (30, 32, 24, 23, 25)}  # kept empty, unsure
    reading = reading_of(EMPTY_GRID, override={**covered, **around})
    for cell in (*covered, *around):
        reading.cell_looks[cell] = 90.0  # the hand's look
    alone = decide(reading.cell_log_probs, 2.5)
    assert alone.status == OK and grid(alone.board) == tuple(EMPTY_GRID)  # read alone: emptied
    state, verdict, kinds = run(state, [reading] * 40)  # 4 s
    assert not kinds and state.committed == board and grid(state.reread) == tuple(EMPTY_GRID)


def test_a_change_that_comes_and_goes_restarts_the_settle_clock():
    board, state = committed("44")
    hand = reading_of([".......", ".......", ".......", ".......", "YYY....", "YYY...."])
    state, _ = believe(state, hand, 0.0, PARAMS)
    state, back = believe(state, reading_of(board.grid_lines()), 0.3, PARAMS)
    assert back.shown and state.unsure_since is None
    state, _ = believe(state, hand, 0.9, PARAMS)
    assert state.unsure_since == 0.9


def test_a_lost_board_does_not_restart_the_settle_clock():
    board, state = committed("44")
    hand = reading_of([".......", ".......", ".......", ".......", "YYY....", "YYY...."])
    state, _ = believe(state, hand, 0.0, PARAMS)
    state, _ = believe(state, Reading(NO_BOARD), 0.5, PARAMS)
    assert state.unsure_since == 0.0


def test_a_change_the_readers_confirm_keeps_the_board_shown_then_rebases():
    board, state = committed("44")
    looks = {key: value + 60 for key, value in LOOKS.items()}  # the light changed for good
    frame = reading_of(board.grid_lines(), looks_of=looks)
    state, first = believe(state, frame, 0.0, PARAMS)
    assert first.kind == CHANGED and first.shown
    state, later = believe(state, frame, REBASE_S, PARAMS)
    assert later.kind == CHANGED and later.shown
    _, after = believe(state, frame, REBASE_S + 0.1, PARAMS)
    assert after.kind == UNCHANGED and after.shown  # the new looks are the baseline


def test_a_doubted_first_disc_is_never_read_away():
    board, state = committed("")
    hole = lowest_free_hole(board, 4)
    reading = reading_of(board.play(4).grid_lines(), override={hole: [0.5, 0.4, 0.1]})
    state, verdict, kinds = run(state, [reading] * 20)
    assert not kinds and not verdict.shown  # the empty board is not shown over it


def test_readers_very_sure_of_a_disc_overrule_an_unchanged_hole():
    board, state = committed("4455")
    seen = Board.from_moves("445512").grid_lines()  # two discs: read again
    sure_red = {lowest_free_hole(board, 3): [1e-5, 1 - 2e-5, 1e-5]}  # unchanged, 11 nats
    state, _, kinds = run(state, [reading_of(seen, override=sure_red)] * 20)
    assert kinds and grid(state.committed)[5][:3] == "RYR"


def test_slow_light_drift_is_followed_not_taken_for_a_change():
    board, state = committed("44")
    for step in range(1, 300):  # every hole brightens by 0.2 units a frame: 60 in 30 s
        looks = {key: value + 0.2 * step for key, value in LOOKS.items()}
        state, verdict = believe(state, reading_of(board.grid_lines(), looks_of=looks),
                                 step / 10, PARAMS)
        assert verdict.kind == UNCHANGED and verdict.shown, step


def test_a_board_nobody_can_read_is_not_shown():
    board, state = committed("44")
    looks = {key: value + 60 for key, value in LOOKS.items()}
    unsure = {index: [0.34, 0.33, 0.33] for index in range(42)}
    _, dark = believe(state, reading_of(board.grid_lines(), looks_of=looks, override=unsure),
                      0.0, PARAMS)
    assert not dark.shown and dark.leader is None


def test_the_next_disc_is_followed_while_a_hand_still_darkens_other_holes():
    board, state = committed("4453")
    after = board.play(1)
    reading = reading_of(after.grid_lines())
    for cell in (0, 1, 2, 3):  # the top row under the leaving hand, still read empty
        reading.cell_looks[cell] = LOOKS["."] + 30
    _, verdict = believe(state, reading, 0.0, PARAMS)
    assert grid(verdict.leader) == grid(after)


def test_a_finished_game_has_no_next_disc():
    board, state = committed("1212121")
    assert board.is_finished
    seen = list(board.grid_lines())
    seen[5] = seen[5][:2] + "Y" + seen[5][3:]
    _, verdict = believe(state, reading_of(seen), 0.0, PARAMS)
    assert verdict.leader is None


def test_the_start_prior_reads_an_empty_board_with_one_doubtful_hole():
    doubt = {40: [0.35, 0.4, 0.25]}  # column 6 row 1: red a little ahead of empty
    _, verdict = believe(BeliefState(), reading_of(EMPTY_GRID, override=doubt), 0.0, PARAMS)
    assert grid(verdict.leader) == EMPTY_GRID


@pytest.mark.parametrize("sure", [0.9, 0.99])
def test_the_start_prior_never_hides_a_disc_the_readers_see(sure):
    seen = Board.from_moves("6").grid_lines()
    _, verdict = believe(BeliefState(), reading_of(seen, sure=sure), 0.0, PARAMS)
    assert verdict.leader is None or grid(verdict.leader) == tuple(seen)


def test_an_illegal_board_seen_is_never_a_leader_before_any_board():
    seen = ["......."] * 5 + ["YY....."]  # Yellow twice: no game leaves this
    _, verdict = believe(BeliefState(), reading_of(seen, sure=0.99), 0.0, PARAMS)
    assert verdict.leader is None


def test_discs_taken_out_are_an_override_and_only_the_empty_board_a_new_game():
    board, state = committed("4444333")
    after = Board.from_moves("4")  # six discs gone, one left
    state, _, kinds = run(state, [reading_of(after.grid_lines())] * 30)
    assert kinds == [COMMIT_OVERRIDE] and state.committed.moves is None
    assert commit_kind(board, Board.from_moves("")) == COMMIT_NEW_GAME
    assert commit_kind(Board.from_moves("44443331"), Board.from_moves("4")) == COMMIT_OVERRIDE


def test_a_board_the_other_colour_started_is_never_committed():
    board, state = committed("44")  # Red started, followed from the empty board
    yellow_started = ["......."] * 4 + ["...R...", "..YY..."]
    state, verdict, kinds = run(state, [reading_of(yellow_started)] * 40)
    assert not kinds and state.committed == board and verdict.leader is None


def test_the_side_to_moves_colour_must_lead_the_other():
    board, state = committed("44")  # red to move
    hole = lowest_free_hole(board, 1)
    yellowish = reading_of(board.play(1).grid_lines(), override={hole: [0.01, 0.40, 0.59]})
    _, verdict = believe(state, yellowish, 0.0, PARAMS)
    assert verdict.leader is None and not verdict.shown


def test_a_cleared_board_is_read_again_after_settle_s_then_a_new_game():
    board, state = committed("4453")
    frames = [reading_of(EMPTY_GRID)] * 15
    _, _, kinds = run(state, frames[:14])
    assert not kinds  # 1 s unsure (a hand over the discs, maybe), read again, led 0.3 s
    _, _, kinds = run(state, frames)
    assert kinds == [COMMIT_NEW_GAME]


def hand_over(board: Board, columns=(1, 2, 3)):
    """A frame of ``board`` with a hand over the lowest free holes of ``columns``: they
    look changed and the readers are torn between empty and yellow there."""
    cover = {lowest_free_hole(board, column): [0.45, 0.1, 0.45] for column in columns}
    reading = reading_of(board.grid_lines(), override=cover)
    for cell in cover:
        reading.cell_looks[cell] = 90.0
    return reading


def discs_read_again(columns="12"):
    """Committed 44, then discs at once (1 then 2, or ``columns``): read again after
    settle_s."""
    board, state = committed("44")
    after = board
    for column in columns:
        after = after.play(int(column))
    state, verdict, kinds = run(state, [reading_of(after.grid_lines())] * 11)
    assert not kinds and grid(state.reread) == grid(after) and verdict.leader is None
    return after, state


@pytest.mark.parametrize("columns", ["12", "12356"])
def test_no_leader_frames_pause_a_leaders_count_and_do_not_end_it(columns):
    """Two discs (or five: however many moves were missed) read again, then a hand in
    every other frame: the board read again leads in every frame the hand leaves, and
    is committed as a next board after four of them."""
    after, state = discs_read_again(columns)
    frames = [reading_of(after.grid_lines()), hand_over(after, (5, 6, 7))] * 4
    _, verdict = believe(state, frames[1], 1.1, PARAMS)
    assert verdict.leader is None  # the hand frame: no board leads
    state, verdict, kinds = run(state, frames, start=1.1)
    assert kinds == [COMMIT_NEXT] and grid(state.committed) == grid(after)


def wall_behind(grid_lines, wall: int, looks_like: str | None = None):
    """A reading of ``grid_lines`` whose room behind the empty hole ``wall`` the readers
    read as a yellow disc (and whose look is a disc's, ``looks_like``)."""
    reading = reading_of(grid_lines, override={wall: [0.02, 0.02, 0.96]})
    if looks_like:
        reading.cell_looks[wall] = LOOKS[looks_like]
    return reading


@pytest.mark.parametrize("looks_like", [None, "Y"])
def test_a_cleared_board_whose_room_mimics_the_top_disc_is_not_shown_as_r(looks_like):
    """The table cleared, the room behind column 4 row 2 (where R had its yellow) read
    yellow: R is not shown, and the new game's first disc is not committed onto the old
    column (a review's case against a gravity rule tried, docs/pipeline.md)."""
    board, state = committed("44")
    wall = lowest_free_hole(board, 4) + 7
    empty = wall_behind(EMPTY_GRID, wall, looks_like)
    shown = [believe(state, empty, index * 0.1, PARAMS)[1].shown for index in range(40)]
    assert not any(shown)
    first = wall_behind(Board.from_moves("1").grid_lines(), wall, looks_like)
    _, _, kinds = run(state, [first] * 40)
    assert not kinds


def shown_wrong(state, segments):
    """Frames showing a board that is not on the table: ``segments`` of (table, frames,
    the hole whose room reads as ``colour``, whether its look is a disc's)."""
    found, now = [], 0.0
    for lines, frames, wall, colour, looks_like in segments:
        for index in range(frames):
            probs = [0.02, 0.02, 0.02]
            probs[".RY".index(colour)] = 0.96
            reading = reading_of(lines, override={wall: probs},
                                 rng=np.random.default_rng(index))
            if looks_like:
                reading.cell_looks[wall] = LOOKS[colour]
            state, verdict = believe(state, reading, now, PARAMS)
            if verdict.shown and grid(state.committed) != tuple(lines):
                found.append((round(now, 1), "/".join(grid(state.committed))))
            now += 0.1
    return found


@pytest.mark.parametrize("looks_like", [False, True])
def test_discs_taken_back_or_a_new_game_under_a_room_that_mimics_a_disc_show_no_old_board(
        looks_like):
    """A second review's cases against the gravity rule tried: two moves taken back
    from column 4 (the room behind the old top reads yellow), then play goes on; and a
    new game on a cleared board whose room behind R's top red reads red."""
    _, state = committed("123444")
    wall = lowest_free_hole(Board.from_moves("1234"), 4) - 7  # column 4 row 3
    segments = [(Board.from_moves(moves).grid_lines(), 20, wall, "Y", looks_like)
                for moves in ("1234", "12345")]
    assert shown_wrong(state, segments) == []
    _, state = committed("444")
    segments = [(Board.from_moves(moves).grid_lines(), 10, wall, "R", looks_like)
                for moves in ("", "4", "41", "412", "4121")]
    assert shown_wrong(state, segments) == []


def test_a_lower_disc_read_as_the_other_colour_does_not_show_r():
    """Column 4 red under yellow, the red's look changed and the readers slightly
    favouring yellow there: R is not shown."""
    board, state = committed("44")
    bottom = lowest_free_hole(board, 4) + 14
    reading = reading_of(board.grid_lines(), override={bottom: [0.05, 0.45, 0.5]})
    reading.cell_looks[bottom] = LOOKS["R"] + 30
    _, verdict = believe(state, reading, 0.0, PARAMS)
    assert not verdict.shown


def test_a_next_disc_must_lead_in_frames_in_a_row():
    """A next board's count ends at a frame where no board leads: a disc the readers
    doubt in every other frame is never committed."""
    board, state = committed("44")
    after = board.play(1)
    frames = [reading_of(after.grid_lines()), hand_over(after, (5, 6, 7))] * 6
    _, _, kinds = run(state, frames)
    assert not kinds


def test_a_disc_taken_out_must_lead_in_frames_in_a_row_even_read_again():
    """A disc read away in every other frame (a reader misreading a committed disc
    as empty, view 41,019 without markers) is never committed, even read again."""
    board, state = committed("4453")
    taken = Board.from_moves("445")
    state, _, kinds = run(state, [reading_of(taken.grid_lines())] * 11)
    assert not kinds and grid(state.reread) == grid(taken)
    frames = [reading_of(taken.grid_lines()), hand_over(taken, (1, 2, 7))] * 10
    state, _, kinds = run(state, frames, start=1.1)
    assert not kinds and grid(state.committed) == grid(board)


def test_a_frame_read_as_another_board_ends_the_count_of_a_board_read_again():
    """Two discs read again, the board away while a third is played, then back: the
    frames that show the table as it is (three discs, no hypothesis) end the count
    of the stale board read again, however often it leads in between."""
    after, state = discs_read_again()
    now = after.play(3)
    frames = [reading_of(after.grid_lines()), reading_of(now.grid_lines())] * 6
    for start, kept in ((1.1, state), (3.0, state.lost())):
        _, _, kinds = run(kept, frames, start=start)
        assert not kinds


def test_one_disc_read_again_is_a_next_board_and_leads_in_frames_in_a_row():
    board, state = committed("44")
    after = board.play(1)
    state = replace(state, reread=after)
    frames = [reading_of(after.grid_lines()), hand_over(after, (5, 6, 7))] * 6
    _, _, kinds = run(state, frames)
    assert not kinds


def test_settle_s_without_any_leader_ends_the_count_of_a_board_read_again():
    after, state = discs_read_again()
    state, _, _ = run(state, [reading_of(after.grid_lines())] * 2, start=1.1)
    assert state.leader_frames == 2
    hand = hand_over(after, (5, 6, 7))
    state, _, _ = run(state, [hand] * 12, start=1.3)  # 1.1 s
    assert state.leader is None and state.leader_frames == 0


def test_the_board_read_again_outlasts_the_board_going_away():
    after, state = discs_read_again()
    back = state.lost()
    assert grid(back.reread) == grid(after) and back.leader is None
    _, _, kinds = run(back, [reading_of(after.grid_lines())] * 4, start=3.0)
    assert kinds == [COMMIT_NEXT]  # no second settle_s once the board is back


def test_a_slow_camera_commits_after_four_frames_not_after_0_3_s():
    board, state = committed("44")
    after = reading_of(board.play(1).grid_lines())
    state, _, kinds = run(state, [after] * 3, step=0.5)
    assert not kinds
    state, _, kinds = run(state, [after], start=1.5)
    assert kinds == [COMMIT_NEXT]


def test_a_board_committed_without_looks_takes_them_when_first_shown():
    board = Board.from_moves("44")
    state = BeliefState(committed=board)
    state, verdict = believe(state, reading_of(board.grid_lines()), 0.0, PARAMS)
    assert verdict.shown and state.baseline is not None
    _, verdict = believe(state, reading_of(board.grid_lines()), 0.1, PARAMS)
    assert verdict.kind == UNCHANGED


def test_a_committed_board_keeps_its_moves_when_they_are_certain():
    board, state = committed("4453")
    state, _, _ = run(state, [reading_of(board.play(2).grid_lines())] * 4)
    assert state.committed.moves == "44532"
    _, state = committed("")
    state, _, kinds = run(state, [reading_of(Board.from_moves("4", "Y").grid_lines())] * 4)
    assert kinds == [COMMIT_NEXT] and state.committed.moves == "4"
    assert state.committed.first == "Y"  # the first disc said who started


def test_a_followed_winning_disc_is_never_sent_to_the_solver():
    from firmware_py.pipeline.events import ReadingSeen, StartSolve
    from firmware_py.pipeline.reducer import PipelineParams, PipelineState, reduce

    params, state, solved = PipelineParams(), PipelineState(), []
    frames = [Board.from_moves("121212")] * 8 + [Board.from_moves("1212121")] * 8
    for index, board in enumerate(frames):
        reading = reading_of(board.grid_lines())
        reading = Reading(OK, grid=reading.grid, board=board, confidence=0.99,
                          cell_confidence=(0.99,) * 42, markers=4,
                          cell_looks=reading.cell_looks, cell_log_probs=reading.cell_log_probs)
        reading = as_read(reading, state.belief.expectation, params.belief)
        state, effects = reduce(state, ReadingSeen(reading), index / 10, params)
        solved += [effect.board for effect in effects if isinstance(effect, StartSolve)]
    assert state.reference.is_finished
    assert solved and all(not board.is_finished for board in solved)


def as_room(reading, cells):
    """``reading`` with ``cells`` looking as the empty holes do (the room's red seen
    through them looks the same whatever the readers call it)."""
    reading.cell_looks[cells] = LOOKS["."]
    return reading


def test_a_disc_seen_to_change_colour_before_the_first_board_starts_no_game_mid_way():
    """The room red through column 1's two lowest holes and column 2's lowest, read as
    discs from the first frame (an illegal board, refused), then a real yellow covering
    column 2's: the grid seen is now a legal board, but a red held for seconds does not
    turn yellow; it was the room, and so may the others be: nothing is committed, until
    a disc seen to land on column 1 proves the two below it discs."""
    room = {35: [0.02, 0.96, 0.02], 28: [0.02, 0.96, 0.02], 36: [0.02, 0.96, 0.02]}
    first = [reading_of(EMPTY_GRID, override=room, rng=np.random.default_rng(i))
             for i in range(30)]
    state, verdict, kinds = run(BeliefState(), first)
    assert kinds == [] and verdict.leader is None  # three reds: no board
    covered = Board.from_grid(["......."] * 4 + ["R......", "RY....."], "red")
    later = [as_room(reading_of(covered.grid_lines(), rng=np.random.default_rng(i)), [35, 28])
             for i in range(50)]
    state, verdict, kinds = run(state, later, start=3.0)
    assert kinds == [] and state.committed is None
    assert "red disc seen at column 2 row 1 became yellow" in state.steady.contradiction
    on_top = Board.from_grid(["......."] * 3 + ["Y......", "R......", "RY....."], "red")
    landed = [as_room(reading_of(on_top.grid_lines(), rng=np.random.default_rng(i)), [35, 28])
              for i in range(20)]
    state, verdict, kinds = run(state, landed, start=8.0)  # a yellow seen to land on them:
    assert kinds == ["first"] and grid(state.committed) == grid(on_top)  # they are discs


def test_a_disc_seen_to_appear_under_one_seen_before_starts_no_game_mid_way():
    """Column 3's second hole read red from the first frame, so surely that it beats
    first sight's room hold, above an empty lowest hole; a yellow then seen in that
    lowest hole makes a legal board a game cannot reach: discs fall, so the lower
    one would have been there first."""
    sure_red = {30: [1e-5, 1 - 2e-5, 1e-5]}
    first = (".......",) * 4 + ("..R....", ".......")
    seen = [reading_of(first, override=sure_red, rng=np.random.default_rng(i))
            for i in range(30)]
    state, _, kinds = run(BeliefState(), seen)
    assert kinds == []
    below = Board.from_grid(["......."] * 4 + ["..R....", "..Y...."], "yellow")
    later = [reading_of(below.grid_lines(), override=sure_red, rng=np.random.default_rng(i))
             for i in range(50)]
    for index, reading in enumerate(later):
        state, verdict = believe(state, reading, 3.0 + index * 0.1, PARAMS)
        assert not verdict.committed
    assert "appeared at column 3 row 1 under one seen before it" in state.steady.contradiction


def test_discs_that_change_as_games_do_start_a_game_first_seen_mid_way():
    """A board seen mid-game whose discs only ever grew on top, and a board cleared and
    played again before the first commit, contradict nothing."""
    from firmware_py.pipeline.first_sight import SteadyGrid

    def sure(grid):
        return reading_of(grid, sure=0.98).cell_log_probs

    steady = SteadyGrid()
    boards = [Board.from_moves(moves) for moves in ("4", "44", "")]  # then cleared
    boards.append(Board.from_grid(["......."] * 5 + ["...Y..."], "either"))  # Yellow, anew
    now = 0.0
    for board in boards:
        for _ in range(15):
            steady = steady.see(sure(board.grid_lines()), now, PARAMS.margin, 1.0)
            now += 0.1
    assert steady.contradiction == ""
    assert steady.why_not(np.array([".RY".index(c) for c in "".join(
        Board.from_grid(["......."] * 4 + ["...R...", "...Y..."], "either").grid_lines())]),
        now) == ""
    assert "became red" in steady.why_not(np.array([".RY".index(c) for c in "".join(
        Board.from_grid(["......."] * 5 + ["...R..."], "red").grid_lines())]), now)


def test_after_the_room_showed_as_a_disc_discs_seen_to_arrive_are_believed():
    """The room red through column 2's lowest hole, then a yellow covering it and a red
    landing in column 3: every disc of that board was seen to arrive, so it is
    committed once the yellow has been held (the room red it replaced was no disc)."""
    room = {36: [0.02, 0.96, 0.02]}
    state, _, kinds = run(BeliefState(), [reading_of(EMPTY_GRID, override=room,
                                                     rng=np.random.default_rng(i))
                                          for i in range(30)])
    assert kinds == []
    yellow = Board.from_grid(["......."] * 5 + [".Y....."], "either")
    state, _, kinds = run(state, [reading_of(yellow.grid_lines(), rng=np.random.default_rng(i))
                                  for i in range(30)], start=3.0)
    assert "became yellow" in state.steady.contradiction
    then = Board.from_grid(["......."] * 5 + [".YR...."], "either")
    state, _, kinds = run(state, [reading_of(then.grid_lines(), rng=np.random.default_rng(i))
                                  for i in range(30)], start=6.0)
    assert state.committed is not None and grid(state.committed) in (grid(yellow), grid(then))


def test_the_first_sight_doubt_is_said_until_a_board_is_committed():
    from firmware_py.pipeline.belief import first_sight_doubt

    room = {36: [0.02, 0.96, 0.02]}
    state, _, _ = run(BeliefState(), [reading_of(EMPTY_GRID, override=room,
                                                 rng=np.random.default_rng(i))
                                      for i in range(30)])
    assert first_sight_doubt(state) == ""
    yellow = Board.from_grid(["......."] * 5 + [".Y....."], "either")
    state, _, _ = run(state, [reading_of(yellow.grid_lines(), rng=np.random.default_rng(i))
                              for i in range(30)], start=3.0)
    assert first_sight_doubt(state) == "a red disc seen at column 2 row 1 became yellow"
    then = Board.from_grid(["......."] * 5 + [".YR...."], "either")
    state, _, kinds = run(state, [reading_of(then.grid_lines(), rng=np.random.default_rng(i))
                                  for i in range(30)], start=6.0)
    assert kinds == ["first"] and first_sight_doubt(state) == ""


def test_a_red_disc_landing_on_the_rooms_red_is_seen_to_arrive_by_its_look():
    """The room's red through column 1's lowest hole and column 2's, then a yellow on
    column 2's (the contradiction): a red disc landing on column 1's room red does not
    change what the readers say, but the hole looks otherwise for good: it arrived,
    and the board is committed; while it still shows the room, it is not."""
    room = {35: [0.02, 0.96, 0.02], 36: [0.02, 0.96, 0.02]}
    state, _, kinds = run(BeliefState(), [reading_of(EMPTY_GRID, override=room,
                                                     rng=np.random.default_rng(i))
                                          for i in range(30)])
    board = Board.from_grid(["......."] * 5 + ["RY....."], "red")
    still_room = [as_room(reading_of(board.grid_lines(), rng=np.random.default_rng(i)), [35])
                  for i in range(30)]
    state, _, kinds = run(state, still_room, start=3.0)
    assert kinds == [] and "became yellow" in state.steady.contradiction
    landed = [reading_of(board.grid_lines(), rng=np.random.default_rng(i)) for i in range(30)]
    state, _, kinds = run(state, landed, start=6.0)  # column 1's hole: the red disc's look
    assert kinds == ["first"] and grid(state.committed) == grid(board)


def test_a_hole_whose_room_look_was_learnt_under_a_hand_never_arrives_by_its_look():
    """(Review) a hand over column 1 for one frame reads its lowest hole surely empty,
    so first sight learns the hand's look as the room's for the hole above, where the
    room's red is held as a disc: that hole then never looks "as expected", which must
    not count as a disc landing there; a hand over a held disc is no new look either."""
    room = {35: [0.02, 0.96, 0.02], 28: [0.02, 0.96, 0.02], 36: [0.02, 0.96, 0.02]}
    first = [as_room(reading_of(EMPTY_GRID, override=room, rng=np.random.default_rng(i)),
                     [35, 28, 36]) for i in range(30)]
    state, _, _ = run(BeliefState(), first)
    hand = as_room(reading_of(EMPTY_GRID, override={28: [0.3, 0.4, 0.3], 36: room[36]},
                              rng=np.random.default_rng(99)), [36])
    hand.cell_looks[28] = 90.0
    state, _, _ = run(state, [hand], start=3.0)
    same = [as_room(reading_of(EMPTY_GRID, override=room, rng=np.random.default_rng(i)),
                    [35, 28, 36]) for i in range(30)]
    state, _, _ = run(state, same, start=3.1)
    covered = Board.from_grid(["......."] * 4 + ["R......", "RY....."], "red")
    later = [as_room(reading_of(covered.grid_lines(), rng=np.random.default_rng(i)), [35, 28])
             for i in range(50)]
    hand_on_35 = np.zeros(42, bool)
    hand_on_35[35] = True  # a hand resting on the room's red below
    for index, reading in enumerate(later[:20]):
        reading.cell_looks[35] = 90.0
        later[index] = replace(reading, cell_covered=hand_on_35)
    state, _, kinds = run(state, later, start=6.1)
    assert "became yellow" in state.steady.contradiction
    assert kinds == [] and state.committed is None
