"""The live pipeline on games filmed from real photographs (``tools.bench.real_games``).

Real cut-outs of discs and holes of ``../shared/data/real-dev`` are placed move
by move on a real board photo; each position stands a while, under camera
noise, a drifting exposure and JPEG; discs fall through the holes above
their landing cell and a hand passes over the grid. The real board reader
reads every frame and the pipeline follows the game. Truth is the grid the
film put on the table: nothing here comes from the code under test. Skipped,
saying why, when the shared data is absent.

The navy board (``res``) shows a spare disc lying behind it through an empty
hole of its bottom row, which the CNN takes for a disc: a disc seen is never
deleted to make a board legal, so its empty board is refused until the owner
runs ``c4pi calibrate --force`` (the README's set-up), as its films here do.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from c4game.board import Board
from firmware_py.config import CameraConfig, VisionConfig
from firmware_py.pipeline.belief import BeliefParams, starts_empty
from firmware_py.vision.calibrate import calibrate_empty_board
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import INVALID
from tools.bench.live_games import run_film
from tools.bench.real_games import Film, Step, emptiest, game_steps
from tools.train.real_composites import Composer, PatchLibrary

SOURCES = ("zam", "res")  # the turquoise board and the navy one


@pytest.fixture(scope="module")
def composer(shared: Path) -> Composer:
    return Composer(PatchLibrary.load(shared))


def reader(composer: Composer | None = None, source: str = "zam") -> BoardReader:
    """A reader; on the navy board, after the owner's ``c4pi calibrate --force``."""
    board_reader = BoardReader.from_config(VisionConfig(), CameraConfig())
    if composer is not None and source == "res":
        empty = Film(composer, emptiest(composer.library.of_source(source)), seed=99)
        frames = [frame.image for frame in empty.frames([Step(grid(""), 1.5)])]
        board_reader.hole_looks = calibrate_empty_board(board_reader, frames,
                                                        owner_says_empty=True)
    return board_reader


def film(composer: Composer, source: str, seed: int = 3) -> Film:
    return Film(composer, emptiest(composer.library.of_source(source)), seed)


def grid(moves: str) -> tuple[str, ...]:
    return tuple(Board.from_moves(moves).grid_lines())


def with_cells(base: tuple[str, ...], **cells: str) -> tuple[str, ...]:
    """``base`` with cells set: ``c1r1="Y"`` puts yellow at column 1, row 1."""
    lines = [list(line) for line in base]
    for name, colour in cells.items():
        column, row = int(name[1]), int(name[3])
        lines[6 - row][column - 1] = colour
    return tuple("".join(line) for line in lines)


def opening(moves: str = "4453", hold_s: float = 1.2) -> list[Step]:
    return game_steps(moves, hold_s=hold_s)


@pytest.mark.parametrize("source", SOURCES)
def test_every_position_of_a_game_is_shown_within_a_second_and_never_a_wrong_one(
        composer, source):
    steps = game_steps("4453352216", hold_s=1.2, hand_every=3)
    stats = run_film(film(composer, source).frames(steps), reader(composer, source))
    assert stats.wrong_frames == 0
    assert stats.shown == stats.positions == 11, stats.unshown
    assert max(stats.delays_s) < 1.0, stats.delays_s


def test_the_navy_board_uncalibrated_is_never_shown_wrong(composer):
    """Without the owner's calibration the empty board of this film is refused (the
    spare disc behind it is not deleted) and the game is not followed: never wrong."""
    steps = game_steps("4453352216", hold_s=1.2, hand_every=3)
    stats = run_film(film(composer, "res").frames(steps), reader())
    assert stats.wrong_frames == 0


def test_a_disc_of_the_wrong_colour_is_never_shown_and_the_game_goes_on(composer):
    wrong = with_cells(grid("4453"), c1r1="Y")  # red to move: three yellows to two reds
    steps = [*opening(), Step(wrong, 2.0, fall=1), Step(grid("4453"), 1.2),
             Step(grid("44531"), 1.5, fall=1)]
    stats = run_film(film(composer, "zam").frames(steps), reader())
    assert stats.wrong_frames == 0
    assert stats.something_else[0]["screen"].startswith("transitional")  # the cheat: no board
    assert stats.shown == stats.positions  # before it, after it is taken out, the next move


def test_two_discs_at_once_are_read_in_full_and_shown(composer):
    steps = [*opening(), Step(grid("445312"), 3.0, fall=None)]
    stats = run_film(film(composer, "zam").frames(steps), reader())
    assert stats.wrong_frames == 0
    assert stats.something_else[0]["screen"] == "showed it"


def test_a_disc_taken_out_is_shown_once_it_stays_out(composer):
    steps = [*game_steps("44531", hold_s=1.2), Step(grid("4453"), 4.0)]
    stats = run_film(film(composer, "res").frames(steps), reader(composer, "res"))
    assert stats.wrong_frames == 0
    assert stats.something_else[0]["screen"] == "showed it"


def test_a_cleared_board_starts_a_new_game(composer):
    steps = [*opening(), Step(grid(""), 3.0), Step(grid("4"), 1.5, fall=4)]
    stats = run_film(film(composer, "zam").frames(steps), reader())
    assert stats.wrong_frames == 0
    assert stats.shown == stats.positions


@pytest.mark.parametrize("hand_y", [200.0, 470.0])  # over empty holes; over the discs
def test_a_hand_over_the_grid_for_three_seconds_never_commits(composer, hand_y):
    steps = [*opening(), Step(grid("4453"), 1.5, hand_s=3.0, hand_y=hand_y)]
    commits = []
    stats = run_film(film(composer, "res").frames(steps), reader(composer, "res"),
                     on_commit=commits.append)
    assert stats.wrong_frames == 0
    assert stats.shown == stats.positions
    assert len(commits) == 5  # the empty board and the four moves: none under the hand


def test_a_start_mid_game_is_read_as_it_stands(composer):
    steps = [Step(grid("44533522"), 2.0), Step(grid("445335221"), 1.5, fall=1)]
    stats = run_film(film(composer, "zam").frames(steps), reader())
    assert stats.wrong_frames == 0
    assert stats.shown == stats.positions == 2


def test_a_cheat_that_makes_the_board_illegal_stays_invalid(composer):
    cheat = with_cells(grid("4453"), c4r2="R")  # yellow's disc turned red: 3 reds, 1 yellow
    steps = [*opening(), Step(cheat, 3.0)]
    frames = list(film(composer, "zam").frames(steps))
    board_reader = reader()
    stats = run_film(frames, board_reader)
    assert stats.wrong_frames == 0
    assert stats.something_else[0]["screen"].startswith("transitional")
    assert board_reader.read(frames[-1].image).status == INVALID


def test_the_start_prior_reads_every_empty_real_photo_empty_and_no_other(shared):
    """The 33 labelled photographs (real-dev, real-dev2): the empty board's prior at a
    game's start (``belief.starts_empty``) takes each empty board and no board with discs,
    legal or not. (The prior and margin were chosen with these photos in view: this
    guards them; the films above are the measurement.)"""
    board_reader = BoardReader.from_config(VisionConfig(remember_empty_board=False),
                                           CameraConfig())
    verdicts = {}
    for name in ("real-dev", "real-dev2"):
        folder = shared / "data" / name
        for line in (folder / "labels.jsonl").read_text().splitlines():
            label = json.loads(line)
            reading = board_reader.read(cv2.imread(str(folder / label["file"])))
            empty = all(set(row) == {"."} for row in label["grid"])
            verdicts[label["file"]] = (empty, starts_empty(reading, BeliefParams(first="red")))
    assert len(verdicts) == 33
    assert {file: v for file, v in verdicts.items() if v[0] != v[1]} == {}


def test_a_game_yellow_starts_is_followed_on_a_real_board(composer):
    """[game] first = either (the default): Yellow drops the first disc of a film of the
    turquoise board; every position is shown, none wrong, as in a game Red starts."""
    steps = game_steps("4453352216", hold_s=1.2, hand_every=3, start=Board.empty("Y"))
    commits = []
    stats = run_film(film(composer, "zam").frames(steps), reader(), on_commit=commits.append,
                     first="Y")
    assert stats.wrong_frames == 0 and not stats.something_else
    assert stats.shown == stats.positions == 11, stats.unshown
    assert all(board.first == "Y" for board in commits if board.n_discs)


def test_another_game_in_the_same_room_shows_the_same_wall_behind_each_empty_hole(
        composer: Composer) -> None:
    """``Film.share_room`` (the learnt-looks bench): the navy board's base photo holds
    discs, so each film cuts an empty hole in for them; another game in the same room
    shows the walls the first showed, where a film of its own shows other ones."""
    base = emptiest(composer.library.of_source("res"))
    assert base.discs > 0  # else there is no wall to share
    first = Film(composer, base, seed=1)
    empty_board = first.compose(grid(""))
    same_room = Film(composer, base, seed=2)
    same_room.share_room(first)
    assert (same_room.compose(grid("")) == empty_board).all()
    elsewhere = Film(composer, base, seed=2)
    assert (elsewhere.compose(grid("")) != empty_board).any()
    with pytest.raises(ValueError, match="before composing"):
        elsewhere.share_room(first)
    zam = Film(composer, emptiest(composer.library.of_source("zam")), seed=1)
    with pytest.raises(ValueError, match="same photo"):
        zam.share_room(first)
