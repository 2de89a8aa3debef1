"""Parts that fail at start-up come back once their fault is gone (issue 43)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from pathlib import Path

from c4game.exc import AudioError, HudError
from firmware_py.appliance import Appliance, Parts
from firmware_py.appliance.retry import PartRetry
from firmware_py.config import Config
from firmware_py.leds import NoLed
from firmware_py.notify import RecordingNotifier
from tests.emulation import patience


def wait_until(predicate, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + patience(seconds)
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


class FakeAnnouncer:
    def __init__(self) -> None:
        self.said: list[str] = []

    def start(self) -> None:
        pass

    def say_startup(self) -> None:
        self.said.append("startup")

    def close(self) -> None:
        pass


class FakeHud:
    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def test_speech_and_screen_that_fail_at_start_come_back(tmp_path: Path, caplog) -> None:
    folder = tmp_path / "audio"  # missing at start, created later
    announcer, hud = FakeAnnouncer(), FakeHud()

    def make_announcer(config: Config) -> FakeAnnouncer:
        if not folder.is_dir():
            raise AudioError(f"cannot write {folder / 'demo.wav'}: No such file or directory")
        return announcer

    port_free = threading.Event()

    def make_hud(config: Config, hub, games) -> FakeHud:
        if not port_free.is_set():
            raise HudError("the HUD cannot listen on 127.0.0.1:8080: address in use")
        return hud

    config = Config()
    config = replace(config, serial=replace(config.serial, enabled=False),
                     camera=replace(config.camera, enabled=False),
                     solver=replace(config.solver, tt_mb=8, use_book=False),
                     play=replace(config.play, web=False))
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None, hud=make_hud,
                  announcer=make_announcer, retry_s=(0.05, 0.2))
    appliance = Appliance(config, RecordingNotifier(), parts)
    try:
        with caplog.at_level(logging.INFO):
            appliance.start()
            assert appliance.announcer is None and appliance.hud is None
            assert "speech down: cannot write" in appliance.status_line()
            assert "screen down:" in appliance.status_line()
            time.sleep(0.5)  # several tries fail: still one line each
            folder.mkdir()
            port_free.set()
            assert wait_until(lambda: appliance.announcer is announcer and appliance.hud is hud)
        assert announcer.said == ["startup"]
        assert "speech on" in appliance.status_line()
        errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 2, errors  # once per part, not once per try
        assert sum("is back" in r.getMessage() for r in caplog.records) == 2
    finally:
        appliance.stop()
    assert hud.stopped


def test_a_retry_stops_with_the_appliance() -> None:
    stopping = threading.Event()
    tries = []

    def start() -> None:
        tries.append(1)
        raise OSError("still broken")

    retry = PartRetry("part", start, lambda part: None, stopping, first_s=0.01, longest_s=0.02)
    retry.begin()
    time.sleep(0.1)
    stopping.set()
    retry.thread.join(1)
    assert not retry.thread.is_alive() and len(tries) >= 3 and retry.down == "still broken"


def test_a_robot_port_that_does_not_open_shows_on_the_screen() -> None:
    """#56.9: `c4pi serve --port /dev/nonexistent` retried silently; the screen says so."""
    from c4game.exc import SerialPortError

    def no_port(config: Config):
        def opener():
            raise SerialPortError("cannot open serial port '/dev/nonexistent': no such file")
        return opener

    config = Config()
    config = replace(config, serial=replace(config.serial, port="/dev/nonexistent"),
                     camera=replace(config.camera, enabled=False),
                     speech=replace(config.speech, enabled=False),
                     solver=replace(config.solver, tt_mb=8, use_book=False),
                     play=replace(config.play, web=False))
    parts = Parts(activity_led=lambda c: NoLed(), advantage=lambda c: None,
                  hud=lambda c, hub, games: FakeHud(), port_opener=no_port)
    appliance = Appliance(config, RecordingNotifier(), parts)
    try:
        appliance.start()
        appliance.update_status()
        health = appliance.hub.snapshot()["health"]
        assert health["serial"] == "/dev/nonexistent does not open"
        assert "serial waiting for port" in appliance.status_line()
    finally:
        appliance.stop()
