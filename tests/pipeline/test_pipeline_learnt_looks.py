"""What a followed game teaches (pipeline/teach.py, vision/hole_looks.py), on games
filmed from real photographs of the navy board (``tools.bench.real_games``): as
photographed, and restyled to a darker navy in other light
(``tools/train/appearances.py``), a board the network was not trained on.

One game is followed live by the product's reader and teacher; then the settled
frames of another game on the same board are read one frame at a time, by a
reader that learnt nothing and by the one that followed. Truth is the grid the
film put on the table. Skipped, saying why, without the shared data.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from firmware_py.config import load_config
from tools.bench.learnt_looks import measure_board
from tools.train.real_composites import Composer, PatchLibrary

# measured (games of seeds 1 and 2, 24 moves, every 6th settled frame, 84 frames;
# tools.bench.learnt_looks --appearances plain,navy: the full figures): as photographed
# the network already reads 73 and the looks take it to 76; restyled navy 60 -> 75
GAIN = {"plain": 0, "navy": 10}


@pytest.mark.parametrize("appearance", ["plain", "navy"])
def test_one_followed_game_teaches_the_navy_board_and_never_a_wrong_board(
        shared: Path, appearance: str) -> None:
    composer = Composer(PatchLibrary.load(shared))
    args = argparse.Namespace(seed=1, films=1, every=6, moves=24, hold=2.0, discs=False)
    result = measure_board(composer, "res", args, load_config(None), appearance=appearance)
    followed = result["followed"]
    assert followed["frames_showing_wrong"] == 0
    learnt = result["boards_learnt"]
    # every board shown is confirmed by the next one but the last (nothing follows it):
    # 24 of 25 shown as photographed, 21 of 22 restyled (measured)
    assert learnt >= followed["shown"] - 1 >= 20, result
    before, after = result["nothing_learnt"], result["with_looks"]
    assert before["wrong"] == after["wrong"] == 0
    assert after["read"] >= before["read"] + GAIN[appearance], result
    assert after["read"] >= 0.85 * after["frames"], result
