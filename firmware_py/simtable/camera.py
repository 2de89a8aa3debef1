"""The simulated camera: renders a scripted or random game, frame by frame.

Scenes come from :mod:`.script`; each is drawn with the 2-D generator
(:func:`firmware_py.simtable.render.render_frame`). Live, the camera keeps real
time (it sleeps until each frame is due and stamps frames with the clock);
otherwise frames follow their own timeline, ``t = index / fps``. Each frame's
:class:`~.script.Scene` (with the true board) travels in ``Frame.info``.

Every frame is drawn with the same renderer seed, so the background and
the look of each disc stay put from frame to frame, as in front of a real
camera; ``reuse`` then renders each distinct scene only once (a small cache),
which keeps the simulator cheap while nothing moves.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from c4game.board import Board
from c4game.exc import CameraError
from firmware_py.frames import Frame, FrameSource, Intrinsics
from firmware_py.simtable.script import Action, PlaneHand, Scene, compile_scenes

if TYPE_CHECKING:
    from firmware_py.simtable.render_spec import Hand, RenderSpec

CACHE_SIZE = 4  # rendered frames kept for repeated scenes (2.8 MB each at 720p)


def default_spec(size: tuple[int, int] = (1280, 720)) -> RenderSpec:
    """A plausible fixed camera pose for the simulator (slightly oblique, mild defects),
    of a board that holds its discs 0.35 pitch behind its face, as common ones do."""
    from firmware_py.simtable.render import RenderSpec

    return RenderSpec(size=size, distance=1.45, yaw_deg=12.0, pitch_deg=-14.0, roll_deg=3.0,
                      light_gradient=0.3, noise_sigma=2.5, clutter=0, disc_depth=0.35)


class SimulatedCamera(FrameSource):
    """Frames of ``actions`` (a finite list, or an endless iterator) rendered with ``spec``.

    ``live`` paces frames in real time with ``clock``/``sleep``; ``seed``
    picks the renderer's random details (background, noise, disc shades);
    ``start`` is the board on the table before the script begins (empty).
    """

    def __init__(self, actions: Iterable[Action], *, spec: RenderSpec | None = None,
                 fps: float = 10.0, live: bool = False, seed: int = 0, reuse: bool = True,
                 start: Board | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from firmware_py.simtable.render import camera_matrix

        self.name = "sim"
        self.spec = spec if spec is not None else default_spec()
        self.fps = float(fps)
        self.live = live
        self.seed = seed
        self.reuse = reuse
        k = camera_matrix(self.spec)
        self.intrinsics = Intrinsics(k[0, 0], k[1, 1], k[0, 2], k[1, 2])
        self._actions = actions
        self.start = start
        self._clock, self._sleep = clock, sleep
        self._scenes: Iterator[Scene] | None = None
        self._index = 0
        self._start = 0.0
        self._cache: OrderedDict[Scene, np.ndarray] = OrderedDict()

    def open(self) -> None:
        if self._scenes is not None:
            return
        self._scenes = compile_scenes(self._actions, self.fps, start=self.start, seed=self.seed)
        self._index = 0
        self._start = self._clock()

    def read(self) -> Frame | None:
        if self._scenes is None:
            raise CameraError("the simulated camera is not open")
        scene = next(self._scenes, None)
        if scene is None:
            return None
        index = self._index
        self._index += 1
        image = self.render(scene)
        if not self.live:
            return Frame(image, index / self.fps, index, scene)
        due = self._start + index / self.fps
        delay = due - self._clock()
        if delay > 0:
            self._sleep(delay)
        return Frame(image, self._clock(), index, scene)

    def close(self) -> None:
        self._scenes = None
        self._cache.clear()

    def render(self, scene: Scene) -> np.ndarray:
        """Draw ``scene`` (cached per scene when ``reuse`` is on)."""
        if self.reuse and scene in self._cache:
            self._cache.move_to_end(scene)
            return self._cache[scene]
        image = render_scene(scene, self.spec, self.seed)
        if self.reuse:
            self._cache[scene] = image
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return image


def render_scene(scene: Scene, spec: RenderSpec, seed: int) -> np.ndarray:
    """One BGR frame of ``scene`` with the camera and look of ``spec``."""
    from firmware_py.simtable.render import render_frame

    changes: dict[str, object] = {}
    if scene.light != 1.0:
        changes["light_gain"] = spec.light_gain * scene.light
    if not scene.visible:
        changes["board_visible"] = False
    if scene.hand is not None:
        changes["hand"] = project_hand(scene.hand, spec)
    return render_frame(scene.grid, spec.replace(**changes) if changes else spec, seed=seed)


def project_hand(hand: PlaneHand, spec: RenderSpec) -> Hand:
    """The renderer's :class:`Hand` for a hand placed in the warp plane."""
    from firmware_py.simtable.render import Hand, plane_to_image
    from firmware_py.vision.geometry import apply_homography

    angle = math.radians(hand.angle_deg)
    tip = (hand.x + 40 * math.sin(angle), hand.y - 40 * math.cos(angle))
    side = (hand.x + hand.size_pitch * 80, hand.y)
    centre, tip_px, side_px = apply_homography(
        plane_to_image(spec), np.array([(hand.x, hand.y), tip, side]))
    direction = tip_px - centre
    image_angle = math.degrees(math.atan2(direction[0], -direction[1]))
    width, height = spec.size
    size = float(np.linalg.norm(side_px - centre)) / width
    return Hand(float(centre[0]) / width, float(centre[1]) / height, image_angle, size)
