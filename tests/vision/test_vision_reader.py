"""End to end: rendered frames with known boards through the real reader."""

from __future__ import annotations

import numpy as np
import pytest

from c4game.exc import VisionError
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.simtable.render import (
    Hand,
    RenderSpec,
    camera_matrix,
    plane_to_image,
    render_frame,
)
from firmware_py.vision.classifier import CLASSES
from firmware_py.vision.geometry import GRID_CORNERS, apply_homography
from firmware_py.vision.reader import BoardReader
from tests.emulation import fewer

from .conftest import SEED_BASE, random_board

ACCEPTED = ("ok", "finished")


def test_random_positions_and_poses_read_exactly_and_never_wrong_ok(
        reader: BoardReader) -> None:
    rng = np.random.default_rng(SEED_BASE + 100)
    frames = fewer(60, emulated=20)  # a read is slow under emulation
    exact = wrong_ok = cells_right = cells = 0
    for index in range(frames):
        board = random_board(rng)
        spec = RenderSpec.random(rng, max_tilt_deg=45)
        reading = reader.read(render_frame(board, spec, seed=SEED_BASE + 100 + index))
        truth = board.grid_lines()
        right = reading.grid is not None and list(reading.grid) == truth
        exact += right
        wrong_ok += reading.status in ACCEPTED and not right
        if reading.grid is not None:
            cells += 42
            cells_right += sum(a == b for row, want in zip(reading.grid, truth, strict=True)
                               for a, b in zip(row, want, strict=True))
        if right and reading.status in ACCEPTED:
            assert reading.board is not None and reading.board.grid_lines() == truth
            assert reading.status == ("finished" if board.is_finished else "ok")
            assert reading.markers >= 3 and 0 < reading.confidence <= 1
            assert len(reading.cell_confidence) == 42 and reading.blur > 0
    assert wrong_ok == 0
    # the colour reader disputes our renderer's pale discs and vivid backdrops (invalid,
    # never wrong): tools/bench/vision.py measures it on 200 frames. 45 of these 60 before
    # the frame's own disc colours, 44 with them (a pale lemon wall read as this frame's
    # pale yellow), against 69 -> 71 of 100 frames on the bench's render source
    assert exact >= 0.72 * frames
    assert cells_right / cells >= 0.98


def test_after_the_empty_board_positions_are_read_and_never_wrong_ok() -> None:
    """As the appliance reads a game: followed from the same view's empty board."""
    from tools.bench.installations import learn_in_view

    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())
    rng = np.random.default_rng(SEED_BASE + 150)
    frames = fewer(30, emulated=10)
    exact = accepted = wrong_ok = 0
    for index in range(frames):
        board = random_board(rng)
        spec = RenderSpec.random(rng, max_tilt_deg=45)
        learn_in_view(reader, render_frame("", spec, seed=SEED_BASE + 150 + index))
        reading = reader.read(render_frame(board, spec, seed=SEED_BASE + 150 + index))
        right = reading.grid is not None and list(reading.grid) == board.grid_lines()
        exact += right
        accepted += right and reading.status in ACCEPTED
        wrong_ok += reading.status in ACCEPTED and not right
    assert wrong_ok == 0
    # measured on x86-64: 27 of 30 exact, 26 accepted (the first 10: 8 and 7); on arm64
    # (tools/device/arm64_check.sh, the first 10 under emulation): 7 and 7, its numerics
    # differing by one frame; tools/bench/vision.py (render+empty) measures it on 200 frames
    assert exact >= 0.7 * frames and accepted >= 0.5 * frames, (exact, accepted)


def test_three_markers_with_intrinsics(reader: BoardReader) -> None:
    rng = np.random.default_rng(SEED_BASE + 200)
    exact = 0
    for index in range(8):
        hidden = int(rng.integers(0, 4))
        spec = RenderSpec.random(rng, hide_markers=(hidden,), glare=0.0, max_tilt_deg=40)
        k = camera_matrix(spec)
        camera = CameraConfig(fx=k[0, 0], fy=k[1, 1], cx=k[0, 2], cy=k[1, 2])
        with_intrinsics = BoardReader(reader.classifier,
                                      locator=BoardReader.from_config(VisionConfig(), camera)
                                      .locator)
        board = random_board(rng, max_moves=30)
        analysis = with_intrinsics.analyse(render_frame(board, spec,
                                                        seed=SEED_BASE + 200 + index))
        reading = analysis.reading
        assert reading.markers == 3, reading.reason  # the pose fit from three markers
        truth = apply_homography(plane_to_image(spec), GRID_CORNERS)
        assert np.abs(analysis.fit.project(GRID_CORNERS) - truth).max() < 2.0
        right = list(reading.grid) == board.grid_lines()
        exact += right
        assert right or reading.status not in ACCEPTED
    # half of these frames show a disc colour through the holes: disputed, never wrong
    assert exact >= 3  # measured: 3 of 8


def test_no_board_frames(reader: BoardReader) -> None:
    rng = np.random.default_rng(SEED_BASE + 300)
    for index in range(6):
        spec = RenderSpec.random(rng, board_visible=False)
        reading = reader.read(render_frame("", spec, seed=SEED_BASE + 300 + index))
        assert reading.status == "no-board" and reading.grid is None and reading.board is None
        assert reading.reason


def test_a_floating_disc_seen_is_invalid_even_where_one_reader_misses_it(
        reader: BoardReader) -> None:
    """No disc can float on a real board: the reading is ``invalid`` showing the grid
    seen, with its reason, also in frame 0, where the colour reader calls the pale
    yellow empty and only the CNN sees it: a disc seen is never deleted."""
    grid = ["......."] * 3 + ["..Y...."] + ["......."] + ["..RY..."]
    colour_misses = 0
    for index in range(3):
        spec = RenderSpec.random(np.random.default_rng(SEED_BASE + 400 + index))
        analysis = reader.analyse(render_frame(grid, spec, seed=SEED_BASE + 400 + index))
        reading = analysis.reading
        colour_misses += analysis.colour[23].argmax() != 2
        assert reading.status == "invalid" and reading.board is None
        assert reading.grid == tuple(grid)
        assert reading.reason.startswith("floating disc at column 3 row 3; the nearest "
                                         "legal board "), reading.reason
    assert colour_misses == 1


def test_finished_board_reports_the_winner(reader: BoardReader) -> None:
    moves = "4455667"
    spec = RenderSpec(yaw_deg=20, pitch_deg=-15, noise_sigma=3, clutter=0)
    reading = reader.read(render_frame(moves, spec, seed=SEED_BASE + 500))
    assert reading.status == "finished"
    assert reading.board is not None and reading.board.winner == "R"


def test_a_frame_read_under_an_expectation_holds_the_holes_that_look_as_expected(
        reader: BoardReader) -> None:
    """Live, the game filter hands the reader what it expects: the holes that still
    look so are held to what they held, and the board is decided once on that."""
    from c4game.board import Board
    from firmware_py.vision.reading import Expectation

    spec = RenderSpec(yaw_deg=15, pitch_deg=-10, noise_sigma=3, clutter=0)
    frame = render_frame("4453", spec, seed=SEED_BASE + 510)
    alone = reader.read(frame)
    assert alone.status == "ok" and alone.cell_held is None and alone.expectation is None
    truth = "".join(Board.from_moves("4453").grid_lines())
    assert "".join(alone.grid) == truth
    classes = np.array([".RY".index(char) for char in truth])
    expectation = Expectation(alone.cell_looks.copy(), classes, rule="red")
    reading = reader.read(frame, expectation)
    assert reading.expectation is expectation and reading.cell_held.all()
    assert reading.grid == alone.grid and reading.status == "ok"
    # a game that holds a red disc where the frame shows the same empty hole: held
    wrong = classes.copy()
    wrong[6] = 1  # top row, column 7
    held = reader.read(frame, Expectation(alone.cell_looks.copy(), wrong, rule="red"))
    assert held.cell_held.all() and held.status == "invalid" and held.grid[0][6] == "R"
    assert np.argmax(held.cell_log_probs[6]) == 1  # the evidence the filter weighs, held


def test_a_hand_over_the_grid_is_never_a_wrong_ok(reader: BoardReader) -> None:
    rng = np.random.default_rng(SEED_BASE + 600)
    for index in range(8):
        board = random_board(rng)
        hand = Hand(0.5 + rng.uniform(-0.1, 0.1), 0.5 + rng.uniform(-0.1, 0.1),
                    rng.uniform(-40, 40), 0.14)
        spec = RenderSpec.random(rng, hand=hand)
        reading = reader.read(render_frame(board, spec, seed=SEED_BASE + 600 + index))
        if reading.status in ACCEPTED:
            assert list(reading.grid) == board.grid_lines()


@pytest.mark.parametrize("frame", [np.zeros((720, 1280), np.uint8),
                                   np.zeros((720, 1280, 3), np.float32),
                                   np.zeros((10, 10, 3), np.uint8), "frame.png"])
def test_bad_frames_raise_a_vision_error(reader: BoardReader, frame: object) -> None:
    with pytest.raises(VisionError):
        reader.read(frame)  # type: ignore[arg-type]


def _scene(board_or_grid, seed: int, **fields):  # noqa: ANN001, ANN202
    from tools.scene.render import render_scene
    from tools.scene.spec import SceneSpec

    spec = SceneSpec.random(np.random.default_rng(seed), **fields)
    return render_scene(board_or_grid, spec, seed=seed)


def test_frames_of_the_3d_scene_are_read_and_never_wrong_ok(reader: BoardReader) -> None:
    rng = np.random.default_rng(SEED_BASE + 700)
    frames, exact, wrong_ok = fewer(24, emulated=8), 0, 0
    for index in range(frames):
        board = random_board(rng)
        reading = reader.read(_scene(board, SEED_BASE + 700 + index, max_tilt_deg=35))
        right = reading.grid is not None and list(reading.grid) == board.grid_lines()
        exact += right
        wrong_ok += reading.status in ACCEPTED and not right
    assert wrong_ok == 0
    assert exact >= 0.5 * frames  # tools/bench/vision.py measures it on 300 frames


def test_flat_discs_seen_straight_on_are_discs_to_the_cnn(reader: BoardReader) -> None:
    """The failure real boards showed: plain flat discs in clear light read as empty
    holes (a uniform circle in a hole may be a wall behind it; the frame tells)."""
    discs = read_empty = 0
    for index in range(12):
        seed = SEED_BASE + 750 + index
        rng = np.random.default_rng(seed)
        board = random_board(rng, max_moves=22)
        while board.n_discs < 12 and not board.is_finished:
            board = board.play(int(rng.choice(board.legal_columns())))
        frame = _scene(board, seed, disc_style="flat", max_tilt_deg=10)
        truth = np.array([CLASSES.index(c) for line in board.grid_lines() for c in line])
        cnn = reader.analyse(frame).cnn.argmax(axis=1)
        discs += int((truth > 0).sum())
        read_empty += int(((cnn == 0) & (truth > 0)).sum())
    # these 149 discs: the per-cell network of before read 36 empty, this one 2
    assert read_empty <= 0.12 * discs, (read_empty, discs)


@pytest.mark.parametrize("generator", ["render", "scene"])
def test_illegal_boards_are_never_accepted(reader: BoardReader, generator: str) -> None:
    grids = [["......."] * 5 + ["...YY.."],           # Yellow played first, twice
             ["......."] * 4 + ["...R..."] + ["..RRY.."],  # three reds to one yellow
             ["......."] * 5 + [".YYYY.."] ]           # a four Yellow cannot have made
    for index, grid in enumerate(grids):
        seed = SEED_BASE + 800 + index
        frame = (render_frame(grid, RenderSpec.random(np.random.default_rng(seed)), seed=seed)
                 if generator == "render" else _scene(grid, seed, max_tilt_deg=30))
        assert reader.read(frame).status not in ACCEPTED


def test_a_red_wall_behind_the_holes_is_calibrated_as_the_empty_board() -> None:
    # a red wall right behind the board: every empty hole is red to the colour reader
    from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_empty_board

    fields = {"wall_colour": (40, 40, 190), "wall_style": "plain", "wall_distance": 3.0,
              "spare_discs": 0, "max_tilt_deg": 20, "translucency": 0.0}
    reader = BoardReader.from_config(VisionConfig(), CameraConfig())
    assert reader.hole_looks is not None and not reader.hole_looks.knows_anything
    empty = _scene("", SEED_BASE + 900, **fields)
    first = reader.analyse(empty)
    assert (first.colour.argmax(axis=1) == 1).sum() >= 30  # the wall, seen as red discs
    assert not reader.hole_looks.knows_anything  # a reading teaches nothing
    reader.hole_looks = calibrate_empty_board(reader, [empty] * FRAMES_NEEDED)  # no game looks so
    again = reader.analyse(empty)
    assert np.all(again.log_probs.argmax(axis=1) == 0)  # recalled: every hole empty
    for moves in ("", "4453", "44444453221"):
        reading = reader.read(_scene(moves, SEED_BASE + 900, **fields))
        if reading.status in ACCEPTED:  # the CNN may still take the flat wall for discs
            assert list(reading.grid) == random_board_grid(moves)



def test_the_learnt_looks_are_consulted_in_this_frames_light(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader asks its looks for this frame's light once and hands that map to both
    comparisons with the learnt looks: the recall and the colour reader's empty looks."""
    from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_empty_board
    from firmware_py.vision.light_map import LightMap

    empty = _scene("", SEED_BASE + 901, max_tilt_deg=20, spare_discs=0)
    reader = BoardReader.from_config(VisionConfig(), CameraConfig())
    reader.hole_looks = looks = calibrate_empty_board(reader, [empty] * FRAMES_NEEDED)
    dusk = LightMap(np.array([1.2, 1.1, 0.9]), np.array([-10.0, 3.0, 5.0]))
    asked: list[str] = []
    handed: dict[str, LightMap | None] = {}
    recall, empty_looks = looks.recall, looks.empty_looks

    def light(features: np.ndarray, **kwargs: object) -> LightMap:
        asked.append("light")
        return dusk

    def spy_recall(*args: object, light: LightMap | None = None, **kwargs: object) -> np.ndarray:
        handed["recall"] = light
        return recall(*args, light=light, **kwargs)  # type: ignore[arg-type]

    def spy_empty(grid_corners: np.ndarray | None = None,
                  light: LightMap | None = None) -> np.ndarray:
        handed["empty_looks"] = light
        return empty_looks(grid_corners, light)

    monkeypatch.setattr(looks, "light", light)
    monkeypatch.setattr(looks, "recall", spy_recall)
    monkeypatch.setattr(looks, "empty_looks", spy_empty)
    reader.analyse(empty)
    assert asked == ["light"]
    assert handed == {"recall": dusk, "empty_looks": dusk}

def random_board_grid(moves: str) -> list[str]:
    from c4game.board import Board

    return Board.from_moves(moves).grid_lines()
