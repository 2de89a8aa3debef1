"""AprilTag 36h11 detection of the four board markers (SPEC.md §5).

Detector parameters, tuned on rendered frames (oblique views up to 45°, blur,
glare, 1280 x 720) for speed and recall on one core:

* ``cornerRefinementMethod = SUBPIX``: sub-pixel corners for the homography
  (the AprilTag refinement is several times slower for no gain here).
* one adaptive-threshold window of 7 px (``adaptiveThreshWinSizeMin = Max
  = 7``) instead of the default three (3, 13, 23): on 200 held-out rendered
  frames it alone found 744 of the 748 markers that any window from 5 to 31
  found, in 3.6 ms against 4.6 ms for a 15 px window; when fewer than four
  markers are found a second pass with a 10 px window runs (747 of 748).
* ``minMarkerPerimeterRate = 0.04`` (perimeter / largest frame side): a
  marker of 0.8 pitch on a board 9 pitches wide filling a third of the frame
  at 45° is still twice that, and rejecting small contours early saves time.
* ``polygonalApproxAccuracyRate`` stays at its default 0.03: a looser value
  turns the 42 round holes into quadrilateral candidates and makes detection
  ten times slower.

The detector's corners (sub-pixel refined on the corner alone) are then
refined again from the whole outer edges of each marker's black border: along
each side, at 9 places, the intensity profile across the edge is sampled and
its 50% crossing found; a line is fitted to each side and adjacent lines are
intersected (:func:`refine_corners`). On rendered frames this cuts the corner
error from 0.76 px median / 3.1 px p99 to 0.22 / 1.6 px, which matters most
when only three markers are visible.

Only ids 0-3 are kept; when an id appears more than once the largest copy
wins (a second sheet in view is usually smaller and farther away).

**Tracking.** The camera of an installation rarely moves, so once a frame
showed all four markers, the next frame is first searched only near them:
each marker's box grown by :data:`TRACK_MARGIN` marker sides each way (a
tenth of a 1280 x 720 frame's pixels), by the two decoding passes, keeping
only that marker's id. When three or four are decoded there, none moved by
more than :data:`TRACK_MOVED` of its side (the view is the one before), a
missing one is recovered from them as below, and when all four are found
so (and refined as above) that is the frame's answer; else (a marker
moved or hidden) the whole frame is searched as described. Every
:data:`TRACK_FRAMES` tracked frames the whole frame is searched again, and
the reader makes the detector forget what it tracked when the markers
found made no board of four (:meth:`MarkerDetector.forget`): a second
sheet's copy of a hidden marker is not followed after the real one shows
again.

**Where a board found by its holes would carry them** (``detect``'s
``where``): while no marker is decoded near those places, the rest of the
frame is not searched (the two full passes cost more than the rest of such
a frame's reading); one decoded there starts the full search, so markers
stuck on later are found.

Recovery of missed markers: when one to three markers are found, the board's
homography from their corners predicts where each missing one lies. A region
around the prediction (the predicted box grown by one marker side each way)
is upscaled (x2, then x3 with cubic interpolation) and searched again with
looser decoding (``errorCorrectionRate = 1``, finer bit sampling), keeping only
the expected id at about the expected size. When decoding still fails, the
expected tag is matched by its pattern around the prediction
(:mod:`firmware_py.vision.tag_match`; reach 3, 2 or 1 marker sides from 1, 2
or 3 known markers) and kept only when its modules correlate with that tag
and no other. Every marker found this way refines the homography, and the
search repeats for those still missing. Small, blurred markers far from the
camera are the usual misses: on the 500 held-out benchmark frames decoding
turned 4 of the 6 frames with only two markers into three- or four-marker
fits, and the pattern match the 2 left.

When the search near the predictions finds nothing more, the square contours
the decoder found but could not read are identified by their pattern
(:func:`~firmware_py.vision.tag_match.identify_tag`: each contour, or the
tag inside it when the contour is the white margin's outline, in its four
turns, against the missing ids), skipping contours on a marker already
found and of implausible size. This needs no prediction, so it also works
from a single marker, whose homography predicts the far ones too loosely
(on seed 20,007 of the benchmark it found two of the three missing markers;
the fourth then followed by the pattern match). On 1,500 frames (seeds
100,000+), 103 decoded one to three markers; with this step 85 ended with
four markers, 18 with three, none with one (without it: 84, 17, 2), and
the corner errors of the markers added after decoding were the same
(median 0.96, p90 1.85, max 2.48 px). Run before the predicted search
instead, it had found markers the search finds more exactly (p90 2.37,
max 3.83 px), hence the order.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from firmware_py.config import VisionConfig
from firmware_py.vision.geometry import MARKER_IDS, marker_corners
from firmware_py.vision.tag_match import identify_tag, is_tag, match_tag

FIRST_WINDOW = 7
SECOND_WINDOW = 10
EDGE_SAMPLES = 9  # places along each side where the edge is measured
PROFILE_STEPS = 17  # samples across the edge
MIN_CONTRAST = 25.0  # grey levels between the black border and the white margin
RECOVERY_PASSES = ((2.0, 10, cv2.INTER_LINEAR, 8, 0.3), (3.0, 23, cv2.INTER_CUBIC, 4, 0.13))
"""(upscale, threshold window, interpolation, pixels per bit, ignored bit margin)"""
TEMPLATE_REACH = (3.0, 2.0, 1.0)
"""How far (marker sides) the tag is matched around its prediction from 1, 2, 3 markers."""
TRACK_MARGIN = 1.0  # marker sides searched round each marker of the frame before
TRACK_MOVED = 0.25  # marker sides a marker found there may have moved: a still camera
TRACK_FRAMES = 50  # frames tracked in a row before the whole frame is searched again


@dataclass(frozen=True)
class Marker:
    """One detected marker: its id and its four image corners (TL, TR, BR, BL)."""

    marker_id: int
    corners: np.ndarray  # (4, 2) float64

    @property
    def area(self) -> float:
        """Area of the corner quadrilateral in square pixels."""
        return float(abs(cv2.contourArea(self.corners.astype(np.float32))))


def select_markers(candidates: list[Marker]) -> dict[int, Marker]:
    """Keep ids 0-3 only, and for each id the copy with the largest area."""
    chosen: dict[int, Marker] = {}
    for marker in candidates:
        if marker.marker_id not in MARKER_IDS:
            continue
        best = chosen.get(marker.marker_id)
        if best is None or marker.area > best.area:
            chosen[marker.marker_id] = marker
    return dict(sorted(chosen.items()))


def detector_parameters(window: int) -> cv2.aruco.DetectorParameters:
    """The tuned ArUco parameters (see the module docstring)."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.adaptiveThreshWinSizeMin = window
    params.adaptiveThreshWinSizeMax = window
    params.adaptiveThreshWinSizeStep = 10
    params.minMarkerPerimeterRate = 0.04
    return params


def recovery_parameters(window: int, pixels_per_bit: int,
                        margin: float) -> cv2.aruco.DetectorParameters:
    """Looser decoding for the upscaled search around a missing marker."""
    params = detector_parameters(window)
    params.errorCorrectionRate = 1.0
    params.perspectiveRemovePixelPerCell = pixels_per_bit
    params.perspectiveRemoveIgnoredMarginPerCell = margin
    return params


class MarkerDetector:
    """Finds the board's markers in a grey image.

    ``marker_size_pitch`` (SPEC §5 marker side) is used only to predict where
    a missed marker should be (see the module docstring).
    """

    def __init__(self, *, marker_size_pitch: float = VisionConfig.marker_size_pitch) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
        self.marker_size_pitch = marker_size_pitch
        self._passes = [cv2.aruco.ArucoDetector(dictionary, detector_parameters(window))
                        for window in (FIRST_WINDOW, SECOND_WINDOW)]
        self._recovery = [(scale, interpolation, cv2.aruco.ArucoDetector(
            dictionary, recovery_parameters(window, pixels_per_bit, margin)))
            for scale, window, interpolation, pixels_per_bit, margin in RECOVERY_PASSES]
        self._last: dict[int, Marker] = {}  # the four markers of the frame before, if four
        self._tracked = 0  # frames in a row whose markers were found by tracking

    def detect(self, grey: np.ndarray,
               where: dict[int, np.ndarray] | None = None) -> dict[int, Marker]:
        """Markers 0-3 found in ``grey`` (uint8, H x W), by id: near the four of the
        frame before when they are all there (tracking), else in the whole frame.
        ``where``: the image quads where each marker would stand if stuck on (a
        board found by its holes); when the frame before showed no four markers,
        the whole frame is searched only if a marker is decoded near one of them."""
        if grey.ndim != 2 or grey.dtype != np.uint8:
            raise ValueError(f"expected a uint8 grey image, got {grey.dtype} {grey.shape}")
        chosen = self._near_last(grey) if self._tracked < TRACK_FRAMES else None
        self._tracked = self._tracked + 1 if chosen is not None else 0
        if chosen is None and where is not None and not self._any_near(grey, where):
            chosen = {}
        if chosen is None:
            chosen = self._search_frame(grey)
        self._last = chosen if len(chosen) == len(MARKER_IDS) else {}
        return chosen

    def forget(self) -> None:
        """Track nothing: the next frame is searched whole (the reader says so when the
        markers found made no board, e.g. a second sheet's copy of a hidden marker)."""
        self._last, self._tracked = {}, 0

    def _near_last(self, grey: np.ndarray) -> dict[int, Marker] | None:
        """The four markers of the frame before, found again near where they were
        (decoded there, the missing ones recovered as in a full search); None when
        there were not four, or not all four are found so."""
        if len(self._last) != len(MARKER_IDS):
            return None
        decoded = {}
        for marker_id, marker in self._last.items():
            low, high = _around(marker.corners, TRACK_MARGIN, grey.shape)
            if np.all(high - low >= 8):
                quad = self._decode_in(grey[low[1]:high[1], low[0]:high[0]], marker_id)
                if quad is not None:
                    decoded[marker_id] = quad + low
        moved = [_moved(self._last[key].corners, quad) for key, quad in decoded.items()]
        if len(decoded) < len(MARKER_IDS) - 1 or max(moved, default=0.0) > TRACK_MOVED:
            return None  # hidden, or the view has moved: the whole frame is searched
        refined = refine_corners(grey, np.array(list(decoded.values())))
        chosen = self._complete(grey, {key: Marker(key, quad) for key, quad
                                       in zip(decoded, refined, strict=True)}, [])
        return chosen if len(chosen) == len(MARKER_IDS) else None

    def _any_near(self, grey: np.ndarray, where: dict[int, np.ndarray]) -> bool:
        """Whether a marker of the board is decoded near one of the quads ``where``."""
        for quad in where.values():
            if not np.all(np.isfinite(quad)):
                continue
            low, high = _around(quad, TRACK_MARGIN, grey.shape)
            if np.all(high - low >= 8) and any(
                    marker.marker_id in MARKER_IDS for detector in self._passes
                    for marker in _run(detector, grey[low[1]:high[1], low[0]:high[0]])[0]):
                return True
        return False

    def _decode_in(self, region: np.ndarray, marker_id: int) -> np.ndarray | None:
        """The largest copy of ``marker_id`` the decoding passes find in ``region``."""
        for detector in self._passes:
            copies = [m for m in _run(detector, region)[0] if m.marker_id == marker_id]
            if copies:
                return max(copies, key=lambda m: m.area).corners
        return None

    def _search_frame(self, grey: np.ndarray) -> dict[int, Marker]:
        """Markers 0-3 found anywhere in ``grey``: two decoding passes, then the
        missing ones searched near their predictions and among the rejected contours."""
        found: list[Marker] = []
        rejected: list[np.ndarray] = []
        for detector in self._passes:
            decoded, contours = _run(detector, grey)
            found.extend(decoded)
            rejected.extend(contours)
            if len(select_markers(found)) == len(MARKER_IDS):
                break
        chosen = select_markers(found)
        if not chosen:
            return chosen
        refined = refine_corners(grey, np.array([m.corners for m in chosen.values()]))
        return self._complete(grey, {key: Marker(key, quad) for key, quad
                                     in zip(chosen, refined, strict=True)}, rejected)

    def _complete(self, grey: np.ndarray, chosen: dict[int, Marker],
                  rejected: list[np.ndarray]) -> dict[int, Marker]:
        """``chosen`` with the missing markers searched near their predictions and
        among the ``rejected`` contours, until no more are found."""
        chosen = dict(sorted(chosen.items()))
        while len(chosen) < len(MARKER_IDS):
            recovered = self._recover(grey, chosen) or self._identify(grey, chosen, rejected)
            if not recovered:
                break
            chosen = dict(sorted({**chosen, **recovered}.items()))
        return chosen

    def _identify(self, grey: np.ndarray, chosen: dict[int, Marker],
                  rejected: list[np.ndarray]) -> dict[int, Marker]:
        """Missing markers among the contours the decoder rejected, told by their pattern."""
        areas = [marker.area for marker in chosen.values()]
        low, high = 0.25 * min(areas), 4.0 * max(areas)
        known = [(m.corners.mean(axis=0), float(np.ptp(m.corners, axis=0).max()))
                 for m in chosen.values()]
        missing = set(MARKER_IDS) - set(chosen)
        identified: dict[int, Marker] = {}
        for contour in rejected:
            if not low <= abs(cv2.contourArea(contour.astype(np.float32))) <= high:
                continue
            centre = contour.mean(axis=0)
            if any(np.linalg.norm(centre - at) < side for at, side in known):
                continue  # a contour on a marker already found (its inner squares)
            match = identify_tag(grey, contour, missing)
            if match is None:
                continue
            marker_id, quad = match
            marker = Marker(marker_id, refine_corners(grey, quad[None])[0])
            best = identified.get(marker_id)
            if is_tag(grey, marker.corners, marker_id) and (best is None
                                                            or marker.area > best.area):
                identified[marker_id] = marker
        return identified

    def _recover(self, grey: np.ndarray, chosen: dict[int, Marker]) -> dict[int, Marker]:
        """Search where the missing markers should be: decode upscaled, then match the tag."""
        plane = np.concatenate([marker_corners(i, self.marker_size_pitch) for i in chosen])
        image = np.concatenate([m.corners for m in chosen.values()])
        homography, _ = cv2.findHomography(plane, image)
        if homography is None:
            return {}
        reach = TEMPLATE_REACH[min(len(chosen), len(TEMPLATE_REACH)) - 1]
        recovered = {}
        for marker_id in sorted(set(MARKER_IDS) - set(chosen)):
            quad = cv2.perspectiveTransform(
                marker_corners(marker_id, self.marker_size_pitch).reshape(-1, 1, 2),
                homography).reshape(4, 2)
            marker = self._search(grey, marker_id, quad)
            if marker is None:
                marker = self._match(grey, marker_id, homography, reach)
            if marker is not None:
                recovered[marker_id] = marker
        return recovered

    def _match(self, grey: np.ndarray, marker_id: int, homography: np.ndarray,
               reach: float) -> Marker | None:
        """``marker_id`` found by its pattern (:mod:`tag_match`), refined and verified."""
        quad = match_tag(grey, homography, marker_id, self.marker_size_pitch, reach)
        if quad is None:
            return None
        quad = refine_corners(grey, quad[None])[0]
        return Marker(marker_id, quad) if is_tag(grey, quad, marker_id) else None

    def _search(self, grey: np.ndarray, marker_id: int, quad: np.ndarray) -> Marker | None:
        """``marker_id`` near the predicted ``quad``, or None."""
        if not np.all(np.isfinite(quad)):
            return None
        side = float(np.ptp(quad, axis=0).max())
        low, high = _around(quad, 1.0, grey.shape)
        if np.any(high - low < 8) or side > max(grey.shape):
            return None
        region = grey[low[1]:high[1], low[0]:high[0]]
        expected = abs(cv2.contourArea(quad.astype(np.float32)))
        for scale, interpolation, detector in self._recovery:
            big = cv2.resize(region, None, fx=scale, fy=scale, interpolation=interpolation)
            for marker in _run(detector, big)[0]:
                if marker.marker_id != marker_id:
                    continue
                corners = (marker.corners + 0.5) / scale - 0.5 + low
                found = Marker(marker_id, refine_corners(grey, corners[None])[0])
                if 0.25 * expected <= found.area <= 4.0 * expected:
                    return found
        return None


def _moved(before: np.ndarray, now: np.ndarray) -> float:
    """How far (in ``before``'s longest sides) a marker's corners moved at most."""
    side = max(float(np.ptp(before, axis=0).max()), 1.0)
    return float(np.linalg.norm(now - before, axis=1).max()) / side


def _around(quad: np.ndarray, sides: float, shape: tuple[int, ...]
            ) -> tuple[np.ndarray, np.ndarray]:
    """The (x, y) low and high pixel bounds of ``quad``'s box grown by ``sides`` of its
    longest side each way, inside an image of ``shape``."""
    grow = sides * float(np.ptp(quad, axis=0).max())
    low = np.maximum(np.floor(quad.min(axis=0) - grow), 0).astype(int)
    high = np.minimum(np.ceil(quad.max(axis=0) + grow), shape[1::-1]).astype(int)
    return low, high


def _run(detector: cv2.aruco.ArucoDetector,
                       grey: np.ndarray) -> tuple[list[Marker], list[np.ndarray]]:
    """Decoded markers, and the square contours (4, 2) the decoder could not read."""
    corners, ids, rejected = detector.detectMarkers(grey)
    contours = [np.asarray(quad, np.float64).reshape(4, 2) for quad in rejected]
    if ids is None:
        return [], contours
    return [Marker(int(marker_id), np.asarray(quad, np.float64).reshape(4, 2))
            for quad, marker_id in zip(corners, ids.ravel(), strict=True)], contours


def refine_corners(grey: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Refine marker corners (M, 4, 2) from the straight outer edges of the markers.

    A side whose edge is measured at fewer than 4 places with enough contrast
    (a hand, glare) leaves that marker's corners as they were; so does a result
    that moves a corner by more than half a module (or 3 px).
    """
    quads = np.asarray(quads, np.float64)
    start, end = quads, np.roll(quads, -1, axis=1)
    side = end - start
    length = np.linalg.norm(side, axis=2, keepdims=True)
    direction = side / np.maximum(length, 1e-9)
    normal = np.stack([direction[..., 1], -direction[..., 0]], axis=-1)
    outward = np.sum(((start + end) / 2 - quads.mean(axis=1, keepdims=True)) * normal, axis=2)
    normal *= np.where(outward < 0, -1.0, 1.0)[..., None]
    module = length.mean(axis=1, keepdims=True) / 8  # (M, 1, 1)
    reach = np.clip(0.6 * module, 1.5, 6.0)  # stay within the black border / white margin
    edges, good = _edge_points(grey, start, side, normal, reach)
    lines = _fit_lines(edges, good)
    corners = _intersect(lines[0], lines[1], np.roll(lines[0], 1, axis=1),
                         np.roll(lines[1], 1, axis=1))
    enough = good.sum(axis=2).min(axis=1) >= 4
    moved = np.abs(corners - quads).max(axis=(1, 2))
    accept = enough & np.isfinite(moved) & (moved < np.maximum(3.0, 0.5 * module[:, 0, 0]))
    return np.where(accept[:, None, None], corners, quads)


def _edge_points(grey: np.ndarray, start: np.ndarray, side: np.ndarray, normal: np.ndarray,
                 reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sub-pixel edge points (M, 4, S, 2) along each side and whether each is usable."""
    along = np.linspace(0.15, 0.85, EDGE_SAMPLES)
    steps = np.linspace(-1.0, 1.0, PROFILE_STEPS)
    base = start[:, :, None, :] + along[None, None, :, None] * side[:, :, None, :]
    offsets = (steps[None, None, None, :, None] * reach[:, :, :, None, None]
               * normal[:, :, None, None, :])
    points = (base[:, :, :, None, :] + offsets).reshape(1, -1, 2).astype(np.float32)
    values = cv2.remap(grey, points[..., 0], points[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    profile = values.reshape(base.shape[:3] + (PROFILE_STEPS,)).astype(np.float64)
    inner, outer = profile[..., :2].mean(axis=-1), profile[..., -2:].mean(axis=-1)
    middle = (inner + outer) / 2
    index = np.clip(np.argmax(profile >= middle[..., None], axis=-1), 1, PROFILE_STEPS - 1)
    low = np.take_along_axis(profile, (index - 1)[..., None], -1)[..., 0]
    high = np.take_along_axis(profile, index[..., None], -1)[..., 0]
    fraction = np.clip((middle - low) / np.maximum(high - low, 1e-9), 0.0, 1.0)
    offset = (steps[index - 1] + fraction * (steps[1] - steps[0])) * reach
    edges = base + offset[..., None] * normal[:, :, None, :]
    return edges, (outer - inner) > MIN_CONTRAST


def _fit_lines(points: np.ndarray, good: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total-least-squares lines (point, unit direction) through the good points."""
    weight = good.astype(np.float64)[..., None]
    count = np.maximum(weight.sum(axis=2), 1.0)
    centre = (points * weight).sum(axis=2) / count
    centred = (points - centre[:, :, None, :]) * weight
    sxx = (centred[..., 0] ** 2).sum(axis=2)
    syy = (centred[..., 1] ** 2).sum(axis=2)
    sxy = (centred[..., 0] * centred[..., 1]).sum(axis=2)
    angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    return centre, np.stack([np.cos(angle), np.sin(angle)], axis=-1)


def _intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Intersections of lines p1 + s d1 and p2 + t d2 (inf where parallel)."""
    cross = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    delta = p2 - p1
    s = (delta[..., 0] * d2[..., 1] - delta[..., 1] * d2[..., 0]) / np.where(
        np.abs(cross) < 1e-9, np.nan, cross)
    return p1 + s[..., None] * d1
