"""The reader on real photographs of real boards (../shared/data/real-dev and real-dev2,
labelled by hand; skipped, saying why, when the shared data is absent).

What a player sees counts: a legal board is *read* when it is accepted
(``ok``/``finished``) with the exact grid; refused, it is a miss even when the
grid shown is right. An accepted wrong grid is *wrong*, and every board
labelled ``invalid`` (a position no legal game reaches) must be refused.
The labels are Red-first (SPEC §1 before either colour could start): read with
``[game] first = "red"`` they hold as labelled; under ``either`` (the default)
a board labelled invalid only because Yellow started is legal, and must be
read as it stands. Nothing here was used to train the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from c4game.board import Board
from c4game.exc import InvalidGridError
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK

SETS = ("real-dev", "real-dev2")
RULES = ("red", "either")
# legal boards of each set the reader may refuse (measured with the network's step 7:
# the misses are the navy board's two photos, each with a spare disc behind the empty
# bottom hole of column 6 that the readers doubt ("empty 0.79 or red", "empty 0.87 or
# yellow" under either; under red the second is read); real-dev2 1 of 1; docs/vision.md).
# Under either, real-dev's 4 Yellow-first photos are legal and read (17 of 19), and one
# Yellow-first board of sticker discs in real-dev2 is legal and refused (a known gap).
MAY_MISS = {("red", "real-dev"): 2, ("red", "real-dev2"): 0,
            ("either", "real-dev"): 2, ("either", "real-dev2"): 1}


def _labels(shared: Path, name: str) -> list[dict]:
    text = (shared / "data" / name / "labels.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line]


def _under(label: dict, rule: str) -> dict:
    """The label under ``rule``: a board labelled invalid that the rule allows is legal."""
    if label["status"] != "invalid" or rule == "red":
        return label
    try:
        board = Board.from_grid(label["grid"], rule)
    except InvalidGridError:
        return label
    return {**label, "status": FINISHED if board.is_finished else OK}


@pytest.fixture(scope="module", params=RULES)
def readings(shared: Path, request: pytest.FixtureRequest) -> dict[str, list[tuple[dict, object]]]:
    reader = BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig(),
                                     first=request.param)
    found: dict[str, list[tuple[dict, object]]] = {}
    for name in SETS:
        for label in _labels(shared, name):
            frame = cv2.imread(str(shared / "data" / name / label["file"]))
            assert frame is not None, label["file"]
            found.setdefault(name, []).append((_under(label, request.param), reader.read(frame)))
    return found


def _accepted(reading) -> bool:  # noqa: ANN001
    return reading.status in (OK, FINISHED)


def test_there_are_labelled_real_frames(readings: dict) -> None:
    assert len(readings["real-dev"]) >= 20 and len(readings["real-dev2"]) >= 10
    statuses = {label["status"] for frames in readings.values() for label, _ in frames}
    assert statuses == {"ok", "invalid", "finished"}


@pytest.mark.parametrize("name", SETS)
def test_legal_real_boards_are_read(readings: dict, name: str,
                                    request: pytest.FixtureRequest) -> None:
    legal = [(label, reading) for label, reading in readings[name]
             if label["status"] in (OK, FINISHED)]
    missed = [(label["file"], reading.status, reading.reason) for label, reading in legal
              if not (_accepted(reading) and list(reading.grid) == label["grid"]
                      and reading.status == label["status"])]
    rule = request.node.callspec.params["readings"]
    assert len(missed) <= MAY_MISS[rule, name], missed


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
