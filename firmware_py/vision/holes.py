"""The board found by its holes: the 7 x 6 lattice without markers (#55).

A Connect Four board is a flat face with a 7 x 6 lattice of equal round
holes; a hole with a disc in it is just as round. One straight line of
stages, on a copy of the frame at most :data:`WORK_PX` on its long side:

1. **round things** (:func:`round_things`): closed contours of adaptive
   thresholds (grey, and Lab's a and b, both polarities) that are round and
   fill their ellipse; one per place.
2. **lattice** (:func:`fit_lattice`): every round thing in turn proposes a
   lattice from its nearest neighbour across (a column step) and down (a row
   step); the proposal that puts the most round things on the lattice
   points of one 7 x 6 block through that round thing wins (a finer
   lattice through glints between the holes may hold more in all, but
   fewer in a block of the board's size than the board's own lattice,
   where that is proposed), and a homography from lattice
   (i, j) to the image is refitted on them, grown outwards from that round
   thing (1.5 steps, then 2.5, ...: an oblique view bends the far rows away
   from a flat extrapolation). Columns
   run across the image and rows down it: the board stands upright in the
   picture.
3. **window** (:func:`best_window`): the 7 x 6 block of lattice points that
   holds the most round things.
4. **checks** (:func:`lattice_problem`): the lattice is refused unless it is
   sure: at least :data:`MIN_HOLES` round things on its 42 points, a lead of
   :data:`MIN_LEAD` over the block one column or row off (a lattice off by
   one reads a perfectly legal wrong board), its round things within
   :data:`MAX_RESIDUAL` of a flat lattice, no line of round things just
   past its edges (a larger grid, a shelf of round things), round things
   that fit between their neighbours (:func:`_fit_problem`: a finer lattice
   through glints between the holes does not), and no second lattice of
   that size elsewhere (a second board, a screen showing one).

Coordinates: lattice (i, j) = (column - 1, 6 - row) of the found board, so
(0, 0) is the top-left hole and (6, 5) the bottom-right one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.geometry import PX_PER_PITCH

WORK_PX = 800  # the frame is searched at most this large (long side)
MIN_HOLES = 30  # of the 42 lattice points, at least this many must hold a round thing
MIN_LEAD = 4  # round things the block must hold over any block one column or row off
EDGE_MAX = 3  # round things a line just past the block may hold
ON_LATTICE = 0.22  # a round thing within this many pitches of a lattice point is on it
MAX_RESIDUAL = 0.12  # pitches: the mean distance of the block's round things from the fit
ROUNDNESS = 0.7  # 4 pi area / perimeter^2 of a round thing's contour
FILL = 0.85  # share of its fitted ellipse a round thing's contour fills
MAX_ELONGATION = 2.6  # longest over shortest axis of a round thing's ellipse (a hole at 45° of
# pitch near a wide lens's edge: 2.2)
SIZE_RANGE = (0.012, 0.12)  # a round thing's diameter, as a share of the frame's short side
BLOCKS = (31, 61)  # adaptive threshold neighbourhoods, px at the working size
GROWTH = (1.5, 2.5, 3.5, 5.0, 7.0, 10.0, 14.0)  # lattice steps from the anchor, fit by fit
MIN_NEAR = 6  # round things the first fit (around the anchor) needs
FIT_PERCENTILE = 75.0  # of the block's round things: that many fit between their neighbours
# (42, 2) the holes' lattice points (column, row from the top), top row first
HOLE_POINTS = np.array([(i, j) for j in range(HEIGHT) for i in range(WIDTH)], float)


@dataclass(frozen=True)
class Lattice:
    """Where the 7 x 6 holes are in a frame, or why they were not found."""

    ok: bool
    reason: str = ""
    lattice_to_image: np.ndarray | None = None  # 3 x 3: (column - 1, 6 - row) -> frame px
    holes: int = 0  # lattice points of the block holding a round thing (of 42)
    runner_up: int = 0  # the most any block one column or row off holds
    residual_pitch: float = 0.0  # mean distance of those round things from their points

    def hole_centres(self) -> np.ndarray:
        """(42, 2) frame pixels of the hole centres, top row first, left to right."""
        if self.lattice_to_image is None:
            raise ValueError("no lattice was found: no hole centres")
        return _apply(self.lattice_to_image, HOLE_POINTS)

    def plane_to_image(self) -> np.ndarray:
        """The SPEC §5 warp plane -> frame pixels (hole (c, r) at (80c + 40, 80(6 - r) + 80))."""
        if self.lattice_to_image is None:
            raise ValueError("no lattice was found: no plane")
        scale = 1.0 / PX_PER_PITCH
        plane_to_lattice = np.array([[scale, 0.0, -120.0 * scale],
                                     [0.0, scale, -80.0 * scale], [0.0, 0.0, 1.0]])
        return np.asarray(self.lattice_to_image @ plane_to_lattice)


def find_lattice(frame: np.ndarray) -> Lattice:
    """The board's hole lattice in a BGR frame, or a refusal that says why."""
    scale = min(1.0, WORK_PX / max(frame.shape[:2]))
    small = frame if scale == 1.0 else cv2.resize(frame, None, fx=scale, fy=scale,
                                                  interpolation=cv2.INTER_AREA)
    things = round_things(small)
    lattice = lattice_in(things[:, :2], things[:, 2:])
    if lattice.lattice_to_image is None:
        return lattice
    to_frame = np.diag([1.0 / scale, 1.0 / scale, 1.0])
    return replace(lattice, lattice_to_image=to_frame @ lattice.lattice_to_image)


def lattice_in(points: np.ndarray, shapes: np.ndarray | None = None) -> Lattice:
    """The checked lattice among ``points`` (N, 2), in their pixels; with the round
    things' ``shapes`` (N, 3: their ellipses' xx, xy, yy, :func:`round_things`) it is
    refused when they do not fit between its points."""
    if shapes is not None and np.shape(shapes) != (len(points), 3):
        raise ValueError(f"expected ({len(points)}, 3) shapes, got {np.shape(shapes)}")
    fitted = fit_lattice(points)
    if fitted is None:
        return Lattice(False, f"no lattice of round holes ({len(points)} round things seen)")
    homography, coords, on = fitted
    origin, holes, runner_up = best_window(coords[on])
    block = on & _in_block(coords, origin)
    lattice_points = np.round(coords[block])
    refit, _ = cv2.findHomography(lattice_points - origin, points[block], 0)
    if refit is None or abs(np.linalg.det(refit)) < 1e-9:
        return Lattice(False, "the holes fit no flat lattice")
    residual = _residual_pitch(refit, lattice_points - origin, points[block])
    lattice = Lattice(True, "", refit, holes, runner_up, residual)
    problem = (lattice_problem(lattice, coords[on], origin)
               or (_fit_problem(refit, lattice_points - origin, shapes[block])
                   if shapes is not None else "")
               or second_lattice_problem(points[~block]))
    return replace(lattice, ok=False, reason=problem) if problem else lattice


def _fit_problem(homography: np.ndarray, lattice: np.ndarray, shapes: np.ndarray) -> str:
    """Why the round things refuse the lattice they sit on: a hole fits between its
    neighbours, so seen in lattice units (through the homography's local affine map
    J at the lattice point, a centred difference: unbiased by the perspective) it is
    less than one step across along each axis. A lattice whose round things mostly
    are not (more than a quarter of them, :data:`FIT_PERCENTILE`: a merged blob may
    not be) is finer than the board's, its steps running through glints or stickers
    between the holes. On the 33 real photos the round things are 0.59-0.83 of a
    step across (median; the 75th percentile at most 0.86); on a lattice of half the
    step a hole is twice that along one axis."""
    across = (_apply(homography, lattice + (0.5, 0.0))
              - _apply(homography, lattice - (0.5, 0.0)))
    down = _apply(homography, lattice + (0.0, 0.5)) - _apply(homography, lattice - (0.0, 0.5))
    det = across[:, 0] * down[:, 1] - across[:, 1] * down[:, 0]  # px^2 per lattice cell
    xx, xy, yy = np.asarray(shapes, float).T

    def squared_width(step: np.ndarray) -> np.ndarray:  # (J^-1 S J^-T) on one axis, x det^2
        return np.asarray(step[:, 1] ** 2 * xx - 2 * step[:, 0] * step[:, 1] * xy
                          + step[:, 0] ** 2 * yy)

    with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate map: inf, wide
        widths = 2 * np.sqrt(np.maximum(squared_width(down), squared_width(across))) / np.abs(det)
    wide = float(np.percentile(np.nan_to_num(widths, nan=np.inf), FIT_PERCENTILE))
    if wide >= 1.0:
        return f"the round things are wider than the lattice's step ({wide:.2f} of it)"
    return ""


def second_lattice_problem(others: np.ndarray) -> str:
    """Why the round things outside the block refuse it: a second lattice as large."""
    second = fit_lattice(others) if len(others) >= MIN_HOLES else None
    if second is not None and best_window(second[1][second[2]])[1] >= MIN_HOLES:
        return "two lattices of holes in view (a second board?)"
    return ""


def lattice_problem(lattice: Lattice, coords: np.ndarray, origin: np.ndarray) -> str:
    """Why a found lattice is not sure enough to read ("" when it is)."""
    if lattice.holes < MIN_HOLES:
        return f"only {lattice.holes} of 42 holes found (need {MIN_HOLES})"
    if lattice.holes - lattice.runner_up < MIN_LEAD:
        return (f"the lattice could be one column or row off ({lattice.holes} holes against "
                f"{lattice.runner_up})")
    if lattice.residual_pitch > MAX_RESIDUAL:
        return f"the holes stray {lattice.residual_pitch:.2f} pitch from a flat lattice"
    edge = _edge_count(coords, origin)
    if edge > EDGE_MAX:
        return f"round things go on past the 7 x 6 grid ({edge} on one line beyond an edge)"
    return ""


def round_things(image: np.ndarray) -> np.ndarray:
    """(N, 5) the round blobs of a BGR image, one per place: centre (x, y) and shape
    (xx, xy, yy: the fitted ellipse as the matrix S of x^T S^-1 x <= 1, px^2)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    short = min(grey.shape)
    area_range = ((short * SIZE_RANGE[0]) ** 2, (short * SIZE_RANGE[1]) ** 2)
    found = [blob for plane in (grey, lab[:, :, 1], lab[:, :, 2]) for block in BLOCKS
             for kind in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV)
             for blob in _round_contours(cv2.adaptiveThreshold(
                 plane, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind, block, 0), area_range)]
    return _one_per_place(np.array(found).reshape(-1, 6))


def _round_contours(binary: np.ndarray,
                    area_range: tuple[float, float]) -> list[tuple[float, ...]]:
    """(x, y, radius, xx, xy, yy) of the round, filled contours of a binary image: the
    fitted ellipse's centre, mean semi-axis and shape (:func:`round_things`)."""
    blobs = []
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        area = cv2.contourArea(contour)
        if not area_range[0] < area < area_range[1] or len(contour) < 5:
            continue
        if 4 * np.pi * area / cv2.arcLength(contour, True) ** 2 < ROUNDNESS:
            continue
        (x, y), (a, b), angle = cv2.fitEllipse(contour)
        if min(a, b) <= 0 or max(a, b) / min(a, b) > MAX_ELONGATION:
            continue
        if area / (np.pi * a * b / 4) >= FILL:
            blobs.append((x, y, (a + b) / 4, *_ellipse_shape(a / 2, b / 2, angle)))
    return blobs


def _ellipse_shape(half_a: float, half_b: float, angle_deg: float) -> tuple[float, ...]:
    """(xx, xy, yy) of S = R diag(half_a^2, half_b^2) R^T for an ellipse turned by
    ``angle_deg`` (OpenCV's): the half-width of its shadow on a line of unit direction
    u is sqrt(u^T S u)."""
    cos, sin = np.cos(np.deg2rad(angle_deg)), np.sin(np.deg2rad(angle_deg))
    a2, b2 = half_a * half_a, half_b * half_b
    return (a2 * cos * cos + b2 * sin * sin, (a2 - b2) * cos * sin,
            a2 * sin * sin + b2 * cos * cos)


def _one_per_place(blobs: np.ndarray) -> np.ndarray:
    """(N, 5) one blob per place of the blobs (x, y, radius, xx, xy, yy): where several
    stand within half a radius, the largest's centre and the shape of the one of
    median size (the thresholds of the three planes mostly find the hole's own edge;
    some ring it with a round halo, some find a smaller round thing inside it)."""
    kept: list[np.ndarray] = []
    members: list[list[np.ndarray]] = []
    for blob in blobs[np.argsort(-blobs[:, 2])]:
        same = [index for index, other in enumerate(kept)
                if np.hypot(*(blob[:2] - other[:2])) <= 0.5 * min(blob[2], other[2])]
        if same:
            members[same[0]].append(blob)
        else:
            kept.append(blob)
            members.append([blob])
    if not kept:
        return np.zeros((0, 5))
    # members are in falling size: the middle one is of median size
    return np.array([np.r_[first[:2], group[len(group) // 2][3:]]
                     for first, group in zip(kept, members, strict=True)])


def fit_lattice(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(homography lattice -> image, each point's lattice coordinates, which lie on a
    lattice point) of the proposal whose 7 x 6 block through its anchor holds the most
    points (ties: the most on its whole lattice); None without one."""
    if len(points) < MIN_HOLES // 2:
        return None
    gaps = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    neighbours = np.argsort(gaps, axis=1)[:, :8]
    best: tuple[tuple[int, int], np.ndarray] | None = None
    for anchor in range(len(points)):
        basis = _local_basis(points[neighbours[anchor]] - points[anchor])
        if basis is None:
            continue
        coords = np.linalg.solve(basis, (points - points[anchor]).T).T
        count = _block_count(coords)
        if best is None or count > best[0]:
            best = (count, coords)
    if best is None:
        return None
    coords = best[1]
    homography = None
    for reach in GROWTH:  # grown from the anchor outwards: perspective bends the far rows
        near = _on_lattice(coords) & (np.abs(coords).max(axis=1) <= reach)
        if near.sum() < MIN_NEAR:  # a corner's first reach holds only 4: reach further
            continue
        refit, _ = cv2.findHomography(np.round(coords[near]), points[near], 0)
        if refit is None or abs(np.linalg.det(refit)) < 1e-9:  # none, or degenerate
            return None
        homography = np.asarray(refit)
        coords = _apply(np.linalg.inv(homography), points)
    if homography is None:
        return None
    return homography, coords, _on_lattice(coords)


def _block_count(coords: np.ndarray) -> tuple[int, int]:
    """(the most lattice points holding a round thing in one 7 x 6 block through the
    anchor (0, 0), those on the whole lattice): a proposal is as good as the board it
    makes. A step of half a pitch (a glint between holes taken for a neighbour) puts
    at least as many round things on its finer lattice, but, where the board's own
    lattice is proposed too, fewer in a block of the board's size."""
    on = _on_lattice(coords)
    cells = np.round(coords[on])
    cells = cells[np.all(np.abs(cells) < (WIDTH, HEIGHT), axis=1)].astype(int)
    grid = np.zeros((2 * HEIGHT - 1, 2 * WIDTH - 1), int)
    np.add.at(grid, (cells[:, 1] + HEIGHT - 1, cells[:, 0] + WIDTH - 1), 1)
    sums = np.pad(np.minimum(grid, 1).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    blocks = (sums[HEIGHT:, WIDTH:] - sums[:-HEIGHT, WIDTH:] - sums[HEIGHT:, :-WIDTH]
              + sums[:-HEIGHT, :-WIDTH])
    return int(blocks.max()), int(on.sum())


def _local_basis(steps: np.ndarray) -> np.ndarray | None:
    """2 x 2 (column step, row step) from the steps to a point's nearest neighbours:
    the shortest mostly across (pointing right) and the shortest mostly down."""
    across = [s for s in steps if abs(s[0]) > abs(s[1])]
    down = [s for s in steps if abs(s[1]) >= abs(s[0])]
    if not across or not down:
        return None
    column = min(across, key=lambda s: float(np.hypot(*s)))
    row = min(down, key=lambda s: float(np.hypot(*s)))
    basis = np.array([column * np.sign(column[0]), row * np.sign(row[1])]).T
    return basis if abs(np.linalg.det(basis)) > 1e-6 else None


def best_window(coords: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(origin (i, j) of the 7 x 6 block holding most lattice points, how many it holds,
    the most a block one column or row off holds)."""
    cells = {(int(i), int(j)) for i, j in np.round(coords)}
    if not cells:
        return np.zeros(2), 0, 0
    i_range = range(min(i for i, _ in cells) - WIDTH + 1, max(i for i, _ in cells) + 1)
    j_range = range(min(j for _, j in cells) - HEIGHT + 1, max(j for _, j in cells) + 1)

    def held(i0: int, j0: int) -> int:
        return sum(i0 <= i < i0 + WIDTH and j0 <= j < j0 + HEIGHT for i, j in cells)

    count, i0, j0 = max((held(i0, j0), i0, j0) for i0 in i_range for j0 in j_range)
    runner_up = max(held(i0 + di, j0 + dj) for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    return np.array([i0, j0], float), count, runner_up


def _edge_count(coords: np.ndarray, origin: np.ndarray) -> int:
    """The most lattice points holding a round thing on one line just past the block."""
    cells = np.round(coords - origin)
    i, j = cells[:, 0], cells[:, 1]
    rows = (j >= 0) & (j < HEIGHT)
    columns = (i >= 0) & (i < WIDTH)
    return int(max(np.sum(rows & (i == -1)), np.sum(rows & (i == WIDTH)),
                   np.sum(columns & (j == -1)), np.sum(columns & (j == HEIGHT))))


def _in_block(coords: np.ndarray, origin: np.ndarray) -> np.ndarray:
    cells = np.round(coords - origin)
    return np.asarray((cells[:, 0] >= 0) & (cells[:, 0] < WIDTH)
            & (cells[:, 1] >= 0) & (cells[:, 1] < HEIGHT))


def _on_lattice(coords: np.ndarray) -> np.ndarray:
    return np.asarray(np.all(np.abs(coords - np.round(coords)) < ON_LATTICE, axis=1))


def _residual_pitch(homography: np.ndarray, lattice: np.ndarray, points: np.ndarray) -> float:
    """Mean distance of ``points`` from their lattice points, in local pitches."""
    back = _apply(np.linalg.inv(homography), points)
    return float(np.mean(np.linalg.norm(back - lattice, axis=1)))


def _apply(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    moved = cv2.perspectiveTransform(np.asarray(points, float).reshape(1, -1, 2), homography)
    return moved.reshape(-1, 2)
