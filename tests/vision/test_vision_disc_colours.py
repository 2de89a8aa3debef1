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
    (30.0, 35.0, "same hue"),
    (355.0, 120.0, "not a red, pink, orange or yellow"),  # a green wall, not a disc
    (220.0, 50.0, "not a red, pink, orange or yellow"),  # a blue one
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
