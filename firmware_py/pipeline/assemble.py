"""Build the live pipeline's parts from the config (used by ``watch`` and ``run``)."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from firmware_py.config import Config
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.pipeline.runtime import SyncPort, WorkerPort

if TYPE_CHECKING:  # the wiring's parts, imported where they are made
    from cython_solver import Solver
    from firmware_py.frames import FrameSource
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.board_looks import BoardLooks
    from firmware_py.vision.empty_board import EmptyBoard
    from firmware_py.vision.reader import BoardReader

Stored = TypeVar("Stored")

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
                stored_empty_board: bool = True) -> BoardReader:
    """A :class:`BoardReader`; a source's own intrinsics fill in unset ``[camera]`` ones.

    With ``[vision] remember_empty_board`` the reader gets this installation's
    learnt looks (:mod:`~firmware_py.vision.board_looks`), and with
    ``stored_empty_board`` too the empty board ``c4pi calibrate`` stored and the
    looks learnt before are loaded; a bad file is reported in the log and the
    reader starts without it.
    """
    from firmware_py.vision.board_looks import BoardLooks
    from firmware_py.vision.reader import BoardReader

    camera = config.camera
    own = getattr(source, "intrinsics", None)
    if own is not None and not (camera.fx and camera.fy):
        camera = replace(camera, fx=own.fx, fy=own.fy, cx=own.cx, cy=own.cy,
                         distortion=list(own.distortion))
    reader = BoardReader.from_config(config.vision, camera, first=config.game.first)
    if stored_empty_board and config.vision.remember_empty_board:
        stored = load_empty_board(config)
        if stored is not None:
            reader.empty_board = stored
    if config.vision.remember_empty_board:
        learnt = load_board_looks(config) if stored_empty_board else None
        reader.board_looks = learnt or BoardLooks()
    return reader


def load_board_looks(config: Config) -> BoardLooks | None:
    """The looks this installation learnt before, or None (absent, or bad: logged)."""
    from firmware_py.vision.board_looks import BoardLooks
    from firmware_py.vision.calibrate import board_looks_path

    looks = _load_stored(board_looks_path(config.vision.empty_board_file), BoardLooks.load,
                         "learning them again")
    if looks is not None:
        log.info("learnt board looks: %s", looks.summary())
    return looks


def teaches_this_board(source: FrameSource) -> bool:
    """Whether what ``source`` shows may be stored as this installation's board: a live
    camera's frames, not a file's nor the simulated table's (the demo)."""
    return bool(getattr(source, "live", False)) and getattr(source, "name", "") != "sim"


def make_teacher(config: Config, reader: BoardReader, *, store: bool,
                 on_learnt: Callable[[BoardLooks], None] | None = None) -> LookTeacher | None:
    """A :class:`~firmware_py.pipeline.teach.LookTeacher` for ``reader``'s empty board and
    learnt looks (None when it has neither); with ``store``, the looks it learns are
    written beside the empty board (live cameras only: a film of another board must
    not teach this one)."""
    from firmware_py.pipeline.teach import LookTeacher
    from firmware_py.vision.calibrate import board_looks_path

    looks = getattr(reader, "board_looks", None)
    empty_board = getattr(reader, "empty_board", None)
    if looks is None and empty_board is None:
        return None
    path = board_looks_path(config.vision.empty_board_file)

    def write(learnt: BoardLooks) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        learnt.save(path)

    return LookTeacher(looks, empty_board=empty_board, store=write if store else None,
                       on_learnt=on_learnt)


def load_empty_board(config: Config) -> EmptyBoard | None:
    """The empty board ``c4pi calibrate`` stored, or None (absent, or bad: logged)."""
    from firmware_py.vision.calibrate import empty_board_path
    from firmware_py.vision.empty_board import EmptyBoard

    board = _load_stored(empty_board_path(config.vision.empty_board_file), EmptyBoard.load,
                         "starting without it (run c4pi calibrate again)")
    if board is not None:
        log.info("empty board calibrated %s", board.calibrated_at or "-")
    return board


def _load_stored(path: Path, load: Callable[[Path], Stored], otherwise: str) -> Stored | None:
    """``load(path)``, or None when the file is absent or bad (a bad one logged, with
    what happens ``otherwise``)."""
    from c4game.exc import VisionError

    if not path.is_file():
        return None
    try:
        stored = load(path)
    except VisionError as error:
        log.error("%s: %s", error, otherwise)
        return None
    log.info("read %s", path)
    return stored
