"""``c4pi say MOVES [--out FILE.wav]``: speak the recommendation for a position."""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.commands.analyze import add_first_flag, first_colour
from firmware_py.commands.solve import add_solver_flags, solver_from_flags
from firmware_py.config import Config

if TYPE_CHECKING:
    from c4game.board import Board

log = logging.getLogger(__name__)

EXIT_NO_AUDIO = 69  # no audio output device to play on (sysexits' EX_UNAVAILABLE)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "say", help="speak the recommendation for a position (speaker or WAV file)",
        description='Solve the position and say "Red four. Red wins in 13." once, on the '
                    "speaker ([speech] sink and device) or into a WAV file. A finished "
                    'game is said as "Red wins" / "It\'s a draw". Exit status: 0 done, 2 an '
                    "invalid position, 1 an audio problem, 69 no audio output device to play "
                    "on (no sound card: use --out FILE.wav).")
    parser.add_argument("moves", nargs="?", metavar="MOVES",
                        help='the moves so far, digits 1-7 ("" = the empty board)')
    parser.add_argument("--out", metavar="FILE.wav", help="write a WAV file instead of playing")
    parser.add_argument("--repeat", type=float, metavar="SECONDS",
                        help="render SECONDS of the live announcement (the move repeated, "
                             "the distance overlaid) instead of saying it once")
    parser.add_argument("--list-devices", action="store_true",
                        help="list the audio output devices ([speech] device) and exit")
    add_first_flag(parser)
    add_solver_flags(parser)
    parser.set_defaults(func=run, needs=("speech",))


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.board import Board
    from c4game.exc import AudioError, C4piError, PositionError, excerpt

    if args.list_devices:
        return _list_devices()
    if args.moves is None:
        print("c4pi say: give the moves so far (digits 1-7, \"\" for the empty board)",
              file=sys.stderr)
        return 2
    if args.out is not None and Path(args.out).suffix.lower() != ".wav":
        print(f"c4pi say: --out must name a .wav file (it writes WAV), got {excerpt(args.out)}",
              file=sys.stderr)
        return 2
    if args.out is not None and not _folder_exists(Path(args.out).parent):
        print(f"c4pi say: cannot write {excerpt(args.out)}: no such folder", file=sys.stderr)
        return 2
    if args.repeat is not None and not 0 < args.repeat <= 600:
        print(f"c4pi say: --repeat {args.repeat} is not 0-600 seconds", file=sys.stderr)
        return 2
    try:
        board = Board.from_moves(args.moves.strip(), first_colour(args, config))
    except PositionError as error:
        print(f"c4pi say: {error}", file=sys.stderr)
        return 2
    if args.out is None and config.speech.sink == "pyaudio" and not _speaker_ok(args, config):
        return EXIT_NO_AUDIO
    try:
        return _say(board, args, config)
    except AudioError as error:
        hint = ("" if args.out is not None else " (c4pi say --list-devices lists the "
                "outputs; --out FILE.wav writes a file instead)")
        print(f"c4pi say: {error}{hint}", file=sys.stderr)
        return 1
    except C4piError as error:
        print(f"c4pi say: {error}", file=sys.stderr)
        return 1


def _folder_exists(folder: Path) -> bool:
    try:
        return folder.is_dir()
    except OSError:  # a name too long: said as no such folder
        return False


def _speaker_ok(args: argparse.Namespace, config: Config) -> bool:
    """True when PortAudio has an output to play on; else says why on stderr, in one line,
    at once (before any retry loop)."""
    problem = _no_output(config.speech.device)
    if problem:
        command = f"c4pi say {shlex.quote(args.moves)} --out FILE.wav"
        print(f"c4pi say: {problem}; write the speech to a file instead: {command}",
              file=sys.stderr)
    return not problem


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
    solver = solver_from_flags(args, config)
    log.debug("solver book: %s", solver.book_status)
    answer = solver.best(board, tie_break=config.solver.tie_break)
    return answer.column, answer.score


def _no_output(device: str) -> str:
    """Why there is nothing to play on ("" when PortAudio has an output to open)."""
    from firmware_py.speech.sinks import probe_outputs

    devices, default = probe_outputs()
    if not devices:
        return "no audio output device found (no sound card?)"
    if not device.strip() and default is None:
        return ("no default audio output device (choose one with [speech] device; "
                "c4pi say --list-devices lists them)")
    return ""


def _list_devices() -> int:
    """The output devices on stdout, the default marked *; or why there are none."""
    from firmware_py.speech.sinks import probe_outputs

    devices, default = probe_outputs()
    if not devices:
        print("no audio output devices found; use --out FILE.wav")
    for index, name, rate in devices:
        mark = "*" if index == default else " "
        print(f"{mark}{index:3}  {name}  ({rate} Hz)")
    return 0
