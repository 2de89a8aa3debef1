"""``c4pi say MOVES [--out FILE.wav]``: speak the recommendation for a position."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.commands.solve import add_solver_flags
from firmware_py.config import Config

if TYPE_CHECKING:
    from firmware_py.board import Board

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "say", help="speak the recommendation for a position (speaker or WAV file)",
        description='Solve the position and say "Red four. Red wins in 13." once, on the '
                    "speaker ([speech] sink and device) or into a WAV file. A finished "
                    'game is said as "Red wins" / "It\'s a draw". Invalid positions exit 2.')
    parser.add_argument("moves", nargs="?", metavar="MOVES",
                        help='the moves so far, digits 1-7 ("" = the empty board)')
    parser.add_argument("--out", metavar="FILE.wav", help="write a WAV file instead of playing")
    parser.add_argument("--repeat", type=float, metavar="SECONDS",
                        help="render SECONDS of the live announcement (the move repeated, "
                             "the distance overlaid) instead of saying it once")
    parser.add_argument("--list-devices", action="store_true",
                        help="list the audio output devices ([speech] device) and exit")
    add_solver_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Config) -> int:
    from firmware_py.board import Board
    from firmware_py.exc import C4piError, PositionError

    if args.list_devices:
        return _list_devices()
    if args.moves is None:
        print("c4pi say: give the moves so far (digits 1-7, \"\" for the empty board)",
              file=sys.stderr)
        return 2
    if args.repeat is not None and not 0 < args.repeat <= 600:
        print(f"c4pi say: --repeat {args.repeat} is not 0-600 seconds", file=sys.stderr)
        return 2
    try:
        board = Board.from_moves(args.moves.strip())
    except PositionError as error:
        print(f"c4pi say: {error}", file=sys.stderr)
        return 2
    try:
        return _say(board, args, config)
    except C4piError as error:
        print(f"c4pi say: {error}", file=sys.stderr)
        return 1


def _say(board: Board, args: argparse.Namespace, config: Config) -> int:
    from firmware_py.speech.announcer import make_sink
    from firmware_py.speech.clips import (
        ClipSettings,
        default_clip_dir,
        ensure_clips,
        write_wav,
    )
    from firmware_py.speech.say import play, render_live, render_once, speech_for

    column, score = (None, None) if board.is_finished else _solve(board, config, args)
    speech = speech_for(board, column, score)
    print(speech.text)
    clips = ensure_clips(default_clip_dir(config.speech),
                         ClipSettings.from_config(config.speech))
    sink = None if args.out else make_sink(config.speech)
    if sink is not None:
        clips = clips.resampled(sink.supported_rate(clips.rate))
    if args.repeat is not None:
        samples = render_live(board, column, score, clips, config.speech, args.repeat)
    else:
        samples = render_once(speech, clips, config.speech)
    if sink is None:
        write_wav(Path(args.out), samples, clips.rate)
        log.info("wrote %.2f s of speech to %s", len(samples) / clips.rate, args.out)
    else:
        play(samples, clips.rate, sink)
    return 0


def _solve(board: Board, config: Config, args: argparse.Namespace) -> tuple[int, int]:
    from firmware_py.exc import SolverError

    try:
        from cython_solver import Solver
    except ImportError as error:
        raise SolverError(f"the solver is not built ({error}); run ./setup.sh") from None
    solver = Solver.from_config(config, use_book=False if args.no_book else None,
                                tt_mb=args.tt_mb)
    log.debug("solver book: %s", solver.book_status)
    answer = solver.best(board, tie_break=config.solver.tie_break)
    return answer.column, answer.score


def _list_devices() -> int:
    import pyaudio

    from firmware_py.speech.sinks import output_devices

    pa = pyaudio.PyAudio()
    try:
        default = pa.get_default_output_device_info()["index"]
    except OSError:
        default = None
    try:
        for index, name, rate in output_devices(pa):
            mark = "*" if index == default else " "
            print(f"{mark}{index:3}  {name}  ({rate} Hz)")
    finally:
        pa.terminate()
    return 0
