"""Benchmark sources of real-photo composites of boards the reader must refuse or was not
built on (:mod:`tools.train.illegal_boards`, :mod:`tools.train.appearances`)."""

from __future__ import annotations

import numpy as np

from firmware_py.vision.reading import INVALID


def illegal_composite_source(count: int, seed_base: int):  # noqa: ANN201
    """(truth grid, "invalid", frame, kind) of real-photo composites of boards no game
    leaves (:mod:`tools.train.illegal_boards`), the kinds and both real boards in turn."""
    from tools.train.illegal_boards import KINDS, illegal_grid
    from tools.train.real_composites import choose_base, default_composer

    composer = default_composer()
    for index in range(count):
        rng = np.random.default_rng(seed_base + index)
        kind = KINDS[index % len(KINDS)]
        source = composer.library.sources[(index // len(KINDS)) % len(composer.library.sources)]
        grid = illegal_grid(rng, kind)
        base = choose_base(rng, composer.library.of_source(source))
        result = composer.compose_grid(rng, base, grid, INVALID)
        yield list(grid), INVALID, result.frame, kind


def appearance_source(count: int, seed_base: int, appearance: str,  # noqa: ANN201
                      illegal: bool = False):
    """(truth grid, status, frame, board) of real-photo composites restyled to a board or
    pieces the reader was not built on (:mod:`tools.train.appearances`; a frame the
    restyling had to leave as it was is skipped); with ``illegal`` the boards are the
    illegal kinds of :func:`illegal_composite_source`."""
    from tools.train.real_composites import default_composer

    composer = default_composer()
    for index in range(count):
        frame = appearance_frame(composer, index, seed_base, appearance, illegal)
        if frame is not None:
            yield frame


def appearance_frame(composer, index: int, seed_base: int, appearance: str,  # noqa: ANN001, ANN201
                     illegal: bool = False):
    """The ``index``-th frame of :func:`appearance_source` (the same seeds), or None
    where the restyling had to leave it as it was (its markers lost)."""
    from tools.train.appearances import AppearanceComposer, restyle
    from tools.train.illegal_boards import KINDS, illegal_grid
    from tools.train.real_composites import choose_base

    rng = np.random.default_rng(seed_base + index)
    source = composer.library.sources[index % len(composer.library.sources)]
    if illegal:
        grid = illegal_grid(rng, KINDS[(index // 2) % len(KINDS)])
        base = choose_base(rng, composer.library.of_source(source))
        result = restyle(composer.compose_grid(rng, base, grid, INVALID), appearance, rng)
    else:
        result = AppearanceComposer(composer).compose(rng, appearance, source)
    if result.camera.get("appearance", {}).get("fallback"):
        return None  # left unstyled (its markers lost): not a frame of that appearance
    return list(result.grid), result.status, result.frame, source
