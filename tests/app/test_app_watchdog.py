"""A stalled main loop stops the WATCHDOG=1 pings; a failing source is restarted."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

import numpy as np

from firmware_py.appliance import Appliance, Parts
from firmware_py.config import Config
from firmware_py.frames import Frame
from firmware_py.leds import NoLed
from firmware_py.notify import RecordingNotifier
from firmware_py.vision.reading import NO_BOARD, Reading


class StallingSource:
    """Delivers frames until ``stall`` is set, then blocks in read() (a hung camera)."""

    live = True

    def __init__(self, stall: threading.Event, release: threading.Event) -> None:
        self.stall = stall
        self.release = release
        self.opened = 0

    def open(self) -> None:
        self.opened += 1

    def read(self) -> Frame | None:
        if self.stall.is_set():
            self.release.wait()
            return None
        time.sleep(0.01)
        return Frame(np.zeros((8, 8, 3), np.uint8), t=time.monotonic(), index=0)

    def close(self) -> None:
        pass


class BlankReader:
    def read(self, image: Any, expectation: Any = None) -> Reading:
        return Reading(NO_BOARD, reason="test")


def make_config() -> Config:
    config = Config()
    return replace(config, serial=replace(config.serial, enabled=False),
                   speech=replace(config.speech, enabled=False),
                   solver=replace(config.solver, tt_mb=8, use_book=False))


def test_stalled_loop_stops_watchdog_pings() -> None:
    stall, release = threading.Event(), threading.Event()
    source = StallingSource(stall, release)
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None, hud=None,
                  source=lambda c, wait: source, reader=lambda c, s: BlankReader())
    notifier = RecordingNotifier()
    appliance = Appliance(make_config(), notifier, parts, watchdog_s=0.05, stale_s=0.4)
    stop = threading.Event()
    main = threading.Thread(target=appliance.run, args=(stop,))
    try:
        appliance.start()
        main.start()
        time.sleep(0.6)
        assert "READY=1" in notifier.messages
        healthy = notifier.count("WATCHDOG=1")
        assert healthy >= 5
        assert appliance.frames > 0
        stall.set()
        time.sleep(0.6)  # the vision loop is now stale
        before = notifier.count("WATCHDOG=1")
        time.sleep(0.5)
        assert notifier.count("WATCHDOG=1") == before, "pinged while a loop was hung"
        assert appliance.watchdog.stale_loops() == ["vision"]
    finally:
        release.set()
        stop.set()
        main.join(2)
        appliance.stop()
    assert "STOPPING=1" in notifier.messages


class FailingSource(StallingSource):
    def open(self) -> None:
        self.opened += 1
        if self.opened < 3:
            from c4game.exc import CameraError

            raise CameraError("camera unplugged (test)")


def test_failing_source_is_retried_and_watchdog_keeps_pinging() -> None:
    source = FailingSource(threading.Event(), threading.Event())
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None, hud=None,
                  source=lambda c, wait: source, reader=lambda c, s: BlankReader(),
                  retry_s=(0.05, 0.1))
    notifier = RecordingNotifier()
    appliance = Appliance(make_config(), notifier, parts, watchdog_s=0.05, stale_s=0.5)
    stop = threading.Event()
    main = threading.Thread(target=appliance.run, args=(stop,))
    try:
        appliance.start()
        main.start()
        deadline = time.monotonic() + 5
        while appliance.frames == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert source.opened >= 3 and appliance.frames > 0
        assert appliance.watchdog.stale_loops() == []
    finally:
        stop.set()
        main.join(2)
        appliance.stop()
