"""Before the first board: what shows through a hole that cannot hold a disc is the room.

Until a board is committed, every frame teaches :class:`RoomLooks` the look of
the holes that gravity proves empty: each hole above the lowest one the
readers are :data:`EMPTY_SURE` nats sure is empty (no disc floats). A red
wall seen through a high hole from the first frame is then known for what it
is: these looks are the game filter's expectation before anything is
committed (:func:`~.belief.expectation_of`), so the reader holds empty every
hole that still looks as it did when it was proven empty, even once discs
stand below it and the readers, seeing red, would make a legal board of it.

Until then the frames also keep :class:`SteadyGrid`: what each hole held when
the readers were sure of it for a while. A disc seen so does not change
colour, and no disc comes to stand under one seen before it; when the holes
change so, what the readers took for a disc was the room seen through a hole
(a red wall read as the red disc a yellow then covers). From then on a
board the readers decide is a game first seen mid-game only if each of its
discs was seen to arrive (its hole held something else before, or came to
look otherwise for good while the readers stayed as sure of it: a red disc
landed on the room's red) or stands under one that was (gravity: it holds a
disc, whose own colour covers the room): a disc seen since first sight, its
hole unchanged, may be the room as well (:mod:`.belief`). To see a hole
change look, a held disc's look goes into the filter's expectation, compared
by the reader but not held (``Expectation.hold``): the readers are made no
surer of what they have been seeing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.reading import CLASS_NAMES, cell_name

EMPTY_SURE = 2.0  # nats of "empty" over both disc colours
LOOK_FEATURES = 12  # numbers of a hole's look (vision.cells.cell_features)


def proven_empty(log_probs: np.ndarray) -> np.ndarray:
    """(42,) True for each hole above its column's lowest surely empty hole."""
    empty_lead = log_probs[:, 0] - np.maximum(log_probs[:, 1], log_probs[:, 2])
    sure = empty_lead >= EMPTY_SURE
    proven = np.zeros(WIDTH * HEIGHT, bool)
    for column in range(WIDTH):
        for line in range(HEIGHT - 1, -1, -1):  # bottom row first (lines run top first)
            if sure[line * WIDTH + column]:
                proven[column:line * WIDTH:WIDTH] = True  # every hole above it
                break
    return proven


@dataclass(frozen=True)
class RoomLooks:
    """The look of each hole when gravity proved it empty (NaN where never)."""

    looks: np.ndarray

    @classmethod
    def empty(cls) -> RoomLooks:
        return cls(np.full((WIDTH * HEIGHT, LOOK_FEATURES), np.nan, np.float32))

    def learn(self, looks: np.ndarray, log_probs: np.ndarray) -> RoomLooks:
        """Remember the looks of the holes this frame proves empty, first sight kept."""
        new = proven_empty(log_probs) & np.isnan(self.looks[:, 0])
        if not new.any():
            return self
        learnt = self.looks.copy()
        learnt[new] = looks[new]
        return RoomLooks(learnt)


NONE = -1  # no class held (never sure for long enough)


def _cells(value: float) -> np.ndarray:
    return np.full(WIDTH * HEIGHT, value, np.float64)


@dataclass(frozen=True)
class SteadyGrid:
    """Each hole's class as the readers held it, sure for a while, before the first
    board: since when, a held disc's look (the game filter's expectation has the
    reader compare its hole with it), and whether it *arrived*: sure first a while
    after the board was first seen, held in place of another class, or its hole
    came to look otherwise for a while with the readers as sure of it (a disc
    landed on the room's colour). ``contradiction`` says what changed as no
    game's discs can ("" while nothing has)."""

    held: np.ndarray = field(default_factory=lambda: _cells(NONE))  # (42,) class
    held_since: np.ndarray = field(default_factory=lambda: _cells(np.inf))
    arrived: np.ndarray = field(default_factory=lambda: np.zeros(WIDTH * HEIGHT, bool))
    sure: np.ndarray = field(default_factory=lambda: _cells(NONE))  # this frame's sure class
    sure_since: np.ndarray = field(default_factory=lambda: _cells(np.inf))
    contradiction: str = ""
    began: float = np.inf  # when the board was first seen
    looks: np.ndarray = field(default_factory=lambda: np.full(
        (WIDTH * HEIGHT, LOOK_FEATURES), np.nan, np.float32))  # a held disc's look
    moved_since: np.ndarray = field(default_factory=lambda: _cells(np.inf))

    def see(self, log_probs: np.ndarray, now: float, margin: float, steady_s: float,
            looks: np.ndarray | None = None,
            still: np.ndarray | None = None) -> SteadyGrid:
        """Take one frame: a class the readers favour by ``margin`` nats in a hole for
        ``steady_s`` is held there (a disc with its ``looks``); a held disc
        recoloured, or a disc held in a hole held empty under one held since before
        it (and still seen), is the contradiction. ``still`` (42 bools, the reader's
        ``cell_held``): which holes still looked as expected."""
        sure = _sure_classes(log_probs, margin)
        began = min(self.began, now)
        same = sure == self.sure
        sure_since = np.where(same, self.sure_since, now)
        settled = (sure != NONE) & (sure != self.held) & (now - sure_since >= steady_s - 1e-9)
        moved = self._moved(sure, still)
        moved_since = np.where(moved, np.minimum(self.moved_since, now), np.inf)
        relooked = moved & (now - moved_since >= steady_s - 1e-9) & (looks is not None)
        if (not settled.any() and not relooked.any() and same.all() and began == self.began
                and np.array_equal(moved_since, self.moved_since)):
            return self
        held, held_since = self.held.copy(), self.held_since.copy()
        arrived = self.arrived | relooked | (settled & (
            (self.held != NONE) | (sure_since >= began + steady_s - 1e-9)))
        contradiction = self.contradiction
        for cell in np.flatnonzero(settled):
            contradiction = contradiction or _impossible(held, held_since, sure, int(cell),
                                                         int(sure[cell]), sure_since[cell])
            held[cell], held_since[cell] = sure[cell], sure_since[cell]
        held_since[relooked] = moved_since[relooked]
        kept_looks = self._looks_after(settled | relooked, held, looks)
        moved_since[settled | relooked] = np.inf
        return SteadyGrid(held, held_since, arrived, sure, sure_since, contradiction, began,
                          kept_looks, moved_since)

    def _moved(self, sure: np.ndarray, still: np.ndarray | None) -> np.ndarray:
        """(42,) held discs whose hole no longer looks as when held, the readers as sure
        of the disc."""
        if still is None:
            return np.zeros(WIDTH * HEIGHT, bool)
        known = ~np.isnan(self.looks[:, 0])
        moved: np.ndarray = known & ~np.asarray(still, bool) & (self.held > 0) & (sure == self.held)
        return moved

    def _looks_after(self, new: np.ndarray, held: np.ndarray,
                     looks: np.ndarray | None) -> np.ndarray:
        """The held discs' looks with the holes in ``new`` taken from ``looks`` (NaN for
        a hole held empty)."""
        discs = new & (held > 0) & (looks is not None)
        cleared = new & ~discs & ~np.isnan(self.looks[:, 0])
        if not (discs.any() or cleared.any()):
            return self.looks  # the same array: the filter's expectation stands
        kept = self.looks.copy()
        kept[cleared] = np.nan
        if looks is not None:
            kept[discs] = looks[discs]
        return kept

    def why_not(self, classes: np.ndarray, now: float) -> str:
        """Why a board of these (42,) classes, first seen mid-game, cannot stand on
        the table now given what the holes held ("" when a game allows it). Once the
        holes have changed as no disc does, the view shows the room in disc colours:
        a disc is believed only where it was seen to arrive, or where one above it
        was (it stands on something: the disc, whose colour covers the room)."""
        changing = (classes > 0) & (classes != self.held)
        for cell in np.flatnonzero(changing):
            why = _impossible(self.held, self.held_since, classes, int(cell),
                              int(classes[cell]), now)
            if why:
                return why
        arriving = changing & (self.held != NONE)  # a hole seen holding something else
        unseen = (classes > 0) & ~_under_an_arrival(classes > 0, arriving | self.arrived)
        if self.contradiction and unseen.any():
            first = int(np.flatnonzero(unseen)[0])
            return (f"{self.contradiction}, and the disc at {cell_name(first)} was never "
                    "seen to arrive")
        return ""


def _under_an_arrival(discs: np.ndarray, arrived: np.ndarray) -> np.ndarray:
    """(42,) True for each disc that arrived or stands under a disc that arrived."""
    proven = np.asarray(discs & arrived, bool)
    for column in range(WIDTH):
        lines = np.flatnonzero(proven[column::WIDTH])
        if len(lines):
            below = slice(column + lines[0] * WIDTH, None, WIDTH)  # it and every hole under it
            proven[below] |= discs[below]
    return proven


def _sure_classes(log_probs: np.ndarray, margin: float) -> np.ndarray:
    """(42,) each hole's class where the readers favour it by ``margin``, else NONE."""
    order = np.sort(log_probs, axis=1)
    best = np.argmax(log_probs, axis=1).astype(np.float64)
    return np.where(order[:, -1] - order[:, -2] >= margin, best, NONE)


def _impossible(held: np.ndarray, held_since: np.ndarray, now_classes: np.ndarray,
                cell: int, new: int, since: float) -> str:
    """What is impossible in hole ``cell`` coming to hold class ``new`` (since
    ``since``), given what the holes held and hold now: "" when a game allows it."""
    column = cell % WIDTH
    old = int(held[cell])
    if old > 0 and new > 0 and new != old:
        return f"a {CLASS_NAMES[old]} disc seen at {cell_name(cell)} became {CLASS_NAMES[new]}"
    if new > 0 and old == 0:  # a hole seen empty ...
        above = slice(column, cell, WIDTH)
        kept = (held[above] > 0) & (now_classes[above] == held[above])
        if np.any(kept & (held_since[above] < since)):
            return f"a disc appeared at {cell_name(cell)} under one seen before it"
    return ""
