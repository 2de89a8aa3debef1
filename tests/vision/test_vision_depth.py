"""The disc plane behind the face: focal length from the markers, parallax, the reader's warp."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from firmware_py.simtable.render import RenderSpec, parallax_shift
from firmware_py.simtable.render_spec import PLATE, rotation, translation
from firmware_py.vision.depth import (
    ESTIMATED,
    NONE,
    POSE,
    disc_plane_fit,
    disc_plane_homography,
    focal_from_homography,
    seen_disc_fit,
)
from firmware_py.vision.fit import BoardFit, Intrinsics
from firmware_py.vision.geometry import (
    PX_PER_PITCH,
    apply_homography,
    board_translation,
    cell_centres,
    pinhole_matrix,
    plane_homography,
    pose_rotation,
)
from tests.emulation import EMULATED

SIZE = (1280, 720)


def _random_camera(rng: np.random.Generator, min_tilt: float = 15.0):
    fov = rng.uniform(40, 90)
    matrix = pinhole_matrix(SIZE, fov)
    tilt = rng.uniform(min_tilt, 55)
    turn = rng.uniform(0, 2 * math.pi)
    rot = pose_rotation(tilt * math.cos(turn), tilt * math.sin(turn), rng.normal(0, 5))
    trans = board_translation(matrix, SIZE, rng.uniform(12, 25),
                              (rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1)))
    return matrix, rot, trans


def test_the_focal_length_is_recovered_from_an_oblique_view() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        matrix, rot, trans = _random_camera(rng)
        focal = focal_from_homography(plane_homography(matrix, rot, trans), SIZE)
        assert focal == pytest.approx(matrix[0, 0], rel=1e-6)


def test_a_frontal_view_does_not_determine_the_focal_length() -> None:
    matrix = pinhole_matrix(SIZE, 60)
    frontal = plane_homography(matrix, np.eye(3), np.array([0.0, 0.0, 15.0]))
    assert focal_from_homography(frontal, SIZE) is None


def test_the_disc_plane_is_the_face_moved_along_the_board_normal() -> None:
    rng = np.random.default_rng(6)
    for _ in range(20):
        matrix, rot, trans = _random_camera(rng, min_tilt=0.0)
        depth = rng.uniform(0.1, 0.5)
        face = plane_homography(matrix, rot, trans)
        expected = plane_homography(matrix, rot, trans, depth)
        got = disc_plane_homography(face, matrix, depth)
        points = cell_centres()
        assert np.abs(apply_homography(got, points)
                      - apply_homography(expected, points)).max() < 1e-6


def test_a_homography_fit_moves_with_an_estimated_focal_length() -> None:
    matrix, rot, trans = _random_camera(np.random.default_rng(7))
    fit = BoardFit(True, plane_to_image=plane_homography(matrix, rot, trans))
    moved, how = disc_plane_fit(fit, 0.3, SIZE)
    assert how == ESTIMATED and moved.depth == 0.3
    expected = apply_homography(plane_homography(matrix, rot, trans, 0.3), cell_centres())
    assert np.abs(moved.project(cell_centres()) - expected).max() < 1e-3
    half, _ = seen_disc_fit(fit, 0.6, SIZE)
    assert np.allclose(half.plane_to_image, moved.plane_to_image)


def test_without_depth_or_focal_length_the_fit_is_unchanged() -> None:
    matrix = pinhole_matrix(SIZE, 60)
    frontal = BoardFit(True, plane_to_image=plane_homography(matrix, np.eye(3),
                                                             np.array([0.0, 0.0, 15.0])))
    assert disc_plane_fit(frontal, 0.35, SIZE) == (frontal, NONE)
    oblique = BoardFit(True, plane_to_image=plane_homography(*_random_camera(
        np.random.default_rng(8))))
    assert disc_plane_fit(oblique, 0.0, SIZE) == (oblique, NONE)


def test_a_pose_fit_projects_the_disc_plane_through_the_lens() -> None:
    matrix, rot, trans = _random_camera(np.random.default_rng(9))
    intrinsics = Intrinsics(matrix, np.array([-0.2, 0.05, 0.0, 0.0]))
    rvec, _ = cv2.Rodrigues(rot)
    # the pose of the SPEC plane (origin at marker 0, pitches): shift the centred board
    origin = trans - rot @ np.array([4.5, 3.5, 0.0])
    fit = BoardFit(True, plane_to_image=plane_homography(matrix, rot, trans),
                   pose=(rvec, origin.reshape(3, 1), intrinsics))
    moved, how = disc_plane_fit(fit, 0.4, SIZE)
    assert how == POSE
    plane = cell_centres()
    world = np.column_stack([plane / PX_PER_PITCH, np.full(len(plane), 0.4)])
    expected, _ = cv2.projectPoints(world, rvec, origin, matrix, intrinsics.distortion)
    assert np.abs(moved.project(plane) - expected.reshape(-1, 2)).max() < 1e-6


def test_the_renderer_draws_a_disc_where_the_camera_sees_it_through_its_hole() -> None:
    """Ray from the camera centre to the point behind the face, met with the face."""
    spec = RenderSpec(yaw_deg=35, pitch_deg=-20, distance=1.3)
    camera = -rotation(spec).T @ translation(spec)  # board coordinates, centred, pitches
    for centre in ((40.0, 40.0), (300.0, 200.0), (520.0, 440.0)):
        dx, dy = parallax_shift(spec, centre, 0.35)
        point = np.array([(centre[0] + PLATE[0] + 0.5) / PX_PER_PITCH - 4.5,
                          (centre[1] + PLATE[1] + 0.5) / PX_PER_PITCH - 3.5, 0.35])
        seen = camera + (point - camera) * (-camera[2]) / (point[2] - camera[2])
        assert (dx, dy) == pytest.approx(tuple((seen[:2] - point[:2]) * PX_PER_PITCH), abs=1e-6)


def _read_views(generator: str, low: float, high: float, count: int,
                seed: int) -> dict[float, list[int]]:
    """(exact, accepted exact, confident wrong) of ``generator`` frames tilted
    ``low``-``high`` degrees, read with and without the depth correction."""
    from firmware_py.config import CameraConfig, VisionConfig
    from firmware_py.vision.reader import BoardReader
    from tools.bench.depth import oblique_frames, read_all

    frames = list(oblique_frames(generator, count, seed, low, high))
    counts = {}
    for depth in (0.0, 0.35):
        reader = BoardReader.from_config(
            VisionConfig(remember_empty_board=False, disc_depth_pitch=depth), CameraConfig())
        read = read_all(reader, frames, empty_first=False)
        counts[depth] = [read["board-exact"], read["accepted-exact"], read["wrong-ok"]]
    return counts


SLOW_MEASURE = pytest.mark.skipif(
    bool(EMULATED), reason="a measurement on 100-160 rendered frames, too slow under "
    "emulation (tools/device/*_check.sh); it runs on every real machine")


@SLOW_MEASURE
def test_the_depth_correction_helps_at_an_angle_and_costs_nothing_straight_on() -> None:
    """Our renderer's discs 0.2-0.4 P behind the face (the reader assumes 0.35),
    larger than their holes as on real boards."""
    oblique = _read_views("render", 35, 50, 100, seed=80_000)  # measured: 63/52 -> 68/60
    # Wrong boards: one of this set at each plane (at 0.35, 80,059: the room's tan behind
    # an empty bottom hole between yellow discs, which both readers call yellow, legal
    # under `either`). The network before this one read none of these 100 wrong, and one of
    # 400 fresh frames at 35-50 degrees (seeds 83,000+; this one: the same frame), so such
    # shared mistakes are rare, not absent (docs/vision.md); the correction adds none.
    assert oblique[0.35][2] <= min(1, oblique[0.0][2]), oblique
    assert oblique[0.35][0] >= oblique[0.0][0] + 2, oblique
    assert oblique[0.35][1] >= oblique[0.0][1], oblique
    frontal = _read_views("render", 0, 10, 60, seed=81_000)  # measured: 54/52 -> 53/50
    assert frontal[0.35][2] == 0
    assert frontal[0.35][0] >= frontal[0.0][0] - 1, frontal
    assert frontal[0.35][1] >= frontal[0.0][1] - 2, frontal


@SLOW_MEASURE
def test_the_depth_correction_costs_little_on_the_scene_generator() -> None:
    """3-D scene frames, discs 0.1-0.45 P deep: no clear gain there (docs/vision.md),
    but never a wrong board and at most a frame lost."""
    oblique = _read_views("scene", 30, 50, 30, seed=82_000)
    assert oblique[0.35][2] == 0 and oblique[0.0][2] == 0
    assert oblique[0.35][0] >= oblique[0.0][0] - 1, oblique
