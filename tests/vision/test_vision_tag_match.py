"""Finding a marker by its pattern at its predicted place (tag_match)."""

from __future__ import annotations

import cv2
import numpy as np

from firmware_py.simtable.render import Hand, RenderSpec, plane_to_image, render_frame
from firmware_py.vision.geometry import apply_homography, marker_corners
from firmware_py.vision.markers import Marker, MarkerDetector, _run, refine_corners
from firmware_py.vision.tag_match import (
    identify_tag,
    is_tag,
    match_tag,
    tag_modules,
    tag_scores,
)

from .conftest import SEED_BASE

SIZE = 0.8  # marker side in pitches (SPEC §5 default)


def truth_corners(spec: RenderSpec, marker_id: int) -> np.ndarray:
    return apply_homography(plane_to_image(spec), marker_corners(marker_id, SIZE))


def homography_from(markers: dict[int, np.ndarray]) -> np.ndarray:
    plane = np.concatenate([marker_corners(i, SIZE) for i in markers])
    image = np.concatenate(list(markers.values()))
    return cv2.findHomography(plane, image)[0]


def test_tag_modules_are_the_dictionary_markers() -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    for marker_id in range(4):
        modules = tag_modules(marker_id)
        assert modules.shape == (8, 8)
        assert np.all(modules[0] == 0) and np.all(modules[:, -1] == 0)  # black border
        big = cv2.resize(modules.astype(np.uint8), (80, 80), interpolation=cv2.INTER_NEAREST)
        grey = cv2.copyMakeBorder(big, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        _, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(grey)
        assert ids is not None and ids.ravel().tolist() == [marker_id]


def test_is_tag_tells_ids_and_orientations_apart() -> None:
    spec = RenderSpec(distance=1.6)
    grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE), cv2.COLOR_BGR2GRAY)
    for marker_id in range(4):
        quad = truth_corners(spec, marker_id)
        assert is_tag(grey, quad, marker_id)
        assert tag_scores(grey, quad)[marker_id] > 0.8
        for other in set(range(4)) - {marker_id}:
            assert not is_tag(grey, quad, other)
        for turn in (1, 2, 3):  # the same tag seen rotated is another pattern
            assert not is_tag(grey, np.roll(quad, turn, axis=0), marker_id)


def test_match_tag_finds_markers_predicted_from_two_others() -> None:
    rng = np.random.default_rng(SEED_BASE + 40)
    detector = MarkerDetector()
    errors = []
    for index in range(8):
        spec = RenderSpec.random(rng, glare=0.0, max_tilt_deg=45)
        grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 40 + index),
                            cv2.COLOR_BGR2GRAY)
        found = detector.detect(grey)
        kept = sorted(found)[:2] if index % 2 else sorted(found)[::3]  # a side or a diagonal
        homography = homography_from({i: found[i].corners for i in kept})
        for marker_id in set(range(4)) - set(kept):
            quad = match_tag(grey, homography, marker_id, SIZE, reach=2.0)
            assert quad is not None, f"frame {index}: marker {marker_id} not matched"
            quad = refine_corners(grey, quad[None])[0]
            assert is_tag(grey, quad, marker_id)
            errors.append(np.abs(quad - truth_corners(spec, marker_id)).max())
    assert np.median(errors) < 1.0
    assert max(errors) < 3.0


def test_no_tag_is_matched_under_a_hand() -> None:
    rng = np.random.default_rng(SEED_BASE + 60)
    detector = MarkerDetector()
    for index in range(8):
        hidden = index % 4
        spec = RenderSpec.random(rng, hide_markers=(hidden,))
        grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 60 + index),
                            cv2.COLOR_BGR2GRAY)
        found = detector.detect(grey)
        assert hidden not in found, f"frame {index}: hidden marker {hidden} reported"
        homography = homography_from({i: m.corners for i, m in found.items()})
        quad = match_tag(grey, homography, hidden, SIZE, reach=1.0)
        assert quad is None or not is_tag(grey, refine_corners(grey, quad[None])[0], hidden)


def test_a_blurred_marker_is_placed_by_its_pattern() -> None:
    # Marker 2 squeezed to a heavy blur (whether a decoding pass still reads it
    # depends on the platform's resampling): the pattern match, predicted from
    # the other three markers, places it at its true corners, and the detector
    # returns all four markers with marker 2 there.
    spec = RenderSpec(distance=2.2, yaw_deg=35.0)
    grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 2), cv2.COLOR_BGR2GRAY)
    truth = truth_corners(spec, 2)
    low, high = truth.min(axis=0).astype(int) - 4, truth.max(axis=0).astype(int) + 5
    patch = grey[low[1]:high[1], low[0]:high[0]]
    grey[low[1]:high[1], low[0]:high[0]] = cv2.GaussianBlur(patch, (0, 0), 3.2)
    others = {i: truth_corners(spec, i) for i in (0, 1, 3)}
    quad = match_tag(grey, homography_from(others), 2, SIZE, reach=1.0)
    assert quad is not None
    refined = refine_corners(grey, quad[None])[0]
    assert is_tag(grey, refined, 2)
    assert np.abs(refined - truth).max() < 2.5
    found = MarkerDetector().detect(grey)
    assert set(found) == {0, 1, 2, 3}
    assert np.abs(found[2].corners - truth).max() < 2.5


def test_a_hand_beside_the_marker_does_not_fool_the_match() -> None:
    spec = RenderSpec(hide_markers=(3,), hand=Hand(0.8, 0.3, 20.0, 0.12))
    grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 3), cv2.COLOR_BGR2GRAY)
    assert 3 not in MarkerDetector().detect(grey)


def spoil_modules(grey: np.ndarray, quad: np.ndarray, marker_id: int, count: int,
                  rng: np.random.Generator) -> None:
    """Paint ``count`` of the tag's inner modules in the opposite shade, in place."""
    modules = tag_modules(marker_id)
    to_image = cv2.getPerspectiveTransform(
        np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float32), quad.astype(np.float32))
    for flat in rng.choice(36, size=count, replace=False):
        row, col = 1 + flat // 6, 1 + flat % 6
        cell = np.array([[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]],
                        np.float32).reshape(-1, 1, 2)
        polygon = cv2.perspectiveTransform(cell, to_image).reshape(4, 2)
        shade = 40 if modules[row, col] else 215
        cv2.fillConvexPoly(grey, np.round(polygon * 16).astype(np.int32), shade,
                           lineType=cv2.LINE_AA, shift=4)


def test_identify_tag_reads_a_quad_in_any_turn_and_winding() -> None:
    spec = RenderSpec(distance=1.6, yaw_deg=20.0)
    grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 5), cv2.COLOR_BGR2GRAY)
    for marker_id in range(4):
        quad = truth_corners(spec, marker_id)
        for turn in range(4):
            for contour in (np.roll(quad, turn, axis=0), np.roll(quad, turn, axis=0)[::-1]):
                found = identify_tag(grey, contour, {0, 1, 2, 3})
                assert found is not None
                assert found[0] == marker_id
                assert np.allclose(found[1], quad)
        assert identify_tag(grey, quad, {0, 1, 2, 3} - {marker_id}) is None
    board_hole = truth_corners(spec, 0) + np.array([300.0, 200.0])  # no tag there
    assert identify_tag(grey, board_hole, {0, 1, 2, 3}) is None


def test_markers_the_decoder_rejects_are_identified_by_their_pattern() -> None:
    # Six modules of markers 0, 1 and 2 painted over: more wrong bits than
    # any decoding pass corrects, so only marker 3 decodes. The three spoilt
    # tags are still found square contours; their pattern names them.
    rng = np.random.default_rng(SEED_BASE + 6)
    spec = RenderSpec(distance=1.8, yaw_deg=-30.0, pitch_deg=25.0)
    grey = cv2.cvtColor(render_frame("", spec, seed=SEED_BASE + 6), cv2.COLOR_BGR2GRAY)
    for marker_id in (0, 1, 2):
        spoil_modules(grey, truth_corners(spec, marker_id), marker_id, 5, rng)
    detector = MarkerDetector()
    decoded, rejected = set(), []
    for detector_pass in detector._passes:
        markers, contours = _run(detector_pass, grey)
        decoded |= {marker.marker_id for marker in markers}
        rejected += contours
    assert decoded == {3}
    only_3 = {3: Marker(3, truth_corners(spec, 3))}
    identified = detector._identify(grey, only_3, rejected)
    assert set(identified) == {0, 1, 2}
    found = detector.detect(grey)
    assert set(found) == {0, 1, 2, 3}
    for marker_id in range(4):
        assert np.abs(found[marker_id].corners - truth_corners(spec, marker_id)).max() < 1.5
