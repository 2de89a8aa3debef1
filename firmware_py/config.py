"""Typed configuration, validated once at start-up.

The config is TOML (``config/c4pi.toml`` holds every default, commented). It
is read from ``--config PATH``, else ``/etc/c4pi/config.toml`` when present,
else the bundled default. Each ``[section]`` maps to a frozen dataclass below;
every key must be known, of the right type and in range, otherwise
:class:`~c4game.exc.ConfigError` names the file, the key and what was
expected. Keys left out of a file keep their defaults. The file itself must be
a regular file of at most 1 MB (a FIFO or a device is refused unread).

Relative paths in the config are resolved against the project directory (the
folder that holds ``setup.sh``), see :func:`resolve_path`.
"""

from __future__ import annotations

import difflib
import logging
import math
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from c4game.exc import ConfigError
from firmware_py.json_types import JsonObject

PROJECT_DIR = Path(__file__).resolve().parent.parent
EX_CONFIG = 78  # the exit status of a config error (sysexits EX_CONFIG)
DEFAULT_CONFIG = PROJECT_DIR / "config" / "c4pi.toml"
SYSTEM_CONFIG = Path("/etc/c4pi/config.toml")
# A config file is a few kB (the default, every key commented, is under 10 kB):
# a larger one is refused unread, as is anything that is not a regular file (a
# FIFO would wait for a writer, /dev/zero would fill the memory).
MAX_CONFIG_BYTES = 1 << 20
BOARD_FINDERS = ("auto", "markers", "holes")  # [vision] board: how the board is found
FOCAL_MIN_PX = 10.0  # [camera] fx, fy: 0 (unknown) or at least this


# Any (here and in the checks below): a field's default and a TOML value are of the
# field's type, known only from its type hint; _check_value compares the two.
def _opt(default: Any, *, lo: float | None = None, hi: float | None = None,
         choices: tuple[Any, ...] | None = None, length: int | tuple[int, ...] | None = None,
         elem_lo: float | None = None, elem_hi: float | None = None) -> Any:
    """A dataclass field with validation metadata.

    ``lo``/``hi``/``choices`` bound a scalar; a list's elements are bounded by
    ``elem_lo``/``elem_hi`` and its length by ``length`` (one count, or the
    counts allowed), kept as the tuple ``lengths``.
    """
    lengths = (length,) if isinstance(length, int) else length
    meta = {"lo": lo, "hi": hi, "choices": choices, "lengths": lengths,
            "elem_lo": elem_lo, "elem_hi": elem_hi}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class SolverConfig:
    tt_mb: int = _opt(0, lo=0, hi=4096)  # 0: sized from the memory available
    book: str = _opt("books/book12.c4b")
    use_book: bool = _opt(True)
    tie_break: str = _opt("centre", choices=("centre", "random"))
    threads: int = _opt(0, lo=0, hi=8)

    @property
    def book_path(self) -> Path:
        """``book`` resolved as every path of the config is (:func:`resolve_path`)."""
        return resolve_path(self.book)


@dataclass(frozen=True)
class SerialConfig:
    enabled: bool = _opt(True)
    port: str = _opt("/dev/serial0")
    baud: int = _opt(9600, choices=(1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200))
    reconnect_min_s: float = _opt(0.5, lo=0.05, hi=60.0)
    reconnect_max_s: float = _opt(10.0, lo=0.1, hi=600.0)
    level: int = _opt(6, lo=1, hi=6)


@dataclass(frozen=True)
class LedConfig:
    activity: str = _opt("sysfs", choices=("sysfs", "gpio", "none"))
    sysfs_root: str = _opt("/sys/class/leds")
    sysfs_names: list[str] = _opt(["ACT", "led0"])
    gpio_pin: int = _opt(0, lo=0, hi=27)
    blink_hz: float = _opt(4.0, lo=0.5, hi=20.0)
    advantage_red_pin: int = _opt(0, lo=0, hi=27)
    advantage_yellow_pin: int = _opt(0, lo=0, hi=27)


@dataclass(frozen=True)
class CameraConfig:
    enabled: bool = _opt(True)
    source: str = _opt("camera")
    width: int = _opt(1280, lo=320, hi=4056)
    height: int = _opt(720, lo=240, hi=3040)
    fps: float = _opt(10.0, lo=1.0, hi=60.0)
    # Intrinsics in pixels, 0 = unknown. fx, fy: 0 or from FOCAL_MIN_PX (below it
    # even a 320 px frame would see more than 172 degrees: no pinhole camera);
    # 100,000 px is above the HQ camera with a 100 mm lens at its full 4056 px
    # (about 65,000 px).
    fx: float = _opt(0.0, lo=0.0, hi=100_000.0)
    fy: float = _opt(0.0, lo=0.0, hi=100_000.0)
    # The principal point lies in the frame: 4056 px at most from a Pi camera,
    # 10,000 px leaves room for an 8K video file as the source.
    cx: float = _opt(0.0, lo=0.0, hi=10_000.0)
    cy: float = _opt(0.0, lo=0.0, hi=10_000.0)
    # OpenCV takes 0, 4, 5, 8, 12 or 14 coefficients (solvePnP fails on any
    # other count); a real lens's are within a few units, +-100 leaves room for
    # a wide-angle fit.
    distortion: list[float] = _opt([], length=(0, 4, 5, 8, 12, 14),
                                   elem_lo=-100.0, elem_hi=100.0)
    lens_focal_mm: float = _opt(0.0, lo=0.0, hi=100.0)
    reopen_min_s: float = _opt(0.5, lo=0.05, hi=60.0)
    reopen_max_s: float = _opt(10.0, lo=0.1, hi=600.0)


@dataclass(frozen=True)
class VisionConfig:
    model: str = _opt("")
    board: str = _opt("auto", choices=BOARD_FINDERS)
    marker_size_pitch: float = _opt(0.8, lo=0.2, hi=0.99)
    # (dx, dy) of the four warp corners in hole pitches (vision/geometry.py);
    # real ones are ~0.1: more than a whole pitch would move a corner onto the
    # next hole (a wrong marker, not a correction), and within +-1 the corners
    # stay a convex quadrilateral (the plane is 9 x 7 pitches).
    calibration: list[float] = _opt([0.0] * 8, length=8, elem_lo=-1.0, elem_hi=1.0)
    max_reprojection_px: float = _opt(4.0, lo=0.1, hi=50.0)
    min_cell_confidence: float = _opt(0.6, lo=0.5, hi=1.0)  # the overlay marks cells below
    accept_margin: float = _opt(2.5, lo=2.0, hi=8.0)  # nats, see vision/decide.py
    remember_empty_board: bool = _opt(True)
    disc_depth_pitch: float = _opt(0.35, lo=0.0, hi=1.0)
    empty_board_file: str = _opt("")
    debounce_lost_ms: int = _opt(500, lo=0, hi=10000)


@dataclass(frozen=True)
class SpeechConfig:
    enabled: bool = _opt(True)
    voice: str = _opt("en-us")
    pitch: int = _opt(50, lo=0, hi=99)
    speed_wpm: int = _opt(160, lo=80, hi=450)
    volume: float = _opt(1.0, lo=0.0, hi=1.0)
    distance_volume: float = _opt(0.5, lo=0.0, hi=1.0)
    repeat_gap_ms: int = _opt(300, lo=0, hi=10000)
    distance_period_s: float = _opt(8.0, lo=1.0, hi=120.0)
    device: str = _opt("")
    sink: str = _opt("pyaudio", choices=("pyaudio", "wav", "null"))
    wav_path: str = _opt("c4pi-speech.wav")
    clip_dir: str = _opt("")


@dataclass(frozen=True)
class GameConfig:
    first: str = _opt("either", choices=("red", "yellow", "either"))


@dataclass(frozen=True)
class PlayConfig:
    mode: str = _opt("coach", choices=("coach", "opponent"))
    level: int = _opt(4, lo=1, hi=6)
    colour: str = _opt("Y", choices=("R", "Y"))
    web: bool = _opt(True)


@dataclass(frozen=True)
class HudConfig:
    enabled: bool = _opt(True)
    lan: bool = _opt(False)
    port: int = _opt(8080, lo=1, hi=65535)
    pairing_code: str = _opt("")
    hosts: str = _opt("")
    max_connections: int = _opt(64, lo=4, hi=1024)
    kiosk_port: int = _opt(8081, lo=0, hi=65535)
    camera_fps: float = _opt(4.0, lo=0.5, hi=15.0)
    camera_width: int = _opt(640, lo=160, hi=1920)


@dataclass(frozen=True)
class LogConfig:
    level: str = _opt("info", choices=("debug", "info", "warning", "error"))


@dataclass(frozen=True)
class Config:
    """The whole validated configuration; ``source`` is the file it came from."""

    solver: SolverConfig = field(default_factory=SolverConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    led: LedConfig = field(default_factory=LedConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    hud: HudConfig = field(default_factory=HudConfig)
    game: GameConfig = field(default_factory=GameConfig)
    play: PlayConfig = field(default_factory=PlayConfig)
    log: LogConfig = field(default_factory=LogConfig)
    source: str = field(default="<defaults>", compare=False)


SECTIONS: dict[str, type] = {
    f.name: f.default_factory  # type: ignore[misc]
    for f in fields(Config)
    if f.default_factory is not MISSING
}


def config_path(explicit: str | Path | None) -> Path:
    """Which file to load: ``--config``, else the system file, else the default."""
    if explicit:
        return Path(explicit)
    if SYSTEM_CONFIG.is_file():
        return SYSTEM_CONFIG
    return DEFAULT_CONFIG


def load_config(explicit: str | Path | None = None) -> Config:
    """Load and validate the config file chosen by :func:`config_path`."""
    path = config_path(explicit)
    return parse_config(_parse_toml(str(path), _read_small_file(path)), str(path))


def _read_small_file(path: Path) -> bytes:
    """The bytes of ``path``, checked to be a small regular file before it is opened.

    The file is opened non-blocking and checked again once open, so a file
    swapped for a FIFO in between cannot hang the start either.
    """
    source = str(path)
    _check_regular(source, _stat(source, path))
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            _check_regular(source, os.fstat(handle.fileno()))
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(source, "", f"cannot read: {error.strerror or error}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(source, "", "larger than 1 MB: not a c4pi config file")
    return data


def _stat(source: str, path: Path) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise ConfigError(source, "", "file not found") from None
    except OSError as error:
        raise ConfigError(source, "", f"cannot read: {error.strerror or error}") from None
    except ValueError as error:  # a NUL byte in the name
        raise ConfigError(source, "", f"unusable path: {error}") from None


FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
              (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISSOCK, "a socket"))


def _check_regular(source: str, info: os.stat_result) -> None:
    """Refuse anything but a regular file of at most :data:`MAX_CONFIG_BYTES`."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in FILE_KINDS if test(info.st_mode)), "special")
        raise ConfigError(source, "", f"not a regular file but {kind}: give a .toml file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(source, "", f"larger than 1 MB ({info.st_size} bytes): "
                                      "not a c4pi config file")


def _parse_toml(source: str, data: bytes) -> JsonObject:
    try:
        return tomllib.loads(data.decode())
    except UnicodeDecodeError as error:
        raise ConfigError(source, "", f"not UTF-8 text: byte {error.start} is "
                                      f"{error.object[error.start]:#04x}") from None
    except tomllib.TOMLDecodeError as error:
        if data.startswith(b"\xef\xbb\xbf"):
            raise ConfigError(source, "", "starts with a byte order mark (BOM): save it "
                                          "as UTF-8 without BOM") from None
        raise ConfigError(source, "", f"not valid TOML: {error}") from None
    except ValueError as error:  # an integer of more than 4300 digits
        reason = str(error).split(":")[0]  # not Python's advice on raising the limit
        raise ConfigError(source, "", f"not valid TOML: {reason}") from None
    except RecursionError:
        raise ConfigError(source, "", "not valid TOML: arrays or tables nested too deeply"
                          ) from None


def parse_config(data: JsonObject, source: str = "<config>") -> Config:
    """Validate a parsed TOML document into a :class:`Config`."""
    sections: JsonObject = {}
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(source, f"[{name}]", "unknown section" + _hint(name, SECTIONS))
        if not isinstance(value, dict):
            raise ConfigError(source, name, f"expected a [{name}] table, got {_show(value)}")
        sections[name] = _parse_section(SECTIONS[name], name, value, source)
    config = Config(**sections, source=source)
    config = _kiosk_port_beside(config, data.get("hud", {}))
    _check_cross_fields(config, source)
    return config


def _kiosk_port_beside(config: Config, hud: JsonObject) -> Config:
    """An unset ``[hud] kiosk_port`` that would be the page's own port (a config of
    before it existed, with ``port = 8081``) is the next port instead."""
    if "kiosk_port" in hud or config.hud.kiosk_port != config.hud.port:
        return config
    port = config.hud.port
    return replace(config, hud=replace(config.hud, kiosk_port=port + 1 if port < 65535
                                       else port - 1))


# Keys of earlier versions that no longer do anything: accepted (a kept
# /etc/c4pi/config.toml still loads after an upgrade) and reported once.
RETIRED_KEYS = {"vision": ("flip_votes", "frontier_vote_confidence", "context_check",
                           "min_frontier_confidence", "illegal_margin", "confidence_gate",
                           "vote_window", "vote_agree", "debounce_found_ms")}


def _parse_section(cls: type, name: str, values: JsonObject, source: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    hints = get_type_hints(cls)
    kwargs = {}
    for key, value in values.items():
        if key in RETIRED_KEYS.get(name, ()):
            logging.getLogger(__name__).warning("%s: [%s] %s is no longer used; remove it",
                                                source, name, key)
            continue
        if key not in known:
            raise ConfigError(source, f"[{name}] {key}", "unknown key" + _hint(key, known))
        kwargs[key] = _check_value(f"[{name}] {key}", value, hints[key], known[key].metadata,
                                   source)
    return cls(**kwargs)


def _check_value(key: str, value: Any, hint: Any, meta: Any, source: str) -> Any:
    if get_origin(hint) is not list:
        return _check_scalar(key, value, hint, meta, source)
    (item_type,) = get_args(hint)
    if not isinstance(value, list):
        raise ConfigError(source, key, f"expected a list of {item_type.__name__}, "
                                       f"got {_show(value)}")
    item_meta = {"lo": meta.get("elem_lo"), "hi": meta.get("elem_hi")}
    items = [_check_scalar(key, item, item_type, item_meta, source) for item in value]
    lengths = meta.get("lengths")
    if lengths is not None and len(items) not in lengths:
        counts = ", ".join(map(str, lengths[:-1])) + " or " if len(lengths) > 1 else ""
        counts += str(lengths[-1])
        raise ConfigError(source, key, f"expected {counts} values, got {len(items)}")
    return items


EXPECTED = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _check_scalar(key: str, value: Any, kind: type, meta: Any, source: str) -> Any:
    ok = (
        isinstance(value, bool) if kind is bool
        else isinstance(value, int) and not isinstance(value, bool) if kind is int
        else isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float
        else isinstance(value, str)
    )
    if not ok:
        raise ConfigError(source, key, f"expected {EXPECTED[kind]}, got {_show(value)}")
    if kind is float:
        value = _finite(key, value, meta, source)
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ConfigError(source, key, f"expected one of {options}, got {_show(value)}")
    lo, hi = meta.get("lo"), meta.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(source, key, f"expected {EXPECTED[kind]}{_bounds(meta)}, "
                                       f"got {_show(value)}")
    return value


def _finite(key: str, value: float, meta: Mapping[str, object], source: str) -> float:
    """``value`` as a finite float (an integer too large for a float is out of range)."""
    try:
        number = float(value)
    except OverflowError:
        raise ConfigError(source, key, f"expected a number{_bounds(meta)}, "
                                       f"got {_show(value)}") from None
    if not math.isfinite(number):
        raise ConfigError(source, key, f"expected a finite number, got {number!r}")
    return number


def _bounds(meta: Mapping[str, object]) -> str:
    lo, hi = meta.get("lo"), meta.get("hi")
    return (f" from {lo} to {hi}" if lo is not None and hi is not None
            else f" >= {lo}" if lo is not None else f" <= {hi}" if hi is not None else "")


def _show(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut short so that an error stays one readable line."""
    try:
        text = repr(value)
    except ValueError:  # an integer of more than 4300 digits
        return "a huge integer"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _check_cross_fields(config: Config, source: str) -> None:
    if config.led.activity == "gpio" and config.led.gpio_pin == 0:
        raise ConfigError(source, "[led] gpio_pin", 'must be set (1-27) when activity = "gpio"')
    if 0 < config.solver.tt_mb < 8:
        raise ConfigError(source, "[solver] tt_mb", f"must be 0 (sized from the memory "
                          f"available) or from 8 to 4096, got {config.solver.tt_mb}")
    if config.serial.reconnect_min_s > config.serial.reconnect_max_s:
        raise ConfigError(source, "[serial] reconnect_min_s", "must not exceed reconnect_max_s")
    _check_focal_lengths(config.camera, source)
    for key, path, folder in _path_keys(config):
        _check_path_kind(source, key, path, folder)
    _check_hosts(source, config.hud.hosts)
    if config.hud.kiosk_port == config.hud.port:
        raise ConfigError(source, "[hud] kiosk_port", f"must differ from port ({config.hud.port}),"
                          " or be 0 (no connection reserved for the Pi's own screen)")
    code = config.hud.pairing_code
    if code and (len(code) < 6 or not code.isascii() or not code.isalnum()):
        raise ConfigError(source, "[hud] pairing_code",
                          "must be empty or at least 6 letters and digits")
    pins = (config.led.advantage_red_pin, config.led.advantage_yellow_pin)
    if (pins[0] == 0) != (pins[1] == 0):
        raise ConfigError(source, "[led] advantage_red_pin",
                          "set both advantage pins or neither")


def _check_focal_lengths(camera: CameraConfig, source: str) -> None:
    for name in ("fx", "fy"):
        value = getattr(camera, name)
        if 0 < value < FOCAL_MIN_PX:
            raise ConfigError(source, f"[camera] {name}", f"must be 0 (unknown) or from "
                              f"{FOCAL_MIN_PX:g} to 100000 px, got {value!r}")


def _path_keys(config: Config) -> list[tuple[str, str, bool]]:
    """(key, path, must be a folder) of every path in the config."""
    return [("[solver] book", config.solver.book, False),
            ("[vision] model", config.vision.model, False),
            ("[vision] empty_board_file", config.vision.empty_board_file, False),
            ("[speech] wav_path", config.speech.wav_path, False),
            ("[speech] clip_dir", config.speech.clip_dir, True)]


def _check_path_kind(source: str, key: str, path: str, folder: bool) -> None:
    """A path that exists must be of its kind (a folder for ``*_dir``, else a file)."""
    if not path:
        return
    try:
        resolved = resolve_path(path)
        exists, is_dir = resolved.exists(), resolved.is_dir()
    except (OSError, RuntimeError) as error:  # ~nouser, a name too long, no permission
        raise ConfigError(source, key, f"unusable path {path!r}: "
                                       f"{getattr(error, 'strerror', None) or error}") from None
    if folder and exists and not is_dir:
        raise ConfigError(source, key, f"{resolved} is a file, not a folder")
    if not folder and is_dir:
        raise ConfigError(source, key, f"{resolved} is a folder, not a file")


HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
                       r"(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$")


def _check_hosts(source: str, hosts: str) -> None:
    """``[hud] hosts``: comma-separated host names (no port, no wildcard, no space)."""
    for name in (part.strip() for part in hosts.split(",")):
        if name and not HOST_NAME.match(name.lower()):
            raise ConfigError(source, "[hud] hosts", f"{name!r} is not a host name "
                                                     "(letters, digits, '-' and '.'; no port)")


def _hint(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"


def resolve_path(path: str) -> Path:
    """A config path, relative ones taken from the project directory."""
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else PROJECT_DIR / candidate
