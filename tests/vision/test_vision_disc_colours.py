"""The disc hues: the fixed bands and the calibration regions, in one table."""

from __future__ import annotations


def test_each_calibration_region_holds_its_fixed_band() -> None:
    """One table of disc hues (#57): the fixed bands and the regions a calibrated disc may
    lie in live together, and every hue of a band is in its colour's region."""
    import numpy as np

    from firmware_py.vision.disc_colours import (
        RED_HUES,
        RED_REGION,
        YELLOW_HUES,
        YELLOW_REGION,
        in_hue_ranges,
    )

    hues = np.arange(0.0, 360.0, 0.5)
    for band, region in ((RED_HUES, RED_REGION), (YELLOW_HUES, YELLOW_REGION)):
        inside = in_hue_ranges(hues, band)
        assert inside.any() and in_hue_ranges(hues[inside], region).all()
    assert not (in_hue_ranges(hues, RED_HUES) & in_hue_ranges(hues, YELLOW_HUES)).any()
