"""``c4pi demo``: the whole appliance on any Linux machine.

The simulated camera plays endless games, the serial service listens on a
pseudo-terminal, speech goes to the speaker when PortAudio sees one (else
into a WAV file), and the terminal follows the games one line per move
(:class:`~firmware_py.appliance.move_log.MoveLog`).
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from c4game.board import Board
from firmware_py.appliance.app import Parts
from firmware_py.appliance.move_log import MoveLog
from firmware_py.config import Config

if TYPE_CHECKING:
    from firmware_py.appliance.app import Appliance
    from firmware_py.frames import FrameSource
    from firmware_py.serial_link.ptywire import PtyWire

log = logging.getLogger(__name__)


def has_speaker() -> bool:
    """True when PortAudio has a default output device (probed quietly)."""
    try:
        from firmware_py.speech.sinks import probe_outputs

        devices, default = probe_outputs()
    except Exception:  # no PortAudio, no ALSA, no device: all mean "no speaker"
        return False
    return bool(devices) and default is not None


def port_in_use(host: str, port: int) -> bool:
    """True when another process listens on ``port`` (binding it fails with EADDRINUSE)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the screen binds
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def clash(config: Config, wav_flag: Path) -> str:
    """Why this demo cannot run beside another c4pi ("" when it can): the screen's port
    is taken, or its WAV file is being written (``wav_flag``: the ``--wav`` file)."""
    from firmware_py.config import resolve_path
    from firmware_py.speech.clips import is_being_written

    hud, speech = config.hud, config.speech
    host = "0.0.0.0" if hud.lan else "127.0.0.1"
    if hud.enabled and port_in_use(host, hud.port):
        free = next((port for port in range(hud.port + 1, min(hud.port + 50, 65536))
                     if port != hud.kiosk_port and not port_in_use(host, port)), None)
        hint = f"c4pi demo --port {free}" if free else "c4pi demo --port N"
        return (f"port {hud.port} is in use - is another c4pi running? give the screen "
                f"another port: {hint}")
    if speech.enabled and speech.sink == "wav":
        path = resolve_path(speech.wav_path)
        if is_being_written(path):
            how = ("--wav FILE.wav" if speech.wav_path == str(wav_flag)
                   else "[speech] wav_path in a config file")
            return (f"{path} is being written by another c4pi process; give this one its "
                    f"own file with {how}")
    return ""


def demo_config(config: Config, *, wav_path: Path, speaker: bool, seed: int | None,
                fps: float | None, mode: str | None = None,
                level: int | None = None) -> Config:
    """The config with the demo's choices: simulated camera, speaker or WAV file, and
    ``[play]`` ``mode``/``level`` when given."""
    camera = replace(config.camera, enabled=True, source="sim",
                     fps=fps if fps is not None else config.camera.fps)
    speech = config.speech
    if speech.enabled and speech.sink == "pyaudio" and not speaker:
        speech = replace(speech, sink="wav", wav_path=str(wav_path))
    serial = replace(config.serial, enabled=True)
    play = replace(config.play, mode=mode or config.play.mode,
                   level=level if level is not None else config.play.level)
    return replace(config, camera=camera, speech=speech, serial=serial, play=play)


def opponent_asker(appliance: list[Appliance]) -> Callable[[Board], int | None]:
    """``asked_for`` of ``appliance[0]``'s opponent (None while there is none)."""
    def asked_for(board: Board) -> int | None:
        opponent = appliance[0].opponent if appliance else None
        return opponent.asked_for(board) if opponent is not None else None
    return asked_for


def opponent_best(appliance: list[Appliance]) -> Callable[[Board], tuple[int, ...]]:
    """``best_columns`` of ``appliance[0]``'s opponent (``()`` while there is none)."""
    def best_for(board: Board) -> tuple[int, ...]:
        opponent = appliance[0].opponent if appliance else None
        return opponent.best_columns(board) if opponent is not None else ()
    return best_for


def move_log(config: Config, out: TextIO, appliance: list[Appliance]) -> MoveLog:
    """The terminal's move lines; in opponent mode they say what c4pi plays."""
    if config.play.mode != "opponent":
        return MoveLog(out)
    return MoveLog(out, c4pi=config.play.colour, asked_for=opponent_asker(appliance),
                   best_for=opponent_best(appliance))


def demo_parts(wire: PtyWire, seed: int | None, moves: MoveLog,
               appliance: list[Appliance]) -> Parts:
    """Factories for the demo: the pty for serial, a seeded simulator, the move lines.

    In opponent mode the simulator's person plays against ``appliance[0]``'s opponent.
    """
    from firmware_py.serial_link.transport import pyserial_opener
    from firmware_py.sources.factory import sim_opponent_source, sim_source

    def source(config: Config, wait: Callable[[float], bool]) -> FrameSource:
        if config.play.mode != "opponent":
            return sim_source(config.camera, seed=seed, first=config.game.first)
        return sim_opponent_source(config.camera, opponent_asker(appliance),
                                   config.play.colour, seed=seed)

    return Parts(
        port_opener=lambda config: pyserial_opener(wire.service_path, config.serial.baud),
        source=source,
        on_view=moves.show,
        on_opponent=moves.opponent_changed,
    )


def banner(config: Config, robot_path: str) -> str:
    speech = config.speech
    play = config.play
    mode = (f"c4pi plays {'Red' if play.colour == 'R' else 'Yellow'} at level {play.level}; "
            "the simulated person plays the other colour\n"
            if play.mode == "opponent" else "")
    where = ("off" if not speech.enabled else "the speaker" if speech.sink == "pyaudio" else
             f"WAV file {speech.wav_path}" if speech.sink == "wav" else "nowhere (null sink)")
    hud = (f"screen: http://localhost:{config.hud.port}/ in a browser\n"
           if config.hud.enabled else "")
    return (f"c4pi demo — simulated camera, serial robot link on {robot_path}\n"
            f"{mode}{hud}"
            f"try:  {sys.executable.rsplit('/', 1)[0]}/c4pi client --port {robot_path} 4453\n"
            f"speech: {where}; Ctrl-C to stop\n")


def run_demo(config: Config, *, seed: int | None, fps: float | None, wav_path: Path,
             out: TextIO, mode: str | None = None, level: int | None = None) -> int:
    from firmware_py.appliance.app import Appliance
    from firmware_py.appliance.process import run_until_signalled
    from firmware_py.notify import SystemdNotifier
    from firmware_py.serial_link.ptywire import PtyWire

    config = demo_config(config, wav_path=wav_path, speaker=has_speaker(), seed=seed, fps=fps,
                         mode=mode, level=level)
    problem = clash(config, wav_path)
    if problem:
        print(f"c4pi demo: {problem}", file=sys.stderr)
        return 1
    with PtyWire() as wire:
        holder: list[Appliance] = []
        moves = move_log(config, out, holder)
        appliance = Appliance(config, SystemdNotifier(), demo_parts(wire, seed, moves, holder))
        holder.append(appliance)

        def announce() -> None:  # the robot port is named once the service answers on it
            moves.start(banner(config, wire.robot_path))
        return run_until_signalled(appliance, on_started=announce)
