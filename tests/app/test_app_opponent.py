"""The appliance in opponent mode: the opponent speaks, the coach stays silent."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from firmware_py.appliance.app import Appliance, Parts
from firmware_py.config import Config
from firmware_py.pipeline.fakes import RecordingAnnouncer
from firmware_py.sources.factory import sim_opponent_source
from tests.emulation import EMULATED, fewer, patience

from .test_app_watchdog import NoLed


class Notes:
    def notify(self, message: str) -> None:
        pass

# Whole games through the real reader render and read every frame: under emulation,
# where a read is 130 times slower, at 2 frames a second of play instead of 10, and
# only the game's start (c4pi's first two moves); the whole game runs everywhere else.
GAME_FPS = fewer(10, emulated=2)
ENDINGS = (("i-win",), ("you-win",), ("final-draw",))


def enough_said(said: list[tuple[str, ...]]) -> bool:
    """The game's end here; c4pi's second move said under emulation."""
    if EMULATED:
        return sum(clips[0].startswith("i-play-") for clips in said) >= 2
    return bool(said) and said[-1] in ENDINGS


def test_opponent_mode_plays_a_game_through_the_appliance() -> None:
    config = Config()
    config = replace(config, serial=replace(config.serial, enabled=False),
                     play=replace(config.play, mode="opponent", colour="R", level=6))
    announcer = RecordingAnnouncer()
    holder: list[Appliance] = []

    def asked_for(board):
        opponent = holder[0].opponent
        return opponent.asked_for(board) if opponent is not None else None

    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None, hud=None,
                  announcer=lambda c: announcer,
                  source=lambda c, wait: sim_opponent_source(c.camera, asked_for, "R",
                                                             fast=True, seed=6, games=1,
                                                             fps=GAME_FPS))
    appliance = Appliance(config, Notes(), parts)
    holder.append(appliance)
    stop = threading.Event()
    main = threading.Thread(target=appliance.run, args=(stop,), daemon=True)
    try:
        appliance.start()
        main.start()
        deadline = time.monotonic() + patience(120)  # a few seconds here
        while time.monotonic() < deadline:
            if enough_said([call[1] for call in announcer.calls if call[0] == "say"]):
                break
            time.sleep(0.2)
    finally:
        stop.set()
        appliance.stop()
    said = [call[1] for call in announcer.calls if call[0] == "say"]
    assert said[0] == ("i-play-4",)  # Red opens in the centre at level 6
    assert enough_said(said), said
    assert EMULATED or said[-1] == ("i-win",)  # level 6 as Red beats a random person
    assert not [call for call in announcer.calls if call[0] in ("recommend", "finished")]
