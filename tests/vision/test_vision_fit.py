"""Plane fits: exactness, reprojection and convexity checks, subsets, intrinsics."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_py.simtable.render import RenderSpec, camera_matrix, plane_to_image
from firmware_py.vision.fit import BoardFit, BoardLocator, Intrinsics, grid_problem
from firmware_py.vision.geometry import (
    GRID_CORNERS,
    MARKER_CENTRES,
    PX_PER_PITCH,
    apply_homography,
    cell_centres,
    marker_corners,
)
from firmware_py.vision.markers import Marker

FRAME = (1280, 720)


def true_markers(spec: RenderSpec, ids=(0, 1, 2, 3), noise: float = 0.0,
                 seed: int = 0) -> dict[int, Marker]:
    rng = np.random.default_rng(seed)
    truth = plane_to_image(spec)
    return {i: Marker(i, apply_homography(truth, marker_corners(i, 0.8))
                      + rng.normal(0, noise, (4, 2))) for i in ids}


def cell_error(fit, spec: RenderSpec) -> float:
    expected = apply_homography(plane_to_image(spec), cell_centres())
    return float(np.abs(fit.project(cell_centres()) - expected).max())


def test_exact_corners_give_the_exact_homography() -> None:
    spec = RenderSpec(yaw_deg=30, pitch_deg=-20, roll_deg=5)
    fit = BoardLocator().locate(true_markers(spec), FRAME)
    assert fit.ok and fit.markers == 4 and fit.marker_ids == (0, 1, 2, 3)
    assert fit.reprojection_px < 1e-3
    assert cell_error(fit, spec) < 1e-3


def test_fewer_than_two_markers_is_no_board() -> None:
    spec = RenderSpec()
    fit = BoardLocator().locate(true_markers(spec, ids=(3,)), FRAME)
    assert not fit.ok and fit.markers == 1 and "need 2" in fit.reason


def test_three_noisy_markers_fit_within_a_pixel_or_two() -> None:
    spec = RenderSpec(yaw_deg=-25, pitch_deg=15)
    for missing in range(4):
        ids = tuple(i for i in range(4) if i != missing)
        fit = BoardLocator().locate(true_markers(spec, ids, noise=0.3, seed=missing), FRAME)
        assert fit.ok and fit.markers == 3
        assert cell_error(fit, spec) < 2.0


def test_intrinsics_use_pnp_and_beat_the_homography_on_three_markers() -> None:
    spec = RenderSpec(yaw_deg=35, pitch_deg=10, distance=1.8)
    markers = true_markers(spec, (0, 1, 3), noise=0.4, seed=5)
    plain = BoardLocator().locate(markers, FRAME)
    pnp = BoardLocator(intrinsics=Intrinsics(camera_matrix(spec))).locate(markers, FRAME)
    assert pnp.ok and pnp.pose is not None and pnp.markers == 3
    assert cell_error(pnp, spec) < 1.0
    assert cell_error(pnp, spec) <= cell_error(plain, spec) + 0.05


def test_a_wrongly_placed_marker_is_dropped_by_the_subset_search() -> None:
    spec = RenderSpec(yaw_deg=10)
    markers = true_markers(spec)
    markers[2] = Marker(2, markers[2].corners + (60.0, -40.0))  # a stray copy elsewhere
    fit = BoardLocator().locate(markers, FRAME)
    assert fit.ok and fit.marker_ids == (0, 1, 3)
    assert cell_error(fit, spec) < 0.5


def test_reprojection_error_over_the_limit_is_rejected() -> None:
    spec = RenderSpec()
    markers = true_markers(spec, (0, 1))
    bent = markers[1].corners.copy()
    bent[0] += (8.0, 8.0)  # one corner far off: no two-marker fit can explain it
    markers[1] = Marker(1, bent)
    fit = BoardLocator(max_reprojection_px=1.0).locate(markers, FRAME)
    assert not fit.ok and "reprojection" in fit.reason


def test_grid_outside_the_frame_is_rejected() -> None:
    spec = RenderSpec(offset=(0.4, 0.0))  # the last column and more past the right edge
    fit = BoardLocator().locate(true_markers(spec), FRAME)
    assert not fit.ok and "outside the frame" in fit.reason


def board_filling_the_frame(past_pitch: float) -> BoardFit:
    """A straight-on fit whose outer cells reach ``past_pitch`` past the left and top
    edges of a 1280 x 720 frame (the cells are 100 px, the plane's 80 px)."""
    scale = 100.0 / PX_PER_PITCH
    left, top = GRID_CORNERS[0]
    shift = past_pitch * 100.0
    plane_to_image = np.array([[scale, 0.0, -left * scale - shift],
                               [0.0, scale, -top * scale - shift], [0.0, 0.0, 1.0]])
    return BoardFit(True, plane_to_image=plane_to_image, found_by="holes")


@pytest.mark.parametrize("past_pitch, readable", [(0.0, True), (0.2, True), (0.24, True),
                                                  (0.3, False), (0.5, False)])
def test_a_board_filling_the_frame_is_read_while_each_hole_is_mostly_in_it(
        past_pitch: float, readable: bool) -> None:
    fit = board_filling_the_frame(past_pitch)
    corner = fit.project(GRID_CORNERS)[0]
    assert np.allclose(corner, (-100 * past_pitch, -100 * past_pitch))  # the fit is as meant
    problem = grid_problem(fit, FRAME)
    assert (problem == "") == readable, problem
    assert readable or problem == "the grid is partly outside the frame"


def test_non_convex_or_mirrored_grid_is_rejected() -> None:
    spec = RenderSpec()
    markers = true_markers(spec)
    # Swap left and right markers: the board would be seen mirrored.
    swapped = {0: Marker(0, markers[1].corners[[1, 0, 3, 2]]),
               1: Marker(1, markers[0].corners[[1, 0, 3, 2]]),
               2: Marker(2, markers[3].corners[[1, 0, 3, 2]]),
               3: Marker(3, markers[2].corners[[1, 0, 3, 2]])}
    fit = BoardLocator().locate(swapped, FRAME)
    assert not fit.ok and ("mirrored" in fit.reason or "convex" in fit.reason)


def test_calibration_offsets_shift_where_the_markers_land() -> None:
    spec = RenderSpec(yaw_deg=20)
    offsets = [0.1, 0.0, -0.1, 0.05, 0.0, 0.1, 0.05, -0.05]
    fit = BoardLocator(calibration=offsets).locate(true_markers(spec), FRAME)
    assert fit.ok
    moved = MARKER_CENTRES + np.reshape(offsets, (4, 2)) * 80
    # The moved destination of each marker centre projects onto the true marker centre.
    assert np.allclose(fit.project(moved), apply_homography(plane_to_image(spec), MARKER_CENTRES),
                       atol=1e-6)


def test_two_far_adjacent_markers_are_too_loose() -> None:
    spec = RenderSpec(distance=2.2, yaw_deg=30)
    fit = BoardLocator().locate(true_markers(spec, (1, 2), noise=0.3), FRAME)
    assert not fit.ok and "too loosely" in fit.reason
