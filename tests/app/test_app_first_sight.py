"""The screen says why a game begun before the appliance looked is not followed."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from firmware_py.appliance import Appliance, Parts
from firmware_py.config import Config
from firmware_py.leds import NoLed
from firmware_py.notify import RecordingNotifier


class FakeHud:
    def stop(self) -> None:
        pass


def test_the_screen_shows_the_first_sight_doubt_while_there_is_one() -> None:
    config = Config()
    config = replace(config, camera=replace(config.camera, enabled=False),
                     speech=replace(config.speech, enabled=False),
                     solver=replace(config.solver, tt_mb=8, use_book=False),
                     play=replace(config.play, web=False))
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None,
                  hud=lambda c, hub, games: FakeHud())
    appliance = Appliance(config, RecordingNotifier(), parts)
    try:
        appliance.start()
        doubt = "a red disc seen at column 2 row 2 became yellow"
        appliance.pipeline = SimpleNamespace(first_sight_doubt=doubt)
        appliance._on_frame(None, None)
        assert appliance.hub.snapshot()["health"]["first_sight"] == (
            "room seen as a disc: clear the board")  # short: the bar is one line
        appliance.pipeline = SimpleNamespace(first_sight_doubt="")  # a board committed
        appliance._on_frame(None, None)
        assert appliance.hub.snapshot()["health"]["first_sight"] == ""
    finally:
        appliance.stop()
