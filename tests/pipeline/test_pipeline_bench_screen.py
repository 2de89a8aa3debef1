"""tools/bench/pipeline.py's screen score: wrong boards shown and positions shown."""

from __future__ import annotations

from c4game.board import Board
from firmware_py.pipeline.events import SOLVED, TRANSITIONAL, View
from firmware_py.pipeline.reducer import PipelineParams
from tools.bench import pipeline as bp


def _view(moves: str, state: str = SOLVED) -> View:
    return View(state, tuple(Board.from_moves(moves).grid_lines()))


def test_a_board_shown_after_it_left_the_table_is_counted_wrong() -> None:
    params = PipelineParams()
    window = bp.SHOWN_LATE_FRAMES
    truths = [Board.from_moves("")] * 10 + [Board.from_moves("4")] * (window + 5)
    lag = window - 1  # the empty board shown just after it left: not wrong
    views = [_view("")] * (10 + lag) + [_view("", TRANSITIONAL)] + [_view("")] * 2 \
        + [_view("4")] * (len(truths) - 13 - lag)
    stats = bp.GameStats()
    bp._score_screen(stats, params, truths, views)
    assert stats.shown_frames == len(truths) - 1  # the transitional frame shows nothing
    assert [frame for frame, _ in stats.shown_wrong] == [11 + lag, 12 + lag]
    assert (stats.positions, stats.positions_shown) == (2, 2)


def test_a_position_never_shown_is_counted() -> None:
    truths = [Board.from_moves(moves) for moves in ("", "4", "44")]
    stats = bp.GameStats()
    bp._score_screen(stats, PipelineParams(), truths, [View(), _view(""), _view("")])
    assert (stats.positions, stats.positions_shown) == (3, 1)
    assert stats.shown_frames == 2


def test_the_longest_silence_runs_from_a_landing_to_the_position_shown() -> None:
    truths = [Board.from_moves("")] * 5 + [Board.from_moves("4")] * 8
    views = [_view("")] * 5 + [_view("")] * 2 + [View()] * 3 + [_view("4")] * 3
    assert bp.longest_silence(truths, views) == 5  # frames 5-9: "4" on the table, not shown
    never = [_view("")] * 13  # "4" never shown: silent to its end
    assert bp.longest_silence(truths, never) == 8
    assert bp.longest_silence(truths[:5], views[:5]) == 0
