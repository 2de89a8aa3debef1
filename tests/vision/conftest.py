"""Fixtures of the vision tests: one reader for the session, frame helpers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from c4game.board import Board
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.vision.reader import BoardReader

# Render seeds of the tests: below 100,000, never used by the training tool
# (which starts at 1,000,000) nor by the benchmark (20,000-79,999).
SEED_BASE = 7_000


@pytest.fixture(scope="session", autouse=True)
def _one_cv_thread() -> None:
    cv2.setNumThreads(1)


@pytest.fixture(scope="session")
def reader() -> BoardReader:
    # no empty board: each test's reading must not depend on the frames read before
    return BoardReader.from_config(VisionConfig(remember_empty_board=False), CameraConfig())


def random_board(rng: np.random.Generator, max_moves: int = 42) -> Board:
    """A random legal position: a random game of random length (may be finished)."""
    board = Board.empty()
    for _ in range(int(rng.integers(0, max_moves + 1))):
        if board.is_finished:
            break
        board = board.play(int(rng.choice(board.legal_columns())))
    return board


def independent_grid(moves: str) -> list[str]:
    """Grid text of a move string, computed without the Board class."""
    cells = [["."] * 7 for _ in range(6)]
    heights = [0] * 7
    for index, char in enumerate(moves):
        col = int(char) - 1
        cells[heights[col]][col] = "R" if index % 2 == 0 else "Y"
        heights[col] += 1
    return ["".join(row) for row in reversed(cells)]
