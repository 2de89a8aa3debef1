"""Build the live pipeline's parts from the config (used by ``watch`` and ``run``)."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from firmware_py.config import Config
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import SyncPort, WorkerPort

if TYPE_CHECKING:  # the wiring's parts, imported where they are made
    from cython_solver import Solver
    from firmware_py.frames import FrameSource
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.hole_looks import HoleLooks
    from firmware_py.vision.reader import BoardReader

log = logging.getLogger(__name__)


def params_from_config(config: Config) -> PipelineParams:
    """The reducer's numbers from ``[vision]``."""
    return PipelineParams.from_config(config.vision, first=config.game.first)


def make_solver(config: Config) -> Solver:
    """A :class:`cython_solver.Solver` with the opening book when configured and present."""
    from cython_solver import Solver

    solver = Solver.from_config(config.solver)
    if config.solver.use_book and not solver.has_book:
        log.warning("%s: early positions are slow to solve", solver.book_status)
    log.info("solver: %s", solver.book_status)
    return solver


def make_port(config: Config, solver: Solver, *, live: bool) -> SyncPort | WorkerPort:
    """The solver port: the shared worker for live sources, synchronous for files.

    A file's output must not depend on timing, so there the solver runs on
    the frame loop's thread, and a random tie-break uses a fixed seed.
    """
    random_ties = config.solver.tie_break == "random"
    if not live:
        return SyncPort(solver, tie_break=config.solver.tie_break,
                        rng=random.Random(0) if random_ties else None)
    from firmware_py.worker import SolverWorker

    worker = SolverWorker(solver, config.solver.tie_break,
                          random.Random() if random_ties else None).start()
    return WorkerPort(worker)


def make_reader(config: Config, source: FrameSource, *,
                stored_looks: bool = True) -> BoardReader:
    """A :class:`BoardReader`; a source's own intrinsics fill in unset ``[camera]`` ones.

    With ``[vision] remember_empty_board`` the reader gets this installation's
    hole looks (:mod:`~firmware_py.vision.hole_looks`): with ``stored_looks``
    those stored before (``c4pi calibrate``, the games followed), else new
    ones; a bad file is reported in the log and the reader starts without it.
    Where ``c4pi calibrate`` found the board by its holes, the finder starts there.
    """
    from firmware_py.vision.hole_looks import HoleLooks
    from firmware_py.vision.reader import BoardReader

    camera = config.camera
    own = getattr(source, "intrinsics", None)
    if own is not None and not (camera.fx and camera.fy):
        camera = replace(camera, fx=own.fx, fy=own.fy, cx=own.cx, cy=own.cy,
                         distortion=list(own.distortion))
    reader = BoardReader.from_config(config.vision, camera, first=config.game.first)
    if config.vision.remember_empty_board:
        stored = load_looks(config) if stored_looks else None
        reader.hole_looks = stored or HoleLooks()
        if stored is not None and stored.lattice is not None and config.vision.board != "markers":
            reader.hole_locator.start_from(stored.lattice)
            log.info("starting from the lattice of holes c4pi calibrate found")
    return reader


def load_looks(config: Config) -> HoleLooks | None:
    """The hole looks stored before, or None (absent, or bad: logged)."""
    from c4game.exc import VisionError
    from firmware_py.vision.calibrate import hole_looks_path
    from firmware_py.vision.hole_looks import load_hole_looks

    path = hole_looks_path(config.vision.empty_board_file)
    try:
        looks = load_hole_looks(path)
    except VisionError as error:
        log.error("%s: learning them again (run c4pi calibrate again)", error)
        return None
    if looks is not None:
        log.info("hole looks %s: %s", path, looks.summary())
    return looks


def teaches_this_board(source: FrameSource) -> bool:
    """Whether what ``source`` shows may be stored as this installation's board: a live
    camera's frames, not a file's nor the simulated table's (the demo)."""
    return bool(getattr(source, "live", False)) and getattr(source, "name", "") != "sim"


def make_teacher(config: Config, reader: BoardReader, *, store: bool,
                 on_learnt: Callable[[HoleLooks], None] | None = None) -> LookTeacher | None:
    """A :class:`~firmware_py.pipeline.teach.LookTeacher` for ``reader``'s hole looks
    (None when it has none); with ``store``, what it learns is written to the hole
    looks file (live cameras only: a film of another board must not teach this one)."""
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.calibrate import hole_looks_path

    looks = getattr(reader, "hole_looks", None)
    if looks is None:
        return None
    path = hole_looks_path(config.vision.empty_board_file)

    def write(learnt: HoleLooks) -> None:
        learnt.save(path)  # its folder made if missing

    return LookTeacher(looks, store=write if store else None, on_learnt=on_learnt)
