"""What a followed game teaches: single frames of the same board before and after.

For each board of ``../shared/data/real-dev`` (``--sources``): one random game
is filmed on that board (:mod:`tools.bench.real_games`, seed ``--seed``) and
followed live by a reader with learnt looks and a
:class:`~firmware_py.pipeline.teach.LookTeacher`; then the settled frames
(no hand, no falling disc) of *other* games on the same board, in the same
room (seeds ``--seed`` + 1 ...; each empty hole shows the wall it showed in the
followed game, :meth:`~tools.bench.real_games.Film.share_room`), are read one
by one, by a reader that learnt nothing and by the one that followed the game.
What a player sees counts: *read* is accepted with the exact grid, *wrong*
accepted and not exact.

    .venv/bin/python -m tools.bench.learnt_looks --films 3 --every 4

With ``--discs`` the owner first ran ``c4pi calibrate --discs`` on that board
(as the README asks for pale, orange or pink discs; ``--force`` where it
gives up, as it then says): the empty board, then a red disc alone in
column 1, then a yellow one in column 7, each held still; the game is then
followed with what calibration taught, and the other games' frames are also
read with calibration's looks alone (``calibrated_only``).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from typing import Any

from firmware_py.config import load_config
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.teach import LookTeacher
from firmware_py.simtable.script import random_moves
from firmware_py.vision.calibrate import FRAMES_NEEDED, calibrate_discs, calibrate_empty_board
from firmware_py.vision.hole_looks import HoleLooks
from firmware_py.vision.reader import BoardReader
from firmware_py.vision.reading import FINISHED, OK
from tools.bench.live_games import run_film, summarise
from tools.bench.real_games import Film, emptiest, game_steps
from tools.train import real_composites as rc
from tools.train.appearances import (
    APPEARANCES,
    STRENGTHS,
    Look,
    apply_look,
    detector,
    draw_look,
    white_level,
)
from tools.train.real_composites import Composer, PatchLibrary

ACCEPTED = (OK, FINISHED)


class StyledFilm(Film):
    """A film on a board restyled to an appearance (``tools/train/appearances.py``):
    one look for the film, as one installation's board and pieces."""

    def __init__(self, composer: Composer, base: rc.Photo, seed: int, appearance: str,
                 look: Look | None = None) -> None:
        super().__init__(composer, base, seed)
        self.appearance, self.look = appearance, look
        self._styled: dict[tuple[str, ...], Any] = {}

    def compose(self, grid: tuple[str, ...]) -> Any:
        if grid not in self._styled:
            composite = rc.Composite(frame=super().compose(grid), grid=list(grid), status="",
                                     base=self.base.name, changed={},
                                     plane_to_image=self.homography)
            if self.look is None:
                self.look = self._draw(composite)
            self._styled[grid] = apply_look(composite, self.look)
        return self._styled[grid]

    def _draw(self, composite: rc.Composite) -> Look:
        """The strongest look of the appearance whose markers stay findable."""
        white = white_level(composite.frame, composite.plane_to_image)
        for strength in STRENGTHS:
            look = draw_look(self.rng, self.appearance, strength, white)
            if rc.locate(apply_look(composite, look), detector()) is not None:
                return look
        raise ValueError(f"no {self.appearance} look keeps the markers of {self.base.name}")


def film_of(composer: Composer, source: str, seed: int, args: argparse.Namespace,
            appearance: str, look: Look | None) -> tuple[Film, list[Any]]:
    """A random game (seed ``seed``) filmed on the emptiest photo of ``source``,
    restyled to ``appearance`` (``plain``: as photographed) with ``look`` if given."""
    game = random_moves(random.Random(seed))[:args.moves]
    base = emptiest(composer.library.of_source(source))
    film = (Film(composer, base, seed) if appearance == "plain"
            else StyledFilm(composer, base, seed, appearance, look))
    return film, game_steps(game, hold_s=args.hold, hand_every=4)


def read_settled(reader: BoardReader, frames: list[Any],
                 looks: HoleLooks | None) -> dict[str, int]:
    """Read each frame alone with the hole looks given: how many read (accepted,
    exact), refused and wrong."""
    counts = {"frames": 0, "read": 0, "refused": 0, "wrong": 0}
    reader.hole_looks = looks
    for frame in frames:
        reading = reader.read(frame.image)
        exact = reading.grid is not None and tuple(reading.grid) == frame.truth
        accepted = reading.status in ACCEPTED
        counts["frames"] += 1
        counts["read"] += accepted and exact
        counts["wrong"] += accepted and not exact
        counts["refused"] += not accepted
    return counts


def measure_board(composer: Composer, source: str, args: argparse.Namespace,
                  config: Any, appearance: str = "plain") -> dict[str, Any]:
    """Follow one game on ``source``, then read other games' settled frames alone:
    knowing nothing, and with the hole looks the game taught."""
    params = PipelineParams.from_config(config.vision)
    reader = BoardReader.from_config(config.vision, config.camera)
    reader.hole_looks = looks = HoleLooks()
    film, steps = film_of(composer, source, args.seed, args, appearance, None)
    calibrated = ""
    if args.discs:  # on a twin of the film's board, so that the film itself is unchanged
        film.compose(steps[0].grid)  # the film's first frame: its look drawn as without
        twin, _ = film_of(composer, source, args.seed, args, appearance,
                          getattr(film, "look", None))
        looks, calibrated = calibrated_discs(reader, twin)
        reader.hole_looks = looks
    before_game = copy.deepcopy(looks)  # calibration's looks alone (nothing, without it)
    teacher = LookTeacher(looks)
    followed = summarise([run_film(film.frames(steps), reader, params, teacher=teacher)])
    look = getattr(film, "look", None)  # the same board and pieces in the other games
    settled = []
    for index in range(1, args.films + 1):
        other, steps = film_of(composer, source, args.seed + index, args, appearance, look)
        other.share_room(film)
        frames = [frame for frame in other.frames(steps) if frame.settled]
        settled += frames[::args.every]
    return {"followed": {key: followed[key] for key in
                         ("positions", "shown", "frames_showing_wrong")},
            "calibrated": calibrated, "learnt": looks.summary(), "boards_learnt": looks.boards,
            "nothing_learnt": read_settled(reader, settled, None),
            **({"calibrated_only": read_settled(reader, settled, before_game)}
               if args.discs else {}),
            "with_looks": read_settled(reader, settled, looks)}


def calibrated_discs(reader: BoardReader, film: Film) -> tuple[HoleLooks, str]:
    """``c4pi calibrate --discs`` on ``film``'s board (see the module docstring): the
    looks taught, and what was measured or why calibration gave up."""
    from c4game.exc import VisionError

    empty, red, both = ("." * 7,) * 6, ("." * 7,) * 5 + ("R" + "." * 6,), \
        ("." * 7,) * 5 + ("R" + "." * 5 + "Y",)
    held = FRAMES_NEEDED * 2
    looks, why = None, ""
    for force in (False, True):  # where it gives up, --force (the README's advice)
        try:
            looks = calibrate_empty_board(reader, [film.compose(empty)] * held,
                                          owner_says_empty=force)
            break
        except VisionError as error:
            why = str(error)
    if looks is None:
        return HoleLooks(), f"gave up: {why}"
    try:
        calibrate_discs(reader, [film.compose(red)] * held + [film.compose(both)] * held,
                        looks, prompt=lambda _: None)
    except VisionError as error:
        return looks, f"the empty board only (--discs gave up: {error})"
    return looks, ", ".join(f"{key} {colour.to_dict()}" for key, colour in looks.discs.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", default="zam,res", help="board sources of real-dev")
    parser.add_argument("--films", type=int, default=3, help="other games read frame by frame")
    parser.add_argument("--every", type=int, default=4, help="every n-th settled frame")
    parser.add_argument("--moves", type=int, default=42)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--appearances", default="plain",
                        help=f"comma-separated: plain (as photographed), {', '.join(APPEARANCES)}")
    parser.add_argument("--config", help="c4pi config (default as c4pi)")
    parser.add_argument("--discs", action="store_true",
                        help="the owner ran c4pi calibrate --discs on the board first")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    composer = Composer(PatchLibrary.load())
    wrong = 0
    for appearance in args.appearances.split(","):
        for source in args.sources.split(","):
            result = measure_board(composer, source, args, config, appearance)
            wrong += sum(result[key]["wrong"] for key in
                         ("nothing_learnt", "with_looks"))
            print(f"{appearance} {source}: {json.dumps(result)}", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
