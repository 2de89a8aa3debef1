"""The reader on real photographs of real boards (../shared/data/real-dev, labelled by hand).

Every frame labelled ``ok`` or ``finished`` must be read exactly, with that
status; every frame labelled ``invalid`` (a position no legal game reaches)
must not be accepted. Nothing here was used to train the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK

LABELS = "data/real-dev/labels.jsonl"


def _labels(shared: Path) -> list[dict]:
    return [json.loads(line) for line in (shared / LABELS).read_text().splitlines() if line]


@pytest.fixture(scope="module")
def readings(shared: Path) -> list[tuple[dict, object]]:
    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())
    found = []
    for label in _labels(shared):
        frame = cv2.imread(str(shared / "data/real-dev" / label["file"]))
        assert frame is not None, label["file"]
        found.append((label, reader.read(frame)))
    return found


def test_there_are_labelled_real_frames(readings: list) -> None:
    assert len(readings) >= 20
    assert {label["status"] for label, _ in readings} == {"ok", "invalid", "finished"}


def test_legal_real_boards_are_read_exactly(readings: list) -> None:
    legal = [(label, reading) for label, reading in readings
             if label["status"] in (OK, FINISHED)]
    misread = [(label["file"], reading.status, reading.reason) for label, reading in legal
               if reading.grid is None or list(reading.grid) != label["grid"]]
    assert not misread  # board-exact: the grid reported is the one on the table
    accepted = [label["file"] for label, reading in legal if reading.status == label["status"]]
    assert len(accepted) >= 0.4 * len(legal)  # the rest are invalid with a reason, never wrong


def test_no_real_board_is_accepted_wrong(readings: list) -> None:
    wrong = [label["file"] for label, reading in readings
             if reading.status in (OK, FINISHED) and list(reading.grid) != label["grid"]]
    assert not wrong


def test_illegal_real_boards_are_rejected(readings: list) -> None:
    accepted = [label["file"] for label, reading in readings
                if label["status"] == "invalid" and reading.status in (OK, FINISHED)]
    assert not accepted
