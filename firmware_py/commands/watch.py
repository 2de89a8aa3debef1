"""``c4pi watch SOURCE``: run the live pipeline on a source and print what it sees (SPEC §6)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from firmware_py.config import Config
from firmware_py.failure import fail

if TYPE_CHECKING:
    from c4game.board import Board
    from firmware_py.frames import Frame
    from firmware_py.hud.hub import HudHub
    from firmware_py.hud.record import Recorder
    from firmware_py.hud.server import HudServer
    from firmware_py.pipeline.events import View
    from firmware_py.pipeline.runtime import FrameReader, SolverPort
    from firmware_py.speech.announcer import Announcer, MutedAnnouncer
    from firmware_py.vision.reader import BoardReader
    from firmware_py.vision.reading import Reading

    Show = Callable[[View, float], None]

EX_NOINPUT = 66
EXIT_MODEL = 1  # a model that cannot be loaded (as c4pi read)
MIN_FPS, MAX_FPS = 0.1, 1000.0  # frames a second a file or folder may be given


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch", help="run the live pipeline on a source and print the board and best move",
        description="Run the live pipeline (board reader, game filter, solver) on SOURCE: "
                    "'sim' (the simulated camera), 'camera' (the Pi camera), 'usb:N' (a "
                    "webcam), a video file or a folder of images. Files and folders are read "
                    "as fast as possible on their own timeline (t = frame index / fps), "
                    "so the same file always prints the same lines. A folder is a film: "
                    "each picture is one frame (in name order, --fps of them a second). "
                    "A next move is shown once it has been seen in 4 frames in a row over "
                    "0.3 s; a board that does not follow the one shown (a game begun before "
                    "the first picture, two discs at once) after about 2 s at 10 frames a "
                    "second (9 frames at 1 a second). Copy a picture to make it last; "
                    "to read single pictures, use c4pi read.")
    parser.add_argument("source", metavar="SOURCE", help="sim, camera, usb:N, a video file or "
                                                         "a folder of images")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per line at every change of state: t, state, "
                             "grid, best, score, plies")
    parser.add_argument("--fps", type=float, metavar="N",
                        help="frame rate of a file or folder (default: the file's own, else "
                             "10) or of the simulator (default: [camera] fps)")
    parser.add_argument("--frames", type=int, metavar="N",
                        help="stop after N frames (1 or more)")
    sim = parser.add_argument_group("simulator (SOURCE = sim)")
    sim.add_argument("--moves", metavar="MOVES",
                     help="play this game (digits 1-7) instead of endless random games")
    sim.add_argument("--seed", type=int, default=None, help="random seed of the simulator")
    sim.add_argument("--fast", action="store_true",
                     help="run the simulator as fast as possible on its own timeline")
    parser.add_argument("--speak", action="store_true",
                        help="also speak the recommendations ([speech] config)")
    parser.add_argument("--hud", action="store_true",
                        help="also serve the kiosk page ([hud] config; "
                             "http://localhost:8080/ by default)")
    parser.add_argument("--record", metavar="OUT.mp4",
                        help="write the annotated video: camera picture, what the reader "
                             "found, and the recommendation under it")
    parser.set_defaults(func=run, needs=("camera",))


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import CameraError, HudError, ModelError, PositionError, RecordingError
    from firmware_py.sources.folder import is_picture_file

    if args.fps is not None and not MIN_FPS <= args.fps <= MAX_FPS:
        return fail(args, f"--fps must be from {MIN_FPS:g} to {MAX_FPS:g}, got {args.fps:g}",
                    2)
    if is_picture_file(Path(args.source)):
        return fail(args, f"{args.source} is one picture, and watch follows a game over many "
                          "frames: c4pi read reads one picture (a folder of pictures is a "
                          "film watch can follow)", 2)
    if args.frames is not None and args.frames < 1:
        return fail(args, f"--frames must be 1 or more, got {args.frames}", 2)
    try:
        return _watch(args, config)
    except (CameraError, ModelError, PositionError, HudError, RecordingError) as error:
        code = (EX_NOINPUT if isinstance(error, CameraError)
                else EXIT_MODEL if isinstance(error, ModelError) else 2)
        return fail(args, str(error), code)


def _watch(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import RecordingError
    from firmware_py.pipeline.assemble import (
        make_port,
        make_reader,
        make_solver,
        make_teacher,
        params_from_config,
        teaches_this_board,
    )
    from firmware_py.pipeline.runtime import FrameLoop, Pipeline, RebasedSource
    from firmware_py.sources.factory import open_source

    loop: FrameLoop | None = None
    source = open_source(args.source, config.camera, fps=args.fps, fast=args.fast,
                         moves=args.moves, seed=args.seed, first=config.game.first,
                         wait=lambda seconds: loop.wait(seconds) if loop else False)
    printer = ViewPrinter(sys.stdout, as_json=args.json)
    announcer = _announcer(config) if args.speak else None
    port = screen = teacher = None
    try:
        source.open()
        reader = make_reader(config, source)
        port = make_port(config, make_solver(config), live=source.live)
        screen = Screen.open(args, config, port, fps=getattr(source, "fps", None) or 10.0)
        rebased = RebasedSource(source, time.monotonic())
        pipeline = Pipeline(params_from_config(config), port, announcer=announcer,
                            on_show=screen.tee(printer.show), on_commit=screen.on_commit,
                            clock=rebased.now if source.live else None)
        teacher = make_teacher(config, reader, store=teaches_this_board(source))
        loop = FrameLoop(rebased, screen.tap(reader), pipeline,
                         on_frame=screen.on_frame, teacher=teacher)
        loop.run(args.frames)
    finally:
        if teacher is not None:
            teacher.close()
        source.close()
        if screen is not None:
            screen.close()
        worker = getattr(port, "worker", None)
        if worker is not None:
            worker.stop()
        if announcer is not None:
            announcer.close()
    if screen is not None and screen.recorder is not None:
        if screen.recorder.failure:
            raise RecordingError(screen.recorder.failure)
        print(f"c4pi watch: {screen.recorder.frames} frames written to {args.record}",
              file=sys.stderr)
    return 0


class Screen:
    """The HUD of ``watch``: the page (``--hud``) and the recording (``--record``)."""

    def __init__(self, hub: HudHub | None = None, server: HudServer | None = None,
                 recorder: Recorder | None = None) -> None:
        self.hub = hub
        self.server = server
        self.recorder = recorder
        self._view_t = 0.0

    @classmethod
    def open(cls, args: argparse.Namespace, config: Config, port: SolverPort,
             fps: float) -> Screen:
        if not (args.hud or args.record):
            return cls()
        from firmware_py.hud.hub import HudHub
        from firmware_py.hud.record import Recorder
        from firmware_py.hud.taps import WorkerAnalyst

        worker = getattr(port, "worker", None)  # files solve on the loop's thread: no analyst
        hub = HudHub(WorkerAnalyst(worker) if worker is not None else None)
        server = None
        if args.hud:
            from firmware_py.hud.play_games import PlayGames, worker_scorer
            from firmware_py.hud.server import HudServer
            from firmware_py.hud.taps import HUD_PRIORITY

            games = (PlayGames(worker_scorer(worker, HUD_PRIORITY),
                               default_level=config.play.level,
                               first=config.game.first)
                     if worker is not None and config.play.web else None)
            server = HudServer.from_config(config, hub, games).start()
            print(f"c4pi watch: the screen is on {server.url}", file=sys.stderr)
        bound = config.vision.min_cell_confidence
        recorder = Recorder(args.record, fps, min_cell_confidence=bound) if args.record else None
        return cls(hub, server, recorder)

    def tee(self, show: Show) -> Show:
        hub = self.hub
        if hub is None:
            return show

        def both(view: View, t: float) -> None:
            show(view, t)
            hub.on_view(view, t)
        return both

    def tap(self, reader: BoardReader) -> FrameReader:
        if self.hub is None:
            return reader
        from firmware_py.hud.taps import AnalysingReader

        return AnalysingReader(reader, self.hub)

    @property
    def on_commit(self) -> Callable[[Board, str, float], None] | None:
        return self.hub.on_commit if self.hub is not None else None

    def on_frame(self, frame: Frame, reading: Reading) -> None:
        if self.recorder is None or self.hub is None:
            return
        latest = self.hub.latest_frame()
        analysis = latest.analysis if latest is not None else None
        self.recorder.write(frame.image, analysis, self.hub.snapshot(), frame.t)

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.recorder is not None:
            self.recorder.close()


def _announcer(config: Config) -> Announcer | MutedAnnouncer:
    from firmware_py.speech import open_announcer

    announcer = open_announcer(config.speech)
    announcer.start()
    return announcer


class ViewPrinter:
    """Prints each new view: a JSON line (SPEC §6) or a short human-readable block."""

    def __init__(self, out: TextIO, *, as_json: bool) -> None:
        self.out = out
        self.as_json = as_json

    def show(self, view: View, t: float) -> None:
        if self.as_json:
            self.out.write(json.dumps(view.as_json(t)) + "\n")
        else:
            self.out.write(describe(view, t) + "\n")
        self.out.flush()


def describe(view: View, t: float) -> str:
    """The human-readable form of a view."""
    from c4game.board import COLOUR_NAMES
    from c4game.scores import verdict

    head = f"[{t:8.2f} s] {view.state}"
    board = view.board
    if view.grid is None or board is None:
        return head
    lines = [head]
    score, plies = view.score, view.plies
    if view.best is not None and score is not None and plies is not None:
        if view.to_move is None:  # nobody has started: no colour
            lines[0] += (f": either colour may start: play column {view.best} "
                         f"({verdict(board, score, plies, named=False)}; "
                         f"the first player's score {score:+d})")
        else:
            mover = COLOUR_NAMES[board.to_move]
            lines[0] += (f": {mover} to play column {view.best} "
                         f"({verdict(board, score, plies)}; {mover}'s score {score:+d})")
    elif board.is_finished:
        winner = board.winner
        lines[0] += f": {COLOUR_NAMES[winner]} has won" if winner else ": draw"
    lines.extend("    " + line for line in view.grid)
    return "\n".join(lines)
