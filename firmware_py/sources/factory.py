"""Pick the frame source for a name: ``camera``, ``sim``, ``usb:N``, a video file or a folder."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from c4game.exc import CameraError, excerpt
from firmware_py.frames import FrameSource, Intrinsics
from firmware_py.sources.folder import ImageFolderSource, is_picture_file
from firmware_py.sources.opencv import VideoCaptureSource, parse_usb
from firmware_py.sources.picamera import PiCameraSource
from firmware_py.sources.picture import opencv_name
from firmware_py.sources.reopen import ReopeningSource

if TYPE_CHECKING:
    from c4game.board import Board
    from firmware_py.config import CameraConfig
    from firmware_py.simtable.script import Action

SIM = "sim"
CAMERA = "camera"


def open_source(name: str, camera: CameraConfig, *, fps: float | None = None, fast: bool = False,
                moves: str | None = None, seed: int | None = None,
                wait: Callable[[float], bool] | None = None,
                strict_open: bool = True, first: str = "either") -> FrameSource:
    """The source called ``name``, set up from ``camera`` (a ``[camera]`` config).

    Live sources (``camera``, ``usb:N``) are wrapped in a
    :class:`ReopeningSource` using ``wait`` between attempts. ``sim`` plays
    ``moves`` (else endless random games from ``seed``) in real time, or on its
    own timeline with ``fast``, its games started as ``first`` (``[game] first``)
    allows. Files and folders use ``fps`` (else their own rate, else 10). The
    source is not opened yet.
    """
    if name == CAMERA:
        return _reopening(PiCameraSource(camera), camera, wait, strict_open)
    if name == SIM:
        return sim_source(camera, fps=fps, fast=fast, moves=moves, seed=seed, first=first)
    if parse_usb(name) is not None:
        webcam = VideoCaptureSource(name, size=(camera.width, camera.height),
                                    camera_fps=camera.fps,
                                    intrinsics=Intrinsics.from_config(camera))
        return _reopening(webcam, camera, wait, strict_open)
    path = Path(opencv_name(name)).expanduser()
    try:
        is_dir, is_file = path.is_dir(), path.is_file()
    except OSError as error:  # a name too long, a folder that may not be read
        raise CameraError(f"source {excerpt(name)}: {error.strerror or error}") from None
    if is_dir or is_picture_file(path):
        return ImageFolderSource(path, fps=fps, intrinsics=Intrinsics.from_config(camera))
    if is_file:
        return VideoCaptureSource(str(path), fps=fps, intrinsics=Intrinsics.from_config(camera))
    raise CameraError(f"unknown source {excerpt(name)}: not 'camera', 'sim', 'usb:N', "
                      "an existing video file or a folder of images")


def sim_source(camera: CameraConfig, *, fps: float | None = None, fast: bool = False,
               moves: str | None = None, seed: int | None = None,
               first: str = "either") -> FrameSource:
    """The simulated camera at the configured frame size; its games are started as
    ``first`` (who may start) allows: all by Red or Yellow, or every third by Yellow."""
    from c4game.board import Board, starter
    from firmware_py.simtable.camera import SimulatedCamera, default_spec
    from firmware_py.simtable.script import Wait, endless_games, game_script

    rng = random.Random(seed)
    opening = starter(0, 0, first)  # who starts the first game
    if moves is not None:
        Board.from_moves(moves)  # IllegalMoveError names a bad move before anything starts
        # the cleared board stays in view 2 s longer than the script's pause, so that a
        # slow camera too shows the new game (read again after 1 s, then 4 frames)
        actions: Iterable[Action] = [*game_script(moves, rng, next_first=opening), Wait(2.0)]
    else:
        actions = endless_games(rng, rule=first)
    return SimulatedCamera(actions, spec=default_spec((camera.width, camera.height)),
                           fps=fps or camera.fps, live=not fast, seed=seed or 0,
                           start=Board.empty(opening))


def sim_opponent_source(camera: CameraConfig, asked_for: Callable[[Board], int | None],
                        appliance: str, *,
                        fps: float | None = None, fast: bool = False, seed: int | None = None,
                        mistakes: tuple[int, ...] = (), games: int | None = None) -> FrameSource:
    """The simulated camera with a person playing against the kiosk opponent."""
    from firmware_py.simtable.camera import SimulatedCamera, default_spec
    from firmware_py.simtable.opponent import opponent_games

    actions = opponent_games(random.Random(seed), asked_for, appliance, mistakes=mistakes,
                             games=games)
    return SimulatedCamera(actions, spec=default_spec((camera.width, camera.height)),
                           fps=fps or camera.fps, live=not fast, seed=seed or 0)


def _reopening(source: FrameSource, camera: CameraConfig, wait: Callable[[float], bool] | None,
               strict_open: bool) -> ReopeningSource:
    if wait is None:
        return ReopeningSource(source, min_s=camera.reopen_min_s, max_s=camera.reopen_max_s,
                               strict_open=strict_open)
    return ReopeningSource(source, min_s=camera.reopen_min_s, max_s=camera.reopen_max_s,
                           strict_open=strict_open, wait=wait)
