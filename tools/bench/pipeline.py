"""Benchmark the live pipeline on simulated games.

Measures, on random games with passing hands, light flicker and the board
leaving the view:

* wrong committed boards (a committed board that was not on the table in the
  last :data:`SHOWN_LATE_FRAMES` frames): must be 0; also positions never committed;
* the delay from a disc landing to its answer being available, in frames and
  milliseconds on the game's timeline (solves take their real time, measured);
* what the screen showed: of the frames showing a solved board, those whose
  board was not on the table in the last :data:`SHOWN_LATE_FRAMES` frames (a
  wrong board on screen),
  and the positions of the game ever shown solved;
* the per-frame loop rate (reader + pipeline) at 1280x720 on one core.

``--views random`` films each game from its own random view of our renderer
(``RenderSpec.random``, oblique up to 45 degrees, any board, disc and
background colours, light, glare, blur; view seed ``--view-seed-base`` +
1000 x ``--seed`` + the game's index, held out of training) instead of the
one fixed pose of ``c4pi demo``. The reader starts each game knowing nothing
of the view and learns its empty board as the appliance does (no stored
``c4pi calibrate`` file is loaded);
with ``--calibrate`` the owner has run ``c4pi calibrate`` in the view first
(README setup step 2; with ``--force`` where the plain one gives up).
``--no-markers`` films boards without markers (found by their holes).

Examples::

    .venv/bin/python -m tools.bench.pipeline                 # rendered frames, real reader
    .venv/bin/python -m tools.bench.pipeline --fake-vision --games 200   # pipeline only
    .venv/bin/python -m tools.bench.pipeline --loop-only --loop-frames 200
    .venv/bin/python -m tools.bench.pipeline --views random --games 20 --loop-frames 0
    .venv/bin/python -m tools.bench.pipeline --views random --calibrate --games 20 --loop-frames 0

The machine's load matters: numbers from a shared machine are pessimistic.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from c4game.board import RED, YELLOW, Board
from firmware_py.config import load_config
from firmware_py.pipeline.events import FINISHED, SOLVED, View
from firmware_py.pipeline.evidence import grid_of
from firmware_py.pipeline.fakes import FakeSolver
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import DeferredPort, FrameLoop, Pipeline, feed_and_teach
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.simtable.camera import SimulatedCamera, default_spec
from firmware_py.simtable.render_spec import RenderSpec
from firmware_py.simtable.scene_reader import SceneReader
from firmware_py.simtable.script import (
    LANDED,
    compile_scenes,
    game_script,
    random_moves,
)

SHOWN_STATES = (SOLVED, FINISHED)
SHOWN_LATE_FRAMES = 5  # a board still shown this many frames after it left is not wrong


@dataclass
class GameStats:
    frames: int = 0
    commits: int = 0
    wrong: list = field(default_factory=list)
    missed: int = 0
    delays_frames: list = field(default_factory=list)
    delays_ms: list = field(default_factory=list)
    instant: int = 0  # answer shown on the frame that committed the board
    solves: int = 0
    shown_frames: int = 0  # frames showing a solved or finished board
    shown_wrong: list = field(default_factory=list)  # those showing a board not on the table
    positions: int = 0  # the game's positions (the empty board and each landing)
    positions_shown: int = 0  # of those, ever shown solved or finished
    longest_silence: int = 0  # frames from a position landing to the screen showing it


def one_core() -> None:
    """Pin the process to one CPU and keep OpenCV single-threaded."""
    import cv2

    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def make_solver(args: argparse.Namespace) -> Any:
    if args.fake_solver:
        return FakeSolver()
    from firmware_py.pipeline.assemble import make_solver as from_config

    return from_config(load_config(args.config))


def make_reader(args: argparse.Namespace, camera: SimulatedCamera) -> Any:
    if args.fake_vision:
        return None
    from firmware_py.pipeline.assemble import make_reader as from_config

    reader = from_config(load_config(args.config), camera, stored_looks=False)
    reader.frame_fit = args.frame_fit
    reader.frame_doubt = not args.no_frame_doubt
    return reader


def play_game(index: int, args: argparse.Namespace, solver: Any) -> GameStats:
    """Run one random game through the pipeline; compare with the script's truth."""
    rng = random.Random(args.seed * 1000 + index)
    moves = random_moves(rng)
    actions = game_script(moves, rng, pass_p=args.hands, flicker_p=args.flicker,
                          away_p=args.away)
    camera = SimulatedCamera(actions, spec=game_view(index, args), fps=args.fps, seed=index,
                             start=Board.empty(YELLOW if args.yellow_first else RED))
    reader = make_reader(args, camera)
    if reader is not None and args.calibrate:
        calibrate_in_view(reader, camera)
    scene_reader = SceneReader(seed=index)
    params = PipelineParams()
    stats = GameStats()
    truths: list[Board] = []
    landings: list[tuple[int, Board]] = []
    commits: list[tuple[int, Board]] = []
    solved: dict[tuple[str, ...], float] = {}
    frame_no = [0]
    shown: list[View] = [View()]
    views: list[View] = []
    port = DeferredPort(solver)
    started = port.start

    def counting_start(job: int, board: Board, deliver: Any) -> None:
        stats.solves += 1
        started(job, board, deliver)

    port.start = counting_start  # type: ignore[method-assign]
    pipeline = Pipeline(
        params, port,
        on_commit=lambda board, kind, t: commits.append((frame_no[0], board)),
        on_show=lambda view, t: _on_show(view, t, shown, solved))
    teacher = None  # as the appliance, storing nothing; --no-learn: no hole looks at all
    if reader is not None and args.no_learn:
        reader.hole_looks = None
    if reader is not None and reader.hole_looks is not None:
        teacher = LookTeacher(reader.hole_looks)
    for index, scene, image in _frames(camera, actions, args, reader is None):
        frame_no[0] = index
        truths.append(scene.truth)
        if scene.event == LANDED:
            landings.append((index, scene.truth))
        reading = (scene_reader.read_scene(scene, pipeline.expectation) if reader is None
                   else reader.read(image, pipeline.expectation))
        feed_and_teach(pipeline, reading, index / args.fps, teacher)
        views.append(shown[0])
    stats.frames = len(truths)
    _score(stats, params, truths, landings, commits, solved, args.fps)
    _score_screen(stats, params, truths, views)
    return stats


def game_view(index: int, args: argparse.Namespace) -> Any:
    """The camera's view of game ``index``: the demo's fixed pose, or a random one."""
    if args.views == "fixed":
        return default_spec(args.size).replace(markers=not args.no_markers)
    rng = np.random.default_rng(args.view_seed_base + args.seed * 1000 + index)
    return RenderSpec.random(rng, max_tilt_deg=45.0, size=args.size,
                             markers=not args.no_markers)


def calibrate_in_view(reader: Any, camera: SimulatedCamera) -> None:
    """``c4pi calibrate`` on the camera's view of the empty board, then ``--force``
    where it gives up (the owner has taken every disc out); where both give up
    (a hole not seen) the reader learns the empty board at the new game. The
    reader then starts as the service does: from where calibration found the
    holes, if it found the board by them."""
    from c4game.exc import VisionError
    from firmware_py.simtable.render import render_frame
    from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_empty_board
    from firmware_py.vision.hole_locator import HoleLocator

    frames = [render_frame("", camera.spec, seed=camera.seed)] * FRAMES_NEEDED
    for force in (False, True):
        try:
            reader.hole_looks = calibrate_empty_board(reader, frames, owner_says_empty=force)
        except VisionError:
            continue
        reader.hole_locator = HoleLocator()  # the service started afresh after calibrating
        if reader.hole_looks.lattice is not None:
            reader.hole_locator.start_from(reader.hole_looks.lattice)
        return


def _on_show(view: View, t: float, shown: list[View], solved: dict) -> None:
    shown[0] = view
    if view.grid is not None and view.state in SHOWN_STATES:
        solved.setdefault(view.grid, t)


def _score_screen(stats: GameStats, params: PipelineParams, truths: list[Board],
                  views: list[View]) -> None:
    """Frames showing a solved board, those showing one not on the table in the last
    :data:`SHOWN_LATE_FRAMES` frames, and the game's positions ever shown."""
    ever_shown = set()
    for frame, view in enumerate(views):
        if view.grid is None or view.state not in SHOWN_STATES:
            continue
        stats.shown_frames += 1
        ever_shown.add(tuple(view.grid))
        if not _on_table(tuple(view.grid), truths, frame, params):
            stats.shown_wrong.append((frame, list(view.grid)))
    positions = {grid_of(truth) for truth in truths}
    stats.positions = len(positions)
    stats.positions_shown = len(positions & ever_shown)
    stats.longest_silence = longest_silence(truths, views)


def longest_silence(truths: list[Board], views: list[View]) -> int:
    """The most frames from a position landing on the table to the screen first
    showing it solved or finished (to its end, when it is never shown). Frames with
    the board away or under a hand count: the position is still on the table."""
    grids = [grid_of(truth) for truth in truths]
    longest = start = 0
    shown = False
    for frame, grid in enumerate(grids):
        if frame and grid != grids[frame - 1]:
            start, shown = frame, False
        view = views[frame]
        shown = shown or (view.grid is not None and view.state in SHOWN_STATES
                          and tuple(view.grid) == grid)
        if not shown:
            longest = max(longest, frame - start + 1)
    return longest


def _on_table(grid: tuple[str, ...], truths: list[Board], frame: int,
              params: PipelineParams) -> bool:
    """Whether ``grid`` stood on the table in the :data:`SHOWN_LATE_FRAMES` frames that
    end at ``frame``."""
    window = truths[max(0, frame - SHOWN_LATE_FRAMES + 1):frame + 1]
    return any(grid == grid_of(truth) for truth in window)


def _frames(camera: SimulatedCamera, actions: list, args: argparse.Namespace,
            scenes_only: bool) -> Any:
    """(index, scene, image) per frame; no rendering when only scenes are read."""
    if scenes_only:
        for index, scene in enumerate(compile_scenes(actions, args.fps, seed=camera.seed)):
            yield index, scene, None
        return
    with camera:
        while (frame := camera.read()) is not None:
            yield frame.index, frame.info, frame.image


def _score(stats: GameStats, params: PipelineParams, truths: list[Board],
           landings: list[tuple[int, Board]], commits: list[tuple[int, Board]],
           solved: dict[tuple[str, ...], float], fps: float) -> None:
    committed = set()
    for frame, board in commits:
        grid = tuple(board.grid_lines())
        committed.add(grid)
        if not _on_table(grid, truths, frame, params):
            stats.wrong.append((frame, board.grid_lines()))
    stats.commits = len(commits)
    commit_frame = {tuple(b.grid_lines()): f for f, b in commits}
    for frame, truth in landings:
        grid = tuple(truth.grid_lines())
        if grid not in committed:
            stats.missed += 1
            continue
        shown = solved.get(grid)
        if shown is None:
            continue
        landed_t = frame / fps
        stats.delays_ms.append((shown - landed_t) * 1000)
        stats.delays_frames.append(round((shown - landed_t) * fps, 3))
        if abs(shown - commit_frame[grid] / fps) < 1e-9:
            stats.instant += 1


def loop_rate(args: argparse.Namespace, solver: Any) -> dict[str, float]:
    """Frames per second of reader + pipeline on pre-rendered 1280x720 frames."""
    rng = random.Random(args.seed)
    actions = game_script(random_moves(rng), rng, pass_p=0.5, flicker_p=0.5, away_p=0.0)
    camera = SimulatedCamera(actions, spec=default_spec((1280, 720)), fps=args.fps,
                             reuse=False)
    frames = []
    with camera:
        while len(frames) < args.loop_frames and (frame := camera.read()) is not None:
            frames.append(frame)
    from firmware_py.pipeline.assemble import make_reader as from_config

    reader = from_config(load_config(args.config), camera)
    pipeline = Pipeline(PipelineParams(), DeferredPort(solver))
    source = iter(frames)
    loop = FrameLoop(_IterSource(source), reader, pipeline)
    reader.read(frames[0].image)  # warm-up (model load, allocations)
    read_s = 0.0
    began = time.perf_counter()
    for frame in frames:
        t0 = time.perf_counter()
        reading = loop.read(frame.image)
        read_s += time.perf_counter() - t0
        pipeline.feed(reading, frame.t)
    total = time.perf_counter() - began
    return {"frames": len(frames), "fps": len(frames) / total,
            "ms_per_frame": 1000 * total / len(frames),
            "reader_ms": 1000 * read_s / len(frames),
            "pipeline_ms": 1000 * (total - read_s) / len(frames)}


class _IterSource:
    def __init__(self, frames: Any) -> None:
        self.frames = frames

    def read(self) -> Any:
        return next(self.frames, None)


def summarise(games: list[GameStats]) -> dict[str, Any]:
    frames = [d for g in games for d in g.delays_frames]
    ms = [d for g in games for d in g.delays_ms]
    landings = len(frames)
    return {
        "games": len(games), "frames": sum(g.frames for g in games),
        "commits": sum(g.commits for g in games),
        "wrong_commits": sum(len(g.wrong) for g in games),
        "wrong_examples": [w for g in games for w in g.wrong][:3],
        "missed_positions": sum(g.missed for g in games),
        "landings_with_answer": landings,
        "answer_on_commit_frame": sum(g.instant for g in games),
        "solves": sum(g.solves for g in games),
        "delay_frames": _stats(frames), "delay_ms": _stats(ms),
        "frames_showing_solved": sum(g.shown_frames for g in games),
        "frames_showing_wrong": sum(len(g.shown_wrong) for g in games),
        "showing_wrong_examples": [w for g in games for w in g.shown_wrong][:3],
        "positions": sum(g.positions for g in games),
        "positions_shown": sum(g.positions_shown for g in games),
        "games_all_shown": sum(g.positions_shown == g.positions for g in games),
        "shown_per_game": [f"{g.positions_shown}/{g.positions}" for g in games],
        "longest_silence_frames": max((g.longest_silence for g in games), default=0),
    }


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    return {"mean": round(statistics.fmean(values), 2),
            "median": round(ordered[len(values) // 2], 2),
            "p95": round(ordered[min(len(values) - 1, int(0.95 * len(values)))], 2),
            "max": round(ordered[-1], 2), "min": round(ordered[0], 2)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="random games to play (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fps", type=float, default=10.0, help="camera frame rate (10)")
    parser.add_argument("--size", default="1280x720", help="rendered frame size (1280x720)")
    parser.add_argument("--hands", type=float, default=0.4, help="P(hand passes) per move")
    parser.add_argument("--flicker", type=float, default=0.4, help="P(flicker) per move")
    parser.add_argument("--away", type=float, default=0.15, help="P(board leaves) per move")
    parser.add_argument("--views", choices=("fixed", "random"), default="fixed",
                        help="the demo's fixed pose, or a random view per game (fixed)")
    parser.add_argument("--view-seed-base", type=int, default=40000,
                        help="random views: game i of --seed s is view base + 1000 s + i "
                             "(40000: views 41,000+ with the default seed; training uses "
                             ">= 1,000,000)")
    parser.add_argument("--no-markers", action="store_true",
                        help="boards without markers: found by their holes ([vision] board auto)")
    parser.add_argument("--calibrate", action="store_true",
                        help="the owner ran c4pi calibrate (--force) in each game's view first")
    parser.add_argument("--fake-vision", action="store_true",
                        help="read scenes with the fallible SceneReader instead of rendering")
    parser.add_argument("--frame-fit", action="store_true",
                        help="the reader with the frame's own looks (frame_fit.py; off live)")
    parser.add_argument("--no-frame-doubt", action="store_true",
                        help="the reader without the doubt from the frame's own looks")
    parser.add_argument("--yellow-first", action="store_true",
                        help="Yellow starts every game (the reader under [game] first = either)")
    parser.add_argument("--no-learn", action="store_true",
                        help="the reader learns no looks from the boards it follows")
    parser.add_argument("--fake-solver", action="store_true", help="answers from FakeSolver")
    parser.add_argument("--loop-frames", type=int, default=120,
                        help="frames for the loop-rate measurement (0 = skip)")
    parser.add_argument("--loop-only", action="store_true", help="only the loop rate")
    parser.add_argument("--config", help="c4pi config (default as c4pi)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    width, _, height = args.size.partition("x")
    args.size = (int(width), int(height))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    one_core()
    solver = make_solver(args)
    results: dict[str, Any] = {"fps": args.fps, "size": list(args.size),
                               "vision": "SceneReader" if args.fake_vision else "BoardReader",
                               "solver": type(solver).__name__}
    if not args.loop_only:
        began = time.perf_counter()
        games = [play_game(index, args, solver) for index in range(args.games)]
        results["games"] = summarise(games)
        results["games"]["seconds"] = round(time.perf_counter() - began, 1)
    if args.loop_frames and not args.fake_vision:
        results["loop_1280x720_one_core"] = {k: round(v, 2) for k, v in
                                             loop_rate(args, solver).items()}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key, value in results.items():
            print(f"{key}: {json.dumps(value)}")
    games = results.get("games", {})
    return 1 if games.get("wrong_commits", 0) or games.get("frames_showing_wrong", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
