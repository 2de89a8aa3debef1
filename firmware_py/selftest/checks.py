"""The device checks of ``c4pi selftest``, one function each.

Each check returns a one-line detail (PASS), or raises :class:`Skip` (the part
is disabled, or absent on a machine that is not a Pi) or :class:`Fail`.
Hardware that is missing on a Raspberry Pi is a failure, not a skip.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_py.config import Config, resolve_path
from firmware_py.leds import is_raspberry_pi
from firmware_py.parts import PARTS, install_hint, missing
from firmware_py.selftest import system
from firmware_py.selftest.core import Check, Fail, SelftestOptions, Skip

if TYPE_CHECKING:
    from firmware_py.vision.hole_looks import HoleLooks

SOLVER_BUDGET_S = 30.0


def absent(reason: str) -> Exception:
    """Missing hardware: a failure on a Pi, a skip elsewhere."""
    return Fail(reason) if is_raspberry_pi() else Skip(f"{reason} (not a Raspberry Pi)")


def load_vectors() -> list[tuple[str, int, str]]:
    """The bundled (moves, published score, test set) vectors."""
    text = resources.files("firmware_py").joinpath("data/selftest_vectors.txt").read_text()
    vectors = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            moves, score, name = line.split()
            vectors.append((moves, int(score), name))
    return vectors


def check_solver(config: Config, options: SelftestOptions) -> str:
    from cython_solver import Solver

    solver = Solver.from_config(config.solver)
    vectors = [v for v in load_vectors() if solver.has_book or not v[2].startswith("begin-")]
    started = time.perf_counter()
    wrong = []
    for moves, published, _ in vectors:
        score = solver.solve(moves)
        if score != published:
            wrong.append(f"{moves}: {score} (published {published})")
        if time.perf_counter() - started > SOLVER_BUDGET_S:
            raise Fail(f"too slow: over {SOLVER_BUDGET_S:.0f} s for {len(vectors)} positions")
    if wrong:
        raise Fail("wrong scores: " + "; ".join(wrong))
    elapsed = (time.perf_counter() - started) * 1000
    return f"{len(vectors)} published positions exact in {elapsed:.0f} ms"


def check_book(config: Config, options: SelftestOptions) -> str:
    from c4game.exc import BookError
    from cython_solver.book import BookFile

    if not config.solver.use_book:
        raise Skip("use_book = false in [solver]")
    try:
        return BookFile(resolve_path(config.solver.book)).describe() + "; sha256 ok"
    except BookError as error:
        raise Fail(str(error)) from None


def check_model(config: Config, options: SelftestOptions) -> str:
    """The classifier loads and reads rendered frames of known positions exactly."""
    from firmware_py.simtable.render import RenderSpec, render_frame
    from firmware_py.vision.reader import BoardReader

    samples = ("", "4453", "44444453221")
    poses = ((0.0, 0.0), (20.0, -10.0), (-15.0, 15.0))  # yaw, pitch: a plain board, three views
    for number, (moves, (yaw, pitch)) in enumerate(zip(samples, poses, strict=True)):
        reader = BoardReader.from_config(config.vision, None)  # each view new to it
        spec = RenderSpec(yaw_deg=yaw, pitch_deg=pitch, clutter=0, jpeg_quality=85,
                          disc_depth=0.35)
        reading = reader.read(render_frame(moves, spec, seed=number))
        expected = _grid(moves)
        if reading.status != "ok" or reading.grid is None or list(reading.grid) != expected:
            raise Fail(f"sample {moves or 'empty'!r} read as {reading.status} "
                       f"{reading.grid} ({reading.reason})")
    return f"{len(samples)} sample frames read exactly"


def _grid(moves: str) -> list[str]:
    from c4game.board import Board

    return Board.from_moves(moves).grid_lines()


def check_camera(config: Config, options: SelftestOptions) -> str:
    from c4game.exc import CameraError
    from firmware_py.sources.factory import open_source

    camera = config.camera
    if not camera.enabled:
        raise Skip("camera disabled in [camera]")
    if camera.source == "camera":
        try:
            import picamera2  # noqa: F401
        except ImportError:
            raise absent("picamera2 is not installed") from None
    source = open_source(camera.source, camera, wait=lambda seconds: True)
    try:
        source.open()
        started = time.perf_counter()
        shape = None
        read = 0
        for _ in range(options.frames):
            frame = source.read()
            if frame is None:
                break
            shape = frame.image.shape
            read += 1
        if shape is None:
            raise Fail(f"{camera.source}: no frame")
        fps = read / (time.perf_counter() - started)
    except CameraError as error:
        raise absent(str(error)) from None
    finally:
        source.close()
    assert shape is not None
    if read < options.frames:
        if source.live:  # a camera that stopped; a file or folder ends
            raise Fail(f"{camera.source}: {read} of {options.frames} frames, then none")
        return f"{camera.source}: {shape[1]}x{shape[0]}, {read} frame(s) (all the source holds)"
    return f"{camera.source}: {shape[1]}x{shape[0]} at {fps:.1f} frames/s"


def check_board(config: Config, options: SelftestOptions) -> str:
    """How the board is found (``[vision] board``) and how it is found in view now."""
    from c4game.exc import CameraError
    from firmware_py.pipeline.assemble import make_reader
    from firmware_py.sources.factory import open_source

    mode = f"[vision] board = {config.vision.board}"
    if not config.camera.enabled:
        raise Skip(f"{mode}; camera disabled in [camera]")
    source = open_source(config.camera.source, config.camera, wait=lambda seconds: True)
    fit = None
    try:
        source.open()
        reader = make_reader(config, source, stored_looks=False)
        for _ in range(options.frames):
            frame = source.read()
            if frame is None:
                break
            fit = reader.analyse(frame.image).fit
            if fit.ok:
                break
    except CameraError:
        raise absent(f"{mode}; camera unavailable") from None
    finally:
        source.close()
    if fit is None or not fit.ok:
        raise Fail(f"{mode}; the board is not found now ({fit.reason if fit else 'no frame'})")
    how = f"its {fit.markers} markers" if fit.found_by == "markers" else "its holes"
    return f"{mode}; found now by {how}"


def check_calibration(config: Config, options: SelftestOptions) -> str:
    """When ``c4pi calibrate`` taught the empty board, and whether the view has moved
    since the hole looks were learnt."""
    from c4game.exc import CameraError
    from firmware_py.pipeline.assemble import make_reader
    from firmware_py.sources.factory import open_source
    from firmware_py.vision.calibrate import camera_shift_px, hole_looks_path
    from firmware_py.vision.hole_looks import MOVED_PX

    looks = _stored_looks(config)
    path = hole_looks_path(config.vision.empty_board_file)
    if looks is None or not (looks.calibrated_at or looks.knows_anything):
        raise Skip(f"never calibrated (no looks in {path}): the empty board is learnt from "
                   "the games followed; c4pi calibrate teaches it at once")
    done = (f"calibrated {looks.calibrated_at} ({path})" if looks.calibrated_at
            else f"not calibrated in this view, looks learnt from games ({path})")
    if looks.discs:
        done += " (with the disc colours)"
    if not config.camera.enabled:
        return f"{done}; camera disabled, view not compared"
    if looks.grid_corners is None:
        return f"{done}; no grid position stored, view not compared"
    source = open_source(config.camera.source, config.camera, wait=lambda seconds: True)
    try:
        source.open()
        reader = make_reader(config, source, stored_looks=False)
        shift = None
        for _ in range(options.frames):
            frame = source.read()
            if frame is None:
                break
            shift = camera_shift_px(looks, reader.analyse(frame.image).fit)
            if shift is not None:
                break
    except CameraError as error:
        return f"{done}; camera unavailable, view not compared ({error})"
    finally:
        source.close()
    if shift is None:
        return f"{done}; the board is not in view now, view not compared"
    if shift > MOVED_PX:
        raise Fail(f"{done}, but the grid has moved {shift:.0f} px in the picture since the "
                   f"looks were learnt: run c4pi calibrate again")
    return f"{done}; the camera sees the board as then (grid within {shift:.1f} px)"


def check_learnt_looks(config: Config, options: SelftestOptions) -> str:
    """What this installation learnt of its holes' looks, and when (vision/hole_looks.py)."""
    looks = _stored_looks(config)
    if looks is None:
        raise Skip("nothing learnt yet: each followed game teaches it")
    return looks.summary()


def _stored_looks(config: Config) -> HoleLooks | None:
    """The stored hole looks (None: none yet); a bad file fails the check."""
    from c4game.exc import VisionError
    from firmware_py.vision.calibrate import hole_looks_path
    from firmware_py.vision.hole_looks import load_hole_looks

    if not config.vision.remember_empty_board:
        raise Skip("remember_empty_board = false in [vision]")
    path = hole_looks_path(config.vision.empty_board_file)
    try:
        return load_hole_looks(path)
    except VisionError as error:
        raise Fail(f"{error} (c4pi calibrate replaces it)") from None


def check_serial(config: Config, options: SelftestOptions) -> str:
    import serial

    link = config.serial
    if not link.enabled:
        raise Skip("serial disabled in [serial]")
    if not Path(link.port).exists():
        raise absent(f"no {link.port} (enable the UART: raspi-config)")
    try:
        port = serial.Serial(link.port, link.baud, timeout=0.5)
    except (serial.SerialException, OSError) as error:
        raise Fail(f"cannot open {link.port}: {error}") from None
    with port:
        if not options.loopback:
            return f"{link.port} opens at {link.baud} baud (--loopback tests TX→RX)"
        probe = b"!c4pi-loopback?"
        port.reset_input_buffer()
        port.write(probe)
        echoed = port.read(len(probe))
    if echoed != probe:
        raise Fail(f"loopback on {link.port}: sent {probe!r}, got {echoed!r} (TX jumpered to RX?)")
    return f"{link.port} loopback ok at {link.baud} baud"


def check_led(config: Config, options: SelftestOptions) -> str:
    from c4game.exc import LedError
    from firmware_py.leds import GpioLed, SysfsLed

    led_config = config.led
    if led_config.activity == "none":
        raise Skip('activity = "none" in [led]')
    try:
        if led_config.activity == "sysfs":
            led = SysfsLed.find(resolve_path(led_config.sysfs_root), led_config.sysfs_names)
        else:
            led = GpioLed(led_config.gpio_pin)
        led.on()
        led.off()
        led.close()
    except (LedError, OSError) as error:
        raise absent(str(error)) from None
    return f"{led_config.activity} LED {getattr(led, 'name', '')} writable"


def check_clips(config: Config, options: SelftestOptions) -> str:
    from firmware_py.speech import ClipSettings, check_clips, default_clip_dir

    if not config.speech.enabled:
        raise Skip("speech disabled in [speech]")
    directory = default_clip_dir(config.speech)
    problems = check_clips(directory, ClipSettings.from_config(config.speech))
    if problems:
        hint = "" if "c4pi clips build" in problems[0] else " (run `c4pi clips build`)"
        raise Fail(f"{directory}: {problems[0]}{hint}")
    return f"clip set complete in {directory}"


def check_audio(config: Config, options: SelftestOptions) -> str:
    from firmware_py.appliance.demo import has_speaker

    speech = config.speech
    if not speech.enabled or speech.sink != "pyaudio":
        raise Skip(f"speech sink is {speech.sink!r}" if speech.enabled else "speech disabled")
    if not has_speaker():
        raise absent("no audio output device")
    if options.speak:
        _play_test_phrase(config)
        return "audio device opens; test phrase played"
    return "audio device opens (--speak plays a test phrase)"


def _play_test_phrase(config: Config) -> None:
    """Say "Red four … Red wins in 41" (the empty board's answer) on the speaker."""
    from c4game.board import Board
    from firmware_py.speech import ClipSettings, default_clip_dir, load_clips, make_sink
    from firmware_py.speech.say import play, render_once, speech_for

    clips = load_clips(default_clip_dir(config.speech), ClipSettings.from_config(config.speech))
    samples = render_once(speech_for(Board.empty(), 4, 1), clips, config.speech)
    play(samples, clips.rate, make_sink(config.speech))


def check_screen(config: Config, options: SelftestOptions) -> str:
    """The running service's kiosk page answers on ``[hud] port``."""
    import http.client
    import json

    if not config.hud.enabled:
        raise Skip("the screen is disabled in [hud]")
    port = config.hud.port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
    try:
        connection.request("GET", "/state")
        response = connection.getresponse()
        state = json.loads(response.read())
    except ConnectionRefusedError:
        raise Skip(f"nothing answers on port {port}: the page is served by the running "
                   "appliance (systemctl status c4pi)") from None
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise Fail(f"port {port} answers, but not as c4pi's screen ({error}): another "
                   "program may hold it; change [hud] port") from None
    finally:
        connection.close()
    if not isinstance(state, dict) or "health" not in state:
        raise Fail(f"port {port} answers, but not as c4pi's screen: change [hud] port")
    health = state["health"]
    where = "the LAN" if config.hud.lan else "this machine only"
    return (f"http://localhost:{port}/ answers ({where}); camera {health.get('camera')}, "
            f"solver {health.get('solver')}")


def all_checks() -> list[tuple[str, Check]]:
    """Every check, in the order the table shows them; a check of a part this
    install leaves out (a robot-only install) is skipped, saying so."""
    return [
        ("solver", check_solver),
        ("book", check_book),
        ("model", needs("camera", check_model)),
        ("camera", needs("camera", check_camera)),
        ("board", needs("camera", check_board)),
        ("calibration", needs("camera", check_calibration)),
        ("learnt looks", needs("camera", check_learnt_looks)),
        ("serial", check_serial),
        ("led", check_led),
        ("speech clips", needs("speech", check_clips)),
        ("audio", needs("speech", check_audio)),
        ("screen", needs("screen", check_screen)),
        ("disk", system.check_disk),
        ("memory", system.check_memory),
        ("cpu temperature", system.check_temperature),
    ]


def needs(part: str, check: Check) -> Check:
    """``check``, or a skip when ``part`` is not installed here."""
    def checked(config: Config, options: SelftestOptions) -> str:
        if missing([part]):
            raise Skip(f"the {part} part ({PARTS[part].known_as}) is not installed "
                       f"(a robot-only install; {install_hint()})")
        return check(config, options)
    return checked
