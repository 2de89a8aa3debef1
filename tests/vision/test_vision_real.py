"""The reader on real photographs of real boards (../shared/data/real-dev and real-dev2,
labelled by hand; skipped, saying why, when the shared data is absent).

What a player sees counts: a legal board is *read* when it is accepted
(``ok``/``finished``) with the exact grid; refused, it is a miss even when the
grid shown is right. An accepted wrong grid is *wrong*, and every board
labelled ``invalid`` (a position no legal game reaches) must be refused.
Nothing here was used to train the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK

SETS = ("real-dev", "real-dev2")
# legal boards of each set the reader may refuse (measured: real-dev 13 of 15 read, the
# misses the navy board's two photos, each with a spare disc behind an empty bottom hole
# that the CNN takes for a disc: one favoured as a disc (never deleted), one in doubt
# against the illegal board a yellow there would make; real-dev2 1 of 1; docs/vision.md)
MAY_MISS = {"real-dev": 2, "real-dev2": 0}


def _labels(shared: Path, name: str) -> list[dict]:
    text = (shared / "data" / name / "labels.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.fixture(scope="module")
def readings(shared: Path) -> dict[str, list[tuple[dict, object]]]:
    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())
    found: dict[str, list[tuple[dict, object]]] = {}
    for name in SETS:
        for label in _labels(shared, name):
            frame = cv2.imread(str(shared / "data" / name / label["file"]))
            assert frame is not None, label["file"]
            found.setdefault(name, []).append((label, reader.read(frame)))
    return found


def _accepted(reading) -> bool:  # noqa: ANN001
    return reading.status in (OK, FINISHED)


def test_there_are_labelled_real_frames(readings: dict) -> None:
    assert len(readings["real-dev"]) >= 20 and len(readings["real-dev2"]) >= 10
    statuses = {label["status"] for frames in readings.values() for label, _ in frames}
    assert statuses == {"ok", "invalid", "finished"}


@pytest.mark.parametrize("name", SETS)
def test_legal_real_boards_are_read(readings: dict, name: str) -> None:
    legal = [(label, reading) for label, reading in readings[name]
             if label["status"] in (OK, FINISHED)]
    missed = [(label["file"], reading.status, reading.reason) for label, reading in legal
              if not (_accepted(reading) and list(reading.grid) == label["grid"]
                      and reading.status == label["status"])]
    assert len(missed) <= MAY_MISS[name], missed


@pytest.mark.parametrize("name", SETS)
def test_no_real_board_is_accepted_wrong(readings: dict, name: str) -> None:
    wrong = [label["file"] for label, reading in readings[name]
             if _accepted(reading) and list(reading.grid) != label["grid"]]
    assert not wrong


@pytest.mark.parametrize("name", SETS)
def test_illegal_real_boards_are_refused_with_a_reason(readings: dict, name: str) -> None:
    illegal = [(label, reading) for label, reading in readings[name]
               if label["status"] == "invalid"]
    assert illegal
    assert not [label["file"] for label, reading in illegal if _accepted(reading)]
    assert all(reading.reason for _, reading in illegal)
