"""`c4pi calibrate`: the empty board taught to the hole looks on demand, stored, used,
and checked later."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from c4game.board import Board
from c4game.exc import VisionError
from firmware_py.cli import main
from firmware_py.config import CameraConfig, VisionConfig, load_config, resolve_path
from firmware_py.selftest.core import Fail, SelftestOptions
from firmware_py.simtable.render import Hand, RenderSpec, render_frame
from firmware_py.simtable.render_spec import RED_COLOURS
from firmware_py.vision.calibrate import (
    FRAMES_NEEDED,
    calibrate_discs,
    calibrate_empty_board,
    camera_shift_px,
    hole_looks_path,
)
from firmware_py.vision.colour_reader import UNSURE
from firmware_py.vision.disc_colours import DiscColour
from firmware_py.vision.hole_looks import MOVED_PX, HoleLooks
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import INVALID, Reading
from tests.emulation import fewer

WHEN = dt.datetime(2026, 11, 24, 9, 30, tzinfo=dt.UTC)
# a room with a red wall behind the board, seen through every empty hole
RED_ROOM = RenderSpec(yaw_deg=10, pitch_deg=-8, clutter=0, background_colour=RED_COLOURS[0],
                      disc_depth=0.35)


def _reader() -> BoardReader:
    return BoardReader.from_config(VisionConfig(), CameraConfig())


def _frames(position: str, spec: RenderSpec, count: int = 8) -> list[np.ndarray]:
    return [render_frame(position, spec, seed=seed) for seed in range(count)]


def test_the_empty_board_is_learnt_with_its_time_and_grid() -> None:
    spec = RenderSpec(yaw_deg=15, clutter=3, disc_depth=0.35)
    board = calibrate_empty_board(_reader(), _frames("", spec), now=WHEN)
    assert board.counts[:, 0].all()
    assert board.calibrated_at == "2026-11-24T09:30:00+00:00"
    fit = _reader().analyse(render_frame("", spec, seed=99)).fit
    assert camera_shift_px(board, fit) < 2.0


def test_a_board_with_discs_is_not_taken_for_the_empty_board() -> None:
    with pytest.raises(VisionError, match=f"seen in 0 of 8 frames, need {FRAMES_NEEDED}"):
        calibrate_empty_board(_reader(), _frames("4453", RenderSpec(disc_depth=0.35)))


# a room whose reds and pinks show through some upper holes: the readers dispute them
PINK_ROOM = RenderSpec(yaw_deg=13.0, pitch_deg=-2.5, roll_deg=5.0, offset=(0.2, 0.05),
                       fov_deg=55.6, distance=2.29, board_colour=(43, 35, 56),
                       red_colour=(47, 14, 183), yellow_colour=(92, 247, 247),
                       background_colour=(105, 126, 196), clutter=5, light_gain=0.74,
                       light_gradient=0.12, noise_sigma=5.6, blur_sigma=1.65, disc_depth=0.24)


def test_a_board_standing_empty_by_gravity_is_calibrated() -> None:
    reader = _reader()
    frame = render_frame("", PINK_ROOM, seed=20011)
    analysis = reader.analyse(frame)  # the readers see discs up high, each its own
    assert (analysis.colour.argmax(axis=1) != analysis.cnn.argmax(axis=1)).any()
    # discs seen floating: no game leaves that, and a board is never read by deleting
    # what the readers see; calibration learns it empty by gravity all the same
    assert analysis.reading.status == "invalid"
    assert analysis.reading.reason.startswith("floating disc"), analysis.reading.reason
    board = calibrate_empty_board(reader, [frame] * FRAMES_NEEDED)
    assert board.counts[:, 0].all()
    reader.hole_looks = board
    for position in ("", "4453"):
        reading = reader.read(render_frame(position, PINK_ROOM, seed=20011))
        assert reading.status == "ok", (position, reading.reason)
        assert list(reading.grid) == Board.from_moves(position).grid_lines()


# a pink wall seen through holes of the bottom row: in some frames, discs to one reader
PINK_WALL_LOW = RenderSpec(fov_deg=70.3, distance=1.85, yaw_deg=-17.0, pitch_deg=27.7,
                           roll_deg=6.9, offset=(0.065, 0.049), board_colour=(166, 131, 72),
                           red_colour=(48, 27, 166), yellow_colour=(13, 210, 247),
                           background_colour=(137, 134, 215), clutter=5, light_gain=0.55,
                           light_gradient=0.45, noise_sigma=6.1, disc_depth=0.32)


def test_the_owners_word_settles_a_room_that_shows_disc_colours_low() -> None:
    reader = _reader()
    # the readers dispute the wall in about a third of this view's frames: five of those
    frames = [render_frame("", PINK_WALL_LOW, seed=seed) for seed in (6, 7, 10, 12, 15)]
    with pytest.raises(VisionError, match="last frame: invalid: .*run it again with --force"):
        calibrate_empty_board(reader, frames)
    board = calibrate_empty_board(reader, frames, owner_says_empty=True)
    assert board.counts[:, 0].all()
    reader.hole_looks = board
    # these five frames were five rooms (the renderer draws the room from its seed): the
    # holes' empty looks stray so widely that they tell little, and a board the readers
    # dispute is refused, never read wrong (before the one model of hole looks, the
    # reader learnt such a refused empty board from that one frame)
    for position in ("", "4453", "112233"):
        reading = reader.read(render_frame(position, PINK_WALL_LOW, seed=20))
        if reading.status == "ok":
            assert list(reading.grid) == Board.from_moves(position).grid_lines()
        else:
            assert reading.status == "invalid", reading.status


class _ScriptedReader:
    """A reader whose every analysis is ``analysis`` with the given probabilities."""

    def __init__(self, analysis, cnn: np.ndarray, colour: np.ndarray,  # noqa: ANN001
                 covered: tuple[int, ...] = ()) -> None:
        self.hole_looks: HoleLooks | None = None
        mask = np.isin(np.arange(42), covered)  # the reader's explicit "no opinion"
        self.analysis = replace(analysis, cnn=cnn, colour=colour,
                                reading=Reading(INVALID, reason="uncertain cells",
                                                cell_covered=mask))

    def analyse(self, frame: np.ndarray):  # noqa: ANN201
        return self.analysis


def test_a_board_standing_empty_counts_only_when_every_hole_is_seen() -> None:
    real = _reader().analyse(render_frame("", RenderSpec(disc_depth=0.35), seed=0))
    frames = [None] * FRAMES_NEEDED
    refused = f"seen in 0 of {FRAMES_NEEDED} frames"
    empty = np.tile((0.96, 0.02, 0.02), (42, 1))
    cnn, colour = empty.copy(), empty.copy()
    cnn[16] = (0.03, 0.95, 0.02)  # a red wall behind one upper hole, to the CNN
    assert calibrate_empty_board(_ScriptedReader(real, cnn, colour), frames).counts[:, 0].all()
    colour[9] = UNSURE  # a hand over a hole
    with pytest.raises(VisionError, match=refused):
        calibrate_empty_board(_ScriptedReader(real, cnn, colour, covered=(9,)), frames)
    with pytest.raises(VisionError, match=refused):  # the owner's word does not see holes
        calibrate_empty_board(_ScriptedReader(real, cnn, colour, covered=(9,)), frames,
                              owner_says_empty=True)
    colour[9], colour[38] = empty[9], (0.03, 0.95, 0.02)  # a disc at the bottom, to one reader
    with pytest.raises(VisionError, match=refused):
        calibrate_empty_board(_ScriptedReader(real, cnn, colour), frames)
    # the owner says it is the room behind the board
    assert calibrate_empty_board(_ScriptedReader(real, cnn, colour), frames,
                                 owner_says_empty=True).counts[:, 0].all()


def test_the_reader_uses_what_calibration_stored(tmp_path: Path) -> None:
    """A red wall through the holes: read only with the calibrated empty board.

    The renderer draws the room from its seed: one seed is one unchanging room."""
    path = tmp_path / "empty.json"
    room = [render_frame("", RED_ROOM, seed=42)] * FRAMES_NEEDED
    calibrate_empty_board(_reader(), room, now=WHEN).save(path)
    stored = HoleLooks.load(path)
    assert stored.calibrated_at.startswith("2026-11-24T09:30")
    game = render_frame("4453", RED_ROOM, seed=42)
    naive = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())
    assert naive.read(game).status != "ok"
    calibrated = _reader()
    calibrated.hole_looks = stored
    reading = calibrated.read(game)
    assert reading.status == "ok"
    # 4453: red 4, yellow 4, red 5, yellow 3
    assert list(reading.grid) == [".......", ".......", ".......", ".......",
                                  "...Y...", "..YRR.."]


# a set whose "yellow" discs are orange (hue about 35 degrees, between the colour reader's
# red and yellow bands): colour alone calls them empty, even where a hole has changed
ORANGE_SET = RenderSpec(yaw_deg=12, pitch_deg=6, clutter=0, yellow_colour=(30, 150, 235),
                        disc_depth=0.35)


def _room(position: str | list[str], count: int) -> list[np.ndarray]:
    """Frames of one unchanging room (the renderer draws the room from its seed)."""
    return [render_frame(position, ORANGE_SET, seed=42)] * count


def _orange_set_calibrated(prompts: list[str]) -> HoleLooks:
    reader = _reader()
    board = calibrate_empty_board(reader, _room("", FRAMES_NEEDED), now=WHEN)
    dropped = _room("", 2) + _room("3", 4) + _room("35", 4)
    return calibrate_discs(reader, dropped, board, prompts.append)


def test_calibrated_discs_are_read_in_their_own_colours(tmp_path: Path) -> None:
    prompts: list[str] = []
    board = _orange_set_calibrated(prompts)
    assert prompts == ["drop one red disc into any column", "drop one yellow disc into any column"]
    assert board.discs["R"].hue_deg > 330 or board.discs["R"].hue_deg < 20
    assert 30 < board.discs["Y"].hue_deg < 40
    board.save(tmp_path / "board.json")
    stored = HoleLooks.load(tmp_path / "board.json")
    assert stored.discs == board.discs
    assert stored.counts[37, 1] == 1 and stored.counts[39, 2] == 1  # each disc's look too
    game = render_frame("4453", ORANGE_SET, seed=42)
    plain = _reader()
    plain.hole_looks = HoleLooks.load(tmp_path / "board.json")
    plain.hole_looks.discs = {}
    calibrated = _reader()
    calibrated.hole_looks = stored
    assert plain.analyse(game).colour[[31, 37]].argmax(axis=1).tolist() != [2, 2]
    reading = calibrated.read(game)
    assert reading.status == "ok", reading.reason
    assert list(reading.grid) == [".......", ".......", ".......", ".......",
                                  "...Y...", "..YRR.."]


def test_disc_calibration_names_what_went_wrong() -> None:
    reader = _reader()
    board = calibrate_empty_board(reader, _room("", FRAMES_NEEDED), now=WHEN)
    with pytest.raises(VisionError, match="no yellow disc was seen"):
        calibrate_discs(reader, _room("3", 4), board, lambda _: None)
    hand = replace(ORANGE_SET, hand=Hand(0.3, 0.75, 20.0, 0.14))  # over the lower left holes
    with pytest.raises(VisionError, match="no red disc was seen"):
        calibrate_discs(reader, [render_frame("", hand, seed=42)] * 6, board, lambda _: None)
    swapped = _room("", 2) + _room(["......."] * 5 + ["..Y...."], 4)  # yellow first
    swapped += _room(["......."] * 5 + ["..Y.R.."], 4)
    with pytest.raises(VisionError, match="not a red"):
        calibrate_discs(reader, swapped, board, lambda _: None)


def test_a_moved_camera_is_noticed() -> None:
    board = calibrate_empty_board(_reader(), _frames("", RenderSpec(disc_depth=0.35)))
    moved = _reader().analyse(render_frame("", RenderSpec(yaw_deg=10, disc_depth=0.35))).fit
    assert camera_shift_px(board, moved) > MOVED_PX


def test_the_state_directory_of_the_service_is_used(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    assert hole_looks_path("") == tmp_path / "hole-looks.json"
    assert hole_looks_path("~/x.json") == Path.home() / "x.json"


def test_a_relative_looks_file_is_taken_from_the_project_as_every_config_path() -> None:
    assert hole_looks_path("state/looks.json") == resolve_path("state/looks.json")
    assert resolve_path("state/looks.json").is_absolute()


def test_calibrate_out_elsewhere_says_where_the_appliance_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "c.toml"
    used = tmp_path / "used.json"
    config.write_text(f'[vision]\nempty_board_file = "{used}"\n')
    out = tmp_path / "other.json"
    assert main(["--config", str(config), "calibrate", "--source", "sim", "--out",
                 str(out)]) == 0
    err = capsys.readouterr().err
    assert "used.json" in err and str(out) in err


def test_calibrate_command_on_the_simulated_camera(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "board.json"
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    assert "taught the empty board to the hole looks" in capsys.readouterr().out
    assert HoleLooks.load(out).counts[:, 0].all()


def test_calibrate_refuses_to_write_over_a_folder_and_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "folder"
    out.mkdir()
    assert main(["calibrate", "--source", "no-such-source", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error == f"c4pi calibrate: {out} is a folder: give a file (--out FILE.json)\n"
    assert out.is_dir()  # said before the camera is opened, one line


def test_calibrate_force_command_on_the_simulated_camera(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "board.json"
    assert main(["calibrate", "--source", "sim", "--force", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "taught the empty board" in said and "forgotten" not in said  # nothing before
    looks = HoleLooks.load(out)
    assert (looks.counts[:, 0] == FRAMES_NEEDED).all()  # each frame taught
    looks.learn(looks.means[:, 0], ["." * 7] * 5 + ["R" + "." * 6])  # a game learnt since
    looks.save(out)
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    assert HoleLooks.load(out).counts[35, 1] == 1  # a plain calibrate keeps what was learnt
    stored = HoleLooks.load(out)
    stored.discs = {"R": DiscColour(355.0, 0.8), "Y": DiscColour(50.0, 0.8)}
    stored.save(out)
    assert main(["calibrate", "--source", "sim", "--force", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "the looks learnt before forgotten" in said and "disc colours" not in said
    looks = HoleLooks.load(out)
    assert looks.boards == 0 and looks.counts[:, 0].all() and not looks.counts[:, 1:].any()
    assert looks.discs == stored.discs  # the discs' colours are not the view's: kept


def test_calibrating_again_replaces_the_empty_looks_and_keeps_the_disc_looks() -> None:
    # a new cushion behind the board: the empty looks learnt from games give way
    reader = _reader()
    looks = calibrate_empty_board(reader, _room("", FRAMES_NEEDED), now=WHEN)
    rng = np.random.default_rng(5)
    for _ in range(10):  # games learnt since, each hole's empty look taught 8 times and more
        looks.learn(looks.means[:, 0] + rng.normal(0, 1, (42, 12)), ["." * 7] * 5 + ["R" + "." * 6])
    red = looks.means[35, 1].copy()
    cushion = replace(ORANGE_SET, background_colour=RED_COLOURS[0])  # the same view
    calibrate_empty_board(reader, [render_frame("", cushion, seed=42)] * FRAMES_NEEDED,
                          owner_says_empty=True, looks=looks)
    analysis = _reader().analyse(render_frame("", cushion, seed=42))
    # the calibrating reader tracked the markers from frame to frame: their corners agree
    # with a fresh reader's to thousandths of a pixel, the looks to hundredths of a unit
    assert np.abs(looks.means[:, 0] - analysis.reading.cell_looks).max() < 0.05
    assert (looks.counts[:, 0] == FRAMES_NEEDED).all()
    assert np.array_equal(looks.means[35, 1], red)  # the red disc's look, as learnt


def test_calibrate_discs_command_on_the_simulated_camera(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "board.json"
    config = tmp_path / "c4pi.toml"  # under emulation 3 frames a second: a read is slow there
    config.write_text(f"[camera]\nfps = {fewer(10, emulated=3)}\n")  # 2 still pass
    assert main(["--config", str(config), "calibrate", "--source", "sim", "--discs",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "now drop one red disc" in printed and "now drop one yellow disc" in printed
    assert "taught the empty board and the disc colours" in printed
    stored = HoleLooks.load(out)
    assert stored.counts[:, 0].all() and set(stored.discs) == {"R", "Y"}


def test_a_bad_disc_colour_in_the_file_is_reported(tmp_path: Path) -> None:
    board = HoleLooks()
    board.learn(np.zeros((42, 12)), ["." * 7] * 6)
    path = tmp_path / "board.json"
    board.save(path)
    data = json.loads(path.read_text())
    data["discs"] = {"R": {"hue_deg": 400, "saturation": 0.8}}
    path.write_text(json.dumps(data))
    with pytest.raises(VisionError, match="hue_deg must be a number in"):
        HoleLooks.load(path)


def test_selftest_tells_when_and_whether_the_view_moved(tmp_path: Path) -> None:
    from firmware_py.selftest.checks import check_calibration

    out = tmp_path / "board.json"
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    config = load_config(None)
    config = replace(config, camera=replace(config.camera, source="sim"),
                     vision=replace(config.vision, empty_board_file=str(out)))
    options = SelftestOptions(frames=5)
    said = check_calibration(config, options)
    assert "sees the board as then" in said and "disc colours" not in said
    assert f"({out})" in said  # where the looks are kept
    data = json.loads(out.read_text())
    data["discs"] = {"R": {"hue_deg": 355.0, "saturation": 0.8},
                     "Y": {"hue_deg": 50.0, "saturation": 0.8}}
    out.write_text(json.dumps(data))
    assert "(with the disc colours)" in check_calibration(config, options)
    data["grid_corners"] = (np.array(data["grid_corners"]) + 25.0).tolist()
    out.write_text(json.dumps(data))
    with pytest.raises(Fail, match="moved 35 px"):
        check_calibration(config, options)
    looks = HoleLooks.load(out)
    looks.grid_corners, looks.calibrated_at = None, ""  # learnt from games, in another view
    looks.save(out)
    said = check_calibration(config, options)
    assert "not calibrated in this view" in said and "no grid position stored" in said
    out.write_text("{not json")
    with pytest.raises(Fail, match="cannot read the hole looks"):
        check_calibration(config, options)


def test_selftest_says_what_was_learnt_of_the_board(tmp_path: Path) -> None:
    from firmware_py.selftest.checks import check_learnt_looks
    from firmware_py.selftest.core import Skip

    out = tmp_path / "board.json"
    config = load_config(None)
    config = replace(config, vision=replace(config.vision, empty_board_file=str(out)))
    options = SelftestOptions(frames=5)
    with pytest.raises(Skip, match="nothing learnt yet"):
        check_learnt_looks(config, options)
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    said = check_learnt_looks(config, options)
    assert said.startswith("calibrated 20") and "0 confirmed boards learnt" in said
    assert "empty 42" in said
    out.write_text('{"format": "c4pi-hole-looks-1"}')
    with pytest.raises(Fail, match="cannot read the hole looks .*board.json"):
        check_learnt_looks(config, options)
    off = replace(config, vision=replace(config.vision, remember_empty_board=False))
    with pytest.raises(Skip, match="remember_empty_board = false"):
        check_learnt_looks(off, options)


def test_a_source_that_runs_out_is_named_not_the_discs() -> None:
    frames = _frames("", RenderSpec(disc_depth=0.35), count=FRAMES_NEEDED - 1)
    with pytest.raises(VisionError, match=f"all {FRAMES_NEEDED - 1} frame\\(s\\) the source gave"):
        calibrate_empty_board(_reader(), frames)
    hand = replace(ORANGE_SET, hand=Hand(0.3, 0.75, 20.0, 0.14))  # over the lower left holes
    with pytest.raises(VisionError, match="last frame: a hole is covered"):
        calibrate_empty_board(_reader(), [render_frame("", hand, seed=42)] * 6,
                              owner_says_empty=True)


def test_calibrate_says_when_a_moved_camera_made_it_forget(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "looks.json"
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    looks = HoleLooks.load(out)
    looks.learn(looks.means[:, 0], ["." * 7] * 6)  # a game learnt since
    looks.grid_corners = looks.grid_corners + 30.0  # in a view 30 px away
    looks.save(out)
    capsys.readouterr()
    assert main(["calibrate", "--source", "sim", "--out", str(out)]) == 0
    assert "moved since: the looks learnt from 1 positions are forgotten" in capsys.readouterr().out


# the board without markers, found by its holes
HOLES_VIEW = RenderSpec(yaw_deg=10, pitch_deg=-8, clutter=0, markers=False, disc_depth=0.35)


def test_calibrate_stores_where_the_holes_were_found_and_the_appliance_starts_there(
        tmp_path: Path) -> None:
    from firmware_py.config import Config
    from firmware_py.pipeline.assemble import make_reader
    from tests.vision.test_vision_hole_locator import CountedFind

    path = tmp_path / "looks.json"  # one seed is one unchanging room and light
    looks = calibrate_empty_board(_reader(), [render_frame("", HOLES_VIEW, seed=42)] * 8,
                                  now=WHEN)
    assert looks.lattice is not None and "lattice of holes stored" in looks.summary()
    looks.save(path)
    config = Config()
    config = replace(config, vision=replace(config.vision, empty_board_file=str(path)))
    reader = make_reader(config, object())
    find = CountedFind()
    find.fail = True  # the finder finds nothing: only the stored lattice can place the board
    reader.hole_locator.find = find
    game = render_frame("4453", HOLES_VIEW, seed=42)
    reading = reader.read(game)
    assert find.calls == 1 and reading.found_by == "holes" and reading.status == "ok"
    assert list(reading.grid)[4:] == ["...Y...", "..YRR.."]
    # the stored lattice is the one a fresh find gives, to a few pixels
    fresh = BoardReader.from_config(replace(VisionConfig(), board="holes"), CameraConfig())
    assert np.abs(fresh.read(game).grid_corners - reading.grid_corners).max() < 3.0
    # the camera moved: the stored lattice no longer matches, and is not read through
    moved = render_frame("4453", replace(HOLES_VIEW, yaw_deg=-12), seed=42)
    assert reader.read(moved).status == "no-board"
    # markers in view: no lattice of holes to store (nor one stored before kept)
    marked = calibrate_empty_board(_reader(), _frames("", replace(HOLES_VIEW, markers=True)),
                                   looks=looks)
    assert marked.lattice is None


def test_calibrate_command_says_it_stored_where_the_holes_are(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import cv2

    folder = tmp_path / "frames"
    folder.mkdir()
    for index in range(FRAMES_NEEDED + 2):
        cv2.imwrite(str(folder / f"{index:04d}.png"), render_frame("", HOLES_VIEW, seed=42))
    out = tmp_path / "looks.json"
    assert main(["calibrate", "--source", str(folder), "--out", str(out)]) == 0
    assert "the positions of its holes stored too" in capsys.readouterr().out
    assert HoleLooks.load(out).lattice is not None


def test_force_over_a_disc_left_in_learns_it_but_names_its_hole() -> None:
    spec = RenderSpec(yaw_deg=10, clutter=2, disc_depth=0.35)
    said: list[str] = []
    calibrate_empty_board(_reader(), _frames("4", spec, FRAMES_NEEDED),
                          owner_says_empty=True, warn=said.append)
    assert len(said) == 1 and "at column 4 row 1 in every frame" in said[0], said
    assert "column 3" not in said[0] and "take it out" in said[0]
    said.clear()
    calibrate_empty_board(_reader(), _frames("", spec, FRAMES_NEEDED),
                          owner_says_empty=True, warn=said.append)
    assert said == []
