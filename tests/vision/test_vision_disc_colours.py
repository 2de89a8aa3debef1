"""The disc hues: the fixed bands and the warm arc calibrated discs lie in, in one table;
which of two calibrated discs is red."""

from __future__ import annotations

import pytest


def test_the_warm_arc_holds_both_fixed_bands_red_nearer_its_red_end() -> None:
    """One table of disc hues (#57): the fixed bands and the arc a calibrated disc may lie
    in live together; every hue of the red band lies nearer the arc's red end than every
    hue of the yellow band."""
    import numpy as np

    from firmware_py.vision.disc_colours import RED_HUES, YELLOW_HUES, along_warm_arc, in_hue_ranges

    hues = np.arange(0.0, 360.0, 0.5)
    red, yellow = hues[in_hue_ranges(hues, RED_HUES)], hues[in_hue_ranges(hues, YELLOW_HUES)]
    assert len(red) and len(yellow)
    red_along = [along_warm_arc(float(hue)) for hue in red]
    yellow_along = [along_warm_arc(float(hue)) for hue in yellow]
    assert None not in red_along and None not in yellow_along
    assert max(red_along) < min(yellow_along)  # type: ignore[type-var]
    assert not (in_hue_ranges(hues, RED_HUES) & in_hue_ranges(hues, YELLOW_HUES)).any()


@pytest.mark.parametrize(("red", "yellow", "said"), [
    (355.0, 50.0, None),  # common red and yellow discs
    (338.0, 28.0, None),  # pink plays red, orange plays yellow
    (20.0, 60.0, None),  # orange-red and lemon
    (50.0, 355.0, "not a red; was it the other colour"),  # dropped the other way round
    (28.0, 338.0, "not a red; was it the other colour"),
    (270.0, 90.0, None),  # the arc's two ends
    (290.0, 30.0, None),  # a pale pink the markers' white turns lilac, and orange
    (30.0, 35.0, "about the same hue"),
    (350.0, 5.0, "about the same hue"),  # two red discs
    (50.0, 60.0, "about the same hue"),  # two yellow ones
    (80.0, 40.0, "was it the other colour"),
    (355.0, 120.0, "not a red, pink, lilac, orange or yellow"),  # a green wall, not a disc
    (220.0, 50.0, "not a red, pink, lilac, orange or yellow"),  # a blue one
    (255.0, 50.0, "not a red, pink, lilac, orange or yellow"),  # a violet-blue one
])
def test_a_calibrated_pair_is_red_then_yellow_along_the_warm_arc(red: float, yellow: float,
                                                                 said: str | None) -> None:
    from c4game.exc import VisionError
    from firmware_py.vision.disc_colours import DiscColour, check_pair

    pair = DiscColour(red, 0.5), DiscColour(yellow, 0.5)
    if said is None:
        check_pair(*pair)
    else:
        with pytest.raises(VisionError, match=said):
            check_pair(*pair)


def test_with_both_discs_calibrated_a_fixed_band_pixel_nearer_the_other_disc_is_not_its_own(
        ) -> None:
    """An orange disc playing yellow (hue 28) lies in the fixed red band: once the set's
    pink red and orange yellow are calibrated it counts as yellow only."""
    import cv2
    import numpy as np

    from firmware_py.vision.colour_reader import colour_shares
    from firmware_py.vision.disc_colours import DiscColour

    def disc(hue: float) -> np.ndarray:
        hsv = np.full((1, 32 * 32, 3), (round(hue * 256 / 360) % 256, 200, 200), np.uint8)
        return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR_FULL).reshape(1, 32, 32, 3)

    crops = np.concatenate([disc(28.0), disc(338.0)])
    discs = {"R": DiscColour(338.0, 0.6), "Y": DiscColour(28.0, 0.6)}
    fixed = colour_shares(crops)
    assert fixed[0, 0] > 0.9 and fixed[0, 1] < 0.1  # the fixed bands: the orange is red
    calibrated = colour_shares(crops, discs=discs)
    assert calibrated[0, 0] < 0.1 and calibrated[0, 1] > 0.9  # its own disc: yellow
    assert calibrated[1, 0] > 0.9 and calibrated[1, 1] < 0.1  # the pink: red
