"""The public solver API (SPEC §2 scores, 1-based columns).

From the repository's root (where ``books/`` is):

>>> solver = Solver(tt_mb=64, book="books/book12.c4b")
>>> solver.solve("4453")                  # exact score for the side to move (Red)
-2
>>> solver.analyze("4453")                # score of each column, None when full
[-5, -5, -2, -3, -4, -2, -2]
>>> solver.best("4453").serial            # "NxMM" for the robot link
'3-35'


A position is a move string, a :class:`c4game.board.Board` or a
``(current, mask)`` bitboard pair. Invalid positions raise
:class:`~c4game.exc.IllegalMoveError` / :class:`~c4game.exc.InvalidGridError`,
finished ones :class:`~c4game.exc.GameOverError`. The search runs in C with
the GIL released; :meth:`Solver.cancel` (from any thread) makes the running
call raise :class:`~c4game.exc.SolveCancelled`. One thread uses a solver
at a time. The transposition table persists across calls; :meth:`Solver.reset`
clears it.
"""

from __future__ import annotations

import logging
import os
import random
import time
from dataclasses import dataclass
from typing import Protocol

from c4game.board import Board
from c4game.exc import BookError, GameOverError, InvalidGridError, SolveCancelled
from c4game.scores import pick_centre_first, plies_to_end, serial_answer
from cython_solver.book import BookFile
from cython_solver.engine import Engine
from cython_solver.parallel import ColumnTests, each_column, root_split
from cython_solver.positions import check_bitboards, parse_moves

log = logging.getLogger(__name__)

Position = str | Board | tuple[int, int]
TIE_BREAKS = ("centre", "random")
MAX_THREADS = 8
AUTO_TT_MB = (8, 64)  # the table sized from memory: at least, at most (MB)
MEMINFO = "/proc/meminfo"
PARALLEL_EMPTY = 12     # search columns with threads only when this many cells are empty


def default_threads() -> int:
    """Threads for :meth:`Solver.analyze`: the usable cores, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def auto_tt_mb(meminfo: str | os.PathLike[str] = MEMINFO) -> int:
    """The table for this machine (``[solver] tt_mb = 0``): an eighth of the memory
    available, rounded down to a power of two, 8 to 64 MB (64 when unknown). A 512 MB
    Pi Zero leaves the OS its share; a Pi 4 gets the full 64."""
    low, high = AUTO_TT_MB
    try:
        with open(meminfo, encoding="ascii") as lines:
            kb = next(int(line.split()[1]) for line in lines
                      if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return high
    share = max(kb // 1024 // 8, 1)
    return max(low, min(high, 1 << (share.bit_length() - 1)))


class SolverSettings(Protocol):
    """What :meth:`Solver.from_config` reads of a ``[solver]`` section (0: automatic)."""

    @property
    def tt_mb(self) -> int: ...
    @property
    def use_book(self) -> bool: ...
    @property
    def book_path(self) -> os.PathLike[str]: ...
    @property
    def threads(self) -> int: ...


@dataclass(frozen=True)
class Answer:
    """The full recommendation for a position.

    ``column`` is the chosen optimal column (1-7), ``score`` its SPEC §2 score,
    ``plies`` the plies to the end with perfect play (the recommended disc
    included), ``best_columns`` every optimal column (ascending), ``scores`` the
    score of each column (``None`` when full) when it was asked for, else
    ``None``, ``nodes`` the nodes searched, ``ms`` the wall time and ``n_discs``
    the discs on the board.
    """

    column: int
    score: int
    plies: int
    best_columns: tuple[int, ...]
    scores: tuple[int | None, ...] | None
    nodes: int
    ms: float
    n_discs: int

    @property
    def serial(self) -> str:
        """The robot answer ``NxMM`` (SPEC §3)."""
        return serial_answer(self.column, self.score, self.n_discs)


class Solver:
    """A perfect Connect Four solver with an optional 12-disc opening book.

    ``tt_mb`` sizes the transposition table (1-4096 MB; the table uses the
    largest power of two of 8-byte entries that fits). ``book`` is the path of
    a book built by ``c4pi book build``, or ``None``. A book that fails to load
    is logged as an ERROR and leaves the solver working without it (slower);
    :attr:`book_status` says why.
    ``threads`` (default: the cores, at most 4) search the columns of
    :meth:`analyze` and :meth:`best` in parallel, sharing the table.
    """

    def __init__(self, tt_mb: int = 64, book: str | os.PathLike[str] | None = None,
                 threads: int | None = None) -> None:
        if threads is not None and not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be 1 to {MAX_THREADS}, got {threads}")
        self.threads = threads or default_threads()
        self._engine = Engine(tt_mb)
        self._book: BookFile | None = None
        self._nodes = 0
        self.book_status = "no book"
        if book is not None:
            try:
                self._book = BookFile(book)
            except BookError as error:
                self.book_status = f"book not loaded: {error}"
                log.error("opening book not loaded: %s — solving without the book: early "
                          "positions take seconds instead of milliseconds (rebuild it with "
                          "'c4pi book build' or run ./setup.sh again)", error)
            else:
                self._engine.set_book(self._book, self._book.index, self._book.keys,
                                      self._book.scores, self._book.header.bucket_bits,
                                      self._book.ply, self._book.shallow_keys,
                                      self._book.shallow_scores, self._book.shallow_ply)
                self.book_status = self._book.describe()

    @classmethod
    def from_config(cls, section: SolverSettings, *, use_book: bool | None = None,
                    tt_mb: int | None = None) -> Solver:
        """A solver set up by a ``[solver]`` config section (read by its fields: the
        solver imports nothing of the appliance); ``use_book`` and ``tt_mb`` override it
        (command-line flags)."""
        with_book = section.use_book if use_book is None else use_book
        book = section.book_path if with_book else None
        return cls(tt_mb=tt_mb or section.tt_mb or auto_tt_mb(), book=book,
                   threads=section.threads or None)

    # ------------------------------------------------------------ properties

    @property
    def has_book(self) -> bool:
        return self._book is not None

    @property
    def nodes(self) -> int:
        """Nodes searched by the last solve/analyze/best call."""
        return self._nodes

    @property
    def tt_mb(self) -> int:
        return self._engine.tt_mb

    # ------------------------------------------------------------ control

    def cancel(self) -> None:
        """Stop the running search (thread-safe); that call raises SolveCancelled.

        Each public call clears the request when it starts, so a cancel that
        arrives while no search runs has no effect on the next one.
        """
        self._engine.cancel()

    def reset(self) -> None:
        """Clear the transposition table."""
        self._engine.reset()

    # ------------------------------------------------------------ searches

    def solve(self, position: Position) -> int:
        """The exact score of the side to move (SPEC §2)."""
        cur, mask, n = bitboards(position)
        self._engine.start()
        try:
            score = self._engine.solve(cur, mask, n)
        finally:
            self._nodes = self._engine.nodes
        self._raise_if_cancelled(position)
        return score

    def analyze(self, position: Position) -> list[int | None]:
        """The score of playing each column 1-7, ``None`` for a full column."""
        cur, mask, n = bitboards(position)
        self._engine.start()
        try:
            if self._threads_for(n) > 1:
                scores, todo = self._engine.plan(cur, mask, n)
                found = each_column(self._engine, todo, self.threads,
                                     lambda slot, col: self._engine.worker_child_score(
                                         slot, cur, mask, n, col))
                for col, score in zip(todo, found, strict=False):
                    scores[col] = score
            else:
                scores = self._engine.analyze(cur, mask, n)
        finally:
            self._nodes = self._engine.nodes
        self._raise_if_cancelled(position)
        return scores

    def best(self, position: Position, tie_break: str = "centre",
             rng: random.Random | None = None, *, scores: bool = False) -> Answer:
        """The recommended column with its score, plies to end and all optimal columns.

        ``tie_break`` "centre" picks 4, 3, 5, 2, 6, 1, 7 among equal columns;
        "random" picks uniformly with ``rng`` (default: the random module).
        Without ``scores`` the position's exact score is searched once and each
        column is then only tested for reaching it (one null-window search
        each, far cheaper than its exact score); with ``scores`` every column's
        exact score is searched too (:meth:`analyze`) and kept in the answer.
        """
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
        start = time.perf_counter()
        cur, mask, n = bitboards(position)
        column_scores = None
        if scores:
            column_scores = tuple(self.analyze((cur, mask)))
            top = max(score for score in column_scores if score is not None)
            best = tuple(col + 1 for col, score in enumerate(column_scores) if score == top)
        else:
            top, best = self._optimal_columns(position, cur, mask, n)
        column = ((rng or random).choice(best) if tie_break == "random"
                  else pick_centre_first(best))
        return Answer(column=column, score=top, plies=plies_to_end(top, n), best_columns=best,
                      scores=column_scores, nodes=self._nodes,
                      ms=(time.perf_counter() - start) * 1000.0, n_discs=n)

    def _optimal_columns(self, position: Position, cur: int, mask: int,
                         n: int) -> tuple[int, tuple[int, ...]]:
        """The exact score and every column (1-7) that reaches it."""
        engine = self._engine
        engine.start()
        try:
            known, todo = engine.plan(cur, mask, n)
            wins = [col for col, score in enumerate(known) if score is not None]
            cancelled = False
            if wins:                    # an immediate win is the only way to the top score
                top, optimal = known[wins[0]], wins
            elif self._threads_for(n) > 1:
                found = root_split(engine, cur, mask, n, todo, self.threads)
                cancelled = found is None
                top, optimal = found or (0, [])
            else:
                top = engine.solve(cur, mask, n)
                bounds = {} if engine.aborted else ColumnTests(
                    engine, (cur, mask, n), [(col, top) for col in todo], 1).run()
                cancelled = None in bounds.values()
                optimal = [col for (col, _), bound in bounds.items()
                           if bound is not None and bound >= top]
        finally:
            self._nodes = engine.nodes
        self._raise_if_cancelled(position, cancelled)
        return top, tuple(sorted(col + 1 for col in optimal))

    def _threads_for(self, n: int) -> int:
        """Threads worth starting for the columns of a position with ``n`` discs."""
        return self.threads if 42 - n >= PARALLEL_EMPTY else 1

    def _raise_if_cancelled(self, position: Position, cancelled: bool = False) -> None:
        """Raise SolveCancelled when the search was cancelled (``cancelled``: the
        caller saw it stop short even though no search node noticed)."""
        if cancelled or self._engine.aborted:
            raise SolveCancelled(f"search of {describe(position)} cancelled after "
                                 f"{self._nodes} nodes")


def bitboards(position: Position) -> tuple[int, int, int]:
    """``(current, mask, n_discs)`` of a playable position; raises the board
    model's errors for invalid or finished positions."""
    if isinstance(position, str):
        parsed = parse_moves(position)
        if parsed is None:                       # let the board model say what is wrong
            Board.from_moves(position).require_playable()
            raise InvalidGridError(f"moves {position!r} are not a playable position")
        return parsed
    if isinstance(position, Board):
        position.require_playable()
        cur, mask = position.bitboards()
        return cur, mask, mask.bit_count()
    if isinstance(position, tuple) and len(position) == 2 and all(
            isinstance(value, int) for value in position):
        cur, mask = position
        if not (0 <= cur < 1 << 64 and 0 <= mask < 1 << 64) or not check_bitboards(cur, mask):
            _explain_bitboards(cur, mask)
        return cur, mask, mask.bit_count()
    raise TypeError(f"a position is a move string, a Board or a (current, mask) pair, "
                    f"got {position!r}")


def _explain_bitboards(cur: int, mask: int) -> None:
    """Raise the precise error for a bad ``(current, mask)`` pair."""
    if not (0 <= cur < 1 << 64 and 0 <= mask < 1 << 64) or cur & ~mask:
        raise InvalidGridError(f"bitboards ({cur:#x}, {mask:#x}): current must be a subset "
                               "of mask, both 64-bit")
    board = Board.from_bitboards(cur, mask)     # floating discs, sentinel bits
    if cur.bit_count() != mask.bit_count() // 2:
        raise InvalidGridError(f"bitboards ({cur:#x}, {mask:#x}): current must hold the "
                               f"discs of the side to move ({mask.bit_count() // 2}), "
                               f"not {cur.bit_count()}")
    Board.from_grid(board.grid_lines()).require_playable()
    raise GameOverError(f"bitboards ({cur:#x}, {mask:#x}) are not a playable position")


def describe(position: Position) -> str:
    """A short text naming a position in messages."""
    if isinstance(position, str):
        return f"moves {position!r}"
    if isinstance(position, Board):
        return f"moves {position.moves!r}" if position.moves is not None else "a board"
    return f"bitboards {position!r}"
