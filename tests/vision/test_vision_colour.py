"""Colour constancy from the markers, the colour reader, and the hole looks' empty looks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_py.simtable.render import RenderSpec, plane_to_image, render_frame
from firmware_py.vision.cells import cell_features
from firmware_py.vision.colour import BLACK_LEVEL, WHITE_LEVEL, ColourReference, colour_reference
from firmware_py.vision.colour_reader import ColourCellReader
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.hole_looks import EMPTY_GRID, HoleLooks

SIDE = 32


def test_normalise_maps_white_and_black_to_fixed_levels() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        black = rng.uniform(0, 60, 3)
        white = black + rng.uniform(60, 190, 3)
        reference = ColourReference(white, black)
        image = np.stack([np.round(white), np.round(black)]).reshape(2, 1, 3).astype(np.uint8)
        out = reference.normalise(image).reshape(2, 3).astype(float)
        assert np.all(np.abs(out[0] - WHITE_LEVEL) <= 2.5)
        assert np.all(np.abs(out[1] - BLACK_LEVEL) <= 2.5)


def test_a_reference_without_contrast_is_refused() -> None:
    with pytest.raises(ValueError, match="too close"):
        ColourReference(np.array([40.0, 40, 40]), np.array([30.0, 30, 30]))


def test_the_reference_measures_a_colour_cast_of_the_camera() -> None:
    spec = RenderSpec(noise_sigma=0.5, auto_exposure=False, light_gradient=0.0)
    frame = render_frame("4453", spec, seed=3)
    gains = np.array([0.8, 1.0, 1.25])  # B, G, R: a warm white balance error
    cast = np.clip(frame * gains * 0.75, 0, 255).astype(np.uint8)  # no channel clips
    fit = BoardFit(True, plane_to_image=plane_to_image(spec), marker_ids=(0, 1, 2, 3))
    plain, warm = colour_reference(frame, fit), colour_reference(cast, fit)
    assert plain is not None and warm is not None
    ratio = (warm.white - warm.black) / (plain.white - plain.black)
    assert np.allclose(ratio / ratio[1], gains, atol=0.06)


def test_no_reference_without_markers_or_in_the_dark() -> None:
    spec = RenderSpec()
    frame = render_frame("", spec, seed=1)
    assert colour_reference(frame, BoardFit(False, "none")) is None
    dark = np.full_like(frame, 5)
    fit = BoardFit(True, plane_to_image=plane_to_image(spec), marker_ids=(0, 1, 2, 3))
    assert colour_reference(dark, fit) is None


def _hole(fill: tuple[int, int, int], disc: tuple[int, int, int] | None = None,
          radius: float = 14.0, centre: tuple[float, float] = (15.5, 15.5)) -> np.ndarray:
    crop = np.full((SIDE, SIDE, 3), (150, 90, 20), np.uint8)  # board plastic
    cv2.circle(crop, (16, 16), 15, fill, -1)
    if disc is not None:
        cv2.circle(crop, (int(centre[0] * 16), int(centre[1] * 16)), int(radius * 16), disc,
                   -1, cv2.LINE_AA, 4)
    return crop


def _crops(*cells: np.ndarray) -> np.ndarray:
    crops = np.stack([_hole((200, 200, 200))] * 42)
    for index, cell in enumerate(cells):
        crops[index] = cell
    return crops


RED, YELLOW = (40, 30, 200), (30, 200, 235)


def _empty_looks(crops: np.ndarray, unknown: tuple[int, ...] = ()) -> np.ndarray:
    """(42, 12) the empty looks of ``crops``, NaN at ``unknown`` holes."""
    looks = cell_features(crops).astype(np.float64)
    looks[list(unknown)] = np.nan
    return looks


def test_the_colour_reader_reads_discs_and_holes() -> None:
    crops = _crops(_hole((200, 200, 200), RED), _hole((200, 200, 200), YELLOW),
                   _hole((60, 60, 60)), _hole((200, 200, 200), (20, 110, 230)))  # orange-red
    probabilities = ColourCellReader().probabilities(crops)
    assert probabilities[0].argmax() == 1 and probabilities[0, 1] > 0.9
    assert probabilities[1].argmax() == 2 and probabilities[1, 2] > 0.9
    assert probabilities[2].argmax() == 0 and probabilities[2, 0] > 0.9
    assert probabilities[3].argmax() == 1
    assert np.all(probabilities[4:, 0] > 0.9)


def test_a_disc_glimpsed_behind_the_board_is_not_a_sure_disc() -> None:
    partly = _hole((200, 200, 200), YELLOW, radius=10, centre=(24, 24))
    probabilities = ColourCellReader().probabilities(_crops(partly))
    assert probabilities[0, 2] < 0.85


def test_a_disc_shifted_by_its_depth_is_still_read() -> None:
    shifted = _hole((200, 200, 200), RED, radius=13, centre=(18.5, 17.5))
    assert ColourCellReader().probabilities(_crops(shifted))[0, 1] > 0.9


def test_the_hole_looks_turn_a_red_wall_into_an_empty_hole() -> None:
    wall = _hole((60, 40, 190))  # a red wall fills the hole
    crops = _crops(wall)
    colour = ColourCellReader().probabilities(crops)
    assert colour[0].argmax() == 1  # colour alone: a red disc
    looks = HoleLooks()
    looks.learn(cell_features(crops), EMPTY_GRID)  # the empty board, confirmed
    assert looks.recall(np.log(colour), cell_features(crops))[0].argmax() == 0
    with_disc = _crops(_hole((60, 40, 190), (20, 20, 150), radius=14.5))
    colour = ColourCellReader().probabilities(with_disc)
    assert looks.recall(np.log(colour), cell_features(with_disc))[0].argmax() == 1


def test_a_pale_disc_is_read_where_the_hole_no_longer_looks_empty() -> None:
    pale_yellow, shadow = (140, 220, 235), (120, 120, 120)  # saturation 0.4; a darker hole
    empty = _crops()
    now = _crops(_hole((200, 200, 200), pale_yellow, radius=14.5), _hole(shadow),
                 _hole((200, 200, 200), pale_yellow, radius=14.5))
    reader = ColourCellReader()
    assert reader.probabilities(now)[0].argmax() != 2  # too pale for colour alone
    empty_looks = _empty_looks(empty, unknown=(2,))  # a cell whose empty look was never seen
    probabilities = reader.probabilities(now, empty_looks=empty_looks)
    assert probabilities[0].argmax() == 2 and probabilities[0, 2] > 0.9
    assert probabilities[1].argmax() != 2 and probabilities[1, 1] < 0.5  # changed, not a disc
    assert probabilities[2].argmax() != 2
    assert np.all(probabilities[3:, 0] > 0.9)


def test_a_dark_disc_in_a_dim_room_is_read_where_the_hole_no_longer_looks_empty() -> None:
    dark_red, dark_shadow = (10, 10, 48), (40, 40, 45)  # value 0.19: below what carries hue
    empty = _crops()
    now = _crops(_hole((200, 200, 200), dark_red, radius=14.5), _hole(dark_shadow),
                 _hole((200, 200, 200), dark_red, radius=6.0))  # a glimpse: a third of the probe
    reader = ColourCellReader()
    assert reader.probabilities(now)[0].argmax() == 0  # too dark for colour alone
    probabilities = reader.probabilities(now, empty_looks=_empty_looks(empty))
    assert probabilities[0].argmax() == 1 and probabilities[0, 1] > 0.9
    assert probabilities[1, 1] < 0.5 and probabilities[1, 2] < 0.5  # a shadow is no disc
    assert probabilities[2, 1] < 0.5  # too little of the hole


def test_a_wood_wall_seen_anew_is_not_a_pale_disc() -> None:
    # the hole showed a beige wall empty; the camera moved: a warmer wood now fills it
    beige, wood = (150, 190, 215), (90, 160, 200)  # saturation 0.30 and 0.55, hue 37-38
    empty_looks = _empty_looks(_crops(_hole(beige)))
    now = _crops(_hole(wood), _hole((200, 200, 200), (140, 220, 235), radius=14.5))
    assert np.linalg.norm(cell_features(now)[0] - empty_looks[0]) >= 24  # changed
    probabilities = ColourCellReader().probabilities(now, empty_looks=empty_looks)
    assert probabilities[0, 2] < 0.5  # not a yellow disc: the hole showed that hue empty
    assert probabilities[0, 0] > 0.9  # nor anything else: read as without the empty board
    assert probabilities[1].argmax() == 2  # a pale disc where the hole showed grey is seen


def test_a_cell_covered_by_a_hand_is_unsure_for_the_colour_reader() -> None:
    skin = np.full((SIDE, SIDE, 3), (120, 160, 215), np.uint8)  # a palm over the whole cell
    crops = _crops(_hole((200, 200, 200), RED), skin)
    probabilities = ColourCellReader().probabilities(crops)
    assert probabilities[1].max() < 0.5  # covered: neither empty nor a disc
    assert probabilities[0, 1] > 0.9 and np.all(probabilities[2:, 0] > 0.9)


@pytest.mark.parametrize(("red", "yellow"), [(355.0, 45.0), (15.0, 30.0), (340.0, 60.0)])
def test_calibrated_disc_bands_never_overlap_and_keep_their_saturation(red: float,
                                                                       yellow: float) -> None:
    from firmware_py.vision.disc_colours import DiscColour, disc_masks, hue_distance

    discs = {"R": DiscColour(red, 0.8), "Y": DiscColour(yellow, 0.3)}
    hue = np.arange(0.0, 360.0, 0.5)
    red_mask, yellow_mask = disc_masks(hue, np.full_like(hue, 0.5), discs)
    assert not np.any(red_mask & yellow_mask)
    assert red_mask.sum() == 0  # 0.5 < 0.7 * 0.8: too pale for this set's red
    assert yellow_mask.any() and np.all(hue_distance(hue[yellow_mask], yellow) <= 15)
    assert yellow_mask[np.searchsorted(hue, yellow)]


def test_a_covered_hole_has_no_opinion_even_where_the_hole_looks_have_one() -> None:
    """"No opinion" is the reader's explicit mask, kept through the hole looks' recall
    (it was a sentinel probability, recognised with isclose, that a correction by the
    empty look could overwrite)."""
    from firmware_py.vision.colour_reader import UNSURE

    crops = _crops()
    features = cell_features(crops)
    covered = np.isin(np.arange(42), (3, 17))
    probabilities = ColourCellReader().probabilities(crops, covered, features=features,
                                                     empty_looks=_empty_looks(crops))
    assert np.allclose(probabilities[covered], UNSURE)
    looks = HoleLooks()
    looks.learn(features, EMPTY_GRID)  # every hole looks as it did empty
    recalled = np.exp(looks.recall(np.log(probabilities), features, covered=covered))
    assert np.allclose(recalled[covered], UNSURE)
    assert np.all(recalled[~covered][:, 0] > 0.96)


def test_the_probe_shares_are_the_share_of_a_disc_of_pixels_at_the_best_offset() -> None:
    """``colour_shares`` (a matrix product over the probe positions) against a direct
    count: for each crop and each offset pair, the share of red-band pixels inside the
    probe's circle, the best of the nine."""
    from firmware_py.vision.colour_reader import (
        MIN_SATURATION,
        MIN_VALUE,
        PROBE_OFFSETS,
        PROBE_RADIUS,
        colour_shares,
    )
    from firmware_py.vision.disc_colours import RED_HUES, in_hue_ranges

    rng = np.random.default_rng(5)
    crops = np.zeros((6, 32, 32, 3), np.uint8)
    for crop in crops:  # red blobs of random size and place on a grey ground, and noise
        crop[:] = 120
        cy, cx, radius = rng.integers(10, 22), rng.integers(10, 22), rng.integers(4, 14)
        yy, xx = np.mgrid[0:32, 0:32]
        crop[np.hypot(yy - cy, xx - cx) <= radius] = (30, 30, 220)
        noise = rng.random((32, 32)) < 0.1
        crop[noise] = (30, 30, 220)
    hsv = cv2.cvtColor(crops.reshape(-1, 32, 3), cv2.COLOR_BGR2HSV_FULL).reshape(6, 32, 32, 3)
    hue = hsv[..., 0].astype(np.float64) * 360 / 256
    red = (in_hue_ranges(hue, RED_HUES) & (hsv[..., 1] >= MIN_SATURATION * 255)
           & (hsv[..., 2] >= MIN_VALUE * 255))
    yy, xx = np.mgrid[0:32, 0:32]
    expected = []
    for mask in red:
        best = 0.0
        for dy in PROBE_OFFSETS:
            for dx in PROBE_OFFSETS:
                inside = np.hypot(yy - 15 - dy, xx - 15 - dx) <= PROBE_RADIUS
                best = max(best, mask[inside].mean())
        expected.append(best)
    shares = colour_shares(crops)
    assert np.allclose(shares[:, 0], expected, atol=1e-5)
    assert np.ptp(expected) > 0.3  # the crops differ: the test compares something
    assert np.allclose(shares[:, 1], 0.0)
