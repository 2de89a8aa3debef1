"""`c4pi snapshot --annotate`: the frame with what the reader saw drawn where it belongs."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_py.cli import main
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.simtable.render import RenderSpec, plane_to_image, render_frame
from firmware_py.vision.geometry import GRID_CORNERS, MARKER_CENTRES, apply_homography
from firmware_py.vision.overlay import GRID_READ, USED, annotate
from firmware_py.vision.reader import BoardReader
from tests.vision.conftest import independent_grid

SPEC = RenderSpec(yaw_deg=12, pitch_deg=-10, clutter=0, disc_depth=0.35)


@pytest.fixture(scope="module")
def markers_reader() -> BoardReader:
    """A reader that finds the board by its markers only (``[vision] board = "markers"``)."""
    return BoardReader.from_config(VisionConfig(remember_empty_board=False, board="markers"),
                                   CameraConfig())


def _near(image: np.ndarray, point: np.ndarray, colour: tuple[int, int, int],
          radius: int = 3) -> bool:
    """True when a pixel within ``radius`` of ``point`` has ``colour`` (anti-aliased: +-30)."""
    x, y = int(round(point[0])), int(round(point[1]))
    patch = image[y - radius:y + radius + 1, x - radius:x + radius + 1].reshape(-1, 3)
    gap = np.abs(patch.astype(int) - np.array(colour)).max(axis=1)
    return bool(np.any(gap <= 30))


@pytest.mark.parametrize("hidden", [(), (3,), (1, 3), (0, 1, 2, 3)])
def test_the_overlay_draws_markers_grid_and_status(markers_reader: BoardReader,
                                                   hidden: tuple[int, ...]) -> None:
    frame = render_frame("4453", SPEC.replace(hide_markers=hidden), seed=3)
    analysis = markers_reader.analyse(frame)
    annotated = annotate(frame, analysis)
    band = annotated.shape[0] - frame.shape[0]  # the status band above the frame
    assert band > 0 and annotated.shape[1:] == frame.shape[1:]
    image = annotated[band:]
    truth = plane_to_image(SPEC)
    grid = apply_homography(truth, GRID_CORNERS)
    edges = (grid + np.roll(grid, -1, axis=0)) / 2  # the middle of each side of the grid
    if analysis.fit.ok:
        assert all(_near(image, point, GRID_READ) for point in edges)
    else:
        assert not any(_near(image, point, GRID_READ) for point in edges)
    for marker_id, marker in analysis.markers.items():
        assert marker_id not in hidden
        assert _near(image, marker.corners[0], USED, radius=4) == analysis.fit.ok
    assert len(hidden) < 4 or not analysis.markers
    assert len(np.unique(annotated[:band].reshape(-1, 3), axis=0)) > 2  # words are in it
    if len(hidden) == 4:  # nothing found: nothing drawn, the band covers nothing either
        assert np.array_equal(image, frame)
    untouched = apply_homography(truth, MARKER_CENTRES.mean(axis=0, keepdims=True))[0]
    assert not _near(image, untouched, GRID_READ, radius=0) or analysis.fit.ok


@pytest.mark.parametrize("hidden", [(), (3,), (1, 3), (0, 1, 2, 3)])
def test_snapshot_writes_the_annotated_frame(tmp_path: Path, capsys: pytest.CaptureFixture,
                                             hidden: tuple[int, ...]) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    frame = render_frame("4453", SPEC.replace(hide_markers=hidden), seed=3)
    cv2.imwrite(str(folder / "0001.png"), frame)
    out = tmp_path / "snap.png"
    assert main(["snapshot", str(out), "--source", str(folder), "--annotate"]) == 0
    printed = capsys.readouterr().out
    written = cv2.imread(str(out))
    assert written.shape[1:] == frame.shape[1:] and written.shape[0] > frame.shape[0]
    assert f"{4 - len(hidden)} marker(s)" in printed
    assert "what to do" not in printed
    # every marker covered: the default [vision] board = "auto" finds it by its holes
    assert ("found by its holes" in printed) == (len(hidden) == 4)


def test_without_markers_the_board_is_found_by_its_holes_and_drawn() -> None:
    frame = render_frame("4453", SPEC.replace(hide_markers=(0, 1, 2, 3)), seed=3)
    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())
    analysis = reader.analyse(frame)  # a new reader: no lattice kept from other frames
    assert analysis.reading.status == "ok" and analysis.reading.found_by == "holes"
    assert list(analysis.reading.grid) == independent_grid("4453")
    image = annotate(frame, analysis)
    image = image[image.shape[0] - frame.shape[0]:]
    grid = apply_homography(plane_to_image(SPEC), GRID_CORNERS)
    edges = (grid + np.roll(grid, -1, axis=0)) / 2
    assert all(_near(image, point, GRID_READ, radius=6) for point in edges)


def test_without_markers_and_holes_the_snapshot_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.full((480, 640, 3), 90, np.uint8))
    assert main(["snapshot", str(tmp_path / "snap.png"), "--source", str(folder),
                 "--annotate"]) == 0
    printed = capsys.readouterr().out
    assert "no-board" in printed and "what to do: Show the whole board" in printed


def test_snapshot_without_annotation_is_the_frame_itself(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    frame = render_frame("", SPEC, seed=1)
    cv2.imwrite(str(folder / "a.png"), frame)
    out = tmp_path / "plain.png"
    assert main(["snapshot", str(out), "--source", str(folder)]) == 0
    assert np.array_equal(cv2.imread(str(out)), frame)


def test_snapshot_refuses_bad_names_and_missing_sources(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    assert main(["snapshot", str(tmp_path / "x.gif"), "--source", "sim"]) == 2
    assert main(["snapshot", str(tmp_path / "x.png"), "--source",
                 str(tmp_path / "nowhere")]) == 66
    assert "unknown source" in capsys.readouterr().err


def test_snapshot_never_writes_over_its_source_picture(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    picture = tmp_path / "board.png"
    cv2.imwrite(str(picture), render_frame("44", SPEC, seed=2))
    before = picture.read_bytes()
    assert main(["snapshot", str(tmp_path / "." / "board.png"), "--source", str(picture),
                 "--annotate"]) == 2
    assert "is the source picture" in capsys.readouterr().err
    assert picture.read_bytes() == before
    assert main(["snapshot", str(tmp_path / "new.png"), "--source", str(tmp_path)]) == 2
    assert "source folder" in capsys.readouterr().err and not (tmp_path / "new.png").exists()


def test_the_band_says_every_word_of_the_reason_and_the_advice(
        markers_reader: BoardReader) -> None:
    """A newcomer's report: the reason was cut off ("..., column"), "markers 3" read like
    a marker's number, and the advice was only in the terminal."""
    from firmware_py.vision.overlay import FONT, _wrap

    reason = ("parity: 5 red and 2 yellow discs; a legal board needs as many of each or one "
              "more of the colour that started, column 4 holds a floating disc")
    lines = _wrap(reason, 640, 0.8)
    assert " ".join(lines) == reason and len(lines) > 1
    assert all(cv2.getTextSize(line, FONT, 0.8, 2)[0][0] <= 640 - 16 for line in lines)
    frame = render_frame("4453", SPEC.replace(hide_markers=(0, 1, 2, 3)), seed=3)
    analysis = markers_reader.analyse(frame)
    band = annotate(frame, analysis).shape[0] - frame.shape[0]
    with_advice = 3  # the status line, the reason, "What to do: Show all four markers ..."
    assert band >= with_advice * 34 * max(frame.shape[1] / 1280, 0.5)


@pytest.mark.parametrize("size", [0.4, 0.5, 0.8])
def test_the_outline_of_a_line_of_text_ends_where_its_text_ends(size: float) -> None:
    """A newcomer's re-test: on frames 1,024 px wide or less (OpenCV 5) a black copy of
    each banner line stuck out to the right of the line ("0.94" then "74")."""
    from firmware_py.vision.overlay import _text

    image = np.full((60, 400, 3), 128, np.uint8)
    _text(image, "confidence 0.94 front.", (10, 40), (255, 255, 255), size)
    drawn = np.flatnonzero((image != 128).any(axis=(0, 2)))
    white = np.flatnonzero((image > 200).all(axis=2).any(axis=0))
    assert drawn[-1] - white[-1] <= 3, (drawn[-1], white[-1])  # a 1-2 px outline, no more


def test_a_refused_cell_is_shown_as_sure_as_the_reason_says(monkeypatch) -> None:  # noqa: ANN001
    # A sticker-disc photo as taken (dro_042944, a board of discs with coloured stickers),
    # found by its holes, under the default `[game] first = either`: refused at one hole
    # the readers doubt ("red 0.60 or empty"; the navy board's res_IMG_3990, this test's
    # photo before the network's step 8, is now read). The overlay printed 50 % at such a
    # hole (the reading caps a doubtful cell at one half for the game filter) and now
    # prints the probability the reason quotes.
    import re

    from firmware_py.vision.overlay import shown_confidences
    from firmware_py.vision.remedy import remedy
    from tools.shared_data import missing_reason, shared_dir

    photo = shared_dir() / "data" / "real-dev-raw" / "frames" / "dro_042944.jpg"
    if not photo.is_file():
        pytest.skip(missing_reason(photo.parent))
    import firmware_py.vision.reader as reader_module

    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False, board="holes"),
                                     CameraConfig())
    # since vision/hidden.py one pale sticker disc there, whose yellow ring fills its
    # crop's corners, is refused first as a hole something lies over (Known gaps); the
    # readers' doubt this test is about is the one without that test
    image = cv2.imread(str(photo))
    assert "something lies over it" in reader.read(image).reason
    monkeypatch.setattr(reader_module, "hidden_holes",
                        lambda crops, border=None: np.zeros(len(crops), bool))
    analysis = reader.analyse(image)
    reading = analysis.reading
    quoted = re.search(r"column (\d) row (\d) \((\w+) ([0-9.]+)", reading.reason)
    assert reading.status == "invalid" and quoted, reading.reason  # labelled illegal too
    assert "c4pi calibrate" in remedy(reading.status, reading.reason), reading.reason
    column, row, name, probability = quoted.groups()
    index = (6 - int(row)) * 7 + int(column) - 1
    assert {"empty": ".", "red": "R", "yellow": "Y"}[name] == reading.grid[6 - int(row)][
        int(column) - 1]
    assert float(probability) > 0.5 >= reading.cell_confidence[index]
    assert abs(shown_confidences(analysis)[index] - float(probability)) < 0.006
