"""The game follower (:mod:`firmware_py.pipeline.follow`) on constructed readings.

Each reading is built from a grid: every hole's look is a fixed vector per
class (plus a little noise), and the readers' log-probabilities say the
class with a chosen confidence, so each rule is driven on its own.
"""

from __future__ import annotations

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.pipeline.follow import (
    CONFIRMED,
    EMPTY_GRID,
    MOVING,
    READING,
    SOMETHING_ELSE,
    SUCCESSOR,
    UNCHANGED,
    FollowParams,
    FollowState,
    follow,
    lowest_free_holes,
    rebase,
)
from firmware_py.vision.decide import decide
from firmware_py.vision.reading import NO_BOARD, OK, Reading

LOOKS = {".": np.full(12, 40.0), "R": np.full(12, 140.0), "Y": np.full(12, 220.0)}
PARAMS = FollowParams()


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
    return board, rebase(FollowState(), reading_of(board.grid_lines()))


def test_nothing_to_follow_reads_the_board_in_full():
    board = Board.from_moves("44")
    state, verdict = follow(FollowState(), None, reading_of(board.grid_lines()), 0.0, PARAMS,
                            None)
    assert verdict.kind == READING and verdict.board.grid_lines() == board.grid_lines()


def test_a_reader_without_looks_is_passed_through():
    reading = Reading(OK, grid=tuple(Board.from_moves("4").grid_lines()))
    _, verdict = follow(FollowState(), None, reading, 0.0, PARAMS, ("full",))
    assert verdict.kind == READING and verdict.grid == ("full",)


def test_the_room_seen_through_a_hole_before_the_first_board_is_never_a_disc():
    room = {20: [0.02, 0.96, 0.02]}  # column 7 row 4: a red wall, "red" to both readers
    first = reading_of(EMPTY_GRID, override=room)  # rows 1-3 empty below it: it floats
    state, _ = follow(FollowState(), None, first, 0.0, PARAMS, None)
    later = Board.from_moves("7771")  # rows 1-3 of column 7 now hold R Y R
    reading = reading_of(later.grid_lines(), override=room)  # the wall: still read red
    reading.cell_looks[20] = first.cell_looks[20]  # ... and it looks as it did
    alone = decide(reading.cell_log_probs, 2.5)
    assert alone.board is not None and alone.board.columns[6] == "RYRR"  # legal, wrong
    _, verdict = follow(state, None, reading, 5.0, PARAMS, None)
    assert verdict.board.grid_lines() == later.grid_lines()


def test_proven_empty_is_every_hole_above_a_sure_empty_one():
    from firmware_py.pipeline.first_sight import proven_empty

    probs = np.full((42, 3), 0.01)
    probs[:, 1] = 0.98  # every hole a red disc ...
    probs[38, :] = [0.98, 0.01, 0.01]  # ... but column 4 row 1 surely empty
    proven = proven_empty(np.log(probs))
    assert set(np.flatnonzero(proven)) == {3, 10, 17, 24, 31}  # column 4, rows 2-6


def test_an_unchanged_board_is_the_committed_board_whatever_the_readers_say():
    board, state = committed("44")
    # the readers now say a red disc at column 1, but its hole looks as it did
    doubt = {35: [0.2, 0.7, 0.1]}
    reading = reading_of(board.grid_lines(), override=doubt)
    _, verdict = follow(state, board, reading, 0.0, PARAMS, None)
    assert verdict.kind == UNCHANGED and verdict.board == board


@pytest.mark.parametrize("column", range(1, 8))
def test_one_disc_of_the_side_to_move_at_a_lowest_hole_is_the_next_board(column):
    board, state = committed("4453")
    after = board.play(column)
    _, verdict = follow(state, board, reading_of(after.grid_lines()), 0.0, PARAMS, None)
    assert verdict.kind == SUCCESSOR and verdict.board.grid_lines() == after.grid_lines()
    assert len(verdict.changed) == 1


def doubted_next_disc(moves: str, column: int, probs: list[float]):
    """The board of ``moves``, its follower state, and a frame of the next disc in
    ``column`` that the readers see with ``probs`` (empty, red, yellow)."""
    board, state = committed(moves)
    hole = lowest_free_holes(board)[column]
    return board, state, reading_of(board.play(column).grid_lines(), override={hole: probs})


def test_a_disc_the_readers_doubt_is_not_followed():
    board, state, reading = doubted_next_disc("44", 1, [0.4, 0.5, 0.1])
    _, verdict = follow(state, board, reading, 0.0, PARAMS, None)
    assert verdict.kind == MOVING and verdict.grid is None


def test_a_disc_of_the_wrong_colour_pauses_then_goes_to_the_full_reading():
    board, state = committed("44")  # red to move
    wrong = list(board.grid_lines())
    wrong[5] = "Y" + wrong[5][1:]
    state, first = follow(state, board, reading_of(wrong), 0.0, PARAMS, ("full",))
    assert first.kind == MOVING and first.grid is None
    state, still = follow(state, board, reading_of(wrong), 0.5, PARAMS, ("full",))
    assert still.kind == MOVING
    _, settled = follow(state, board, reading_of(wrong), 1.0, PARAMS, ("full",))
    assert settled.kind == SOMETHING_ELSE and settled.grid is None  # illegal: never voted


@pytest.mark.parametrize("moves, after", [("4455", "445"), ("4455", "445512"),
                                          ("4455", "")])
def test_a_lasting_change_is_read_again_holding_the_unchanged_holes(moves, after):
    board, state = committed(moves)
    # every unchanged hole is read as a doubtful disc: only the changed ones are read again
    doubt = {index: [0.3, 0.4, 0.3] for index in range(14)}
    reading = reading_of(Board.from_moves(after).grid_lines(), override=doubt)
    state, _ = follow(state, board, reading, 0.0, PARAMS, None)
    _, settled = follow(state, board, reading, 1.0, PARAMS, None)
    assert settled.kind == SOMETHING_ELSE
    assert settled.grid == tuple(Board.from_moves(after).grid_lines())


@pytest.mark.parametrize("case", ["two discs", "disc taken out", "disc above the hole"])
def test_changes_no_next_disc_explains_pause(case):
    board, state = committed("4455")
    if case == "two discs":
        grid = board.play(1).play(2).grid_lines()
    elif case == "disc taken out":
        grid = Board.from_moves("445").grid_lines()
    else:  # a falling disc, one hole above column 1's lowest free hole
        grid = list(board.grid_lines())
        grid[4] = "R" + grid[4][1:]
    _, verdict = follow(state, board, reading_of(grid), 0.0, PARAMS, ("full",))
    assert verdict.kind == MOVING and verdict.grid is None


def test_a_change_that_comes_and_goes_restarts_the_settle_clock():
    board, state = committed("44")
    hand = [".......", ".......", ".......", ".......", "YYY....", "YYY...."]
    state, _ = follow(state, board, reading_of(hand), 0.0, PARAMS, None)
    for step in range(3):  # three unchanged frames end the change
        state, back = follow(state, board, reading_of(board.grid_lines()), 0.3 + step / 10,
                             PARAMS, None)
        assert back.kind == UNCHANGED
    state, again = follow(state, board, reading_of(hand), 0.9, PARAMS, None)
    _, later = follow(state, board, reading_of(hand), 1.5, PARAMS, None)
    assert again.kind == MOVING and later.kind == MOVING  # 0.6 s since it came back


def test_one_calm_frame_or_a_lost_board_does_not_restart_the_settle_clock():
    board, state = committed("44")
    hand = [".......", ".......", ".......", ".......", "YYY....", "YYY...."]
    state, _ = follow(state, board, reading_of(hand), 0.0, PARAMS, None)
    state, _ = follow(state, board, reading_of(board.grid_lines()), 0.3, PARAMS, None)
    state, lost = follow(state, board, Reading(NO_BOARD), 0.5, PARAMS, None)
    assert lost.kind == READING and lost.grid is None
    _, settled = follow(state, board, reading_of(hand), 1.0, PARAMS, None)
    assert settled.kind == SOMETHING_ELSE


def test_a_change_the_frame_reads_as_the_board_keeps_it_shown_then_rebases():
    board, state = committed("44")
    looks = {key: value + 60 for key, value in LOOKS.items()}  # the light changed for good
    frame = reading_of(board.grid_lines(), looks_of=looks)
    grid = tuple(board.grid_lines())
    state, first = follow(state, board, frame, 0.0, PARAMS, grid)
    assert first.kind == CONFIRMED and first.grid == grid
    state, later = follow(state, board, frame, PARAMS.rebase_s, PARAMS, grid)
    assert later.kind == CONFIRMED
    _, after = follow(state, board, frame, PARAMS.rebase_s + 0.1, PARAMS, None)
    assert after.kind == UNCHANGED  # the new looks are the baseline


def test_a_doubted_first_disc_is_never_read_away_by_the_start_prior():
    board, state, reading = doubted_next_disc("", 4, [0.5, 0.4, 0.1])
    state, _ = follow(state, board, reading, 0.0, PARAMS, None)
    _, settled = follow(state, board, reading, 1.0, PARAMS, None)
    assert settled.kind == SOMETHING_ELSE and settled.grid is None  # refused, not "empty"


def test_readers_very_sure_of_a_disc_overrule_an_unchanged_hole():
    board, state = committed("4455")
    grid = Board.from_moves("445512").grid_lines()  # two discs: read again
    sure_red = {lowest_free_holes(board)[3]: [1e-5, 1 - 2e-5, 1e-5]}  # unchanged, 11 nats
    reading = reading_of(grid, override=sure_red)
    state, _ = follow(state, board, reading, 0.0, PARAMS, None)
    _, settled = follow(state, board, reading, 1.0, PARAMS, None)
    assert settled.grid is not None and settled.grid[5][:3] == "RYR"


def test_slow_light_drift_is_followed_not_taken_for_a_change():
    board, state = committed("44")
    for step in range(1, 300):  # every hole brightens by 0.2 units a frame: 60 in 30 s
        looks = {key: value + 0.2 * step for key, value in LOOKS.items()}
        state, verdict = follow(state, board, reading_of(board.grid_lines(), looks_of=looks),
                                step / 10, PARAMS, None)
        assert verdict.kind == UNCHANGED, step


def test_a_sudden_light_change_is_no_move():
    board, state = committed("44")
    looks = {key: value + 60 for key, value in LOOKS.items()}
    _, read = follow(state, board, reading_of(board.grid_lines(), looks_of=looks), 0.0,
                     PARAMS, None)
    assert read.kind == CONFIRMED and read.board == board  # the readers read it as it was
    unsure = {index: [0.34, 0.33, 0.33] for index in range(42)}
    _, dark = follow(state, board, reading_of(board.grid_lines(), looks_of=looks,
                                              override=unsure), 0.0, PARAMS, None)
    assert dark.kind == MOVING and dark.grid is None  # nor is it a board nobody can read


def test_the_next_disc_is_followed_while_a_hand_still_darkens_other_holes():
    board, state = committed("4453")
    after = board.play(1)
    shaded = {key: value + 30 for key, value in LOOKS.items()}
    reading = reading_of(after.grid_lines())
    looks = reading.cell_looks.copy()
    for cell in (0, 1, 2, 3):  # the top row under the leaving hand, still read empty
        looks[cell] = shaded["."]
    reading = Reading(OK, grid=reading.grid, cell_looks=looks,
                      cell_log_probs=reading.cell_log_probs)
    _, verdict = follow(state, board, reading, 0.0, PARAMS, None)
    assert verdict.kind == SUCCESSOR and verdict.board.grid_lines() == after.grid_lines()


def test_a_finished_game_has_no_next_disc():
    board, state = committed("1212121")
    assert board.is_finished
    grid = list(board.grid_lines())
    grid[5] = grid[5][:2] + "Y" + grid[5][3:]
    _, verdict = follow(state, board, reading_of(grid), 0.0, PARAMS, ("full",))
    assert verdict.kind == MOVING


def test_the_start_prior_reads_an_empty_board_with_one_doubtful_hole():
    doubt = {40: [0.35, 0.4, 0.25]}  # column 6 row 1: red a little ahead of empty
    reading = reading_of(EMPTY_GRID, override=doubt)
    _, verdict = follow(FollowState(), None, reading, 0.0, PARAMS, None)
    assert verdict.kind == READING and verdict.grid == EMPTY_GRID


def test_the_start_prior_never_hides_a_disc_the_readers_see():
    grid = Board.from_moves("6").grid_lines()
    reading = reading_of(grid, sure=0.9)
    _, verdict = follow(FollowState(), None, reading, 0.0, PARAMS, None)
    assert verdict.grid == tuple(grid)


def test_rebase_takes_the_committed_frames_looks():
    board = Board.from_moves("4")
    reading = reading_of(board.grid_lines())
    state = rebase(FollowState(), reading)
    np.testing.assert_allclose(state.baseline, reading.cell_looks)
    assert rebase(state, Reading(OK)).baseline is None  # a reader without looks


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
        state, effects = reduce(state, ReadingSeen(reading), index / 10, params)
        solved += [effect.board for effect in effects if isinstance(effect, StartSolve)]
    assert state.reference.is_finished
    assert solved and all(not board.is_finished for board in solved)
