"""This frame's own looks as a doubt: a hole read unlike the holes it looks like is not sure.

The generic readers (:mod:`.combine`) judge each hole alone. A person judges
it beside the others: a disc that looks just like the pink discs the readers
are sure of, and nothing like any empty hole, is not an empty hole because
a network said so. Reading it empty deletes a disc the camera sees (the
wrong board of the issue on reading any board). This stage guards that one
mistake, within one frame:

1. the *sure* holes of each kind are those the readers give at least
   :data:`SURE` (none that a hand covers);
2. for every hole read empty, its look
   (:func:`~firmware_py.vision.cells.cell_features`, the mean Lab colour of
   four rings) is compared with the nearest sure empty hole and the nearest
   sure red and yellow disc (itself left out: a hole does not vouch for
   itself);
3. a hole whose nearest sure disc lies within :data:`ALIKE` (as alike as
   two discs of one colour usually are) and at most :data:`NEARER` times as
   far as its nearest sure empty hole is *doubted*: that disc is made as
   probable as the empty hole, so the decision (:mod:`.decide`) sees two
   equal boards and refuses, naming the cell.

The same for a disc's colour, the other mistake of that issue (a disc read
in a colour it does not have): discs that look alike are of one colour. A
hole read as a disc whose nearest disc read the *other* colour lies within
:data:`ALIKE` and at most :data:`NEARER` times as far as its nearest disc
read its own colour is doubted too: its two colours tie. Here every disc
read so counts as an example, sure or not: two orange discs alone on a
board, one read red (0.90) and one yellow (0.86), 14 apart, are a board
the readers contradict, not a red and a yellow (an illegal Yellow-and-Yellow
board was read as the legal Red-and-Yellow so).

Holes read as discs are not doubted for looking like the empty holes: a
disc that looks like the empty holes is common and harmless (a yellow disc
beside a beige wall seen through the empty holes: in one live game of the
random views 88 frames were doubted so, and the 20 random views showed 5
positions fewer, none of them wrong before).

It only ever takes sureness away: a doubted hole ties, it is never turned
into the disc it looks like, so a board read before is read no more surely
and an illegal board is never made legal by it (the grid seen and the rival
tie, and an illegal grid as probable as the board read is no less likely
for being illegal: the decision refuses). Later stages may break the tie
with what they know of the hole: the installation's learnt looks
(:mod:`.hole_looks`), the game's expectation (:mod:`.expectation`).

What it cannot see: two misread discs that look alike vouch for each
other, and a disc unlike every sure hole (in light no other disc is in) is
left to the readers.

The constants were chosen on the sources without pink and orange pieces
(``tools/bench/frame_doubt.py``; docs/vision.md): the nearest sure hole of
the same kind lies within 25 (discs) and 40 (empty holes, whose rooms
differ) for 95 % of the holes read right, holes of different kinds are 52
apart or more for 99 %, and at these values no board read right on those
sources is refused (nor up to ``ALIKE`` 60; ``NEARER`` 0.6 refuses one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from firmware_py.vision.reading import CLASS_NAMES

SURE = 0.9  # the readers' probability that makes a hole a sure example of its kind
ALIKE = 30.0  # Lab distance over the 12 ring features: as alike as two discs of a colour
NEARER = 0.5  # ... and at most half as far as the nearest sure empty hole
BEHIND = 1e-12  # nats: a tie, far under decide.TIE (1e-9) even summed over 42 holes
NOT_DOUBTED = -1
EMPTY_KIND = 0  # an empty hole's index in :data:`~.reading.CLASSES`


@dataclass(frozen=True)
class Doubted:
    """The log-probabilities after the doubt, and for each hole the disc it looks like
    where it was doubted (an index into :data:`~.reading.CLASSES`), else
    :data:`NOT_DOUBTED`."""

    log_probs: np.ndarray  # (42, 3)
    looks_like: np.ndarray  # (42,) ints

    def note(self, cell: int) -> str:
        """For a doubted ``cell``: "looks like this frame's red discs" where it was read
        empty, "looks like this frame's discs read yellow" where it was read red; else
        ""."""
        kind = int(self.looks_like[cell])
        if kind == NOT_DOUBTED:
            return ""
        if int(np.argmax(self.log_probs[cell])) == EMPTY_KIND:
            return f"looks like this frame's {CLASS_NAMES[kind]} discs"
        return f"looks like this frame's discs read {CLASS_NAMES[kind]}"


def doubt(log_probs: np.ndarray, features: np.ndarray,
          covered: np.ndarray | None = None) -> Doubted:
    """Tie each hole read empty that looks like the sure discs (see the module
    docstring) with that disc; ``log_probs`` (42, 3) normalised per hole,
    ``features`` (42, 12), ``covered`` (42 bools: no opinion, no example)."""
    log_probs = np.asarray(log_probs, np.float64)
    distances, shown = _distances(features, covered)
    to_empty, to_disc, disc = _empty_holes_to_sure(log_probs, distances, shown)
    looks_like = np.where((to_disc <= ALIKE) & (to_disc <= NEARER * to_empty), disc,
                          NOT_DOUBTED)
    looks_like = np.where(looks_like == NOT_DOUBTED,
                          _discs_read_apart(log_probs, distances, shown), looks_like)
    doubted = looks_like != NOT_DOUBTED
    if not doubted.any():
        return Doubted(log_probs, looks_like)
    tied = log_probs.copy()
    rows = np.flatnonzero(doubted)
    read = log_probs.argmax(axis=1)
    # as probable as what was read, but for BEHIND: a tie to the decision, and what was
    # read stays what is seen (a yellow is not shown as red)
    tied[rows, looks_like[rows]] = tied[rows, read[rows]] - BEHIND
    tied -= np.logaddexp.reduce(tied, axis=1, keepdims=True)
    return Doubted(tied, looks_like)


def _discs_read_apart(log_probs: np.ndarray, distances: np.ndarray,
                      shown: np.ndarray) -> np.ndarray:
    """(42,) for each hole read as a disc whose nearest disc read the other colour
    lies within :data:`ALIKE` and at most :data:`NEARER` times as far as its nearest
    disc read its own colour, that other colour; else :data:`NOT_DOUBTED`."""
    read = np.asarray(log_probs).argmax(axis=1)
    apart = np.full(len(read), NOT_DOUBTED)
    for kind, other in ((1, 2), (2, 1)):
        mine, theirs = shown & (read == kind), shown & (read == other)
        if not (mine.any() and theirs.any()):
            continue
        to_theirs = distances[:, theirs].min(axis=1)
        to_mine = distances[:, mine].min(axis=1)  # inf for a colour's only disc
        alike = mine & (to_theirs <= ALIKE) & (to_theirs <= NEARER * to_mine)
        apart[alike] = other
    return apart


def _distances(features: np.ndarray, covered: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(42, 42) the looks' distances (inf on the diagonal and where a look is not
    measured) and (42,) the holes not covered."""
    features = np.asarray(features, np.float64)
    shown = np.ones(len(features), bool) if covered is None else ~np.asarray(covered, bool)
    distances = np.linalg.norm(features[:, None, :] - features[None, :, :], axis=2)
    distances[~np.isfinite(distances)] = np.inf  # a look not measured is like nothing
    np.fill_diagonal(distances, np.inf)
    return distances, shown


def empty_holes_to_sure(log_probs: np.ndarray, features: np.ndarray,
                        covered: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(42,) each hole's distance to the nearest sure empty hole and to the nearest sure
    disc, and that disc's kind; the distance to a disc is inf for the holes not read
    empty or covered (never doubted). Sure: not covered, read at least :data:`SURE`;
    a hole is never its own example (inf where a kind has no other)."""
    return _empty_holes_to_sure(log_probs, *_distances(features, covered))


def _empty_holes_to_sure(log_probs: np.ndarray, distances: np.ndarray, shown: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sure = (np.exp(log_probs) >= SURE) & shown[:, None]
    nearest = np.full(log_probs.shape, np.inf)
    for kind in range(log_probs.shape[1]):
        if sure[:, kind].any():
            nearest[:, kind] = distances[:, sure[:, kind]].min(axis=1)
    read_empty = shown & (log_probs.argmax(axis=1) == EMPTY_KIND)
    to_disc = np.where(read_empty, nearest[:, 1:].min(axis=1), np.inf)
    return nearest[:, EMPTY_KIND], to_disc, 1 + nearest[:, 1:].argmin(axis=1)
