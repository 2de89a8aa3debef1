"""``c4pi demo``'s terminal: one line per move, and in opponent mode what c4pi plays.

Before, the demo printed the whole board at every change of state (289 boards
in 18 minutes), and in opponent mode "Yellow to move: play column 3" (the
perfect move) while c4pi said "I play seven".
"""

from __future__ import annotations

import io
import re
import threading
import time
from dataclasses import replace

from c4game.board import Board
from firmware_py.appliance.app import Appliance, Parts
from firmware_py.appliance.demo import move_log, opponent_asker
from firmware_py.appliance.move_log import MoveLog
from firmware_py.config import Config
from firmware_py.pipeline.events import View
from firmware_py.pipeline.fakes import RecordingAnnouncer
from firmware_py.sources.factory import sim_opponent_source
from tests.emulation import EMULATED, fewer, patience

from .test_app_opponent import Notes
from .test_app_watchdog import NoLed


def solved(moves: str, best: int, score: int, plies: int) -> View:
    board = Board.from_moves(moves)  # Red started
    return View("solved", tuple(board.grid_lines()), best, score, plies, first=board.first)


def test_one_line_per_move_with_the_move_played_and_the_advice() -> None:
    out = io.StringIO()
    log = MoveLog(out)
    log.show(solved("", 4, 1, 41))                      # before the banner: held
    log.start("c4pi demo — banner\n")
    log.show(View("transitional"))                      # a hand over the board: no line
    log.show(View("solved", tuple(Board.from_moves("4").grid_lines())))  # still solving
    log.show(solved("4", 4, -1, 40))
    log.show(View("transitional"))
    log.show(solved("4", 4, -1, 40))                    # the same board again: no line
    log.show(solved("43", 3, 0, 40))
    finished = Board.from_moves("4343434")
    log.show(View("finished", tuple(finished.grid_lines())))
    log.show(solved("", 4, 1, 41))
    assert out.getvalue().splitlines() == [
        "c4pi demo — banner",
        "new game      Red to move: play 4 - Red wins in 41",
        "move 1   R4   Yellow to move: play 4 - Red wins in 40",
        "move 2   Y3   Red to move: play 3 - Draw in 40",
        "move 7        game over: Red wins",
        "new game      Red to move: play 4 - Red wins in 41",
    ]


def test_opponent_lines_wait_for_the_column_c4pi_says() -> None:
    out = io.StringIO()
    asked: dict[tuple[str, ...], int] = {}
    log = MoveLog(out, c4pi="Y", asked_for=lambda board: asked.get(board.columns))
    log.start("")
    log.show(solved("", 4, 1, 41))
    log.show(solved("4", 4, -1, 40))                    # c4pi to move: not chosen yet
    assert out.getvalue().splitlines() == [
        "new game      Red to move: the person's turn (perfect play: Red wins in 41)"]
    asked[Board.from_moves("4").columns] = 7
    log.opponent_changed("I play 7")
    assert out.getvalue().splitlines()[-1] == (  # a level below perfect, another column
        "move 1   R4   Yellow to move: c4pi plays 7, not the best at this level "
        "(the best: 4 - Red wins in 40)")
    log.show(solved("47", 4, 1, 39))
    log.show(solved("471", 5, -1, 38))
    asked[Board.from_moves("471").columns] = 5
    log.opponent_changed("I play 5")
    assert out.getvalue().splitlines()[-1] == (  # the best column: the verdict is its own
        "move 3   R1   Yellow to move: c4pi plays 5 (perfect play: Red wins in 38)")


def test_a_column_tied_for_best_is_perfect_play() -> None:
    """A newcomer's re-test: "plays 2, not always the best (the best: 5 …)" where 2 and 5
    score the same. The opponent's own scores name every best column."""
    out = io.StringIO()
    board = Board.from_moves("4")
    log = MoveLog(out, c4pi="Y", asked_for=lambda b: 2 if b.columns == board.columns else None,
                  best_for=lambda b: (2, 5) if b.columns == board.columns else ())
    log.start("")
    log.show(solved("", 4, 1, 41))
    log.show(solved("4", 5, -1, 40))  # the view names 5, one of the two best
    assert out.getvalue().splitlines()[-1] == (
        "move 1   R4   Yellow to move: c4pi plays 2 (perfect play: Red wins in 40)")


def test_the_opponent_names_every_best_column_of_the_board_it_chose_on() -> None:
    import random

    from firmware_py.play.levels import level
    from firmware_py.play.opponent import Opponent

    def think(board: Board, done) -> None:
        done([0, 2, None, 2, -1, 0, 1])  # columns 2 and 4 tie for best; 3 is full

    opponent = Opponent("Y", level(6), think, lambda *a: None, random.Random(1))
    board = Board.from_moves("4")
    opponent.on_commit(board)
    assert opponent.asked_for(board) in (2, 4)
    assert opponent.best_columns(board) == (2, 4)
    assert opponent.best_columns(Board.from_moves("44")) == ()


def enough_seen(printed: str) -> bool:
    """The whole game here; under emulation, where a read is 130 times slower, c4pi's
    first two moves and the line after each."""
    if not EMULATED:
        return "game over" in printed
    lines = printed.splitlines()
    plays = [i for i, line in enumerate(lines) if "c4pi plays" in line]
    return len(plays) >= 2 and plays[1] < len(lines) - 1


def test_the_demo_lines_say_the_column_c4pi_announces() -> None:
    """Through the appliance: each "c4pi plays N" line is the "I play N" it says, and
    the next line shows its disc in column N."""
    config = Config()
    config = replace(config, serial=replace(config.serial, enabled=False),
                     play=replace(config.play, mode="opponent", colour="Y", level=2))
    announcer = RecordingAnnouncer()
    holder: list[Appliance] = []
    out = io.StringIO()
    moves = move_log(config, out, holder)
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None, hud=None,
                  announcer=lambda c: announcer, on_view=moves.show,
                  on_opponent=moves.opponent_changed,
                  source=lambda c, wait: sim_opponent_source(
                      c.camera, opponent_asker(holder), "Y", fast=True, seed=9, games=1,
                      fps=fewer(10, emulated=2)))  # 2: under emulation, as test_app_opponent
    appliance = Appliance(config, Notes(), parts)
    holder.append(appliance)
    moves.start("banner")
    stop = threading.Event()
    try:
        appliance.start()
        threading.Thread(target=appliance.run, args=(stop,), daemon=True).start()
        deadline = time.monotonic() + patience(120)  # seconds here
        while not enough_seen(out.getvalue()) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        appliance.stop()
    lines = out.getvalue().splitlines()
    said = [int(call[1][0].rsplit("-", 1)[1]) for call in announcer.calls
            if call[0] == "say" and call[1][0].startswith("i-play-")]
    plays = [int(m.group(1)) for line in lines if (m := re.search(r"c4pi plays (\d)", line))]
    assert enough_seen(out.getvalue()), lines
    assert plays and plays == said[:len(plays)]
    for line, after in zip(lines, lines[1:], strict=False):
        if m := re.search(r"c4pi plays (\d)", line):
            assert after.split()[2] == f"Y{m.group(1)}", (line, after)
    assert len(lines) <= 44  # the banner and a line per disc at most
