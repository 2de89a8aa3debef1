"""The announcement timeline with a fake clock: exact times of every clip."""

from __future__ import annotations

import pytest

from c4game.exc import PositionError
from firmware_py.speech.scheduler import DISTANCE, MOVE, Cut, Play, Scheduler

# Made-up clip lengths (seconds): the timeline must follow whatever the clips last.
LENGTHS = {("move-R-4",): 1.0, ("move-Y-3",): 0.8, ("wins-R", "n-13"): 1.5,
           ("wins-Y", "n-12"): 1.25, ("draw-in", "n-20"): 1.1, ("final-R",): 0.9,
           ("final-draw",): 1.2, ("lost",): 1.4, ("startup",): 2.0}
GAP, PERIOD = 0.3, 8.0


def make() -> Scheduler:
    return Scheduler(LENGTHS.__getitem__, repeat_gap_s=GAP, distance_period_s=PERIOD)


def timeline(scheduler: Scheduler, until: float, step: float = 0.05) -> list:
    """Drain the scheduler the way the mixer does: small blocks of a fake clock."""
    events, now = [], 0.0
    while now < until:
        now = min(until, now + step)
        events += scheduler.due(now)
    return events


def plays(events: list, channel: str) -> list[tuple[float, tuple[str, ...]]]:
    return [(round(e.time, 9), e.clips) for e in events
            if isinstance(e, Play) and e.channel == channel]


def test_move_repeats_with_the_gap_and_distance_overlays_every_period() -> None:
    scheduler = make()
    assert scheduler.recommend(0.0, "R", 4, "+", 13)
    events = timeline(scheduler, 20.0)
    assert events[0] == Cut(0.0, 1)
    # "Red four" every clip length + gap: 0, 1.3, 2.6, ... (< 20 s)
    expected_moves = [round(k * (1.0 + GAP), 9) for k in range(16)]
    assert plays(events, MOVE) == [(t, ("move-R-4",)) for t in expected_moves]
    # "Red wins in 13" when the first "Red four" ends, then every 8 s
    assert plays(events, DISTANCE) == [(1.0, ("wins-R", "n-13")), (9.0, ("wins-R", "n-13")),
                                       (17.0, ("wins-R", "n-13"))]
    times = [e.time for e in events]
    assert times == sorted(times)


def test_losing_side_names_the_opponent_and_draws_say_draw() -> None:
    scheduler = make()
    scheduler.recommend(0.0, "Y", 3, "-", 12)      # Yellow to move loses: "Red wins in 12"
    assert plays(timeline(scheduler, 1.0), DISTANCE) == [(0.8, ("wins-R", "n-12"))]
    scheduler = make()
    scheduler.recommend(0.0, "R", 4, "=", 20)
    assert plays(timeline(scheduler, 1.1), DISTANCE) == [(1.0, ("draw-in", "n-20"))]


def test_a_changed_board_cuts_at_once_and_restarts_the_timeline() -> None:
    scheduler = make()
    scheduler.recommend(0.0, "R", 4, "+", 13)
    events = timeline(scheduler, 5.0)
    assert scheduler.generation == 1
    scheduler.recommend(5.0, "Y", 3, "-", 12)
    assert scheduler.generation == 2
    later = []
    for t in (5.5, 6.0, 6.6, 7.0):
        later += scheduler.due(t)
    assert later[0] == Cut(5.0, 2)
    assert plays(later, MOVE) == [(5.0, ("move-Y-3",)), (6.1, ("move-Y-3",))]
    assert plays(later, DISTANCE) == [(5.8, ("wins-R", "n-12"))]
    assert all(e.generation == 2 for e in later)
    # nothing of the old board is scheduled after the change
    assert all(e.time < 5.0 for e in events)


def test_same_recommendation_again_changes_nothing() -> None:
    scheduler = make()
    scheduler.recommend(0.0, "R", 4, "+", 13)
    first = timeline(scheduler, 3.0)
    assert not scheduler.recommend(2.0, "R", 4, "+", 13)
    assert scheduler.generation == 1
    assert plays(scheduler.due(4.0), MOVE) == [(3.9, ("move-R-4",))]
    assert len(plays(first, MOVE)) == 3


def test_finished_is_said_once_per_position() -> None:
    scheduler = make()
    scheduler.recommend(0.0, "R", 4, "+", 1)
    scheduler.due(0.5)
    scheduler.finished(0.5, "R", key="grid-a")
    events = scheduler.due(100.0)
    assert events == [Cut(0.5, 2), Play(0.5, MOVE, ("final-R",), 2)]
    # seen again after a glitch (scanning), the same finished board stays silent
    scheduler.scanning(101.0)
    scheduler.finished(102.0, "R", key="grid-a")
    assert [e for e in scheduler.due(200.0) if isinstance(e, Play)] == []
    # a different finished position (a draw) is said
    scheduler.finished(201.0, None, key="grid-b")
    assert plays(scheduler.due(300.0), MOVE) == [(201.0, ("final-draw",))]
    # a new game resets: the same finished board is news again
    scheduler.recommend(301.0, "R", 4, "+", 13)
    scheduler.finished(302.0, "R", key="grid-a")
    assert plays(scheduler.due(400.0), MOVE)[-1] == (302.0, ("final-R",))


def test_scanning_is_silent_and_board_lost_is_said_once() -> None:
    scheduler = make()
    scheduler.recommend(0.0, "R", 4, "+", 13)
    scheduler.due(2.0)
    scheduler.scanning(2.0)
    assert scheduler.due(50.0) == [Cut(2.0, 2)]
    scheduler.board_lost(50.0)
    scheduler.board_lost(51.0)          # still lost: not repeated
    assert scheduler.due(100.0) == [Cut(50.0, 3), Play(50.0, MOVE, ("lost",), 3)]
    assert scheduler.next_time() is None


def test_startup_plays_once_without_a_state_change() -> None:
    scheduler = make()
    scheduler.startup(0.0)
    assert scheduler.generation == 0
    assert scheduler.due(10.0) == [Play(0.0, MOVE, ("startup",), 0)]


@pytest.mark.parametrize("args", [("B", 4, "+", 13), ("R", 0, "+", 13), ("R", 8, "+", 13),
                                  ("R", 4, "?", 13), ("R", 4, "+", 12), ("R", 4, "-", 13),
                                  ("R", 4, "+", 43), ("R", 4, "=", 0)])
def test_bad_recommendations_are_rejected_naming_the_input(args: tuple) -> None:
    scheduler = make()
    with pytest.raises(PositionError, match="player|column|outcome|plies"):
        scheduler.recommend(0.0, *args)
    assert scheduler.generation == 0
