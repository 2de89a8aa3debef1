"""Training augmentation keeps frames whole: a camera's colour errors are the same
over a frame, so the network can compare a cell with the frame's others."""

from __future__ import annotations

import numpy as np

from firmware_py.vision.geometry import CROP_SIDE
from tools.train.cells_data import CELLS_PER_FRAME, _board_face, _glimpse, _sticker, augment


def test_colour_errors_are_drawn_per_frame_not_per_cell() -> None:
    frames = 6
    crops = np.empty((frames * CELLS_PER_FRAME, CROP_SIDE, CROP_SIDE, 3), np.uint8)
    crops[:] = (60, 110, 170)  # one plain colour everywhere, BGR
    targets = np.tile(np.eye(3, dtype=np.float32)[1], (len(crops), 1))  # red: no textures
    hsv, _, _ = augment(crops, targets, np.random.default_rng(3))
    centre = slice(CROP_SIDE // 4, 3 * CROP_SIDE // 4)
    value = hsv[:, centre, centre, 2].mean(axis=(1, 2)).reshape(frames, CELLS_PER_FRAME)
    hue = hsv[:, centre, centre, 0].mean(axis=(1, 2)).reshape(frames, CELLS_PER_FRAME)
    medians = np.median(value, axis=1)
    # within a frame most cells agree (glare and fingers touch a few) ...
    for row, median in zip(value, medians, strict=True):
        assert np.mean(np.abs(row - median) < 2.0) >= 0.75
    for row in hue:
        assert np.mean(np.abs(row - np.median(row)) < 1.0) >= 0.75
    # ... while frames differ from each other
    assert np.ptp(medians) > 5.0


def _hole_crop(hole: tuple[int, int, int], face: tuple[int, int, int]) -> np.ndarray:
    crop = np.empty((CROP_SIDE, CROP_SIDE, 3), np.uint8)
    crop[:] = face
    centre = (CROP_SIDE - 1) / 2
    yy, xx = np.mgrid[0:CROP_SIDE, 0:CROP_SIDE]
    crop[np.hypot(yy - centre, xx - centre) < CROP_SIDE * 0.4] = hole
    return crop


def test_a_glimpsed_spare_disc_covers_part_of_the_hole_and_none_of_the_face() -> None:
    room, face, red = (200, 200, 200), (150, 40, 20), (30, 30, 220)
    empty, disc = _hole_crop(room, face), _hole_crop(red, face)
    hole = ~_board_face(empty)
    rng = np.random.default_rng(7)
    shares = []
    for _ in range(200):
        crop = empty.copy()
        _glimpse(crop, disc, rng)
        changed = np.any(crop != empty, axis=2)
        assert not (changed & ~hole).any()  # the board's face is never painted
        reddish = crop[changed][:, 2].astype(int) - crop[changed][:, 0]
        assert (reddish > 40).all()  # what shows is the disc, shaded
        shares.append(changed.sum() / hole.sum())
    glimpsed = [s for s in shares if s > 0]
    assert len(glimpsed) > 100  # most draws show a glimpse ...
    assert min(glimpsed) > 0.1 and max(glimpsed) < 0.7  # ... of part of the hole, never all


def test_glimpses_are_labelled_empty_and_marked_as_labelled() -> None:
    frames = 40
    empty, disc = _hole_crop((200, 200, 200), (150, 40, 20)), _hole_crop((30, 30, 220),
                                                                          (150, 40, 20))
    crops = np.stack([disc if i % 7 == 0 else empty
                      for i in range(frames * CELLS_PER_FRAME)])
    targets = np.eye(3, dtype=np.float32)[[1 if i % 7 == 0 else 0 for i in range(len(crops))]]
    _, without, marked_without = augment(crops, targets, np.random.default_rng(1), 0.0)
    _, taught, marked = augment(crops, targets, np.random.default_rng(1), 1.0)
    assert marked.sum() > marked_without.sum() + 100  # the glimpses are marked ...
    assert (taught[marked & (targets[:, 0] > 0.5)].argmax(axis=1) != 1).all()  # ... never red
    hsv, _, drawn = augment(crops, targets, np.random.default_rng(1), 1.0)
    empty = targets[:, 0] > 0.5

    def red_pixels(cells: np.ndarray) -> float:  # the model's hue is turned by 90: red ~ 90
        return float(((np.abs(cells[..., 0] - 90) < 15) & (cells[..., 1] > 150)).sum(
            axis=(1, 2)).mean())

    # the marked empty holes do show part of a red disc; the others none
    assert red_pixels(hsv[drawn & empty]) > 40 > 5 > red_pixels(hsv[~drawn & empty])


def test_without_glimpses_the_augmentation_draws_as_before() -> None:
    """The options must not change the random stream of a run that does not use them."""
    frames = 4
    crops = np.random.default_rng(2).integers(0, 256, (frames * CELLS_PER_FRAME, CROP_SIDE,
                                                         CROP_SIDE, 3), dtype=np.uint8)
    targets = np.eye(3, dtype=np.float32)[np.arange(len(crops)) % 3]
    a = augment(crops, targets, np.random.default_rng(9))
    b = augment(crops, targets, np.random.default_rng(9), 0.0, True)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_stickered_disc_keeps_its_own_colour_all_round_its_rim() -> None:
    """What tells a sticker (or glare's rings) from a glimpse: the disc's colour shows
    all round the hole, where a glimpse covers one side of it."""
    red, face = (30, 30, 220), (150, 40, 20)
    disc = _hole_crop(red, face)
    centre = (CROP_SIDE - 1) / 2
    yy, xx = np.mgrid[0:CROP_SIDE, 0:CROP_SIDE]
    rim = np.abs(np.hypot(yy - centre, xx - centre) - CROP_SIDE * 0.37) < 1.0
    angles = np.arctan2(yy - centre, xx - centre)[rim]
    sectors = [(angles >= -np.pi + k * np.pi / 4) & (angles < -np.pi + (k + 1) * np.pi / 4)
               for k in range(8)]
    rng = np.random.default_rng(11)
    changed, all_round = 0, 0
    for _ in range(100):
        crop = disc.copy()
        _sticker(crop, rng)
        changed += bool((crop != disc).any())
        still_red = crop[rim][:, 2].astype(int) - crop[rim][:, 0] > 100
        all_round += all(still_red[inside].mean() > 0.5 for inside in sectors)
    assert changed == 100
    assert all_round >= 80  # (a glare ring may reach the rim: then all round it)
