"""Activity and advantage LEDs (SPEC.md §4).

Three LED implementations share the small :class:`Led` interface: the Pi's own
ACT LED through sysfs (:class:`SysfsLed`), an LED on a GPIO pin through gpiozero
(:class:`GpioLed`, any gpiozero pin factory, e.g. ``MockFactory`` in tests),
and :class:`NoLed`. :class:`ActivityLight` maps the appliance state onto one
LED (solid while starting, blinking while solving, off when idle);
:class:`AdvantageLights` shows who is winning after each answer. A missing or
unwritable LED is logged as a warning and replaced by :class:`NoLed`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from c4game.board import RED, YELLOW, Board, other
from c4game.exc import LedError

if TYPE_CHECKING:
    from gpiozero.pins import Factory

    from firmware_py.config import LedConfig

log = logging.getLogger(__name__)


class Led(Protocol):
    """One LED: on, off, blinking; ``close`` gives the hardware back."""

    name: str

    def on(self) -> None: ...

    def off(self) -> None: ...

    def blink(self, hz: float) -> None: ...

    def close(self) -> None: ...


class NoLed:
    """No LED at all (``activity = "none"``, or a fallback after a warning)."""

    name = "none"

    def on(self) -> None:
        pass

    def off(self) -> None:
        pass

    def blink(self, hz: float) -> None:
        pass

    def close(self) -> None:
        pass


class _Blinker:
    """A thread that calls ``set_level(True/False)`` alternately at ``hz`` until stopped."""

    def __init__(self, set_level: Callable[[bool], None], hz: float, name: str) -> None:
        self._set_level = set_level
        self._half_period = 0.5 / hz
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"c4pi-blink-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        level = True
        while not self._stop.is_set():
            self._set_level(level)
            level = not level
            self._stop.wait(self._half_period)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(1.0)


class SysfsLed:
    """A kernel LED under ``/sys/class/leds/NAME``: takes it over, gives it back on close.

    Opening sets its trigger to ``none`` (remembering the original one, e.g.
    ``mmc0``); :meth:`close` restores that trigger. Raises :class:`LedError`
    naming the path when the LED is missing or cannot be written.
    """

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory)
        self.name = f"sysfs:{self.path.name}"
        self._trigger_file = self.path / "trigger"
        self._brightness_file = self.path / "brightness"
        self._blinker: _Blinker | None = None
        self._lock = threading.Lock()
        self._warned = False
        self._closed = False
        try:
            self.original_trigger = parse_trigger(self._trigger_file.read_text())
            self._original_brightness = self._brightness_file.read_text().strip()
            self._max = _read_int(self.path / "max_brightness", default=1)
            self._trigger_file.write_text("none")
        except OSError as error:
            raise LedError(f"cannot take over LED {self.path}: {error.strerror or error}") \
                from error

    @classmethod
    def find(cls, root: str | Path, names: Sequence[str]) -> SysfsLed:
        """The first of ``names`` that exists under ``root``."""
        for name in names:
            if (Path(root) / name / "brightness").exists():
                return cls(Path(root) / name)
        tried = ", ".join(str(Path(root) / name) for name in names) or "(no names)"
        raise LedError(f"no LED found; tried {tried}")

    def on(self) -> None:
        self._stop_blinking()
        self._set_level(True)

    def off(self) -> None:
        self._stop_blinking()
        self._set_level(False)

    def blink(self, hz: float) -> None:
        self._stop_blinking()
        with self._lock:
            if not self._closed:
                self._blinker = _Blinker(self._set_level, hz, self.path.name)

    def close(self) -> None:
        """Stop blinking and restore the original trigger (and brightness)."""
        self._stop_blinking()
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            if self.original_trigger == "none":
                self._brightness_file.write_text(self._original_brightness)
            self._trigger_file.write_text(self.original_trigger)
        except OSError as error:
            log.warning("could not restore LED %s trigger %r: %s", self.path,
                        self.original_trigger, error.strerror or error)

    def _stop_blinking(self) -> None:
        with self._lock:
            blinker, self._blinker = self._blinker, None
        if blinker is not None:
            blinker.stop()

    def _set_level(self, level: bool) -> None:
        try:
            self._brightness_file.write_text(str(self._max if level else 0))
        except OSError as error:
            if not self._warned:
                self._warned = True
                log.warning("cannot write LED %s: %s", self._brightness_file,
                            error.strerror or error)


class GpioLed:
    """An LED on a BCM GPIO pin through gpiozero (``pin_factory`` None = gpiozero's default)."""

    def __init__(self, pin: int, pin_factory: Factory | None = None) -> None:
        self.name = f"gpio:{pin}"
        try:
            from gpiozero import LED

            self._led = LED(pin, pin_factory=pin_factory)
        except Exception as error:  # gpiozero raises many kinds (no factory, pin in use, …)
            raise LedError(f"cannot drive an LED on GPIO{pin}: {error}") from error

    def on(self) -> None:
        self._led.on()

    def off(self) -> None:
        self._led.off()

    def blink(self, hz: float) -> None:
        half = 0.5 / hz
        self._led.blink(on_time=half, off_time=half, background=True)

    def close(self) -> None:
        self._led.close()


class ActivityLight:
    """SPEC §4 activity LED: solid until :meth:`ready`, then blinking while busy, else off.

    Pass :meth:`set_busy` to :meth:`SolverWorker.add_busy_listener`.
    """

    def __init__(self, led: Led, blink_hz: float = 4.0) -> None:
        self.led = led
        self._hz = blink_hz
        self._lock = threading.Lock()
        self._ready = False
        self._busy = False
        self._shown: str | None = None
        self._apply()

    def ready(self) -> None:
        """Start-up is over (solver, book and port ready)."""
        with self._lock:
            self._ready = True
        self._apply()

    def starting(self) -> None:
        """Back to solid (e.g. the port was lost and is being reopened)."""
        with self._lock:
            self._ready = False
        self._apply()

    def set_busy(self, busy: bool) -> None:
        with self._lock:
            self._busy = busy
        self._apply()

    @property
    def state(self) -> str:
        """``"on"``, ``"blink"`` or ``"off"``: what the LED shows."""
        with self._lock:
            return self._wanted_locked()

    def close(self) -> None:
        with self._lock:
            self._shown = "closed"
            try:
                self.led.off()
            finally:
                self.led.close()

    def _wanted_locked(self) -> str:
        return "on" if not self._ready else "blink" if self._busy else "off"

    def _apply(self) -> None:
        with self._lock:
            wanted = self._wanted_locked()
            if wanted == self._shown or self._shown == "closed":
                return
            self._shown = wanted
            try:
                if wanted == "on":
                    self.led.on()
                elif wanted == "blink":
                    self.led.blink(self._hz)
                else:
                    self.led.off()
            except Exception as error:  # an LED must never take the appliance down
                log.warning("activity LED %s failed: %s", self.led.name, error)


class AdvantageLights:
    """Two LEDs: ``red`` lit when Red has the advantage, ``yellow`` for Yellow, none on a draw."""

    def __init__(self, red: Led, yellow: Led) -> None:
        self.red = red
        self.yellow = yellow

    def show(self, board: Board, score: int) -> None:
        """Light the side that wins ``board`` (``score`` is for the side to move)."""
        winner = None if score == 0 else board.to_move if score > 0 else other(board.to_move)
        self._set(winner)

    def clear(self) -> None:
        self._set(None)

    def close(self) -> None:
        for led in (self.red, self.yellow):
            try:
                led.off()
            finally:
                led.close()

    def _set(self, winner: str | None) -> None:
        for led, colour in ((self.red, RED), (self.yellow, YELLOW)):
            try:
                led.on() if winner == colour else led.off()
            except Exception as error:
                log.warning("advantage LED %s failed: %s", led.name, error)


def parse_trigger(text: str) -> str:
    """The active trigger in a sysfs ``trigger`` file (``none [mmc0] timer`` → ``mmc0``)."""
    words = text.split()
    for word in words:
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    if len(words) == 1:
        return words[0]
    raise LedError(f"cannot find the active trigger in {text.strip()!r}")


def _read_int(path: Path, default: int) -> int:
    try:
        return max(1, int(path.read_text().strip()))
    except (OSError, ValueError):
        return default


PI_MODEL = Path("/proc/device-tree/model")


def is_raspberry_pi(model_file: Path | None = None) -> bool:
    """True on a Raspberry Pi (its device tree names the model)."""
    try:
        return "raspberry pi" in (model_file or PI_MODEL).read_text(errors="replace").lower()
    except OSError:
        return False


def open_activity_led(config: LedConfig, pin_factory: Factory | None = None) -> Led:
    """The activity LED chosen in ``[led]``; :class:`NoLed` if unusable: a warning on a
    Pi or where ``[led]`` names one, a quiet line for the default LED elsewhere (a
    laptop running the demo has none)."""
    from firmware_py.config import resolve_path

    if config.activity == "none":
        return NoLed()
    try:
        if config.activity == "sysfs":
            return SysfsLed.find(resolve_path(config.sysfs_root), config.sysfs_names)
        return GpioLed(config.gpio_pin, pin_factory)
    except LedError as error:
        from firmware_py.config import LedConfig

        default = LedConfig()
        by_default = (config.activity, config.sysfs_root, list(config.sysfs_names)) == (
            default.activity, default.sysfs_root, list(default.sysfs_names))
        level = logging.WARNING if is_raspberry_pi() or not by_default else logging.INFO
        log.log(level, "%s; running without an activity LED", error)
        return NoLed()


def open_advantage_lights(config: LedConfig, pin_factory: Factory | None = None
                          ) -> AdvantageLights | None:
    """The advantage LEDs when both pins are set; None otherwise or (warning) if unusable."""
    if not (config.advantage_red_pin and config.advantage_yellow_pin):
        return None
    try:
        red = GpioLed(config.advantage_red_pin, pin_factory)
    except LedError as error:
        log.warning("%s; running without advantage LEDs", error)
        return None
    try:
        yellow = GpioLed(config.advantage_yellow_pin, pin_factory)
    except LedError as error:
        red.close()
        log.warning("%s; running without advantage LEDs", error)
        return None
    return AdvantageLights(red, yellow)
