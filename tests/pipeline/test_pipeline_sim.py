"""The simulator's script (scenes, truth) and its camera (rendering, timeline)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import IllegalMoveError, InvalidGridError
from firmware_py.simtable.camera import SimulatedCamera, default_spec, project_hand
from firmware_py.simtable.render import camera_matrix, plane_to_image
from firmware_py.simtable.script import (
    LANDED,
    RESET,
    Away,
    Drop,
    Flicker,
    Pass,
    PlaneHand,
    Reset,
    Wait,
    compile_scenes,
    game_script,
    random_moves,
)
from firmware_py.vision.geometry import apply_homography

SMALL = default_spec((320, 180))


def test_each_action_lasts_its_frames():
    scenes = list(compile_scenes([Wait(0.5), Pass(0.8), Flicker(0.3), Away(1.0), Drop(4, 1.2),
                                  Reset(1.0)], fps=10))
    assert len(scenes) == 5 + 8 + 3 + 10 + 12 + 10


def test_drop_lands_once_and_the_truth_follows_the_moves():
    moves = "4453"
    scenes = list(compile_scenes([Drop(int(c)) for c in moves], fps=10))
    landed = [i for i, s in enumerate(scenes) if s.event == LANDED]
    assert len(landed) == 4
    truths = [scenes[i].truth for i in landed]
    assert [t.grid_lines() for t in truths] == [
        Board.from_moves(moves[:n]).grid_lines() for n in range(1, 5)]
    for index in landed:  # the truth changes exactly on the landing frame
        assert scenes[index - 1].truth.n_discs == scenes[index].truth.n_discs - 1


def test_falling_disc_is_seen_floating_before_it_lands():
    scenes = list(compile_scenes([Drop(4)], fps=10))
    floating = [s for s in scenes if s.grid != tuple(s.truth.grid_lines())]
    assert len(floating) == 2 and all(s.hand is not None for s in floating)
    for scene in floating:
        with pytest.raises(InvalidGridError, match="floating disc"):
            Board.from_grid(scene.grid)
    assert floating[0].grid[0] == "...R..."  # first seen in the top row


def test_disc_into_the_top_hole_has_no_fall():
    start = Board.from_moves("44444")
    scenes = list(compile_scenes([Drop(4)], fps=10, start=start))
    assert all(s.grid in (tuple(start.grid_lines()), tuple(s.truth.grid_lines()))
               for s in scenes)


def test_full_column_cannot_be_dropped_into():
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        list(compile_scenes([Drop(4)], fps=10, start=Board.from_moves("444444")))


def test_reset_empties_the_board():
    start = Board.from_moves("4455")
    scenes = list(compile_scenes([Reset(1.0)], fps=10, start=start))
    assert [s.event for s in scenes].count(RESET) == 1
    assert scenes[0].truth == start and scenes[-1].truth == Board.empty()
    assert scenes[-1].hand is None


def test_away_and_flicker_scenes():
    scenes = list(compile_scenes([Away(0.2), Flicker(1.0)], fps=10, seed=3))
    assert [s.visible for s in scenes[:2]] == [False, False]
    lights = [s.light for s in scenes[2:]]
    assert all(0.55 <= x <= 1.35 for x in lights) and len(set(lights)) > 3


def test_random_games_are_legal_and_end():
    rng = random.Random(5)
    for _ in range(20):
        board = Board.from_moves(random_moves(rng))
        assert board.is_finished
    assert len(random_moves(random.Random(1), max_moves=6)) == 6


def test_game_script_is_reproducible_and_plays_the_moves():
    first = game_script("4453", random.Random(9), pass_p=0.5, flicker_p=0.5, away_p=0.5)
    assert first == game_script("4453", random.Random(9), pass_p=0.5, flicker_p=0.5, away_p=0.5)
    assert [a.column for a in first if isinstance(a, Drop)] == [4, 4, 5, 3]
    assert isinstance(first[-2], Reset)


def test_camera_file_timeline_and_truth_in_info():
    camera = SimulatedCamera([Wait(0.3), Drop(4, 0.5)], spec=SMALL, fps=10)
    frames = []
    with camera:
        while (frame := camera.read()) is not None:
            frames.append(frame)
    assert [f.t for f in frames] == pytest.approx([i / 10 for i in range(8)])
    assert frames[-1].info.truth == Board.from_moves("4")
    assert frames[0].image.shape == (180, 320, 3) and frames[0].image.dtype == np.uint8


def test_camera_reuses_renders_of_identical_scenes():
    camera = SimulatedCamera([Wait(0.3)], spec=SMALL, fps=10)
    with camera:
        a, b = camera.read(), camera.read()
    assert a.image is b.image
    fresh = SimulatedCamera([Wait(0.3)], spec=SMALL, fps=10, reuse=False)
    with fresh:
        c, d = fresh.read(), fresh.read()
    assert c.image is not d.image and np.array_equal(c.image, a.image)


def test_live_camera_keeps_real_time():
    now = [100.0]
    sleeps = []

    def sleep(seconds):
        sleeps.append(round(seconds, 6))
        now[0] += seconds

    camera = SimulatedCamera([Wait(0.3)], spec=SMALL, fps=10, live=True,
                             clock=lambda: now[0], sleep=sleep)
    with camera:
        times = [camera.read().t for _ in range(3)]
    assert times == pytest.approx([100.0, 100.1, 100.2])
    assert sleeps == [0.1, 0.1]


def test_camera_intrinsics_are_the_renderers():
    camera = SimulatedCamera([], spec=SMALL)
    assert np.allclose(camera.intrinsics.matrix(), camera_matrix(SMALL))


def test_hand_projection_lands_where_the_plane_point_does():
    hand = project_hand(PlaneHand(360.0, 280.0, angle_deg=0.0, size_pitch=1.0), SMALL)
    centre = apply_homography(plane_to_image(SMALL), np.array([(360.0, 280.0)]))[0]
    assert (hand.x * 320, hand.y * 180) == pytest.approx(tuple(centre))
    assert abs(hand.angle_deg) < 25  # fingers up in the plane stay roughly up in the image
    down = project_hand(PlaneHand(360.0, 280.0, angle_deg=180.0), SMALL)
    assert abs(abs(down.angle_deg) - 180) < 25


def test_the_demo_plays_every_game_from_an_empty_board_disc_by_disc():
    """``c4pi demo``'s games (:func:`endless_games`): each starts on the empty board and
    the table then changes by one disc of the side to move at a time, or is cleared."""
    import itertools
    import random as random_module

    from firmware_py.simtable.script import RESET, compile_scenes, endless_games

    scenes = compile_scenes(endless_games(random_module.Random(5)), fps=10.0)
    previous, games = None, 0
    for scene in itertools.islice(scenes, 20000):
        board = scene.truth
        if previous is None or scene.event == RESET:
            assert board.n_discs == 0
            games += previous is not None
        elif board != previous:
            assert board.n_discs == previous.n_discs + 1
            assert any(previous.play(column).grid_lines() == board.grid_lines()
                       for column in previous.legal_columns())
        previous = board
    assert games >= 10
