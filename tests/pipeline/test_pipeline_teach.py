"""pipeline/teach.py: only boards the game confirmed are learnt (scripted exchanges)."""

from __future__ import annotations

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.pipeline import teach
from firmware_py.pipeline.belief import CHANGED, UNCHANGED
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.succession import is_next
from firmware_py.vision.hole_looks import HoleLooks, kinds_of
from firmware_py.vision.reading import OK, Reading


def frame(board: Board, shade: float = 0.0) -> Reading:
    """A reading whose looks say each hole's kind (kind * 50 + shade in every number)."""
    looks = np.repeat(kinds_of(board.grid_lines())[:, None] * 50.0 + shade, 12, axis=1)
    return Reading(OK, grid=tuple(board.grid_lines()), board=board, cell_looks=looks)


def teacher(**options) -> LookTeacher:
    return LookTeacher(HoleLooks(), clock=lambda: "2026-11-29T10:00:00+00:00", **options)


def test_a_board_the_next_move_confirms_is_learnt_from_its_latest_unchanged_frame() -> None:
    seen = teacher()
    empty, first = Board.empty(), Board.from_moves("4")
    assert not seen.observe(empty, UNCHANGED, frame(empty, shade=1.0))
    assert not seen.observe(empty, UNCHANGED, frame(empty, shade=2.0))
    assert not seen.observe(empty, CHANGED, frame(first, shade=9.0))  # not unchanged: not kept
    assert seen.observe(first, CHANGED, frame(first))  # committed: the empty board confirmed
    assert seen.looks.boards == 1 and seen.looks.learnt_at == "2026-11-29T10:00:00+00:00"
    assert np.allclose(seen.looks.means[:, 0], 2.0)  # the latest unchanged frame's looks
    assert not seen.looks.counts[:, 1:].any()  # the empty board taught no disc look


@pytest.mark.parametrize("after", ["", "4", "445", "4455", "3"], ids=[
    "cleared", "read again", "two discs", "many discs", "the first disc elsewhere"])
def test_a_board_left_any_other_way_is_never_learnt(after) -> None:
    seen = teacher()
    before = Board.from_moves("4")
    seen.observe(before, UNCHANGED, frame(before))
    new = Board.from_moves(after)  # a new object even when the same board (a re-read)
    assert not is_next(before, new)
    assert not seen.observe(new, UNCHANGED, frame(new))
    assert seen.looks.boards == 0


def test_no_unchanged_frame_no_lesson_and_a_single_reading_never_teaches() -> None:
    seen = teacher()
    board = Board.from_moves("4")
    seen.observe(board, CHANGED, frame(board))
    assert not seen.observe(Board.from_moves("44"), CHANGED, frame(Board.from_moves("44")))
    seen = teacher()
    for _ in range(20):  # readings with nothing committed
        seen.observe(None, "reading", frame(board))
    assert seen.looks.boards == 0


def test_covered_holes_of_the_confirming_frame_teach_nothing() -> None:
    seen = teacher()
    board = Board.empty()
    covered = np.zeros(42, bool)
    covered[:14] = True
    reading = frame(board)
    seen.observe(board, UNCHANGED, Reading(OK, grid=reading.grid, board=board,
                                           cell_looks=reading.cell_looks,
                                           cell_covered=covered))
    seen.observe(Board.from_moves("1"), CHANGED, frame(Board.from_moves("1")))
    assert not seen.looks.counts[:14].any() and seen.looks.counts[14:, 0].all()


def test_stored_every_few_boards_and_at_close_and_a_full_disk_loses_nothing(caplog) -> None:
    writes: list[int] = []

    def store(looks: HoleLooks) -> None:
        writes.append(looks.boards)
        if len(writes) == 1:
            raise OSError(28, "No space left on device")

    seen = teacher(store=store)
    heard: list[int] = []
    seen.on_learnt = lambda looks: heard.append(looks.boards)
    moves = "1234567124"  # and "3": eleven discs, nobody wins (no board follows a four)
    board = Board.empty()
    for column in moves + "3":
        seen.observe(board, UNCHANGED, frame(board))
        board = board.play(int(column))
        seen.observe(board, CHANGED, frame(board))
    assert writes == [teach.STORE_EVERY]
    assert "cannot store the hole looks" in caplog.text
    assert heard == list(range(1, len(moves) + 2))
    seen.close()
    assert writes == [teach.STORE_EVERY, len(moves) + 1]
    seen.close()  # nothing new: not written again
    assert len(writes) == 2


def test_the_empty_board_of_a_game_yellow_starts_is_learnt_too() -> None:
    seen = teacher()
    empty, first = Board.empty(), Board.from_moves("4", first="Y")
    seen.observe(empty, UNCHANGED, frame(empty))
    assert seen.observe(first, CHANGED, frame(first))
    assert seen.looks.boards == 1 and seen.looks.counts[:, 0].all()


def test_only_a_live_camera_teaches_the_stored_board() -> None:
    """The demo's simulated table (live, but not this installation's board) and files
    must never write this installation's looks."""
    from types import SimpleNamespace

    from firmware_py.pipeline.assemble import teaches_this_board

    assert teaches_this_board(SimpleNamespace(live=True, name="camera"))
    assert teaches_this_board(SimpleNamespace(live=True, name="usb:0"))
    assert not teaches_this_board(SimpleNamespace(live=True, name="sim"))
    assert not teaches_this_board(SimpleNamespace(live=False, name="game.mp4"))

