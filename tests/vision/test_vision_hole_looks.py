"""The one model of how each hole looks (vision/hole_looks.py): taught labelled boards,
recalled once, bounded, forgotten, stored, and read from an earlier version's files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import VisionError
from firmware_py.vision.hole_looks import (
    CELLS,
    EMPTY_GRID,
    FACE_POINTS,
    MEMORY,
    MOVED_PX,
    HoleLooks,
    StoredLattice,
    kinds_of,
    load_hole_looks,
)

CORNERS = np.array([[100.0, 80.0], [540.0, 80.0], [540.0, 420.0], [100.0, 420.0]])


def room(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per hole and kind the true look of an imagined installation: the three kinds
    far apart, each hole a little different (light across the board)."""
    rng = np.random.default_rng(seed)
    kinds = rng.uniform(40, 200, (3, 12))
    holes = rng.normal(0, 4, (CELLS, 1, 12))
    return kinds[None, :, :] + holes, rng


def frame_of(looks: np.ndarray, grid: list[str], rng: np.random.Generator) -> np.ndarray:
    """A frame's 42 looks of ``grid``: each hole's true look plus camera noise."""
    kinds = kinds_of(grid)
    return looks[np.arange(CELLS), kinds] + rng.normal(0, 2, (CELLS, 12))


def board(moves: str) -> list[str]:
    return Board.from_moves(moves).grid_lines() if moves else Board.empty().grid_lines()


FLAT = np.full((CELLS, 3), np.log(1 / 3))  # readers with no opinion
SURE_RED = np.log(np.tile([0.01, 0.98, 0.01], (CELLS, 1)))  # readers sure of red everywhere


def recalled(looks: HoleLooks, features: np.ndarray, readers: np.ndarray = FLAT,
             **kwargs) -> np.ndarray:
    """(42, 3) probabilities after the model's recall."""
    return np.exp(looks.recall(readers, features, **kwargs))


def test_nothing_learnt_gives_no_opinion() -> None:
    truth, rng = room()
    looks = HoleLooks()
    assert np.array_equal(looks.recall(SURE_RED, frame_of(truth, board("4455"), rng)), SURE_RED)
    assert looks.summary() == "no board learnt yet"


def test_learnt_boards_tell_a_new_board_apart_even_at_holes_never_seen_so() -> None:
    truth, rng = room(1)
    looks = HoleLooks()
    for moves in ("", "4", "44", "445", "4455", "44553", "445536"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves))
    new = board("1122771")  # discs at holes no learnt board had a disc at
    probabilities = recalled(looks, frame_of(truth, new, rng))
    assert np.array_equal(probabilities.argmax(axis=1), kinds_of(new))
    assert np.median(probabilities.max(axis=1)) > 0.99  # most holes look as a known look


def test_a_hole_that_looks_as_it_did_empty_is_empty_whatever_the_readers_say() -> None:
    # a red wall through every hole: the readers are sure of red; the memory knows
    truth, rng = room(9)
    looks = HoleLooks()
    looks.learn(frame_of(truth, EMPTY_GRID, rng), EMPTY_GRID)
    probabilities = recalled(looks, frame_of(truth, EMPTY_GRID, rng), SURE_RED)
    assert probabilities[:, 0].min() > 0.5 and np.median(probabilities[:, 0]) > 0.85
    for _ in range(4):  # taught again: how far a look strays is learnt, and the memory firms
        looks.learn(frame_of(truth, EMPTY_GRID, rng), EMPTY_GRID)
    probabilities = recalled(looks, frame_of(truth, EMPTY_GRID, rng), SURE_RED)
    assert probabilities[:, 0].min() > 0.95


def test_a_hole_unlike_every_known_look_is_left_to_the_readers() -> None:
    # only the empty look is known: a disc there (far from it) is the readers' to read
    truth, rng = room(10)
    looks = HoleLooks()
    for _ in range(3):
        looks.learn(frame_of(truth, EMPTY_GRID, rng), EMPTY_GRID)
    features = frame_of(truth, board("4"), rng)
    probabilities = recalled(looks, features, SURE_RED)
    assert probabilities[38, 1] > 0.97  # the new red disc, read by the readers
    rest = probabilities[np.arange(CELLS) != 38, 0]  # the rest, recalled empty
    assert rest.min() > 0.5 and np.median(rest) > 0.95
    # nor does the memory count a hole unlike every look as a disc for that alone
    assert np.allclose(recalled(looks, features)[38], 1 / 3, atol=0.01)


def test_a_kind_seen_at_too_few_holes_has_no_look_elsewhere() -> None:
    truth, rng = room(2)
    looks = HoleLooks()
    looks.learn(frame_of(truth, board("4"), rng), board("4"))  # one red hole, no yellow
    probabilities = recalled(looks, frame_of(truth, board("1"), rng))
    red_at_1 = 35  # bottom row, column 1: red known only at column 4, unlike empty
    assert np.allclose(probabilities[red_at_1], 1 / 3, atol=0.01)  # no opinion
    # column 4's bottom hole knew only red, but empty holes are many: the board's look
    assert probabilities[38].argmax() == 0


def test_covered_holes_teach_nothing_and_get_no_opinion() -> None:
    truth, rng = room(3)
    looks = HoleLooks()
    covered = np.zeros(CELLS, bool)
    covered[:7] = True
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), covered=covered)
    assert not looks.counts[:7].any() and looks.counts[7:].any()
    after = looks.recall(SURE_RED, frame_of(truth, board("4455"), rng), covered=covered)
    assert np.allclose(after[covered], SURE_RED[covered], atol=0.01)
    assert not np.allclose(after[~covered], SURE_RED[~covered], atol=0.01)


def test_a_moved_grid_is_another_view() -> None:
    truth, rng = room(4)
    looks = HoleLooks()
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), grid_corners=CORNERS)
    features = frame_of(truth, board("445"), rng)
    assert not np.allclose(looks.recall(FLAT, features, grid_corners=CORNERS + 2), FLAT)
    moved = CORNERS + [MOVED_PX + 1, 0]
    assert np.array_equal(looks.recall(FLAT, features, grid_corners=moved), FLAT)
    assert np.isnan(looks.empty_looks(moved)).all()
    looks.learn(features, board("445"), grid_corners=moved)  # taught in the new view
    assert looks.boards == 1 and not looks.moved(moved)


def test_memory_is_bounded_and_follows_a_change_of_light() -> None:
    truth, rng = room(5)
    looks = HoleLooks()
    for _ in range(50):
        looks.learn(frame_of(truth, board(""), rng), board(""))
    assert looks.counts.max() == MEMORY and looks.boards == 50
    darker = truth - 30  # the room's light changed for good
    for _ in range(3 * MEMORY):
        looks.learn(frame_of(darker, board(""), rng), board(""))
    assert np.abs(looks.means[:, 0] - darker[:, 0]).max() < 3


def test_forget_and_summary() -> None:
    truth, rng = room(6)
    looks = HoleLooks()
    looks.learn(frame_of(truth, board("44"), rng), board("44"), when="2026-11-29T10:00:00+00:00")
    assert "1 confirmed boards learnt (latest 2026-11-29T10:00:00+00:00)" in looks.summary()
    looks.forget()
    assert looks.boards == 0 and not looks.counts.any() and looks.grid_corners is None


def test_stored_and_read_back(tmp_path) -> None:
    truth, rng = room(7)
    looks = HoleLooks()
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), grid_corners=CORNERS)
    path = tmp_path / "hole-looks.json"
    looks.save(path)
    again = HoleLooks.load(path)
    features = frame_of(truth, board("445"), rng)
    assert again.boards == 3 and np.allclose(again.grid_corners, CORNERS)
    assert np.allclose(again.recall(FLAT, features), looks.recall(FLAT, features), atol=1e-3)


@pytest.mark.parametrize("change", [
    lambda data: data.update(format="something else"),
    lambda data: data["means"][0][0].__setitem__(0, float("nan")),
    lambda data: data.update(counts=[[1, 2]]),
    lambda data: data["counts"][0].__setitem__(0, MEMORY + 5),
    lambda data: data.update(boards=-1),
    lambda data: data.pop("squares"),
])
def test_a_bad_file_is_reported_with_its_path(tmp_path, change) -> None:
    truth, rng = room(8)
    looks = HoleLooks()
    looks.learn(frame_of(truth, board("44"), rng), board("44"))
    path = tmp_path / "hole-looks.json"
    looks.save(path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match="hole-looks.json"):
        HoleLooks.load(path)


def test_not_json_is_reported(tmp_path) -> None:
    path = tmp_path / "hole-looks.json"
    path.write_text("{ not json")
    with pytest.raises(VisionError, match="cannot read the hole looks"):
        HoleLooks.load(path)
    with pytest.raises(VisionError, match="cannot read the hole looks"):
        load_hole_looks(path)


def test_an_earlier_versions_two_files_are_read_as_one(tmp_path) -> None:
    # before the one model: the calibrated empty board and the learnt looks, two files
    truth, rng = room(11)
    learnt = HoleLooks()
    top_row = np.arange(CELLS) < 7  # a hand over it when the board was learnt
    learnt.learn(frame_of(truth, board("44"), rng), board("44"), covered=top_row,
                 grid_corners=CORNERS)
    older = {"format": "c4pi-board-looks-1", "boards": 1, "learnt_at": "",
             "means": learnt.means.tolist(), "counts": learnt.counts.tolist(),
             "squares": learnt.squares.tolist(), "strays": learnt.strays.tolist(),
             "grid_corners": CORNERS.tolist()}
    empty = frame_of(truth, EMPTY_GRID, rng)
    known = np.ones(CELLS, bool)
    (tmp_path / "board-looks.json").write_text(json.dumps(older))
    (tmp_path / "empty-board.json").write_text(json.dumps({
        "format": "c4pi-empty-board-1", "known": known.tolist(), "features": empty.tolist(),
        "calibrated_at": "2026-11-01T09:00:00+00:00", "grid_corners": CORNERS.tolist(),
        "discs": {}}))
    looks = load_hole_looks(tmp_path / "hole-looks.json")
    assert looks is not None and looks.boards == 1
    assert looks.calibrated_at == "2026-11-01T09:00:00+00:00"
    assert (looks.counts[:, 0] > 0).all()  # every hole's empty look, from either file
    assert np.allclose(looks.means[4, 0], empty[4])  # a hole only the empty board knew
    assert np.allclose(looks.means[38, 1], learnt.means[38, 1])  # the red disc learnt
    assert load_hole_looks(tmp_path / "elsewhere" / "hole-looks.json") is None
    moved = json.loads((tmp_path / "empty-board.json").read_text())
    moved["grid_corners"] = (CORNERS + MOVED_PX + 5).tolist()  # calibrated in another view
    (tmp_path / "empty-board.json").write_text(json.dumps(moved))
    looks = load_hole_looks(tmp_path / "hole-looks.json")
    assert looks is not None and looks.calibrated_at == "" and not looks.counts[4, 0]
    (tmp_path / "empty-board.json").write_text("{ not json")
    with pytest.raises(VisionError, match="empty-board.json"):
        load_hole_looks(tmp_path / "hole-looks.json")


def test_bad_inputs_are_refused() -> None:
    looks = HoleLooks()
    with pytest.raises(ValueError, match="6 lines of 7"):
        kinds_of(["......."] * 5)
    with pytest.raises(ValueError, match="finite hole looks"):
        looks.learn(np.full((CELLS, 12), np.nan), board(""))


def test_one_rule_says_whether_a_hole_still_looks_as_before() -> None:
    # the game filter's question and the memory's: camera noise is the same look; a look
    # moved by CHANGED_DISTANCE (a disc before a wall of its own colour) is not
    from firmware_py.vision.look_evidence import CHANGED_DISTANCE, familiar

    rng = np.random.default_rng(12)
    before = rng.uniform(40, 200, (CELLS, 12))
    direction = rng.normal(size=(CELLS, 12))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    assert familiar(before + rng.normal(0, 1.5, (CELLS, 12)), before).all()
    assert not familiar(before + CHANGED_DISTANCE * direction, before).any()
    assert not familiar(before + 0.6 * CHANGED_DISTANCE * direction, before).any()
    moved = np.linalg.norm(np.ones(12)) * np.arange(0, 30, 0.5)[:, None] * np.ones(12) / 12
    same = familiar(moved, np.zeros_like(moved))
    assert same[0] and not same[-1] and (np.diff(same.astype(int)) <= 0).all()  # monotone


@pytest.mark.parametrize(("change", "said"), [
    (lambda data: data.pop("counts"), "no 'counts' key"),
    (lambda data: data.update(means="x"), "means must be finite numbers"),
    (lambda data: data.update(squares=[["a"] * 12] * 3), "squares must be finite numbers"),
])
def test_a_bad_file_names_the_key_at_fault(tmp_path, change, said) -> None:
    path = tmp_path / "hole-looks.json"
    HoleLooks().save(path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match=said):
        HoleLooks.load(path)


@pytest.mark.parametrize(("text", "said"), [
    ('"boards": "x"', "boards must be a whole number"),
    ('"boards": 3.7', "boards must be a whole number"),
    ('"calibrated_at": 5', "calibrated_at must be a date"),
])
def test_a_bad_count_or_date_names_its_key(tmp_path, text, said) -> None:
    path = tmp_path / "hole-looks.json"
    HoleLooks().save(path)
    key = text.split(":")[0]
    data = json.loads(path.read_text())
    data[json.loads(key)] = json.loads(text.split(":", 1)[1])
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match=said):
        HoleLooks.load(path)


def test_a_file_nested_too_deep_is_reported_not_a_traceback(tmp_path) -> None:
    path = tmp_path / "hole-looks.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(VisionError, match="nested too deep"):
        load_hole_looks(path)


def test_a_path_that_can_never_hold_the_model_is_said(tmp_path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(VisionError, match="a loop of links"):
        load_hole_looks(loop)
    with pytest.raises(VisionError, match="not a regular file"):
        load_hole_looks(tmp_path)
    (tmp_path / "f.txt").write_text("")
    with pytest.raises(VisionError, match="Not a directory"):
        load_hole_looks(tmp_path / "f.txt" / "looks.json")
    later = tmp_path / "later.json"
    later.symlink_to(tmp_path / "not-made-yet.json")
    assert load_hole_looks(later) is None  # calibrate makes it


def a_stored_lattice() -> StoredLattice:
    contrast = np.linspace(0.0, 80.0, CELLS)
    contrast[[0, 6]] = np.nan  # past the frame's edge
    return StoredLattice(np.array([[60.0, 1.0, 200.0], [-2.0, -58.0, 500.0], [0.0, 0.0, 1.0]]),
                         CORNERS.copy(), np.linspace(0, 255, FACE_POINTS * 3).reshape(
                             FACE_POINTS, 3), contrast)


def test_where_calibrate_found_the_holes_is_stored_read_back_and_forgotten(tmp_path) -> None:
    from firmware_py.vision.hole_locator import FACE_POINTS as LOCATOR_FACE_POINTS

    assert len(LOCATOR_FACE_POINTS) == FACE_POINTS
    path = tmp_path / "hole-looks.json"
    looks = HoleLooks()
    looks.lattice = a_stored_lattice()
    looks.save(path)
    again = HoleLooks.load(path).lattice
    assert again is not None
    assert np.array_equal(again.lattice_to_image, a_stored_lattice().lattice_to_image)
    assert np.allclose(again.face, a_stored_lattice().face, atol=0.05)
    assert np.array_equal(np.isnan(again.hole_contrast), np.isnan(a_stored_lattice().hole_contrast))
    assert np.allclose(again.hole_contrast, a_stored_lattice().hole_contrast, atol=0.05,
                       equal_nan=True)
    assert "lattice of holes stored" in HoleLooks.load(path).summary()
    assert np.array_equal(again.grid_corners, CORNERS)
    looks.learn(room()[0][:, 0], EMPTY_GRID, grid_corners=CORNERS)  # read through it
    assert looks.lattice is not None
    looks.learn(room()[0][:, 0], EMPTY_GRID, grid_corners=CORNERS + 2 * MOVED_PX)  # moved
    assert looks.lattice is None and "lattice" not in looks.summary()
    HoleLooks().save(path)
    assert HoleLooks.load(path).lattice is None


def test_a_board_read_through_another_lattice_drops_the_stored_one() -> None:
    """The finder found the board elsewhere (a nudge under the looks' 10 px, a slow
    drift the looks follow): the stored lattice no longer says where the board is."""
    looks = HoleLooks()
    looks.lattice = a_stored_lattice()
    looks.learn(room()[0][:, 0], EMPTY_GRID, grid_corners=CORNERS)
    assert looks.lattice is not None
    looks.learn(room()[0][:, 0], EMPTY_GRID, grid_corners=CORNERS + 3.0)
    assert looks.boards == 2  # the looks stay (3 px: the camera did not move)
    assert looks.lattice is None


@pytest.mark.parametrize(("key", "value"), [
    ("face", [[1.0, 2.0, 3.0]] * 3), ("face", [[float("nan")] * 3] * FACE_POINTS),
    ("lattice_to_image", "x"), ("hole_contrast", [1.0] * 3), ("hole_contrast", [True] * CELLS),
    ("hole_contrast", ["1"] * CELLS), ("hole_contrast", [10 ** 400] * CELLS),
    ("grid_corners", [[1.0, 2.0]] * 3)])
def test_a_bad_stored_lattice_names_its_key(tmp_path, key, value) -> None:
    path = tmp_path / "hole-looks.json"
    looks = HoleLooks()
    looks.lattice = a_stored_lattice()
    looks.save(path)
    data = json.loads(path.read_text())
    data["lattice"][key] = value
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match=f"cannot read the hole looks .*lattice.{key} must"):
        HoleLooks.load(path)
