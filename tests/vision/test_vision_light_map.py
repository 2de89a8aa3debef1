"""This frame's light against a model's (vision/light_map.py), and the one model of hole
looks comparing looks in the same light (hole_looks.HoleLooks.light)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from firmware_py.vision.hole_looks import CELLS, HoleLooks, kinds_of
from firmware_py.vision.light_map import GAIN_RANGE, MIN_HOLES, LightMap, light_map
from firmware_py.vision.look_evidence import CHANGED_DISTANCE

from .test_vision_hole_looks import CORNERS, board, frame_of, room


def dimmed(looks: np.ndarray, gain: Sequence[float] | np.ndarray,
           offset: Sequence[float] | np.ndarray) -> np.ndarray:
    """Looks (N, 12) under another light: per Lab channel frame = (model - offset) / gain."""
    return LightMap(np.asarray(gain, float), np.asarray(offset, float)).to_frame(looks)


@pytest.mark.parametrize("seed", range(20))
def test_the_map_is_found_though_up_to_half_the_holes_changed_content(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = rng.uniform(30, 220, (CELLS, 12))
    gain, offset = rng.uniform(0.75, 1.35, 3), rng.uniform(-25, 25, 3)
    frame = dimmed(model, gain, offset) + rng.normal(0, 1, (CELLS, 12))
    changed = rng.choice(CELLS, int(rng.integers(0, CELLS // 2 - 2)), replace=False)
    frame[changed] = rng.uniform(0, 255, (len(changed), 12))  # discs, hands, glare
    found = light_map(frame, model)
    assert np.allclose(found.gain, gain, atol=0.03)
    assert np.allclose(found.offset, offset, atol=4.0)
    kept = np.setdiff1d(np.arange(CELLS), changed)
    assert np.abs(found.to_model(frame[kept]) - model[kept]).max() < 6.0


def test_too_few_holes_or_none_known_give_the_identity() -> None:
    rng = np.random.default_rng(0)
    model = rng.uniform(30, 220, (CELLS, 12))
    model[MIN_HOLES - 1:] = np.nan  # looks known at too few holes
    identity = light_map(model * 0.8, model)
    assert np.array_equal(identity.gain, np.ones(3))
    assert np.array_equal(identity.offset, np.zeros(3))
    covered = np.ones(CELLS, bool)
    assert np.array_equal(light_map(model, model, ~covered).gain, np.ones(3))


def test_a_map_that_would_stretch_colours_beyond_a_light_change_is_the_identity() -> None:
    rng = np.random.default_rng(1)
    model = rng.uniform(100, 140, (CELLS, 12))
    found = light_map(128 + (model - 128) * 0.2, model)  # content, not light
    assert np.array_equal(found.gain, np.ones(3)) and np.array_equal(found.offset, np.zeros(3))
    assert GAIN_RANGE[0] < 1 / 1.3 and GAIN_RANGE[1] > 1.3  # the dusk below is within it


def test_a_board_learnt_in_one_light_is_recalled_in_a_dimmer_one() -> None:
    """Learnt by day, read at dusk: every hole looks as a known look once the frame's
    light is mapped, where without the map every hole is unfamiliar (the readers'
    word alone); a disc that landed since stays the readers' to read."""
    truth, rng = room(3)
    looks = HoleLooks()
    for moves in ("", "4", "44", "445", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves))
    now = board("44551")
    dusk = dimmed(frame_of(truth, now, rng), [1.3, 1.1, 1.1], [-12.0, 4.0, -6.0])
    readers = np.log(np.tile([0.2, 0.6, 0.2], (CELLS, 1)))  # unsure, leaning red
    light = looks.light(dusk)
    mapped = np.exp(looks.recall(readers, dusk, light=light))
    unmapped = np.exp(looks.recall(readers, dusk))
    landed = 5 * 7 + 0  # column 1, bottom row (lines top first): the disc played since
    others = np.arange(CELLS) != landed
    assert np.array_equal(mapped.argmax(axis=1)[others], kinds_of(now)[others])
    assert np.median(mapped[others].max(axis=1)) > 0.99
    assert np.mean(unmapped.argmax(axis=1)[others] == kinds_of(now)[others]) < 0.5
    assert mapped[landed].argmax() == 1  # read red by the readers, not called empty


def test_empty_looks_are_given_in_this_frames_light() -> None:
    truth, rng = room(4)
    looks = HoleLooks()
    looks.learn(frame_of(truth, board(""), rng), board(""))
    dusk = dimmed(frame_of(truth, board(""), rng), [1.25, 1.0, 1.0], [-10.0, 0.0, 0.0])
    light = looks.light(dusk)
    moved = np.linalg.norm(dusk - looks.empty_looks(), axis=1)
    mapped = np.linalg.norm(dusk - looks.empty_looks(light=light), axis=1)
    # the colour reader takes a hole this far from its empty look for something in it
    assert np.all(moved >= CHANGED_DISTANCE) and np.all(mapped < CHANGED_DISTANCE)


def is_identity(found: LightMap) -> bool:
    return bool(np.array_equal(found.gain, np.ones(3))
                and np.array_equal(found.offset, np.zeros(3)))


def test_a_change_no_light_explains_is_the_identity() -> None:
    """The board's thirds in three lights (shadows across it): every gain lies in range,
    but no one map makes half the holes look as taught."""
    rng = np.random.default_rng(2)
    model = rng.uniform(30, 220, (CELLS, 12))
    frame = np.empty_like(model)
    lights = ([1.3, 1.0, 1.0], [-30.0, 10.0, 0.0]), ([0.8, 1.0, 1.0], [25.0, -10.0, 0.0]), \
        ([1.0, 1.1, 0.9], [0.0, 0.0, 20.0])
    for third, (gain, offset) in zip(np.array_split(np.arange(CELLS), 3), lights, strict=True):
        frame[third] = dimmed(model[third], gain, offset) + rng.normal(0, 1, (len(third), 12))
    assert is_identity(light_map(frame, model))
    two_thirds = np.arange(28)  # two lights, half the holes in each: one half is mapped
    assert is_identity(light_map(frame[two_thirds], model[two_thirds])) is False


def test_the_map_round_trips_and_leaves_unknown_looks_unknown() -> None:
    rng = np.random.default_rng(3)
    looks = rng.uniform(30, 220, (CELLS, 12))
    looks[5] = np.nan
    light = LightMap(np.array([1.2, 0.9, 1.1]), np.array([-10.0, 4.0, 2.0]))
    assert np.allclose(light.to_frame(light.to_model(looks)), looks, equal_nan=True)
    assert np.isnan(light.to_frame(looks)[5]).all()


def test_covered_holes_and_a_moved_grid_take_no_part() -> None:
    truth, rng = room(5)
    looks = HoleLooks()
    looks.learn(frame_of(truth, board(""), rng), board(""), grid_corners=CORNERS)
    dusk = dimmed(frame_of(truth, board(""), rng), [1.25, 1.0, 1.0], [-10.0, 0.0, 0.0])
    assert not is_identity(looks.light(dusk, grid_corners=CORNERS))
    covered = np.ones(CELLS, bool)
    covered[:MIN_HOLES - 1] = False  # a hand over all but seven holes
    assert is_identity(looks.light(dusk, covered=covered, grid_corners=CORNERS))
    assert is_identity(looks.light(dusk, grid_corners=CORNERS + 40.0))  # the camera moved
