"""Camera intrinsics: the Pi camera modules' defaults, and ChArUco calibration that checks them."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from c4game.exc import VisionError
from firmware_py.sources.pi_intrinsics import (
    SENSORS,
    choose_mode,
    default_crop,
    field_of_view_deg,
    intrinsics_for,
    sensor_for,
)
from firmware_py.vision.charuco import SQUARE_MM, SQUARES, calibrate, charuco_board
from firmware_py.vision.geometry import pose_rotation
from tests.emulation import EMULATED

PX_PER_MM = 6.0


def charuco_view(matrix: np.ndarray, size: tuple[int, int],
                 rng: np.random.Generator) -> np.ndarray:
    """The printed board seen by a pinhole camera ``matrix`` from a random pose."""
    board_px = (int(SQUARES[0] * SQUARE_MM * PX_PER_MM), int(SQUARES[1] * SQUARE_MM * PX_PER_MM))
    board = charuco_board().generateImage(board_px, marginSize=0, borderBits=1)
    span_mm = np.array([SQUARES[0] * SQUARE_MM, SQUARES[1] * SQUARE_MM])
    tilt, turn = rng.uniform(15, 45), rng.uniform(0, 2 * math.pi)
    rotation = pose_rotation(tilt * math.cos(turn), tilt * math.sin(turn), rng.normal(0, 10))
    distance = matrix[0, 0] * span_mm[0] / (size[0] * rng.uniform(0.5, 0.85))
    shift = rng.uniform(-0.2, 0.2, 2) * np.array(size) * distance / matrix[0, 0]
    centre = np.array([shift[0], shift[1], distance])
    translation = centre - rotation @ np.array([span_mm[0] / 2, span_mm[1] / 2, 0.0])
    board_to_image = matrix @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
    board_to_image = board_to_image @ np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    view = cv2.warpPerspective(board, board_to_image, size, flags=cv2.INTER_AREA,
                               borderValue=140)
    noise = rng.normal(0, 2.0, view.shape)
    return np.clip(view + noise, 0, 255).astype(np.uint8)


# Under emulation a calibration takes 45 s instead of 0.5: one stream size per module there.
SIZES = ((1280, 720), (640, 480)) if not EMULATED else ((640, 480),)
CASES = [(name, size) for name in SENSORS for size in SIZES]


@pytest.mark.parametrize(("model", "size"), CASES)
def test_the_default_intrinsics_agree_with_a_chArUco_calibration(model: str,
                                                                 size: tuple[int, int]) -> None:
    intrinsics = intrinsics_for(SENSORS[model], size, focal_mm=6.0 if model in (
        "imx477", "imx296") else 0.0)
    assert intrinsics is not None
    rng = np.random.default_rng(len(model) * size[0])
    views = [charuco_view(intrinsics.matrix(), size, rng) for _ in range(20)]
    result = calibrate(views)
    assert result.rms_px < 0.5
    for got, want in zip((result.matrix[0, 0], result.matrix[1, 1], result.matrix[0, 2],
                          result.matrix[1, 2]),
                         (intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy),
                         strict=True):
        assert got == pytest.approx(want, rel=0.02)


@pytest.mark.parametrize(("model", "fov"), [("imx219", 62.2), ("imx708", 66.0),
                                            ("imx708_wide", 102.0), ("ov5647", 53.5)])
def test_full_sensor_modes_give_the_published_field_of_view(model: str, fov: float) -> None:
    """Raspberry Pi's camera documentation: horizontal field of view of each module.

    The published figures include the lens's distortion (barrel: wider), which
    a pinhole model of the datasheet focal length leaves out: 3.5° of slack."""
    sensor = SENSORS[model]
    full = sensor.pixel_array
    intrinsics = intrinsics_for(sensor, full)
    assert field_of_view_deg(intrinsics, full) == pytest.approx(fov, abs=3.5)


def test_libcamera_picks_the_cropped_mode_for_a_small_wide_stream() -> None:
    assert choose_mode(SENSORS["imx219"], (1280, 720)).size == (1920, 1080)
    assert choose_mode(SENSORS["imx219"], (640, 480)).size == (640, 480)
    assert choose_mode(SENSORS["imx219"], (1640, 1232)).size == (1640, 1232)
    assert choose_mode(SENSORS["imx708"], (1280, 720)).size == (1536, 864)
    assert choose_mode(SENSORS["imx477"], (1280, 720)).size == (2028, 1080)


def test_a_stream_of_another_aspect_ratio_is_cut_from_the_middle_of_the_mode() -> None:
    x, y, width, height = default_crop(SENSORS["imx477"], (1280, 720))
    assert width / height == pytest.approx(16 / 9, rel=1e-3)
    assert x + width / 2 == pytest.approx(4056 / 2, abs=1)
    assert y + height / 2 == pytest.approx(3040 / 2, abs=1)


def test_binning_halves_the_focal_length_in_pixels() -> None:
    sensor = SENSORS["imx219"]
    full = intrinsics_for(sensor, (3280, 2464))
    binned = intrinsics_for(sensor, (1640, 1232))
    assert binned.fx == pytest.approx(full.fx / 2)
    assert full.fx == pytest.approx(3.04 / 1.12e-3)


def test_interchangeable_lenses_need_their_focal_length() -> None:
    assert intrinsics_for(SENSORS["imx477"], (1280, 720)) is None
    assert intrinsics_for(SENSORS["imx477"], (1280, 720), focal_mm=16.0) is not None


def test_sensor_names_as_libcamera_gives_them() -> None:
    assert sensor_for("imx708_wide_noir") is SENSORS["imx708_wide"]
    assert sensor_for("IMX219") is SENSORS["imx219"]
    assert sensor_for("ov9281") is None


def test_too_few_views_of_the_board_are_refused() -> None:
    blank = np.full((480, 640), 128, np.uint8)
    with pytest.raises(VisionError, match="found in 0 of 3 views"):
        calibrate([blank] * 3)


def test_calibrate_camera_command_writes_the_config_lines(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    from firmware_py.cli import main
    from firmware_py.config import load_config

    matrix = np.array([[900.0, 0.0, 639.5], [0.0, 900.0, 359.5], [0.0, 0.0, 1.0]])
    folder = tmp_path / "views"
    folder.mkdir()
    rng = np.random.default_rng(4)
    for index in range(16):
        cv2.imwrite(str(folder / f"{index:02d}.png"), charuco_view(matrix, (1280, 720), rng))
    out = tmp_path / "camera.toml"
    assert main(["calibrate-camera", "--source", str(folder), "-o", str(out)]) == 0
    assert "RMS reprojection error" in capsys.readouterr().out
    camera = load_config(out).camera
    assert (camera.width, camera.height) == (1280, 720)
    assert camera.fx == pytest.approx(900, rel=0.02) and camera.fy == pytest.approx(900, rel=0.02)
    assert camera.cx == pytest.approx(639.5, rel=0.02) and camera.cy == pytest.approx(359.5,
                                                                                     rel=0.02)
    assert len(camera.distortion) == 5


def test_calibrate_camera_says_when_the_board_is_not_seen(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    from firmware_py.cli import main

    folder = tmp_path / "views"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((480, 640, 3), 90, np.uint8))
    assert main(["calibrate-camera", "--source", str(folder)]) == 3
    assert "found in 0 of 1 views" in capsys.readouterr().err


def test_the_printed_charuco_board_is_found_whole(tmp_path: Path) -> None:
    from firmware_py.cli import main

    out = tmp_path / "board.png"
    assert main(["markers", "--charuco", "-o", str(out), "--dpi", "150"]) == 0
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    detector = cv2.aruco.CharucoDetector(charuco_board())
    corners, ids, _, _ = detector.detectBoard(sheet)
    assert ids is not None and len(ids) == (SQUARES[0] - 1) * (SQUARES[1] - 1)
