"""``c4pi clips``: render, check and list the speech clips."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config

if TYPE_CHECKING:
    from firmware_py.speech.clips import ClipSettings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "clips", help="render or check the speech clips (espeak-ng)",
        description="Render every phrase c4pi says with espeak-ng (voice, pitch and speed "
                    "from [speech]) into the clip directory, check a rendered set, or list "
                    "the phrases.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="render the clip set")
    build.add_argument("--if-missing", action="store_true",
                       help="do nothing when a complete, current clip set is there")
    build.add_argument("--jobs", type=int, default=4, help="espeak-ng processes at once")
    actions.add_parser("check", help="check the clip set; exit 1 naming each problem")
    actions.add_parser("list", help="list the phrases and their clip lengths")
    for sub in actions.choices.values():
        sub.add_argument("--dir", metavar="DIR",
                         help="clip directory (default: [speech] clip_dir, else the cache)")
    parser.set_defaults(func=run, needs=("speech",))


def run(args: argparse.Namespace, config: Config) -> int:
    from c4game.exc import AudioError
    from firmware_py.speech.clips import ClipSettings, default_clip_dir

    directory = Path(args.dir) if args.dir else default_clip_dir(config.speech)
    settings = ClipSettings.from_config(config.speech)
    try:
        if args.action == "build":
            return _build(directory, settings, args.if_missing, args.jobs)
        if args.action == "check":
            return _check(directory, settings)
        return _list(directory, settings)
    except AudioError as error:
        print(f"c4pi clips: {error}", file=sys.stderr)
        return 1


def _build(directory: Path, settings: ClipSettings, if_missing: bool, jobs: int) -> int:
    from firmware_py.speech.clips import build_clips, check_clips

    if if_missing:
        problems = check_clips(directory, settings)
        if not problems:
            print(f"speech clips in {directory} are complete and current")
            return 0
        print(f"rendering speech clips: {problems[0]}")
    manifest = build_clips(directory, settings, jobs=jobs)
    print(f"rendered {len(manifest['clips'])} clips into {directory}")
    return 0


def _check(directory: Path, settings: ClipSettings) -> int:
    from firmware_py.speech.clips import check_clips, load_clips

    problems = check_clips(directory, settings)
    if problems:
        for problem in problems:
            print(f"c4pi clips: {problem}", file=sys.stderr)
        return 1
    clips = load_clips(directory, settings)
    print(f"ok: {len(clips.names)} clips in {directory} at {clips.rate} Hz")
    return 0


def _list(directory: Path, settings: ClipSettings) -> int:
    from firmware_py.speech.clips import check_clips, load_clips
    from firmware_py.speech.phrases import catalogue

    clips = None if check_clips(directory, settings) else load_clips(directory, settings)
    for phrase in catalogue():
        length = f"{clips.duration((phrase.name,)):5.2f} s" if clips else "    -  "
        speed = "fast" if phrase.fast else "    "
        print(f"{phrase.name:12} {speed} {length}  {phrase.text}")
    return 0
