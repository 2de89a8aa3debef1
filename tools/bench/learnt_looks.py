"""What a followed game teaches: single frames of the same board before and after.

For each board of ``../shared/data/real-dev`` (``--sources``): one random game
is filmed on that board (:mod:`tools.bench.real_games`, seed ``--seed``) and
followed live by a reader with learnt looks and a
:class:`~firmware_py.pipeline.teach.LookTeacher`; then the settled frames
(no hand, no falling disc) of *other* games on the same board, in the same
room (seeds ``--seed`` + 1 ...), are read one by one, by a reader that learnt
nothing and by the one that followed the game. What a player sees counts:
*read* is accepted with the exact grid, *wrong* accepted and not exact.

    .venv/bin/python -m tools.bench.learnt_looks --films 3 --every 4
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from typing import Any

from firmware_py.config import load_config
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.vision.board_looks import BoardLooks
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK
from tools.bench.live_games import film_of_game, run_film, summarise
from tools.train.real_composites import Composer, PatchLibrary

ACCEPTED = (OK, FINISHED)


def read_settled(reader: BoardReader, frames: list[Any], empty_board: Any,
                 looks: BoardLooks | None) -> dict[str, int]:
    """Read each frame alone, the installation as given each time (nothing a frame
    teaches reaches the next): how many read (accepted, exact), refused and wrong."""
    counts = {"frames": 0, "read": 0, "refused": 0, "wrong": 0}
    for frame in frames:
        reader.empty_board = copy.deepcopy(empty_board)
        reader.board_looks = looks
        reading = reader.read(frame.image)
        exact = reading.grid is not None and tuple(reading.grid) == frame.truth
        accepted = reading.status in ACCEPTED
        counts["frames"] += 1
        counts["read"] += accepted and exact
        counts["wrong"] += accepted and not exact
        counts["refused"] += not accepted
    return counts


def measure_board(composer: Composer, source: str, args: argparse.Namespace,
                  config: Any) -> dict[str, Any]:
    """Follow one game on ``source``, then read other games' settled frames alone:
    knowing nothing, with the empty board the game left, and with its looks too."""
    params = PipelineParams.from_config(config.vision)
    reader = BoardReader.from_config(config.vision, config.camera)
    reader.board_looks = BoardLooks()
    teacher = LookTeacher(reader.board_looks)
    film, steps = film_of_game(composer, source, args.seed, args.moves, args.hold)
    followed = summarise([run_film(film.frames(steps), reader, params, teacher=teacher)])
    empty_board, looks = reader.empty_board, reader.board_looks
    settled = []
    for index in range(1, args.films + 1):
        film, steps = film_of_game(composer, source, args.seed + index, args.moves, args.hold)
        frames = [frame for frame in film.frames(steps) if frame.settled]
        settled += frames[::args.every]
    nothing = None if empty_board is None else type(empty_board)()
    return {"followed": {key: followed[key] for key in
                         ("positions", "shown", "frames_showing_wrong")},
            "learnt": looks.summary(),
            "nothing_learnt": read_settled(reader, settled, nothing, None),
            "empty_board_only": read_settled(reader, settled, empty_board, None),
            "with_looks": read_settled(reader, settled, empty_board, looks)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", default="zam,res", help="board sources of real-dev")
    parser.add_argument("--films", type=int, default=3, help="other games read frame by frame")
    parser.add_argument("--every", type=int, default=4, help="every n-th settled frame")
    parser.add_argument("--moves", type=int, default=42)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--config", help="c4pi config (default as c4pi)")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    composer = Composer(PatchLibrary.load())
    wrong = 0
    for source in args.sources.split(","):
        result = measure_board(composer, source, args, config)
        wrong += sum(result[key]["wrong"] for key in
                     ("nothing_learnt", "empty_board_only", "with_looks"))
        print(f"{source}: {json.dumps(result)}", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
