"""``c4pi watch``: SPEC §6 output on folders and files (reader and solver faked here)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from c4game.board import Board
from firmware_py import cli
from firmware_py.pipeline import assemble
from firmware_py.pipeline.fakes import FakeSolver, fake_answer
from firmware_py.vision.reading import NO_BOARD, OK, Reading

# frame value -> position shown (None: no board)
POSITIONS = {10: None, 20: "", 30: "4", 40: "43"}
SCRIPT = [10] * 3 + [20] * 8 + [30] * 8 + [10] * 8 + [30] * 6 + [40] * 6


class ValueReader:
    """Reads the position named by a frame's brightness."""

    def read(self, image, expectation=None):
        moves = POSITIONS[int(round(float(image.mean()) / 10) * 10)]
        if moves is None:
            return Reading(NO_BOARD)
        board = Board.from_moves(moves)
        return Reading(OK, tuple(board.grid_lines()), board, 0.95)


@pytest.fixture
def fakes(monkeypatch):
    solver = FakeSolver()
    monkeypatch.setattr(assemble, "make_solver", lambda config: solver)
    monkeypatch.setattr(assemble, "make_reader", lambda config, source: ValueReader())
    return solver


@pytest.fixture
def folder(tmp_path):
    for index, value in enumerate(SCRIPT):
        cv2.imwrite(str(tmp_path / f"f{index}.png"), np.full((40, 60, 3), value, np.uint8))
    return tmp_path


def watch(capsys, *args: str) -> tuple[int, list[str], str]:
    status = cli.main(["watch", *args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def expected_solved(moves: str) -> dict:
    board = Board.from_moves(moves)
    answer = fake_answer(board)
    return {"state": "solved", "grid": board.grid_lines(), "best": answer.column,
            "score": answer.score, "plies": answer.plies}


def test_folder_json_lines_follow_the_spec(fakes, folder, capsys):
    status, lines, _ = watch(capsys, str(folder), "--json", "--fps", "5")
    assert status == 0
    objects = [json.loads(line) for line in lines]
    assert all(list(o) == ["t", "state", "grid", "best", "score", "plies"] for o in objects)
    states = [(o["t"], o["state"]) for o in objects]
    # board frames from 0.6 s: found at once, committed on its 4th frame (at 5 fps)
    assert states[:2] == [(0.6, "transitional"), (1.2, "solved")]
    assert {k: objects[1][k] for k in expected_solved("")} == expected_solved("")
    assert (2.8, "solved") in states and objects[states.index((2.8, "solved"))]["grid"] == \
        Board.from_moves("4").grid_lines()
    assert ("scanning" in [s for _, s in states]) and objects[-1] == {
        "t": round(objects[-1]["t"], 3), **expected_solved("43")}
    for obj in objects:
        assert obj["t"] == pytest.approx(round(obj["t"] / 0.2) * 0.2)  # on the frame grid
        if obj["state"] in ("scanning",):
            assert obj["grid"] is None and obj["best"] is None


def test_same_folder_same_output(fakes, folder, capsys):
    first = watch(capsys, str(folder), "--json")
    second = watch(capsys, str(folder), "--json")
    assert first == second and first[1]


def test_default_fps_is_ten(fakes, folder, capsys):
    _, lines, _ = watch(capsys, str(folder), "--json")
    assert json.loads(lines[0])["t"] == 0.3  # board from 0.3 s: found at once


def test_video_file_uses_its_own_rate(fakes, tmp_path, capsys):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 4.0, (64, 48))
    for value in SCRIPT:
        writer.write(np.full((48, 64, 3), value, np.uint8))
    writer.release()
    _, lines, _ = watch(capsys, str(path), "--json")
    assert json.loads(lines[0])["t"] == 0.75  # board from frame 3 at 4 fps: found at once


def test_human_output(fakes, folder, capsys):
    status, lines, _ = watch(capsys, str(folder))
    assert status == 0
    text = "\n".join(lines)
    # the empty board under "either" (the default): nobody has started, no colour named
    assert ("solved: either colour may start: play column 4 (Draw in 42; the first "
            "player's score +0)") in text
    assert "solved: Red to play column 4 (Draw in 40; Red's score +0)" in text  # R4 Y3
    assert "    ...R..." in text and "scanning" in text


def test_frames_limit(fakes, folder, capsys):
    _, lines, _ = watch(capsys, str(folder), "--json", "--frames", "6")
    assert [json.loads(line)["state"] for line in lines] == ["transitional"]


def test_missing_source(fakes, tmp_path, capsys):
    status, lines, err = watch(capsys, str(tmp_path / "nothing"), "--json")
    assert status == 66 and [json.loads(line) for line in lines] == [
        {"error": err.strip().removeprefix("c4pi watch: "), "exit": 66}]
    assert "unknown source" in err and "nothing" in err


def test_bad_sim_moves(fakes, capsys):
    status, _, err = watch(capsys, "sim", "--moves", "4489", "--fast")
    assert status == 2 and "illegal move '8' at move 3" in err


def test_bad_fps(capsys):
    status, _, err = watch(capsys, "sim", "--fps", "0")
    assert status == 2 and "--fps" in err


@pytest.mark.parametrize("count", ["0", "-1"])
def test_no_frames_to_watch_is_a_usage_error(capsys, count):
    status, out, err = watch(capsys, "sim", "--frames", count)
    assert status == 2 and "--frames must be 1 or more" in err and out == []


@pytest.mark.parametrize("fps", ["0.05", "1001"])
def test_a_frame_rate_out_of_range_names_the_range(capsys, fps):
    status, out, err = watch(capsys, "sim", "--fps", fps)
    assert status == 2 and "--fps must be from 0.1 to 1000" in err and out == []


def test_one_picture_is_pointed_to_read(capsys, folder):
    status, out, err = watch(capsys, str(folder / "f0.png"), "--json")
    assert status == 2 and "c4pi read" in err
    assert json.loads(out[0])["exit"] == 2 and len(out) == 1


def test_the_config_may_follow_the_command(capsys, fakes, folder, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[vision]\nno_such_key = 1\n")
    status, _, err = watch(capsys, str(folder), "--config", str(config))
    assert status == 78 and "no_such_key" in err  # the config given after the command is read


def test_a_missing_model_exits_as_read_does(capsys, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[vision]\nmodel = "no/such.tflite"\n')
    status, _, err = watch(capsys, "sim", "--frames", "2", "--fast", "--config", str(config))
    assert status == 1 and "model not found" in err


def test_a_long_source_name_is_repeated_only_in_part(capsys):
    status, _, err = watch(capsys, "/tmp/" + "a" * 5000)
    assert status == 66 and "(5,005 characters)" in err and len(err) < 400
