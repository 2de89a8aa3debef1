"""Finding a marker the decoder missed, by its known pattern at its predicted place.

Used by :class:`~firmware_py.vision.markers.MarkerDetector` when a marker is
too small, blurred or foreshortened for ArUco's decoder (typically 15-20 px
wide, two pixels per module). The markers already found give the board's
homography, so the missing marker's place, size, orientation and *pattern*
are all known; only where exactly it lies is not.

1. The image around the predicted place is rectified through that
   homography (4 px per module, the window reaching ``reach`` marker sides
   beyond the marker each way), so the marker appears upright at about a
   known size.
2. The expected tag (its 8 x 8 modules with the one-module white margin of
   SPEC §5) is matched there with normalised cross-correlation at five
   scales (0.8-1.25), which absorbs the prediction's error in position and
   scale.
3. The best match, mapped back to the image and refined from its edges,
   is verified: the mean grey levels of its 8 x 8 modules must correlate
   with the expected tag by at least ``MIN_TAG_SCORE`` and beat every other
   board id by ``MIN_TAG_MARGIN``. Found markers score 0.7-0.95 against
   their own pattern and below 0.55 against the others; the smallest ones
   (13 px wide, 1.6 px per module) score down to about 0.55, far above
   every other id (seed 20,007: 0.568 against at most 0.11). Where no tag
   is, the match scores far lower: in 12,530 searches for a marker covered
   by a hand (seeds 60,000+ and 110,000+, predicted from one to three
   markers) the best score was 0.26, and of 510 marker-sized contours away
   from the markers in 2,000 frames none reached 0.4 for any id in any
   turn. Hence ``MIN_TAG_SCORE`` 0.55 (it was 0.6).

:func:`identify_tag` applies the same check to a quadrilateral found
anywhere (a contour the decoder rejected), trying its four turns.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from firmware_py.vision.geometry import MARKER_CENTRES, MARKER_IDS, PX_PER_PITCH

MODULES = 8  # AprilTag 36h11 in OpenCV: 6 x 6 data bits inside a one-module black border
PX_PER_MODULE = 4  # resolution of the rectified search window
SCALES = (0.8, 0.9, 1.0, 1.12, 1.25)
MIN_MATCH = 0.55  # normalised cross-correlation of the template match
MIN_TAG_SCORE = 0.55  # correlation of the found quad's modules with the expected tag
MIN_TAG_MARGIN = 0.15  # ... above the best other board id
SAMPLE_PX = 6  # pixels per module when a quad's modules are measured


@functools.lru_cache(maxsize=len(MARKER_IDS))
def tag_modules(marker_id: int) -> np.ndarray:
    """The tag's 8 x 8 modules (0 black, 255 white), upright, uint8, read-only."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    modules = cv2.aruco.generateImageMarker(dictionary, marker_id, MODULES)
    modules.flags.writeable = False
    return modules


@functools.lru_cache(maxsize=len(MARKER_IDS) * len(SCALES))
def _template(marker_id: int, scale: float) -> np.ndarray:
    """The tag with its white margin, rectified-window pixels, at ``scale``."""
    framed = cv2.copyMakeBorder(tag_modules(marker_id), 1, 1, 1, 1, cv2.BORDER_CONSTANT,
                                value=255)
    side = int(round(len(framed) * PX_PER_MODULE * scale))
    return cv2.resize(framed, (side, side), interpolation=cv2.INTER_AREA)


def quad_modules(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Mean grey level of the central half of each of the quad's 8 x 8 modules."""
    side = MODULES * SAMPLE_PX
    target = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), target)
    patch = cv2.warpPerspective(grey, matrix, (side, side), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    inner = slice(SAMPLE_PX // 4, SAMPLE_PX - SAMPLE_PX // 4)
    cells = patch.reshape(MODULES, SAMPLE_PX, MODULES, SAMPLE_PX).swapaxes(1, 2)
    return cells[:, :, inner, inner].mean(axis=(2, 3))


def tag_scores(grey: np.ndarray, quad: np.ndarray) -> dict[int, float]:
    """Correlation of the quad's modules with each board id's tag (-1 to 1)."""
    measured = quad_modules(grey, quad).ravel()
    if measured.std() < 1e-6:
        return dict.fromkeys(MARKER_IDS, 0.0)
    return {marker_id: float(np.corrcoef(measured, tag_modules(marker_id).ravel())[0, 1])
            for marker_id in MARKER_IDS}


def is_tag(grey: np.ndarray, quad: np.ndarray, marker_id: int) -> bool:
    """Whether ``quad`` holds tag ``marker_id`` upright (see the module docstring)."""
    return _accepts(tag_scores(grey, quad), marker_id)


def _accepts(scores: dict[int, float], marker_id: int) -> bool:
    others = max(score for key, score in scores.items() if key != marker_id)
    return scores[marker_id] >= MIN_TAG_SCORE and scores[marker_id] - others >= MIN_TAG_MARGIN


def identify_tag(grey: np.ndarray, quad: np.ndarray,
                 marker_ids: set[int]) -> tuple[int, np.ndarray] | None:
    """The id among ``marker_ids`` whose tag ``quad`` holds, with the quad turned upright.

    ``quad`` is any quadrilateral (4, 2) in either winding, such as a contour
    the decoder rejected; each of its four turns (and of the tag inside it,
    when ``quad`` is the outline of the white margin) is checked against each
    id as :func:`is_tag` checks. Returns (id, corners TL TR BR BL) or None.
    """
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    if _signed_area(quad) < 0:  # the decoder's corners run clockwise on screen
        quad = quad[::-1].copy()
    for candidate in (quad, _inside_margin(quad)):
        for turn in range(4):
            turned = np.roll(candidate, -turn, axis=0)
            scores = tag_scores(grey, turned)
            for marker_id in sorted(marker_ids):
                if _accepts(scores, marker_id):
                    return marker_id, turned
    return None


def _inside_margin(quad: np.ndarray) -> np.ndarray:
    """The tag inside ``quad`` taken as the outline of its white margin (10 x 10 modules).

    On a dark board the margin's outer edge is a square contour too, and the
    decoder often keeps it instead of the black border one module inside.
    """
    framed = MODULES + 2
    outline = np.array([[0, 0], [framed, 0], [framed, framed], [0, framed]], np.float32)
    to_image = cv2.getPerspectiveTransform(outline, quad.astype(np.float32))
    inner = np.array([[1, 1], [framed - 1, 1], [framed - 1, framed - 1], [1, framed - 1]],
                     np.float32)
    return cv2.perspectiveTransform(inner.reshape(-1, 1, 2), to_image).reshape(4, 2)


def _signed_area(quad: np.ndarray) -> float:
    """Shoelace area, positive for corners running clockwise on screen (y down)."""
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def match_tag(grey: np.ndarray, plane_to_image: np.ndarray, marker_id: int,
              marker_size_pitch: float, reach: float) -> np.ndarray | None:
    """Image corners (4, 2) of the best match of tag ``marker_id`` near its predicted place.

    ``plane_to_image`` is the board homography from the markers found so far
    (SPEC §5 plane). Returns None when nothing matches well enough; the result
    still has to pass :func:`is_tag` after refinement.
    """
    module = marker_size_pitch * PX_PER_PITCH / MODULES  # plane units per module
    unit = module / PX_PER_MODULE  # plane units per window pixel
    half = (MODULES / 2 + 1 + MODULES * reach) * module
    size = int(round(2 * half / unit))
    centre_x, centre_y = MARKER_CENTRES[marker_id]
    window_to_plane = np.array([[unit, 0.0, centre_x - half + unit / 2],
                                [0.0, unit, centre_y - half + unit / 2], [0.0, 0.0, 1.0]])
    window_to_image = plane_to_image @ window_to_plane
    try:
        image_to_window = np.linalg.inv(window_to_image)
    except np.linalg.LinAlgError:
        return None
    window = cv2.warpPerspective(grey, image_to_window, (size, size), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    best_score, best_corner, best_scale = MIN_MATCH, None, 1.0
    for scale in SCALES:
        template = _template(marker_id, scale)
        if len(template) >= size:
            continue
        scores = cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
        _, score, _, corner = cv2.minMaxLoc(scores)
        if score > best_score:
            best_score, best_corner, best_scale = score, corner, scale
    if best_corner is None:
        return None
    margin = PX_PER_MODULE * best_scale  # the white margin inside the template
    side = MODULES * PX_PER_MODULE * best_scale
    origin = np.asarray(best_corner, np.float64) + margin - 0.5  # pixel edges, not centres
    corners = origin + np.array([[0.0, 0.0], [side, 0.0], [side, side], [0.0, side]])
    mapped = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), window_to_image)
    return mapped.reshape(4, 2)
