"""LEDs: sysfs against a fake /sys/class/leds tree, gpiozero through MockFactory."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from c4game.board import Board
from c4game.exc import LedError
from firmware_py.config import parse_config
from firmware_py.leds import (
    ActivityLight,
    AdvantageLights,
    GpioLed,
    NoLed,
    SysfsLed,
    open_activity_led,
    open_advantage_lights,
    parse_trigger,
)
from firmware_py.worker import SolverWorker

from .conftest import GateSolver, read_test_set, wait_until

PI_TRIGGERS = "none rc-feedback kbd-scrolllock timer oneshot heartbeat [mmc0] default-on"


def make_led(root: Path, name: str = "ACT", trigger: str = PI_TRIGGERS,
             brightness: str = "0") -> Path:
    """A directory laid out like /sys/class/leds/NAME."""
    led = root / name
    led.mkdir(parents=True)
    (led / "trigger").write_text(trigger + "\n")
    (led / "brightness").write_text(brightness + "\n")
    (led / "max_brightness").write_text("255\n")
    return led


@pytest.fixture
def factory():
    factory = MockFactory()
    previous = Device.pin_factory
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = previous


def levels(factory: MockFactory, pin: int) -> list[bool]:
    """The pin's state history with repeats collapsed."""
    out: list[bool] = []
    for state in factory.pin(pin).states:
        if not out or out[-1] != bool(state.state):
            out.append(bool(state.state))
    return out


def test_parse_trigger() -> None:
    assert parse_trigger(PI_TRIGGERS) == "mmc0"
    assert parse_trigger("[none] timer") == "none"
    assert parse_trigger("heartbeat\n") == "heartbeat"
    with pytest.raises(LedError, match="active trigger"):
        parse_trigger("none timer")


def test_sysfs_takes_over_and_restores_trigger(tmp_path: Path) -> None:
    led_dir = make_led(tmp_path, "ACT")
    led = SysfsLed.find(tmp_path, ["ACT", "led0"])
    assert led.path == led_dir and led.original_trigger == "mmc0"
    assert (led_dir / "trigger").read_text() == "none"
    led.on()
    assert (led_dir / "brightness").read_text() == "255"
    led.off()
    assert (led_dir / "brightness").read_text() == "0"
    led.close()
    assert (led_dir / "trigger").read_text() == "mmc0"


def test_sysfs_falls_back_to_led0_and_blinks(tmp_path: Path) -> None:
    led_dir = make_led(tmp_path, "led0", trigger="[heartbeat] none")
    led = SysfsLed.find(tmp_path, ["ACT", "led0"])
    seen = set()
    led.blink(20.0)
    deadline = time.monotonic() + 2
    (led_dir / "brightness").write_text("")  # forget the initial value
    while len(seen - {""}) < 2 and time.monotonic() < deadline:
        seen.add((led_dir / "brightness").read_text())  # "" while a write is under way
        time.sleep(0.005)
    led.close()
    assert seen - {""} == {"0", "255"}
    assert (led_dir / "trigger").read_text() == "heartbeat"


def test_sysfs_restores_brightness_when_trigger_was_none(tmp_path: Path) -> None:
    led_dir = make_led(tmp_path, "ACT", trigger="[none] mmc0", brightness="255")
    led = SysfsLed(led_dir)
    led.off()
    led.close()
    assert (led_dir / "brightness").read_text() == "255"
    assert (led_dir / "trigger").read_text() == "none"


def test_missing_or_unwritable_led_is_a_warning(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    config = parse_config({"led": {"sysfs_root": str(tmp_path)}}).led
    with caplog.at_level(logging.WARNING):
        led = open_activity_led(config)
    assert isinstance(led, NoLed)
    assert "no LED found" in caplog.text and str(tmp_path / "ACT") in caplog.text
    broken = make_led(tmp_path, "ACT")
    (broken / "trigger").unlink()
    (broken / "trigger").mkdir()  # not writable as a file, even for root
    with pytest.raises(LedError, match=str(broken)):
        SysfsLed(broken)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert isinstance(open_activity_led(config), NoLed)
    assert "cannot take over LED" in caplog.text


def test_write_failure_while_running_warns_once(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    led_dir = make_led(tmp_path)
    led = SysfsLed(led_dir)
    (led_dir / "brightness").unlink()
    (led_dir / "brightness").mkdir()
    with caplog.at_level(logging.WARNING):
        led.on()
        led.off()
    assert caplog.text.count("cannot write LED") == 1
    led.close()
    assert (led_dir / "trigger").read_text() == "mmc0"


def test_activity_light_states_follow_the_worker(factory: MockFactory) -> None:
    """Solid while starting, blinking while solving, off when idle (SPEC §4)."""
    solver = GateSolver()
    worker = SolverWorker(solver).start()
    light = ActivityLight(GpioLed(17), blink_hz=10.0)
    worker.add_busy_listener(light.set_busy)
    try:
        assert light.state == "on" and levels(factory, 17)[-1] is True
        light.ready()
        assert light.state == "off" and factory.pin(17).state is False
        factory.pin(17).clear_states()
        worker.submit(Board.from_moves("4"), priority=10, tag="serial",
                      on_done=lambda *a: None)
        assert wait_until(lambda: light.state == "blink")
        time.sleep(0.45)  # 10 Hz: about 9 changes
        solver.release("4")
        assert wait_until(lambda: light.state == "off")
        history = levels(factory, 17)
        assert history[-1] is False
        assert history[:6] == [False, True, False, True, False, True]
        on_times = [s for s in factory.pin(17).states if s.state]
        assert len(on_times) >= 3
    finally:
        worker.stop()
        light.close()


def test_activity_light_stays_solid_until_ready(factory: MockFactory) -> None:
    light = ActivityLight(GpioLed(18))
    light.set_busy(True)
    assert light.state == "on" and factory.pin(18).state is True
    light.ready()
    assert light.state == "blink"
    light.set_busy(False)
    assert light.state == "off" and factory.pin(18).state is False
    light.close()


def test_advantage_lights_show_the_winner(factory: MockFactory) -> None:
    config = parse_config({"led": {"activity": "none", "advantage_red_pin": 5,
                                   "advantage_yellow_pin": 6}}).led
    lights = open_advantage_lights(config)
    assert isinstance(lights, AdvantageLights)
    seen = set()
    for moves, score in read_test_set("middle-easy", 60):
        board = Board.from_moves(moves)
        lights.show(board, score)
        red, yellow = factory.pin(5).state, factory.pin(6).state
        # Independent truth: the test set's score is for the side to move.
        winner = None if score == 0 else board.to_move if score > 0 else \
            ("Y" if board.to_move == "R" else "R")
        assert (red, yellow) == (winner == "R", winner == "Y")
        seen.add(winner)
    assert seen == {"R", "Y", None}
    lights.close()


def test_no_advantage_lights_unless_both_pins(factory: MockFactory) -> None:
    assert open_advantage_lights(parse_config({}).led) is None


def test_gpio_led_unusable_pin_is_a_warning(factory: MockFactory,
                                            caplog: pytest.LogCaptureFixture) -> None:
    held = GpioLed(22)
    config = parse_config({"led": {"activity": "gpio", "gpio_pin": 22}}).led
    with caplog.at_level(logging.WARNING):
        assert isinstance(open_activity_led(config), NoLed)
    assert "GPIO22" in caplog.text
    held.close()
