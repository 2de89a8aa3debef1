"""`c4pi read`, `c4pi render` and `c4pi markers` (SPEC §6 output and exit codes)."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from c4game.board import Board
from firmware_py.cli import main
from firmware_py.simtable.render import RenderSpec, render_frame

from .conftest import independent_grid

CLEAN = RenderSpec(yaw_deg=15, clutter=0)  # a plain backdrop behind the board


def write_frame(path: Path, position, spec: RenderSpec | None = None, seed: int = 0) -> str:
    cv2.imwrite(str(path), render_frame(position, spec or CLEAN, seed=seed))
    return str(path)


def test_read_ok_prints_the_grid(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    image = write_frame(tmp_path / "f.png", "4453")
    assert main(["read", image]) == 0
    assert capsys.readouterr().out.splitlines() == independent_grid("4453")


def test_read_json_has_exactly_the_spec_keys(tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    """SPEC §6's keys, #55's ``found_by`` and why a reading is not ok (``reason``;
    keys added: scripts keep working)."""
    image = write_frame(tmp_path / "f.jpg", "445")
    assert main(["read", image, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"status", "grid", "moves_to_play", "markers", "confidence",
                         "found_by", "reason"}
    assert data["found_by"] == "markers" and data["reason"] is None
    assert data["status"] == "ok" and data["moves_to_play"] == "Y" and data["markers"] == 4
    assert data["grid"] == independent_grid("445")
    assert 0.6 <= data["confidence"] <= 1


def test_read_not_ok_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    image = write_frame(tmp_path / "n.png", "", RenderSpec(board_visible=False))
    assert main(["read", image, "--json"]) == 3
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["status"] == "no-board" and data["grid"] is None
    assert data["moves_to_play"] is None and "no-board" in captured.err
    assert data["reason"] and data["reason"] in captured.err  # the same words, in the JSON
    finished = write_frame(tmp_path / "w.png", "4455667")
    assert main(["read", finished]) == 3
    assert "finished" in capsys.readouterr().err
    assert main(["read", finished, "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["reason"] == "Red has four in a row"


def test_a_picture_too_small_to_read_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((10, 10, 3), np.uint8))
    assert main(["read", str(tiny)]) == 2
    err = capsys.readouterr().err
    assert "too small" in err and "Traceback" not in err and len(err.splitlines()) == 1
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.zeros((10, 10, 3), np.uint8))
    assert main(["snapshot", str(tmp_path / "s.png"), "--source", str(folder),
                 "--annotate"]) == 2
    assert "too small" in capsys.readouterr().err


def test_read_help_says_what_confidence_means(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    """The number is explained, and it holds what the help says: at least
    1 / (1 + e^-accept_margin) for a board read, under 0.5 for an illegal grid seen."""
    with pytest.raises(SystemExit):
        main(["read", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "confidence is not a per-hole score" in text and "runner-up" in text
    assert "at least 1 / (1 + e^-accept_margin): 0.92" in text
    assert main(["read", write_frame(tmp_path / "ok.png", "4453"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["confidence"] >= 1 / (1 + math.exp(-2.5))
    floating = [".......", ".......", ".......", "...R...", ".......", "...Y..."]
    assert main(["read", write_frame(tmp_path / "bad.png", floating), "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "invalid" and data["confidence"] < 0.5


def test_read_unreadable_image_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.png"
    bad.write_text("not an image")
    assert main(["read", str(bad)]) == 2
    error = capsys.readouterr().err
    assert "bad.png" in error and "not a picture" in error


@pytest.mark.parametrize(("make", "says"), [
    (lambda path: None, "no such file"),
    (lambda path: path.mkdir(), "a folder"),
    (lambda path: path.write_bytes(b""), "the file is empty"),
])
def test_read_says_what_is_wrong_with_the_path(tmp_path: Path, capsys: pytest.CaptureFixture,
                                               make, says: str) -> None:
    path = tmp_path / "frame.png"
    make(path)
    assert main(["read", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert says in captured.err and "frame.png" in captured.err
    assert says in json.loads(captured.out)["error"]  # the same words for a script


def test_render_writes_a_readable_frame(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "r.png"
    assert main(["render", "4453", "-o", str(out), "--random", "--seed", "11",
                 "--hide-marker", "0"]) == 0
    assert "fx=" in capsys.readouterr().out
    assert cv2.imread(str(out)).shape == (720, 1280, 3)
    assert main(["render", "4453", "-o", str(tmp_path / "s.png"), "--size", "640x360",
                 "--yaw", "20"]) == 0
    assert cv2.imread(str(tmp_path / "s.png")).shape == (360, 640, 3)
    assert main(["render", "48", "-o", str(out)]) == 2
    assert "illegal move" in capsys.readouterr().err


@pytest.mark.parametrize("generator", ["flat", "scene"])
def test_the_default_render_is_read_right(tmp_path: Path, capsys: pytest.CaptureFixture,
                                          generator: str) -> None:
    """A newcomer's first try: ``c4pi render - -o x.png`` then ``c4pi read x.png`` (and
    the same with the 3-D scene, ``python -m tools.scene``). Seed 0's clutter put a
    dark-red object behind columns 6-7 and the read was refused."""
    from tools.scene.__main__ import main as scene_main

    def render(*args: str) -> int:
        return main(["render", *args]) if generator == "flat" else scene_main(list(args))

    out = str(tmp_path / "x.png")
    for moves in ("", "4453", "662262431342231"):
        assert render(moves or "-", "-o", out) == 0
        capsys.readouterr()
        assert main(["read", out, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["status"] == "ok"
        assert data["grid"] == Board.from_moves(moves).grid_lines()
    seeded = str(tmp_path / "seeded.png")
    assert render("-", "-o", seeded, "--seed", "0") == 0
    assert render("-", "-o", out) == 0
    if generator == "flat":  # the seed brings the objects back (the scene has none at rest)
        assert not np.array_equal(cv2.imread(seeded), cv2.imread(out))


def test_markers_sheet_has_true_size_markers(tmp_path: Path) -> None:
    out = tmp_path / "sheet.png"
    assert main(["markers", "-o", str(out), "--pitch-mm", "34"]) == 0
    data = out.read_bytes()
    index = data.index(b"pHYs")
    per_metre = struct.unpack(">I", data[index + 4:index + 8])[0]
    assert per_metre == round(300 / 0.0254)
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert sheet.shape == (3508, 2480)  # A4 at 300 dpi
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(sheet)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    expected_px = 0.8 * 34 / 25.4 * 300
    for quad in corners:
        side = np.linalg.norm(quad[0][1] - quad[0][0])
        assert abs(side - expected_px) < 2.5
    assert main(["markers", "-o", str(tmp_path / "x.pdf"), "--pitch-mm", "34"]) == 2
    assert main(["markers", "-o", str(out), "--pitch-mm", "500"]) == 2


def test_markers_usage_says_a_pitch_or_the_charuco_board_is_needed(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["markers", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "(--pitch-mm N | --charuco)" in text and "%%" not in text
    with pytest.raises(SystemExit) as done:
        main(["markers", "-o", "m.png"])
    assert done.value.code == 2
    assert "one of the arguments --pitch-mm --charuco is required" in capsys.readouterr().err


@pytest.mark.parametrize(("rule", "moves", "status", "to_move"), [
    ("red", "Y:445", "invalid", None),  # Yellow started: no position where Red must start
    ("either", "Y:445", "ok", "R"),
    ("yellow", "44", "ok", "Y"),  # equal counts: the starter (Yellow here) is to move
    ("either", "44", "ok", "R"),  # one frame, equal counts: Red's turn (SPEC §1)
    ("yellow", "445", "invalid", None),  # Red started: no position where Yellow must
])
def test_read_follows_who_may_start(tmp_path: Path, capsys: pytest.CaptureFixture, rule: str,
                                    moves: str, status: str, to_move: str | None) -> None:
    first, _, played = moves.rpartition(":")
    board = Board.from_moves(played, first=first or "R")
    image = write_frame(tmp_path / "f.png", board)
    config = tmp_path / "c4pi.toml"
    config.write_text(f'[game]\nfirst = "{rule}"\n')
    main(["--config", str(config), "read", image, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["grid"] == board.grid_lines()
    assert (data["status"], data["moves_to_play"]) == (status, to_move)


def test_a_command_prints_what_was_asked_for_and_no_log_chatter(tmp_path: Path) -> None:
    """Noise a newcomer met on every vision command: TFLite's "INFO: Created TensorFlow
    Lite XNNPACK delegate" and the reader's INFO lines. Quiet without -v, there with it."""
    import subprocess
    import sys

    image = write_frame(tmp_path / "f.png", "4453", RenderSpec(clutter=0))  # frontal: a note
    command = [sys.executable, "-m", "firmware_py", "read", image]
    quiet = subprocess.run(command, capture_output=True, text=True, timeout=120,
                           cwd=Path(__file__).resolve().parents[2])
    assert quiet.returncode == 0 and quiet.stdout.splitlines() == independent_grid("4453")
    assert quiet.stderr == "", quiet.stderr
    verbose = subprocess.run([*command[:3], "-v", *command[3:]], capture_output=True,
                             text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert "INFO firmware_py.vision.reader" in verbose.stderr
    assert "XNNPACK delegate" in verbose.stderr  # the runtime's line, in the debug log


def test_one_photo_reads_the_same_through_read_and_snapshot(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture
                                                            ) -> None:
    """A newcomer's report: `c4pi read` said 0.577 and `c4pi snapshot --annotate` 0.62
    for the same photo (a file source decoded it another way than cv2.imread)."""
    from tools.shared_data import missing_reason, shared_dir

    photo = shared_dir() / "data" / "real-dev" / "frames" / "res_IMG_3988.jpg"
    if not photo.is_file():
        pytest.skip(missing_reason(photo))
    main(["read", str(photo), "--json"])
    read = json.loads(capsys.readouterr().out)
    assert main(["snapshot", str(tmp_path / "s.png"), "--annotate", "--source", str(photo)]) == 0
    said = capsys.readouterr().out
    assert f"confidence {read['confidence']:.2f}" in said, (read, said)


def test_read_json_of_a_file_it_cannot_read_says_why_on_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "gone.png"
    assert main(["read", str(missing), "--json"]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert set(data) == {"error", "exit"} and data["exit"] == 2
    assert str(missing) in data["error"] and data["error"] in captured.err
    assert main(["read", str(missing)]) == 2
    assert capsys.readouterr().out == ""  # without --json stdout stays empty


def test_a_config_error_under_json_says_why_on_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "c4pi.toml"
    config.write_text("[vision]\naccept_margin = nan\n")
    assert main(["--config", str(config), "read", "x.png", "--json"]) == 78
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["exit"] == 78 and "accept_margin" in data["error"]
    assert str(config) in data["error"] and captured.err.startswith("c4pi: config error")


def test_a_name_that_is_not_utf8_is_refused_not_handed_to_opencv(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import os

    bad = os.fsdecode(bytes(tmp_path) + b"/bad\xff.png")  # OpenCV crashes on such a name
    assert main(["read", bad, "--json"]) == 2
    assert "not valid UTF-8" in json.loads(capsys.readouterr().out)["error"]
    assert main(["render", "4453", "-o", bad]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert main(["snapshot", "--source", "sim", bad]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert main(["watch", os.fsdecode(bytes(tmp_path) + b"/\xfe"), "--json"]) == 66
    assert "not valid UTF-8" in capsys.readouterr().err
    assert main(["watch", str(tmp_path / ("a" * 300)), "--json"]) == 66  # name too long
    assert "File name too long" in json.loads(capsys.readouterr().out)["error"]


def test_a_picture_without_colour_is_said_so(tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    frame = render_frame("4453", RenderSpec(), seed=1)
    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    cv2.imwrite(str(tmp_path / "grey.png"), grey)
    cv2.imwrite(str(tmp_path / "black.png"), np.zeros_like(frame))
    assert main(["read", str(tmp_path / "grey.png"), "--json"]) == 3
    said = json.loads(capsys.readouterr().out)
    assert said["status"] == "no-board" and "no colour" in said["reason"]
    assert main(["read", str(tmp_path / "black.png"), "--json"]) == 3
    assert "no colour" not in json.loads(capsys.readouterr().out)["reason"]


def test_a_jpeg_cut_short_is_said_damaged(tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    frame = render_frame("4453", RenderSpec(), seed=1)
    whole = tmp_path / "whole.jpg"
    cv2.imwrite(str(whole), frame)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole.read_bytes()[:len(whole.read_bytes()) // 2])
    assert main(["read", str(cut)]) == 2
    assert "cut short" in capsys.readouterr().err
    padded = tmp_path / "padded.jpg"  # a camera's padding or a motion photo's video after
    padded.write_bytes(whole.read_bytes() + bytes(3 << 20))  # the end marker is fine
    assert main(["read", str(padded)]) == 0


class _Piped:
    """A standard input a picture is piped into."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_read_dash_reads_a_picture_piped_in(tmp_path: Path, capsys: pytest.CaptureFixture,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    image = Path(write_frame(tmp_path / "f.jpg", "4453"))
    monkeypatch.setattr("sys.stdin", _Piped(image.read_bytes()))
    assert main(["read", "-"]) == 0
    assert capsys.readouterr().out.splitlines() == independent_grid("4453")


@pytest.mark.parametrize(("piped", "said"), [
    (b"", "nothing came"),
    (b"\xff\xd8\xff\xe0" + bytes(500), "cut short"),
    (b"hello", "not a picture OpenCV decodes"),
])
def test_read_dash_says_what_is_wrong_with_what_was_piped(
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, piped: bytes,
        said: str) -> None:
    monkeypatch.setattr("sys.stdin", _Piped(piped))
    assert main(["read", "-", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error.startswith("cannot read image from standard input") and said in error


def test_read_dash_at_a_terminal_is_refused_not_waited_on(
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Piped(b"")
    monkeypatch.setattr(terminal, "isatty", lambda: True)
    monkeypatch.setattr("sys.stdin", terminal)
    assert main(["read", "-"]) == 2
    assert "it is a terminal" in capsys.readouterr().err


def test_a_piped_picture_is_read_only_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from c4game.exc import CameraError
    from firmware_py.sources import picture

    monkeypatch.setattr(picture, "MAX_STREAM_BYTES", 1000)
    stream = io.BytesIO(bytes(10_000))
    with pytest.raises(CameraError, match="more than"):
        picture.read_picture_stream(stream)
    assert stream.tell() == 1001  # not the whole stream
