"""The live pipeline on games filmed from real photographs (needs ../shared/data).

Each film is read frame by frame by the board reader and followed by the
pipeline (:mod:`firmware_py.pipeline.belief`); the screen it would show is
compared with the grid standing on the table in that frame:

* legal positions shown (a position counts once the screen showed it solved
  or finished while it stood on the table);
* frames showing a wrong board: the screen shows a board (its answer shown or
  still pending) that did not stand
  on the table in the :data:`SHOWN_LATE_FRAMES` frames ending at that frame
  (the board before a disc landed, shown for the few frames the commit takes,
  is late, not wrong);
* the delay from a disc landing to its position being shown (median, max),
  and the longest silence (a position standing unshown, from its landing);
* each *something else* step (a board that is no legal next position: a
  wrong colour, two discs, a disc taken out, a cheat, a cleared board) and
  what the screen showed at its end.

Answers come from :class:`~firmware_py.pipeline.fakes.FakeSolver` at once:
the delays are the camera's and the game filter's, not the solver's (see
``tools.bench.pipeline`` for solve times).

    .venv/bin/python -m tools.bench.live_games --films 6
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from c4game.board import Board
from c4game.exc import PositionError
from firmware_py.config import load_config
from firmware_py.pipeline.events import FINISHED, SOLVED, View
from firmware_py.pipeline.fakes import FakeSolver
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import Pipeline, SyncPort, feed_and_teach
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.simtable.script import random_moves
from firmware_py.succession import is_next
from firmware_py.vision.reader import BoardReader
from tools.bench.pipeline import SHOWN_LATE_FRAMES
from tools.bench.real_games import Film, FilmFrame, Step, emptiest, game_steps
from tools.train.real_composites import Composer, PatchLibrary

Grid = tuple[str, ...]
SHOWN = (SOLVED, FINISHED)


@dataclass
class FilmStats:
    """What the screen showed over one film."""

    frames: int = 0
    positions: int = 0
    shown: int = 0
    wrong_frames: int = 0
    delays_s: list[float] = field(default_factory=list)
    longest_silence_s: float = 0.0
    unshown: list[str] = field(default_factory=list)  # positions never shown
    something_else: list[dict] = field(default_factory=list)
    wrong_examples: list[dict] = field(default_factory=list)  # the first few


def legal(grid: Grid, first: str = "R") -> Board | None:
    """The position of ``grid`` in a game ``first`` ("R" or "Y") started, or None."""
    try:
        return Board.from_grid(grid, "red" if first == "R" else "yellow")
    except PositionError:
        return None


def follows(before: Grid | None, after: Grid, first: str = "R") -> bool:
    """``after`` is ``before`` plus one disc of the side to move (or the same board), in a
    game ``first`` started."""
    old, new = legal(before, first) if before else None, legal(after, first)
    if new is None:
        return False
    if old is None:
        return new.n_discs == 0
    return (old.grid_lines() == new.grid_lines()
            or is_next(old, new, "red" if first == "R" else "yellow"))


def run_film(frames: Iterable[FilmFrame], reader: Any, params: PipelineParams | None = None,
             on_commit: Callable[[Board], None] | None = None,
             teacher: Any = None, first: str = "R") -> FilmStats:
    """Feed ``frames`` through the reader and a pipeline; score what it shows
    (``on_commit`` sees each committed board; ``teacher`` learns the confirmed ones;
    ``first``: the colour that starts the film's games, for the truth)."""
    views: list[View] = []
    pipeline = Pipeline(params or PipelineParams(), SyncPort(FakeSolver()),
                        on_commit=(lambda board, _kind, _t: on_commit(board)) if on_commit
                        else None)
    stats = FilmStats()
    standing: Grid | None = None
    landed_at = 0.0
    shown_yet = False
    last_view = View()
    recent: deque[Grid] = deque(maxlen=SHOWN_LATE_FRAMES)
    for frame in frames:
        recent.append(frame.truth)
        reading = reader.read(frame.image, pipeline.expectation)
        feed_and_teach(pipeline, reading, frame.t, teacher)
        view = pipeline.view
        views.append(view)
        stats.frames += 1
        if frame.truth != standing:
            _close(stats, standing, shown_yet, last_view, landed_at, frame.t, first)
            stats.something_else += [] if follows(standing, frame.truth, first) else [
                {"from": "/".join(standing or ()), "to": "/".join(frame.truth)}]
            standing, landed_at, shown_yet = frame.truth, frame.t, False
        if view.grid is not None:  # a board on the screen, its answer shown or pending
            if view.grid not in recent:
                stats.wrong_frames += 1
                if len(stats.wrong_examples) < 3:
                    stats.wrong_examples.append({"t": frame.t, "shown": "/".join(view.grid),
                                                 "table": "/".join(frame.truth)})
            elif view.grid == frame.truth and view.state in SHOWN and not shown_yet:
                shown_yet = True
                stats.delays_s.append(round(frame.t - landed_at, 2))
        last_view = view
    _close(stats, standing, shown_yet, last_view, landed_at, frame.t if views else 0.0, first)
    return stats


def _close(stats: FilmStats, standing: Grid | None, shown: bool, view: View,
           landed_at: float, now: float, first: str = "R") -> None:
    """Account for the position that stood until ``now``."""
    if standing is None:
        return
    if stats.something_else and stats.something_else[-1]["to"] == "/".join(standing) \
            and "screen" not in stats.something_else[-1]:
        stats.something_else[-1]["screen"] = (
            "showed it" if shown else f"{view.state} {'/'.join(view.grid or ())}".strip())
    if legal(standing, first) is None:
        return
    stats.positions += 1
    stats.shown += shown
    if not shown:
        stats.unshown.append("/".join(standing))
        stats.longest_silence_s = max(stats.longest_silence_s, round(now - landed_at, 2))
    elif stats.delays_s:
        stats.longest_silence_s = max(stats.longest_silence_s, stats.delays_s[-1])


def summarise(films: list[FilmStats]) -> dict[str, Any]:
    """One line of figures over ``films``."""
    delays = [delay for film in films for delay in film.delays_s]
    return {
        "films": len(films), "frames": sum(film.frames for film in films),
        "positions": sum(film.positions for film in films),
        "shown": sum(film.shown for film in films),
        "frames_showing_wrong": sum(film.wrong_frames for film in films),
        "delay_s": {"median": statistics.median(delays) if delays else None,
                    "max": max(delays, default=None)},
        "longest_silence_s": max((film.longest_silence_s for film in films), default=0.0),
        "unshown": [grid for film in films for grid in film.unshown],
        "wrong_examples": [case for film in films for case in film.wrong_examples],
        "something_else": [case for film in films for case in film.something_else],
    }


def film_of_game(composer: Composer, source: str, seed: int, moves: int,
                 hold_s: float, first: str = "R") -> tuple[Film, list[Step]]:
    """A random game of ``moves`` moves filmed on the emptiest photo of ``source``,
    ``first`` ("R" or "Y") dropping the first disc."""
    game = random_moves(random.Random(seed))[:moves]
    base = emptiest(composer.library.of_source(source))
    return Film(composer, base, seed), game_steps(game, hold_s=hold_s, hand_every=4,
                                                  start=Board.empty(first))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--films", type=int, default=4, help="random games per board source")
    parser.add_argument("--moves", type=int, default=42, help="moves per game at most")
    parser.add_argument("--hold", type=float, default=2.0, help="seconds each position stands")
    parser.add_argument("--seed", type=int, default=1, help="game i is random game seed + i")
    parser.add_argument("--sources", default="zam,res", help="board sources of real-dev")
    parser.add_argument("--yellow-first", action="store_true",
                        help="Yellow drops the first disc of every game")
    parser.add_argument("--no-learn", action="store_true",
                        help="the reader learns no looks from the boards it follows")
    parser.add_argument("--raw", action="store_true",
                        help="films of real-dev-raw: the photos as taken, no markers (the "
                             "board found by its holes)")
    parser.add_argument("--config", help="c4pi config (default as c4pi)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    config = load_config(args.config)
    composer = Composer(PatchLibrary.load(folder="real-dev-raw" if args.raw else "real-dev"))
    results = {}
    for source in args.sources.split(","):
        films = []
        for index in range(args.films):
            film, steps = film_of_game(composer, source, args.seed + index, args.moves,
                                       args.hold, "Y" if args.yellow_first else "R")
            reader = BoardReader.from_config(config.vision, config.camera)
            if args.no_learn:  # as the appliance learns the looks of the boards it follows
                reader.hole_looks = None
            teacher = None if reader.hole_looks is None else LookTeacher(reader.hole_looks)
            films.append(run_film(film.frames(steps), reader,
                                  PipelineParams.from_config(config.vision), teacher=teacher,
                                  first="Y" if args.yellow_first else "R"))
        results[source] = summarise(films)
        print(f"{source}: {json.dumps(results[source])}", flush=True)
    wrong = sum(result["frames_showing_wrong"] for result in results.values())
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
