"""End to end on simulated games, read by a fallible scene reader (no pixels: fast).

The simulator's script is the independent truth: every committed board must
be a board that really stood on the table in the last few frames, the
committed boards must be the game's positions in order, and each position's
answer must be shown after its disc lands.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from c4game.board import Board
from firmware_py.pipeline.fakes import FakeSolver, RecordingAnnouncer, fake_answer
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import Pipeline, SyncPort
from firmware_py.simtable.scene_reader import SceneReader
from firmware_py.simtable.script import (
    LANDED,
    RESET,
    Away,
    Drop,
    Reset,
    Wait,
    compile_scenes,
    game_script,
    random_moves,
)
from tools.bench.pipeline import SHOWN_LATE_FRAMES

FPS = 10.0
P = PipelineParams()


@dataclass
class Run:
    scenes: list = field(default_factory=list)  # every frame's scene
    truths: list = field(default_factory=list)  # the true board of every frame
    events: list = field(default_factory=list)  # (frame, "landed"/"reset")
    commits: list = field(default_factory=list)  # (frame, board, kind)
    shows: list = field(default_factory=list)  # (frame, view)
    announcer: RecordingAnnouncer = field(default_factory=RecordingAnnouncer)
    solver: FakeSolver = field(default_factory=FakeSolver)


def play(actions, seed: int = 0, start: Board | None = None) -> Run:
    run = Run()
    reader = SceneReader(seed)
    frame = [0]
    pipeline = Pipeline(
        P, SyncPort(run.solver), announcer=run.announcer,
        on_show=lambda view, t: run.shows.append((frame[0], view)),
        on_commit=lambda board, kind, t: run.commits.append((frame[0], board, kind)))
    for index, scene in enumerate(compile_scenes(actions, FPS, start=start, seed=seed)):
        frame[0] = index
        run.scenes.append(scene)
        run.truths.append(scene.truth)
        if scene.event:
            run.events.append((index, scene.event))
        pipeline.feed(reader.read_scene(scene, pipeline.expectation), index / FPS)
    return run


def grid(board: Board) -> tuple[str, ...]:
    return tuple(board.grid_lines())


def assert_no_wrong_commit(run: Run) -> None:
    window = SHOWN_LATE_FRAMES
    for frame, board, kind in run.commits:
        recent = {grid(t) for t in run.truths[max(0, frame - window + 1):frame + 1]}
        assert grid(board) in recent, f"frame {frame}: committed {board.grid_lines()} ({kind})"


def first_clear_empty(run: Run) -> int:
    """The first frame after the reset that shows the empty board without a hand."""
    reset = next(frame for frame, event in run.events if event == RESET)
    return next(index for index in range(reset, len(run.scenes))
                if run.scenes[index].hand is None and run.scenes[index].truth.n_discs == 0)


def distinct_truths(run: Run) -> list[tuple[str, ...]]:
    sequence = []
    for truth in run.truths:
        if not sequence or sequence[-1] != grid(truth):
            sequence.append(grid(truth))
    return sequence


@pytest.mark.parametrize("seed", range(6))
def test_random_games_with_hands_flicker_and_absences(seed):
    rng = random.Random(seed)
    moves = random_moves(rng)
    actions = game_script(moves, rng, pass_p=0.4, flicker_p=0.4, away_p=0.2)
    run = play(actions, seed)
    assert_no_wrong_commit(run)
    # every position of the game (and the empty board after the reset) committed, in order
    assert [grid(board) for _, board, _ in run.commits] == distinct_truths(run)
    # after each landing the position's answer (or its end) is shown, before the next landing
    landings = [frame for frame, event in run.events if event == LANDED] + [len(run.truths)]
    for landed, following in zip(landings, landings[1:], strict=False):
        truth = run.truths[landed]
        wanted = "finished" if truth.is_finished else "solved"
        shown = [(frame, view) for frame, view in run.shows
                 if landed <= frame < following and view.grid == grid(truth)
                 and view.state == wanted]
        assert shown, f"no {wanted} view of move {truth.n_discs} between frames {landed} and " \
                      f"{following}"
        if wanted == "solved":
            answer = fake_answer(truth)
            assert (shown[0][1].best, shown[0][1].plies) == (answer.column, answer.plies)


def test_every_move_is_announced_once_in_a_quiet_game():
    actions = [Wait(1.0)]
    for char in "4453":
        actions += [Drop(int(char)), Wait(0.8)]
    run = play(actions)
    players = [call[1] for call in run.announcer.calls if call[0] == "recommend"]
    # the empty board (nobody has started under "either": no colour) and after each move
    assert players == [None, "Y", "R", "Y", "R"]
    # speculation: each answer was ready when the board was committed, so the solved view
    # follows the commit on the same frame
    solved = {view.grid: frame for frame, view in run.shows if view.state == "solved"}
    for frame, board, _ in run.commits:
        assert solved[grid(board)] == frame


def test_board_lost_and_back_is_not_solved_again():
    run = play([Wait(1.0), Drop(4), Wait(1.0), Away(2.0), Wait(1.5)])
    states = [view.state for _, view in run.shows]
    assert states[-2:] == ["scanning", "solved"]  # the board back: shown at once
    assert ("lost",) in run.announcer.calls
    assert run.announcer.calls[-1] == ("recommend", "Y", 4, "=", 41)  # said again on return
    solved_boards = [b.grid_lines() for b in run.solver.boards]
    assert solved_boards.count(Board.from_moves("4").grid_lines()) == 1


def test_short_game_reset_is_a_new_game_at_once():
    run = play([Wait(1.0)] + [Drop(int(c)) for c in "4455"] + [Wait(1.0), Reset(), Wait(2.0)])
    assert_no_wrong_commit(run)
    assert run.commits[-1][1] == Board.empty() and run.commits[-1][2] == "new-game"
    # a cleared board: read again once no board led for 1 s, then led 0.3 s
    assert 3 <= run.commits[-1][0] - first_clear_empty(run) <= 13


def test_long_game_reset_is_a_new_game_at_once():
    start = Board.from_moves("4455663")
    run = play([Wait(1.0), Reset(), Wait(1.0)], start=start)
    assert run.commits[-1][2] == "new-game"
    assert 3 <= run.commits[-1][0] - first_clear_empty(run) <= 13  # 1.3 s at most


def test_finished_game_is_shown_finished():
    run = play([Wait(1.0)] + [Drop(int(c)) for c in "1213121"] + [Wait(1.0)])
    last = run.shows[-1][1]
    assert last.state == "finished" and last.grid == grid(Board.from_moves("1213121"))
    assert run.announcer.calls[-1] == ("finished", "R")


@pytest.mark.parametrize("seed", range(4))
def test_a_game_yellow_starts_is_followed_and_announced_like_one_red_starts(seed):
    """[game] first = either: Yellow drops the first disc; every position committed in
    order with Yellow as the starter, each announced for the right colour."""
    rng = random.Random(100 + seed)
    moves = random_moves(rng)
    actions = game_script(moves, rng, pass_p=0.4, flicker_p=0.4, away_p=0.2, reset=False)
    run = play(actions, seed, start=Board.empty("Y"))
    assert_no_wrong_commit(run)
    assert [grid(board) for _, board, _ in run.commits] == distinct_truths(run)
    assert all(board.first == "Y" for _, board, _ in run.commits if board.n_discs)
    assert run.commits[-1][1].moves == moves  # followed disc by disc from the empty board
    calls = [call for call in run.announcer.calls if call[0] == "recommend"]
    said = [call[1] for index, call in enumerate(calls)  # a board said again after a hand
            if index == 0 or call != calls[index - 1]]
    wanted = [None] + [Board.from_moves(moves[:n], first="Y").to_move
                       for n in range(1, len(said))]
    assert said == wanted and said[1] == "R"  # Red answers Yellow's first disc



def test_the_scene_reader_checks_a_board_under_the_games_rule_of_who_started():
    """A fake reader too reads under the game filter's expectation: a board Yellow
    started (one yellow disc more) is a board of a game Yellow started, not a refusal."""
    import numpy as np

    from firmware_py.vision.reading import Expectation

    start = Board.from_moves("445", first="Y")
    scene = next(iter(compile_scenes([Wait(0.2)], FPS, start=start, seed=0)))
    reader = SceneReader(0)
    assert reader.read_scene(scene).status == "invalid"  # Red first without one
    yellows = Expectation(np.full((42, 12), np.nan), np.zeros(42, int), rule="yellow")
    reading = reader.read_scene(scene, yellows)
    assert reading.status == "ok" and reading.board.first == "Y"
