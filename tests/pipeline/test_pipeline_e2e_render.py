"""End to end on rendered frames: simulator → real BoardReader → pipeline → real solver.

The positions and their scores come from the public test sets, so the shown
answers are checked against independent truth; the committed boards are
checked against the simulator's script. Frames are rendered at 640x360 to
keep the test short.
"""

from __future__ import annotations

import json
import random

import pytest

from c4game.board import Board
from c4game.scores import plies_to_end
from firmware_py import cli
from firmware_py.config import load_config, resolve_path
from firmware_py.pipeline.assemble import make_reader, make_solver, params_from_config
from firmware_py.pipeline.runtime import FrameLoop, Pipeline, SyncPort
from firmware_py.simtable.camera import SimulatedCamera, default_spec
from firmware_py.simtable.script import Drop, Flicker, Pass, Wait
from tests.emulation import fewer
from tools.shared_data import missing_reason, solver_sets_dir

TEST_SETS = solver_sets_dir()
SIZE = (640, 360)


def pick_positions(name: str, count: int, seed: int) -> list:
    path = TEST_SETS / name
    if not path.is_file():  # collected everywhere; run where the shared data is
        return [pytest.param("", 0, marks=pytest.mark.skip(reason=missing_reason(path)))]
    lines = path.read_text().split("\n")
    rows = [line.split() for line in lines if line.strip()]
    picked = random.Random(seed).sample(rows, count)
    return [(moves, int(score)) for moves, score in picked]


@pytest.fixture(scope="module")
def config():
    return load_config(None)


@pytest.fixture(scope="module")
def solver(config):
    return make_solver(config)


def run_script(config, solver, actions, start: Board, markers: bool = True):
    camera = SimulatedCamera(actions, spec=default_spec(SIZE).replace(markers=markers), fps=10.0,
                             start=start, seed=3)
    commits, shows, truths = [], [], []
    pipeline = Pipeline(params_from_config(config), SyncPort(solver),
                        on_commit=lambda board, kind, t: commits.append((t, board, kind)),
                        on_show=lambda view, t: shows.append((t, view)))
    loop = FrameLoop(camera, make_reader(config, camera), pipeline,
                     on_frame=lambda frame, reading: truths.append(frame.info.truth))
    with camera:
        loop.run()
    return commits, shows, truths


CASES = (pick_positions("middle-easy.txt", 2, seed=11)
         + pick_positions("end-easy.txt", 1, seed=5))


def with_markers(cases: list, markers: bool) -> list:
    """The cases with ``markers`` added (a skipped case stays skipped)."""
    return [pytest.param(*case.values, markers, marks=case.marks) if hasattr(case, "marks")
            else (*case, markers) for case in cases]


# the first board also without markers: found by its holes (#55)
@pytest.mark.parametrize("moves, score, markers",
                         with_markers(CASES, True) + with_markers(CASES[:1], False))
def test_rendered_game_commits_the_script_and_shows_the_test_set_answer(
        config, solver, moves, score, markers):
    start = Board.from_moves(moves[:-2])
    actions = [Wait(1.0), Pass(0.8, y=200.0), Wait(0.6), Drop(int(moves[-2])), Wait(1.0),
               Flicker(0.8), Drop(int(moves[-1])), Wait(1.5)]
    commits, shows, truths = run_script(config, solver, actions, start, markers)
    committed = [board.grid_lines() for _, board, _ in commits]
    assert committed == [Board.from_moves(moves[:n]).grid_lines()
                         for n in range(len(moves) - 2, len(moves) + 1)]
    for t, board, _ in commits:  # on the table in the last five frames
        frame = round(t * 10)
        assert board.grid_lines() in [b.grid_lines() for b in truths[max(0, frame - 4):frame + 1]]
    final = shows[-1][1]
    assert final.state == "solved" and final.grid == tuple(Board.from_moves(moves).grid_lines())
    assert final.score == score
    assert final.plies == plies_to_end(score, len(moves))


def test_watch_sim_prints_the_game(config, tmp_path, capsys):
    book = resolve_path(config.solver.book)
    assert book.is_file(), f"no opening book at {book}: run `c4pi book build` (setup.sh does)"
    path = tmp_path / "c4pi.toml"
    path.write_text('[camera]\nwidth = 640\nheight = 360\n')  # the book answers early
    moves = "4453"
    fps = fewer(10, emulated=3)  # under emulation a read is slow (2 a second fails)
    status = cli.main(["--config", str(path), "watch", "sim", "--fast", "--json",
                       "--moves", moves, "--seed", "2", "--fps", str(fps)])
    out = capsys.readouterr().out
    assert status == 0
    objects = [json.loads(line) for line in out.splitlines()]
    solved = [o["grid"] for o in objects if o["state"] == "solved"]
    boards = [Board.from_moves(moves[:n]).grid_lines() for n in range(len(moves) + 1)]
    # every position in order (the empty board again after the final reset), nothing else
    distinct = [grid for i, grid in enumerate(solved) if i == 0 or solved[i - 1] != grid]
    assert distinct == boards + [boards[0]]
