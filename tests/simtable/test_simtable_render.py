"""The renderer: determinism, spec validation, poses kept in frame, exact geometry."""

from __future__ import annotations

import numpy as np
import pytest

from c4game.board import Board
from firmware_py.simtable.render import RenderSpec, grid_of, render_frame
from firmware_py.simtable.render_spec import board_in_frame

from .conftest import SEED_BASE


def test_frame_shape_type_and_determinism() -> None:
    spec = RenderSpec(size=(640, 480), jpeg_quality=80, blur_sigma=1.0, glare=0.5, shadow=0.4)
    first = render_frame("4453", spec, seed=3)
    assert first.shape == (480, 640, 3) and first.dtype == np.uint8
    assert np.array_equal(first, render_frame("4453", spec, seed=3))
    assert not np.array_equal(first, render_frame("4453", spec, seed=4))


def test_positions_can_be_boards_moves_or_raw_grids() -> None:
    board = Board.from_moves("4453")
    assert grid_of(board) == grid_of("4453")
    floating = ["......."] * 3 + ["...R..."] + ["......."] * 2
    assert grid_of(floating) == floating
    with pytest.raises(ValueError):
        grid_of(["......"] * 6)
    with pytest.raises(ValueError, match="'X'"):
        grid_of(["......X"] + ["......."] * 5)


def test_spec_validation_names_the_bad_field() -> None:
    with pytest.raises(ValueError, match="hide_markers"):
        RenderSpec(hide_markers=(4,))
    with pytest.raises(ValueError, match="distance"):
        RenderSpec(distance=0.0)
    with pytest.raises(ValueError, match="jpeg_quality"):
        RenderSpec(jpeg_quality=101)
    with pytest.raises(ValueError, match="pieces 'coins'"):
        RenderSpec(pieces="coins")


def test_random_specs_keep_the_board_in_frame_and_within_tilt() -> None:
    rng = np.random.default_rng(SEED_BASE)
    for _ in range(200):
        spec = RenderSpec.random(rng, max_tilt_deg=45)
        assert board_in_frame(spec)
        assert spec.tilt_deg <= 45.5


def test_board_disappears_when_not_visible() -> None:
    spec = RenderSpec(clutter=0, light_gradient=0.0, noise_sigma=0.0)
    with_board = render_frame("", spec, seed=1)
    without = render_frame("", spec.replace(board_visible=False), seed=1)
    centre = (slice(300, 420), slice(560, 720))
    # The default blue plate dominates the centre only when the board is drawn.
    assert with_board[centre][..., 0].mean() > with_board[centre][..., 2].mean() + 50
    assert abs(float(without[centre].mean()) - float(without.mean())) < 25


def test_a_disc_seen_head_on_fills_its_hole_like_a_real_one() -> None:
    # Real discs are larger than their holes: seen straight on from afar, a hole
    # shows only disc nearly to its rim (a smaller disc would show the slot).
    from firmware_py.simtable.render import plane_to_image
    from firmware_py.vision.geometry import apply_homography, cell_centres

    spec = RenderSpec(yaw_deg=0.0, pitch_deg=0.0, roll_deg=0.0, distance=3.0, disc_depth=0.2,
                      fov_deg=30.0, clutter=0,
                      light_gradient=0.0, shadow=0.0, glare=0.0, noise_sigma=0.0,
                      red_colour=(30, 30, 220))
    frame = render_frame(["RRRRRRR"] * 6, spec, seed=5)
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    rim = 0.8 * 0.4 * 80 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    for centre in cell_centres():
        for x, y in apply_homography(plane_to_image(spec), centre + rim):
            blue, green, red = (int(v) for v in frame[int(round(y)), int(round(x))])
            assert red > 120 and red > 2 * max(blue, green), (centre, (blue, green, red))


def _head_on(**changes: object) -> RenderSpec:
    return RenderSpec(yaw_deg=0.0, pitch_deg=0.0, roll_deg=0.0, distance=3.0, disc_depth=0.2,
                      fov_deg=30.0, clutter=0, light_gradient=0.0, shadow=0.0, glare=0.0,
                      noise_sigma=0.0, auto_exposure=False, **changes)


def _at_hole_centres(frame: np.ndarray, spec: RenderSpec, radius: float) -> np.ndarray:
    """(42, 12, 3) BGR on a circle of ``radius`` (a share of the hole) around each hole."""
    from firmware_py.simtable.render import plane_to_image
    from firmware_py.vision.geometry import apply_homography, cell_centres

    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = radius * 0.4 * 80 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return np.array([[frame[int(round(y)), int(round(x))]
                      for x, y in apply_homography(plane_to_image(spec), centre + ring)]
                     for centre in cell_centres()], np.float64)


def test_a_sticker_disc_shows_its_sticker_inside_a_ring_of_its_own_colour() -> None:
    spec = _head_on(pieces="sticker", red_colour=(30, 30, 220), sticker_colour=(220, 220, 30))
    frame = render_frame(["RRRRRRR"] * 6, spec, seed=5)
    centre = _at_hole_centres(frame, spec, 0.15)
    ring = np.median(_at_hole_centres(frame, spec, 0.85), axis=1)  # (42, 3) per hole
    assert (centre[..., 0] > 150).all() and (centre[..., 2] < 100).all()  # cyan sticker
    assert (ring[:, 2] > 150).all() and (ring[:, 0] < 100).all()  # red ring


def test_balls_sit_in_dark_tubes_and_empty_tubes_stay_dark() -> None:
    spec = _head_on(pieces="ball", board_colour=(200, 200, 200), red_colour=(30, 30, 220),
                    background_colour=(240, 240, 240))
    frame = render_frame(["......."] * 5 + ["RRRRRRR"], spec, seed=5)
    middle = _at_hole_centres(frame, spec, 0.3)
    balls, empty = middle[-7:], middle[:-7]
    assert (balls[..., 2] > balls[..., 0] + 40).all()  # a red ball fills the hole's middle
    edge = _at_hole_centres(frame, spec, 0.85)[:-7]
    assert np.median(edge) < 80 and np.median(empty) < 240  # a dark tube, not the white room
