"""This installation's learnt looks (vision/board_looks.py): learnt from labelled boards,
scored as evidence, bounded, forgotten, stored."""

from __future__ import annotations

import json

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import VisionError
from firmware_py.vision.board_looks import (
    CELLS,
    MEMORY,
    MOVED_PX,
    BoardLooks,
    kinds_of,
)
from firmware_py.vision.look_evidence import CAP

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


def test_nothing_learnt_gives_no_opinion() -> None:
    truth, rng = room()
    looks = BoardLooks()
    assert not looks.evidence(frame_of(truth, board("4455"), rng)).any()
    assert looks.summary() == "no board learnt yet"


def test_learnt_boards_tell_a_new_board_apart_even_at_holes_never_seen_so() -> None:
    truth, rng = room(1)
    looks = BoardLooks()
    for moves in ("", "4", "44", "445", "4455", "44553", "445536"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves))
    new = board("1122771")  # discs at holes no learnt board had a disc at
    evidence = looks.evidence(frame_of(truth, new, rng))
    assert np.array_equal(evidence.argmax(axis=1), kinds_of(new))
    spread = evidence.max(axis=1) - evidence.min(axis=1)
    assert spread.min() > 1.0 and spread.max() <= CAP + 1e-9


def test_a_kind_seen_at_too_few_holes_has_no_look_elsewhere() -> None:
    truth, rng = room(2)
    looks = BoardLooks()
    looks.learn(frame_of(truth, board("4"), rng), board("4"))  # one red hole, no yellow
    evidence = looks.evidence(frame_of(truth, board("1"), rng))
    red_at_1 = 35  # bottom row, column 1
    assert evidence[red_at_1, 1] == pytest.approx(evidence[red_at_1, 0])  # no opinion
    # column 4's bottom hole knew only red, but empty holes are many: the board's look
    assert evidence[38, 0] > evidence[38, 1] + 1


def test_covered_holes_teach_nothing_and_get_no_opinion() -> None:
    truth, rng = room(3)
    looks = BoardLooks()
    covered = np.zeros(CELLS, bool)
    covered[:7] = True
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), covered=covered)
    assert not looks.counts[:7].any() and looks.counts[7:].any()
    evidence = looks.evidence(frame_of(truth, board("4455"), rng), covered=covered)
    assert not evidence[covered].any() and evidence[~covered].any()


def test_a_moved_grid_is_another_view() -> None:
    truth, rng = room(4)
    looks = BoardLooks()
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), grid_corners=CORNERS)
    features = frame_of(truth, board("445"), rng)
    assert looks.evidence(features, grid_corners=CORNERS + 2).any()
    moved = CORNERS + [MOVED_PX + 1, 0]
    assert not looks.evidence(features, grid_corners=moved).any()
    looks.learn(features, board("445"), grid_corners=moved)  # taught in the new view
    assert looks.boards == 1 and not looks.moved(moved)


def test_memory_is_bounded_and_follows_a_change_of_light() -> None:
    truth, rng = room(5)
    looks = BoardLooks()
    for _ in range(50):
        looks.learn(frame_of(truth, board(""), rng), board(""))
    assert looks.counts.max() == MEMORY and looks.boards == 50
    darker = truth - 30  # the room's light changed for good
    for _ in range(3 * MEMORY):
        looks.learn(frame_of(darker, board(""), rng), board(""))
    assert np.abs(looks.means[:, 0] - darker[:, 0]).max() < 3


def test_forget_and_summary() -> None:
    truth, rng = room(6)
    looks = BoardLooks()
    looks.learn(frame_of(truth, board("44"), rng), board("44"), when="2026-11-29T10:00:00+00:00")
    assert "1 confirmed boards learnt (latest 2026-11-29T10:00:00+00:00)" in looks.summary()
    looks.forget()
    assert looks.boards == 0 and not looks.counts.any() and looks.grid_corners is None


def test_stored_and_read_back(tmp_path) -> None:
    truth, rng = room(7)
    looks = BoardLooks()
    for moves in ("", "44", "4455"):
        looks.learn(frame_of(truth, board(moves), rng), board(moves), grid_corners=CORNERS)
    path = tmp_path / "board-looks.json"
    looks.save(path)
    again = BoardLooks.load(path)
    features = frame_of(truth, board("445"), rng)
    assert again.boards == 3 and np.allclose(again.grid_corners, CORNERS)
    assert np.allclose(again.evidence(features), looks.evidence(features), atol=1e-3)


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
    looks = BoardLooks()
    looks.learn(frame_of(truth, board("44"), rng), board("44"))
    path = tmp_path / "board-looks.json"
    looks.save(path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match="board-looks.json"):
        BoardLooks.load(path)


def test_not_json_is_reported(tmp_path) -> None:
    path = tmp_path / "board-looks.json"
    path.write_text("{ not json")
    with pytest.raises(VisionError, match="cannot read the learnt board looks"):
        BoardLooks.load(path)


def test_bad_inputs_are_refused() -> None:
    looks = BoardLooks()
    with pytest.raises(ValueError, match="6 lines of 7"):
        kinds_of(["......."] * 5)
    with pytest.raises(ValueError, match="finite hole looks"):
        looks.learn(np.full((CELLS, 12), np.nan), board(""))
