"""What a followed game teaches (pipeline/teach.py, vision/hole_looks.py), on games
filmed from real photographs of the navy board (``tools.bench.real_games``): as
photographed, and restyled to a darker navy in other light
(``tools/train/appearances.py``), a board the network was not trained on.

One game is followed live by the product's reader and teacher; then the settled
frames of another game on the same board, in the same room (the wall behind each
empty hole as in the followed game), are read one frame at a time, by a reader
that learnt nothing and by the one that followed. Truth is the grid the film put
on the table. A short game (12 moves, each held 1 s) keeps the test quick; the
bench's longer games are in docs/vision.md. Skipped, saying why, without the
shared data.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from firmware_py.config import load_config
from tools.bench.learnt_looks import measure_board
from tools.train.real_composites import Composer, PatchLibrary

# measured (games of seeds 1 and 2, 12 moves, every 2nd settled frame, 65 frames): as
# photographed 47 -> 65, restyled navy 44 -> 65 (seeds 3 and 4: 51 -> 65, 52 -> 65)
GAIN = 10  # frames, on either appearance
TARGET = 0.97  # the issue's: the single-frame read after one followed game


@pytest.fixture(scope="module")
def composer(shared: Path) -> Composer:
    return Composer(PatchLibrary.load(shared))


@pytest.mark.parametrize("appearance", ["plain", "navy"])
def test_one_followed_game_teaches_the_navy_board_and_never_a_wrong_board(
        composer: Composer, appearance: str) -> None:
    args = argparse.Namespace(seed=1, films=1, every=2, moves=12, hold=1.0, discs=False)
    result = measure_board(composer, "res", args, load_config(None), appearance=appearance)
    followed = result["followed"]
    assert followed["frames_showing_wrong"] == 0
    learnt = result["boards_learnt"]
    # every board shown is confirmed by the next one but the last (nothing follows it):
    # 12 of 13 shown as photographed, 9 of 10 restyled (measured); most of the game
    assert learnt >= followed["shown"] - 1 >= 8, result
    before, after = result["nothing_learnt"], result["with_looks"]
    assert before["wrong"] == after["wrong"] == 0
    assert after["read"] >= before["read"] + GAIN, result
    assert after["read"] >= TARGET * after["frames"], result
