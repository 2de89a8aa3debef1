"""The ray-cast scene renderer: markers where the geometry says, discs behind the face."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from c4game.board import Board
from firmware_py.vision.geometry import MARKER_CENTRES, apply_homography, cell_centres
from firmware_py.vision.markers import MarkerDetector
from tests.emulation import fewer
from tools.scene.__main__ import main as scene_main
from tools.scene.render import (
    RIB_HALF,
    Light,
    SceneSpec,
    render_scene,
    scene_camera_matrix,
    scene_disc_plane_to_image,
    scene_plane_to_image,
)
from tools.scene.spec import board_in_frame, rotation, translation

from .conftest import SEED_BASE, random_board

SEEDS = SEED_BASE + 500  # 7,500-7,599: this module's render seeds
GREY_ROOM = dict(wall_style="plain", wall_colour=(128, 128, 128), table=False, spare_discs=0)


@pytest.fixture(scope="module")
def detector() -> MarkerDetector:
    return MarkerDetector()


def _marker_errors(detector: MarkerDetector, frame: np.ndarray,
                   spec: SceneSpec) -> dict[int, float]:
    found = detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    truth = apply_homography(scene_plane_to_image(spec), MARKER_CENTRES)
    return {key: float(np.linalg.norm(marker.corners.mean(axis=0) - truth[key]))
            for key, marker in found.items()}


def _hsv_at(frame: np.ndarray, point: np.ndarray) -> np.ndarray:
    """HSV (ints) of the pixel nearest to ``point``."""
    x, y = (int(round(v)) for v in point)
    return cv2.cvtColor(frame[y:y + 1, x:x + 1], cv2.COLOR_BGR2HSV)[0, 0].astype(int)


def _reddish(hsv: np.ndarray) -> bool:
    """Crimson to orange-red, saturated, not dark (dark pixels have unsteady hues)."""
    hue, saturation, value = hsv
    return bool((hue <= 15 or hue >= 160) and saturation >= 85 and value >= 50)


def test_markers_are_found_where_the_front_face_homography_puts_them(
        detector: MarkerDetector) -> None:
    rng = np.random.default_rng(SEEDS)
    for index in range(8):
        spec = SceneSpec.random(rng)
        frame = render_scene(random_board(rng), spec, seed=SEEDS + index)
        errors = _marker_errors(detector, frame, spec)
        assert sorted(errors) == [0, 1, 2, 3], f"spec {index}: found {sorted(errors)}"
        assert max(errors.values()) < 1.5, f"spec {index}: centre errors {errors}"


def test_frames_are_deterministic_and_sized() -> None:
    spec = SceneSpec.random(np.random.default_rng(SEEDS + 10), size=(320, 180), spare_discs=3,
                            jpeg_quality=70)
    first = render_scene("4453", spec, seed=SEEDS + 10)
    assert first.shape == (180, 320, 3) and first.dtype == np.uint8
    assert np.array_equal(first, render_scene(Board.from_moves("4453"), spec, seed=SEEDS + 10))
    assert not np.array_equal(first, render_scene("4453", spec, seed=SEEDS + 11))


def test_disc_plane_centres_show_the_disc_colours_and_empty_holes_do_not() -> None:
    rng = np.random.default_rng(SEEDS + 20)
    for index in range(4):
        spec = SceneSpec.random(rng, max_tilt_deg=30, size=(960, 540), disc_depth=0.25,
                                plate_thickness=0.1, disc_gloss=0.2, disc_jitter=0.0,
                                shadows=False, lights=(Light((0.3, -0.5, -1.0)),), exposure=1.0,
                                board_colour=(170, 75, 20), translucency=0.0, **GREY_ROOM)
        board = Board.from_moves("4453362215657")
        frame = render_scene(board, spec, seed=SEEDS + 20 + index)
        centres = apply_homography(scene_disc_plane_to_image(spec), cell_centres())
        cells = "".join(board.grid_lines())
        for cell, point in zip(cells, centres, strict=True):
            hsv = _hsv_at(frame, point)
            if cell == "R":
                assert _reddish(hsv), f"spec {index}: red disc looks {hsv} (HSV)"
            elif cell == "Y":
                assert 15 <= hsv[0] <= 40 and hsv[1] >= 85, f"spec {index}: yellow is {hsv}"
            else:
                assert not _reddish(hsv), f"spec {index}: empty hole looks red {hsv}"


def test_a_disc_seen_head_on_fills_its_hole_like_a_real_one() -> None:
    # Real discs are larger than their holes; straight on, a hole shows only disc
    # right to its rim, at any depth (a smaller disc would show the slot around it).
    spec = SceneSpec(yaw_deg=0.0, pitch_deg=0.0, distance=1.6, hole_radius=0.38,
                     disc_radius=0.44, disc_depth=0.4, disc_jitter=0.0, disc_gloss=0.1,
                     disc_style="flat", shadows=False, lights=(Light((0.0, 0.0, -1.0)),),
                     noise_sigma=0.0, **GREY_ROOM)
    frame = render_scene(["RRRRRRR"] * 6, spec, seed=SEEDS + 35)
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    rim = 0.85 * 0.38 * 80 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    for centre in cell_centres():
        for point in apply_homography(scene_plane_to_image(spec), centre + rim):
            assert _reddish(_hsv_at(frame, point)), (centre, point, _hsv_at(frame, point))


def _red_centroid(frame: np.ndarray, near: np.ndarray, reach: float) -> np.ndarray:
    """Centroid of the well-lit red pixels within ``reach`` px of ``near``."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV).astype(int)
    ys, xs = np.mgrid[:frame.shape[0], :frame.shape[1]]
    red = (((hsv[..., 0] <= 10) | (hsv[..., 0] >= 170)) & (hsv[..., 1] > 120)
           & (np.hypot(xs - near[0], ys - near[1]) < reach))
    lit = red & (hsv[..., 2] > 0.75 * hsv[..., 2][red].max())  # the face, not the rim
    return np.array([xs[lit].mean(), ys[lit].mean()])


@pytest.mark.parametrize(("yaw", "pitch"), [(35.0, 0.0), (-25.0, 25.0)])
def test_discs_sit_behind_the_face_with_the_parallax_of_their_depth(
        yaw: float, pitch: float) -> None:
    depth = 0.3
    spec = SceneSpec(yaw_deg=yaw, pitch_deg=pitch, distance=1.9, hole_radius=0.49,
                     disc_radius=0.2, disc_thickness=0.05, disc_depth=depth,
                     plate_thickness=0.05, disc_jitter=0.0, disc_gloss=0.1, disc_style="flat",
                     lights=(Light((0.2, -0.3, -1.0)),), noise_sigma=0.0, **GREY_ROOM)
    frame = render_scene(["......."] * 5 + ["...R..."], spec, seed=SEEDS + 30)
    cell = np.array([(360.0, 480.0)])  # column 4, row 1 in the warp plane
    face = apply_homography(scene_plane_to_image(spec), cell)[0]
    disc = apply_homography(scene_disc_plane_to_image(spec), cell)[0]
    # The disc centre at its depth, projected by the pinhole camera directly.
    rvec, _ = cv2.Rodrigues(rotation(spec))
    world = np.array([[0.0, 2.5, depth]])  # cell centre: x = 360 / 80 - 4.5, y = 480 / 80 - 3.5
    predicted = cv2.projectPoints(world, rvec, translation(spec), scene_camera_matrix(spec),
                                  None)[0].reshape(2)
    assert np.linalg.norm(predicted - disc) < 0.01
    assert np.linalg.norm(disc - face) > 8.0  # an oblique view: a parallax of several px
    seen = _red_centroid(frame, disc, reach=0.5 * np.linalg.norm(disc - face) + 15)
    assert np.linalg.norm(seen - disc) < 1.5, (seen, disc)
    assert np.linalg.norm(seen - face) > np.linalg.norm(disc - face) - 1.5, (seen, face)


BOARD_COLOURS = [
    ((170, 75, 20), 0.0), ((90, 40, 20), 0.0), ((50, 130, 40), 0.0), ((30, 30, 30), 0.0),
    ((130, 130, 130), 0.0), ((215, 215, 210), 0.0), ((225, 170, 100), 0.0),
    ((185, 170, 40), 0.55), ((40, 40, 180), 0.0), ((70, 190, 220), 0.3),
]


def test_boards_of_any_colour_show_their_colour_and_markers(detector: MarkerDetector) -> None:
    rng = np.random.default_rng(SEEDS + 40)
    for index, (colour, clear) in enumerate(BOARD_COLOURS[:fewer(len(BOARD_COLOURS), 4)]):
        spec = SceneSpec(yaw_deg=rng.uniform(-25, 25), pitch_deg=rng.uniform(-15, 15),
                         distance=1.8, board_colour=colour, translucency=clear,
                         wall_style="patches", white_balance=(1.0, 1.0, 1.0))
        frame = render_scene(random_board(rng), spec, seed=SEEDS + 40 + index)
        errors = _marker_errors(detector, frame, spec)
        assert sorted(errors) == [0, 1, 2, 3], f"board {colour}: found {sorted(errors)}"
        # Between the left markers and the grid the face shows the plastic.
        x, y = apply_homography(scene_plane_to_image(spec), np.array([(40.0, 280.0)]))[0]
        seen = frame[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3].reshape(-1, 3).mean(axis=0)
        if max(colour) - min(colour) > 80:  # a clearly coloured plastic: its strongest channel
            assert int(np.argmax(seen)) == int(np.argmax(colour)), (colour, seen)


def test_random_specs_keep_the_board_in_frame_within_their_ranges() -> None:
    rng = np.random.default_rng(SEEDS + 50)
    for _ in range(200):
        spec = SceneSpec.random(rng)
        assert board_in_frame(spec, margin=0.02)
        assert spec.tilt_deg <= 50.5 and 45 <= spec.fov_deg <= 75 and abs(spec.roll_deg) <= 8
        # a real disc is larger than its hole (else it falls out) and fits its slot
        assert spec.hole_radius < spec.disc_radius <= 0.5 - RIB_HALF
        assert spec.disc_depth >= spec.plate_thickness
        assert all(0.75 <= gain <= 1.3 for gain in spec.white_balance)


def test_bad_arguments_raise_value_errors_that_name_them() -> None:
    with pytest.raises(ValueError, match="fov_deg"):
        SceneSpec(fov_deg=5)
    with pytest.raises(ValueError, match="disc_depth"):
        SceneSpec(disc_depth=0.05, plate_thickness=0.1)
    with pytest.raises(ValueError, match="disc_style"):
        SceneSpec(disc_style="square")
    with pytest.raises(ValueError, match="wall_style"):
        SceneSpec(wall_style="brick")
    with pytest.raises(ValueError, match="size"):
        SceneSpec(size=(32, 32))
    with pytest.raises(ValueError, match="lights"):
        SceneSpec(lights=())
    with pytest.raises(ValueError, match="wall_distance"):
        SceneSpec(wall_distance=0.5)
    with pytest.raises(ValueError, match="unknown"):
        SceneSpec.random(np.random.default_rng(0), colour=(1, 2, 3))
    spec = SceneSpec(size=(160, 90))
    with pytest.raises(ValueError, match="'X'"):
        render_scene(["X......"] + ["......."] * 5, spec)
    with pytest.raises(ValueError, match="6 lines"):
        render_scene(["......."] * 5, spec)


def test_the_scene_command_draws_the_scene(tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "scene.png"
    assert scene_main(["4453", "-o", str(out), "--random", "--seed", str(SEEDS + 60),
                       "--size", "320x180"]) == 0
    assert "fx=" in capsys.readouterr().out
    assert cv2.imread(str(out)).shape == (180, 320, 3)
    assert scene_main(["48", "-o", str(out)]) == 2
    assert "illegal move" in capsys.readouterr().err
