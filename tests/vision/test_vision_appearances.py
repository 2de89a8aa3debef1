"""Unfamiliar board appearances recoloured from the real composites (tools/train/appearances.py).

Needs the labelled real photographs of the shared folder
(``$C4PI_SHARED`` or ``../shared`` beside the repo: ``data/real-dev``);
skipped without them. The colour checks use composites without camera
changes, so that the colours measured are the restyle's own.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from firmware_py.vision.markers import MarkerDetector
from tools.shared_data import missing_reason
from tools.train import appearances as ap
from tools.train import real_composites as rc

LABELS = rc.real_dev_dir() / "labels.jsonl"
pytestmark = pytest.mark.skipif(not LABELS.is_file(), reason=missing_reason(LABELS))
SOURCES = ("zam", "res")  # one frame of each board per appearance
# Plastic colours (hue degrees, saturation, luminance 0-255) of the cell corners
BOARD_CHECKS = {
    "black-balls": lambda hue, sat, luma: luma < 40,
    "white": lambda hue, sat, luma: luma > 110 and sat < 0.3,
    "navy": lambda hue, sat, luma: 205 <= hue <= 250 and sat > 0.5 and luma < 60,
    "light-blue": lambda hue, sat, luma: 190 <= hue <= 225 and 0.25 < sat < 0.75 and luma > 80,
}


@pytest.fixture(scope="module")
def library():
    return rc.PatchLibrary.load()


@pytest.fixture(scope="module")
def pairs(library) -> dict[str, list[tuple[rc.Composite, rc.Composite]]]:
    """Per appearance: (composite, its restyled copy) on each board, fixed seeds."""
    plain, out = rc.Composer(library, camera=False), {}
    for index, appearance in enumerate(ap.APPEARANCES):
        rng = np.random.default_rng(100 + index)
        out[appearance] = []
        for source in SOURCES:
            base = plain.compose(rng, source)
            out[appearance].append((base, ap.restyle(base, appearance, rng)))
    return out


def _located(frame: np.ndarray) -> np.ndarray:
    homography = rc.locate(frame, MarkerDetector())
    assert homography is not None, "the four markers are no longer found"
    return homography


def _cells(frame: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """The 42 top-down cell patches (6, 7, 96, 96, 3) at 80 px per pitch."""
    return rc.cut_patches(frame, homography, 1)


def _hsv(pixels: np.ndarray) -> np.ndarray:
    """(N, 3) hue (degrees), saturation and value (0-1) of BGR pixels (N, 3)."""
    return cv2.cvtColor(pixels[None].astype(np.float32) / 255.0, cv2.COLOR_BGR2HSV)[0]


def _plastic(frame: np.ndarray, homography: np.ndarray, grid: list[str]) -> tuple[float, ...]:
    """Hue, saturation and luminance of the median cell corner of the empty cells."""
    corners = np.array([[rc.cell_colours(patch, 1)[0] for patch in line]
                        for line in _cells(frame, homography)])
    empty = np.array([[char == rc.EMPTY for char in line] for line in grid])
    median = np.median(corners[empty] if empty.sum() >= 6 else corners.reshape(-1, 3), axis=0)
    hue, sat, _ = _hsv(median[None])[0]
    return float(hue), float(sat), float(median @ ap.LUMA)


def _centres(frame: np.ndarray, homography: np.ndarray, grid: list[str],
             wanted: str) -> np.ndarray:
    """(N, 3) BGR pixels within 0.25 pitch of the centres of the ``wanted`` cells."""
    patches = _cells(frame, homography)
    side = patches.shape[2]
    y, x = np.mgrid[0:side, 0:side]
    centre = np.hypot(x + 0.5 - side / 2, y + 0.5 - side / 2) < 0.25 * rc.CELL
    return np.concatenate([patches[i, j][centre] for i, line in enumerate(grid)
                           for j, char in enumerate(line) if char == wanted] or [np.empty((0, 3))])


@pytest.mark.parametrize("appearance", ap.APPEARANCES)
def test_markers_grid_and_status_are_kept(pairs, appearance):
    for base, styled in pairs[appearance]:
        assert not styled.camera["appearance"]["fallback"]
        assert styled.grid == base.grid and styled.status == base.status
        assert np.array_equal(styled.plane_to_image, base.plane_to_image)
        assert styled.frame.shape == base.frame.shape
        assert not np.array_equal(styled.frame, base.frame)
        corners = np.array([[[80.0, 40.0]], [[640.0, 40.0]], [[640.0, 520.0]], [[80.0, 520.0]]])
        found = cv2.perspectiveTransform(corners, _located(styled.frame))
        known = cv2.perspectiveTransform(corners, base.plane_to_image)
        assert np.abs(found - known).max() < 4.0  # px: the markers are undamaged


@pytest.mark.parametrize("appearance", sorted(BOARD_CHECKS))
def test_the_board_plastic_takes_the_target_colour(pairs, appearance):
    for base, styled in pairs[appearance]:
        colour = _plastic(styled.frame, _located(styled.frame), styled.grid)
        assert BOARD_CHECKS[appearance](*colour), (base.base, colour)


def test_orange_pink_turns_red_discs_pink_and_yellow_ones_orange(pairs):
    checked = 0
    for base, styled in pairs["orange-pink"]:
        homography = _located(styled.frame)
        for char, band in (("R", (318.0, 352.0)), ("Y", (18.0, 40.0))):
            pixels = _centres(styled.frame, homography, styled.grid, char)
            if not len(pixels):
                continue
            hsv = _hsv(pixels)
            vivid = hsv[(hsv[:, 1] > 0.25) & (hsv[:, 2] > 0.15)]
            assert len(vivid) > 0.8 * len(hsv), (base.base, char)
            assert band[0] <= np.median(vivid[:, 0]) <= band[1], (base.base, char)
            if char == "R":  # pink: paler than the red it was
                before = _hsv(_centres(base.frame, base.plane_to_image, base.grid, "R"))
                assert np.median(vivid[:, 1]) < np.median(before[:, 1]) - 0.15
            checked += 1
        assert _plastic(styled.frame, homography, styled.grid) == pytest.approx(
            _plastic(base.frame, base.plane_to_image, base.grid), abs=3.0)  # board kept
    assert checked >= 3


def test_black_balls_replace_the_discs_and_darken_the_holes(pairs):
    for base, styled in pairs["black-balls"]:
        homography = _located(styled.frame)
        for char in "RY":
            after = _centres(styled.frame, homography, styled.grid, char).astype(float)
            before = _centres(base.frame, base.plane_to_image, base.grid, char).astype(float)
            if len(after):
                assert np.abs(after - before).mean() > 20.0, (base.base, char)
        after = _centres(styled.frame, homography, styled.grid, rc.EMPTY) @ ap.LUMA
        before = _centres(base.frame, base.plane_to_image, base.grid, rc.EMPTY) @ ap.LUMA
        assert after.mean() < 0.8 * before.mean()
        assert 0.5 <= styled.camera["appearance"].get("strength", 0) <= 1.0


def test_the_appearance_composer_restyles_its_composer_s_frames(library):
    composer = rc.Composer(library)
    wrapped = ap.AppearanceComposer(composer)
    first = wrapped.compose(np.random.default_rng(3), "navy", "res")
    rng = np.random.default_rng(3)
    again = ap.restyle(composer.compose(rng, "res"), "navy", rng)
    assert np.array_equal(first.frame, again.frame) and first.grid == again.grid
    assert first.jpeg is None and "wb" in first.camera and first.camera["appearance"]
    assert wrapped.retried["navy"] + wrapped.fallbacks["navy"] <= 1
    with pytest.raises(ValueError, match="unknown appearance"):
        ap.restyle(first, "purple", rng)


def test_a_restyle_that_hides_the_markers_falls_back_to_the_frame(pairs, monkeypatch):
    base = pairs["orange-pink"][0][0]
    monkeypatch.setattr(rc, "locate", lambda frame, detector: None)
    result = ap.restyle(base, "orange-pink", np.random.default_rng(0))
    assert result.camera["appearance"] == {"name": "orange-pink", "retries": 3, "fallback": True}
    assert result.frame is base.frame and result.grid == base.grid


def test_the_cli_writes_frames_labels_and_a_sheet(tmp_path):
    assert ap.main(["--appearance", "white", "--count", "1", "--seed", "4",
                    "--out", str(tmp_path), "--sheet", str(tmp_path / "sheet.png")]) == 0
    label = json.loads((tmp_path / "labels.jsonl").read_text().splitlines()[0])
    assert label["file"] == "0000.jpg" and "appearance-white" in label["tags"]
    assert cv2.imread(str(tmp_path / "0000.jpg")) is not None
    assert cv2.imread(str(tmp_path / "sheet.png")) is not None
