"""Test frames composed from real photographs only: a held-out generalisation test.

Material: the labelled photos of ``<shared>/data/real-dev`` (SPEC §5 markers
composited in), grouped by board source (file-name prefix: ``zam`` the
translucent turquoise board, ``res`` the navy one). The repo's own code finds
each photo's markers and plane-to-image homography; the grid is warped
top-down at ``scale`` x 80 px per pitch and cut into 42 cell patches (the
whole cell plus a 0.1-pitch margin), each labelled with its cell's truth.

A frame (:func:`compose`): a base photo of a source (the emptier the likelier),
a random legal position (a random game of random length 0-42, stopping at a
four) and, for each cell whose class differs from the base's, a patch of the
wanted class (:meth:`PatchLibrary.donor`) brought to the base's lighting
(:func:`recolour`) and blended with a soft elliptical mask that covers the
hole and its rim (``MASKS``). Only the pasted cells are warped back into the
photo (downscaled to ``long_side``); every other pixel, markers included, is
the photo's own. Then camera changes on the whole frame (white balance
0.8-1.25 per channel, exposure 0.7-1.35, noise, JPEG 60-95), drawn again,
milder, until the repo's detector finds all four markers.

Never train on the benches' frames (seeds below 1,000,000): they measure
generalisation to real boards. :mod:`tools.train.composite_data` cuts training
cells from other seeds, only for a network measured on an appearance left out
of its training.

    .venv/bin/python -m tools.train.real_composites --count 200 --seed 1 --out /tmp/comp \\
        --sheet /tmp/comp_sheet.png
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH, Board
from firmware_py.vision.fit import BoardLocator
from firmware_py.vision.markers import MarkerDetector
from tools.shared_data import shared_dir

CELL = 80  # plane px per pitch (SPEC §5)
CANVAS_ORIGIN, CANVAS_SIZE = (40, 0), (640, 560)  # plane box of the cut/paste canvas
PATCH_MARGIN = 8  # plane px cut beyond each cell side: patches are 96 px (1.2 pitch)
# Fully pasted ellipse (semi-axes x, y in pitches): hole, rim and disc. The turquoise
# board's column pitch is 1.19 x its row pitch: on the plane its discs are tall ellipses.
MASKS = {"zam": (0.44, 0.49), "res": (0.44, 0.44)}
DEFAULT_MASK = (0.44, 0.44)
FEATHER = 0.08  # pitches over which the mask fades out beyond its ellipse
PLASTIC_RADIUS, HOLE_RADIUS = 0.52, 0.2  # pitches: cell corners are plastic, its centre hole
FIELD_SIGMA = 1.5  # cells: smoothing of the colour fields over the empty cells
GAIN_LIMITS, CHANNEL_LIMITS = (0.75, 1.33), (0.5, 2.0)  # brightness, per-channel gains
COLOUR_SIGMA = 40.0  # grey levels: how near a reference colour a pixel is recoloured
DONOR_REACH = 1.2  # cells: how fast a donor's weight falls with its distance
SAME_PHOTO_SHARE = (0.25, 0.85)  # chance that a (disc, empty hole) comes from the base photo
EMPTY = "."


def default_shared_dir() -> Path:
    """``$C4PI_SHARED``, else ``shared`` beside the repository root."""
    return shared_dir()


def real_dev_dir(shared_dir: Path | str | None = None) -> Path:
    """The folder of the labelled real photographs."""
    return Path(shared_dir or default_shared_dir()) / "data" / "real-dev"


def real_dev_frames(shared_dir: Path | str | None = None, folder: str = "real-dev"
                    ) -> Iterator[tuple[Path, np.ndarray, dict]]:
    """``(path, BGR frame, label dict)`` for every line of ``<folder>/labels.jsonl``
    (``real-dev``, ``real-dev2`` or ``real-dev-raw``)."""
    folder = real_dev_dir(shared_dir).parent / folder
    with open(folder / "labels.jsonl", encoding="utf-8") as lines:
        for label in (json.loads(line) for line in lines if line.strip()):
            frame = cv2.imread(str(folder / label["file"]), cv2.IMREAD_COLOR)
            if frame is None:
                raise OSError(f"cannot read {folder / label['file']}")
            yield folder / label["file"], frame, label


def canvas_transform(scale: int) -> np.ndarray:
    """Homography from plane units to canvas pixels (pixel centres at +0.5)."""
    x0, y0 = CANVAS_ORIGIN
    return np.array([[scale, 0, -scale * x0 - 0.5], [0, scale, -scale * y0 - 0.5], [0, 0, 1.0]])


def patch_slice(line: int, column: int, scale: int) -> tuple[slice, slice]:
    """Canvas rows and columns of the patch of cell (line from the top, column), 0-based."""
    x0 = (CELL * (column + 1) - PATCH_MARGIN - CANVAS_ORIGIN[0]) * scale
    y0 = (40 + CELL * line - PATCH_MARGIN - CANVAS_ORIGIN[1]) * scale
    side = (CELL + 2 * PATCH_MARGIN) * scale
    return slice(y0, y0 + side), slice(x0, x0 + side)


@functools.cache
def patch_offsets(scale: int) -> tuple[np.ndarray, np.ndarray]:
    """y (S, 1) and x (1, S) of the patch pixels from the cell centre, in pitches."""
    side = (CELL + 2 * PATCH_MARGIN) * scale
    coords = (((np.arange(side) + 0.5) / scale - CELL / 2 - PATCH_MARGIN) / CELL)
    return coords[:, None].astype(np.float32), coords[None, :].astype(np.float32)


@functools.cache
def paste_alpha(scale: int, axes: tuple[float, float] = DEFAULT_MASK) -> np.ndarray:
    """The soft elliptical paste mask of one patch (float32, smoothstep edge)."""
    y, x = patch_offsets(scale)
    inner = np.hypot(x / axes[0], y / axes[1])
    outer = np.hypot(x / (axes[0] + FEATHER), y / (axes[1] + FEATHER))
    t = np.where(inner <= 1.0, 1.0, np.clip((1.0 - outer) / np.maximum(inner - outer, 1e-6),
                                            0.0, 1.0))
    return (t * t * (3.0 - 2.0 * t)).astype(np.float32)


def cell_colours(patch: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Median BGR of a cell patch's board plastic (its corners) and of its centre."""
    y, x = patch_offsets(scale)
    radius = np.hypot(x, y)
    corners = (radius > PLASTIC_RADIUS) & (np.maximum(abs(x), abs(y)) < 0.5)
    centre = np.broadcast_to(radius < HOLE_RADIUS, corners.shape)
    return np.median(patch[corners], axis=0), np.median(patch[centre], axis=0)


def empty_field(values: np.ndarray, grid: list[str]) -> np.ndarray:
    """Per-cell colours (6, 7, 3) as a Gaussian-weighted mean of the empty cells' only.

    Around a disc the translucent plastic is tinted by it, and a disc hides
    what its hole shows, so disc cells take their empty neighbours' colours.
    """
    empty = np.array([[char == EMPTY for char in line] for line in grid]).ravel()
    empty = empty if empty.any() else ~empty
    cells = np.stack(np.unravel_index(np.arange(HEIGHT * WIDTH), (HEIGHT, WIDTH)), axis=1)
    distance = np.linalg.norm(cells[:, None, :] - cells[None, empty, :], axis=2)
    weights = np.exp(-0.5 * (distance / FIELD_SIGMA) ** 2)
    field = weights @ values.reshape(-1, 3)[empty] / weights.sum(axis=1, keepdims=True)
    return field.reshape(HEIGHT, WIDTH, 3).astype(np.float32)


def recolour(patch: np.ndarray, references: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """A donor patch (float32) brought to the base photo's lighting and tints.

    ``references``: (donor colour, base colour) at the two cells, board
    plastic first, then what an empty hole shows. Every pixel gets the
    plastic's brightness ratio (one gain for all channels: per-channel ratios
    of turquoise plastic, nearly black in red, turned holes pink); pixels
    near a reference colour (``COLOUR_SIGMA``) move to that reference's
    per-channel ratio, so the donor's plastic and hole take the base's tints.
    """
    (plastic_donor, plastic_base), patch = references[0], patch.astype(np.float32)
    brightness = np.clip(plastic_base.sum() / max(plastic_donor.sum(), 1.0), *GAIN_LIMITS)
    shift = np.zeros_like(patch)
    total = np.zeros(patch.shape[:2] + (1,), np.float32)
    for donor, base in references:
        ratio = np.clip(base / np.maximum(donor, 1.0), *CHANNEL_LIMITS)
        distance = np.linalg.norm(patch - donor, axis=2, keepdims=True)
        near = np.exp(-0.5 * (distance / COLOUR_SIGMA) ** 2)
        shift += near * (ratio - brightness).astype(np.float32)
        total += near
    return patch * (np.float32(brightness) + shift / np.maximum(total, 1.0))


def scaling(from_size: tuple[int, int], to_size: tuple[int, int]) -> np.ndarray:
    """Homography from pixels of an image to pixels of its resized copy."""
    sx, sy = to_size[0] / from_size[0], to_size[1] / from_size[1]
    return np.array([[sx, 0.0, 0.5 * sx - 0.5], [0.0, sy, 0.5 * sy - 0.5], [0.0, 0.0, 1.0]])


@dataclass
class Photo:
    """One labelled photo: its plane, cell patches and smooth colour fields."""

    name: str
    path: Path
    source: str
    grid: list[str]
    size: tuple[int, int]  # width, height
    plane_to_image: np.ndarray
    patches: np.ndarray  # (6, 7, S, S, 3) uint8, grid order (top line first)
    plastic: np.ndarray  # (6, 7, 3) float32: the board plastic (:func:`empty_field`)
    hole: np.ndarray  # (6, 7, 3) float32: what the empty holes show

    @property
    def discs(self) -> int:
        return sum(line.count("R") + line.count("Y") for line in self.grid)


@dataclass
class Composite:
    """A composed frame and how it was made."""

    frame: np.ndarray
    grid: list[str]
    status: str
    base: str
    changed: dict[tuple[int, int], tuple[str, int, int]]  # (line, column) -> donor cell
    plane_to_image: np.ndarray  # of ``frame``
    camera: dict = field(default_factory=dict)
    jpeg: bytes | None = None  # the camera's JPEG of ``frame``, when it made one

    @property
    def donors(self) -> list[str]:
        return sorted({photo for photo, _, _ in self.changed.values()})


# the plane points (SPEC §5 warp plane) of real-dev-raw's hole_corners: the centres of
# column 1 row 6, column 7 row 6, column 7 row 1, column 1 row 1
HOLE_CORNERS_PLANE = np.float32([[120, 80], [600, 80], [600, 480], [120, 480]])


def hole_corners_plane(label: dict) -> np.ndarray:
    """The plane-to-image homography of a ``real-dev-raw`` photo (no markers), from its
    hand-fitted ``hole_corners``."""
    return cv2.getPerspectiveTransform(HOLE_CORNERS_PLANE, np.float32(label["hole_corners"]))


def locate(frame: np.ndarray, detector: MarkerDetector) -> np.ndarray | None:
    """The plane-to-image homography when all four markers are found, else None."""
    markers = detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    fit = BoardLocator().locate(markers, (frame.shape[1], frame.shape[0]))
    return fit.plane_to_image if fit.ok and len(markers) == 4 else None


def cut_patches(frame: np.ndarray, plane_to_image: np.ndarray, scale: int) -> np.ndarray:
    """The 42 cell patches (6, 7, S, S, 3) of a frame, warped top-down."""
    shrink = 1.25 * scale / np.linalg.norm(plane_to_image[:2, :2], axis=0).mean()
    if shrink < 1.0:  # pre-filter instead of aliasing in the warp
        small = cv2.resize(frame, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        plane_to_image = scaling(frame.shape[1::-1], small.shape[1::-1]) @ plane_to_image
        frame = small
    canvas = cv2.warpPerspective(
        frame, plane_to_image @ np.linalg.inv(canvas_transform(scale)),
        (CANVAS_SIZE[0] * scale, CANVAS_SIZE[1] * scale),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return np.array([[canvas[patch_slice(line, column, scale)] for column in range(WIDTH)]
                     for line in range(HEIGHT)])


class PatchLibrary:
    """Every labelled photo's cell patches, by board source."""

    def __init__(self, photos: list[Photo], scale: int) -> None:
        self.photos, self.scale = photos, scale
        self.sources = sorted({photo.source for photo in photos})

    @classmethod
    def load(cls, shared_dir: Path | str | None = None, scale: int = 2,
             folder: str = "real-dev") -> PatchLibrary:
        """Read and cut every photo of ``real-dev`` (about 2 s); of ``real-dev-raw`` (the
        same photos as taken, no markers) by their hand-fitted hole corners."""
        detector, photos = MarkerDetector(), []
        for path, frame, label in real_dev_frames(shared_dir, folder):
            homography = (hole_corners_plane(label) if "hole_corners" in label
                          else locate(frame, detector))
            if homography is None:
                raise ValueError(f"{path}: the four markers were not found")
            patches, grid = cut_patches(frame, homography, scale), list(label["grid"])
            colours = np.array([[cell_colours(p, scale) for p in line] for line in patches])
            photos.append(Photo(path.stem, path, path.stem.split("_", 1)[0], grid,
                                (frame.shape[1], frame.shape[0]), homography, patches,
                                empty_field(colours[:, :, 0], grid),
                                empty_field(colours[:, :, 1], grid)))
        return cls(photos, scale)

    def of_source(self, source: str) -> list[Photo]:
        return [photo for photo in self.photos if photo.source == source]

    def donor(self, rng: np.random.Generator, base: Photo, line: int, column: int,
              wanted: str) -> tuple[Photo, int, int]:
        """A patch of class ``wanted`` for a cell of ``base``: (photo, line, column).

        The base photo itself with chance ``SAME_PHOTO_SHARE`` (high for an
        empty hole, which shows the scene behind the board; low for a disc),
        else another photo of its source. Lighting and parallax vary over the
        board, so a cell's weight falls with its distance (``DONOR_REACH``),
        x3 in the same row, x2 in the same column.
        """
        groups: dict[bool, list[tuple[Photo, int, int]]] = {True: [], False: []}
        for photo in self.of_source(base.source):
            groups[photo is base] += [(photo, i, j) for i, text in enumerate(photo.grid)
                                      for j, char in enumerate(text) if char == wanted
                                      and not (photo is base and (i, j) == (line, column))]
        if not groups[True] and not groups[False]:
            raise LookupError(f"no {wanted!r} patch for source {base.source}")
        same = bool(groups[True]) and (not groups[False] or
                                       rng.random() < SAME_PHOTO_SHARE[wanted == EMPTY])
        weights = np.array([np.exp(-np.hypot(i - line, j - column) / DONOR_REACH)
                            * (3.0 if i == line else 1.0) * (2.0 if j == column else 1.0)
                            for _, i, j in groups[same]])
        return groups[same][int(rng.choice(len(weights), p=weights / weights.sum()))]


def random_board(rng: np.random.Generator) -> Board:
    """A random legal position: a random game of random length 0-42, stopping at a four."""
    board = Board.empty()
    for _ in range(int(rng.integers(0, 43))):
        if board.is_finished:
            break
        board = board.play(int(rng.choice(board.legal_columns())))
    return board


def choose_base(rng: np.random.Generator, photos: list[Photo]) -> Photo:
    """A base photo, weighted 1 / (1 + discs)^1.5 towards the emptiest boards."""
    weights = np.array([1.0 / (1.0 + photo.discs) ** 1.5 for photo in photos])
    return photos[int(rng.choice(len(photos), p=weights / weights.sum()))]


def read_scaled(photo: Photo, long_side: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The photo at ``long_side`` px (never larger) and its plane-to-image homography."""
    target = min(long_side or max(photo.size), max(photo.size))
    reduce = max(f for f in (1, 2, 4, 8) if f == 1 or max(photo.size) / f >= target)
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2,
             4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
    frame = cv2.imread(str(photo.path), flags[reduce])  # decoded smaller: faster
    if frame is None:
        raise OSError(f"cannot read {photo.path}")
    if max(frame.shape[:2]) > target:
        factor = target / max(frame.shape[:2])
        frame = cv2.resize(frame, (round(frame.shape[1] * factor),
                                   round(frame.shape[0] * factor)), interpolation=cv2.INTER_AREA)
    return frame, scaling(photo.size, frame.shape[1::-1]) @ photo.plane_to_image


def paste(frame: np.ndarray, plane_to_image: np.ndarray, cells: dict[tuple[int, int],
          np.ndarray], scale: int, axes: tuple[float, float] = DEFAULT_MASK) -> np.ndarray:
    """``frame`` with float patches pasted at their cells (soft mask, premultiplied).

    Where the masks of two cells overlap (a little, vertically on the
    turquoise board) the patches are averaged by their weights.
    """
    alpha, size = paste_alpha(scale, axes), (CANVAS_SIZE[0] * scale, CANVAS_SIZE[1] * scale)
    colour = np.zeros((size[1], size[0], 3), np.float32)
    weight = np.zeros((size[1], size[0]), np.float32)
    for (line, column), patch in cells.items():
        rows, cols = patch_slice(line, column, scale)
        colour[rows, cols] += patch * alpha[..., None]
        weight[rows, cols] += alpha
    excess = np.maximum(weight, 1.0)
    colour, weight = colour / excess[..., None], weight / excess
    to_frame = plane_to_image @ np.linalg.inv(canvas_transform(scale))
    corners = cv2.perspectiveTransform(np.array(
        [[[0, 0]], [[size[0], 0]], [[size[0], size[1]]], [[0, size[1]]]], np.float64), to_frame)
    low = np.maximum(np.floor(corners.min(axis=(0, 1))).astype(int) - 2, 0)
    high = np.minimum(np.ceil(corners.max(axis=(0, 1))).astype(int) + 2, frame.shape[1::-1])
    to_roi = np.array([[1.0, 0, -low[0]], [0, 1.0, -low[1]], [0, 0, 1.0]]) @ to_frame
    roi_size = (int(high[0] - low[0]), int(high[1] - low[1]))
    warped = cv2.warpPerspective(colour, to_roi, roi_size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(weight, to_roi, roi_size, flags=cv2.INTER_LINEAR)[..., None]
    out = frame.copy()
    roi = out[low[1]:high[1], low[0]:high[0]].astype(np.float32) * (1.0 - mask) + warped
    out[low[1]:high[1], low[0]:high[0]] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    return out


def camera_changes(rng: np.random.Generator, frame: np.ndarray,
                   strength: float = 1.0) -> tuple[np.ndarray, dict, bytes]:
    """White balance, exposure, sensor noise and JPEG on the whole frame (and its bytes)."""
    gains = np.exp(rng.uniform(np.log(0.8), np.log(1.25), 3) * strength)
    exposure = float(np.exp(rng.uniform(np.log(0.7), np.log(1.35)) * strength))
    noise = float(rng.uniform(0.0, 5.0) * strength)
    quality = int(round(95 - rng.uniform(0.0, 35.0) * strength))
    image = frame.astype(np.float32) * (gains * exposure).astype(np.float32)
    image += rng.standard_normal(image.shape[:2], np.float32)[..., None] * np.float32(noise)
    image += rng.standard_normal(image.shape, np.float32) * np.float32(noise / 2)
    encoded = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
    settings = {"wb": [round(float(g), 3) for g in gains], "exposure": round(exposure, 3),
                "noise": round(noise, 2), "jpeg": quality, "strength": strength}
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR), settings, encoded.tobytes()


class Composer:
    """Composes frames from a :class:`PatchLibrary` (see the module docstring)."""

    def __init__(self, library: PatchLibrary, *, long_side: int | None = 1280,
                 camera: bool = True) -> None:
        self.library, self.long_side, self.camera = library, long_side, camera
        self.detector = MarkerDetector()

    def compose(self, rng: np.random.Generator, source: str | None = None) -> Composite:
        """One composite frame of board ``source`` (a random source when None)."""
        source = source or str(rng.choice(self.library.sources))
        base = choose_base(rng, self.library.of_source(source))
        return self.compose_on(rng, base, random_board(rng))

    def compose_on(self, rng: np.random.Generator, base: Photo, board: Board) -> Composite:
        """``board`` composed on the photo ``base``."""
        status = "finished" if board.is_finished else "ok"  # SPEC §6: a four, or full
        return self.compose_grid(rng, base, board.grid_lines(), status)

    def compose_grid(self, rng: np.random.Generator, base: Photo, grid: list[str],
                     status: str) -> Composite:
        """Any ``grid`` (legal or not, labelled ``status``) composed on the photo ``base``."""
        frame, homography = read_scaled(base, self.long_side)
        cells, changed = {}, {}
        for line, column in np.ndindex(HEIGHT, WIDTH):
            if grid[line][column] != base.grid[line][column]:
                photo, i, j = self.library.donor(rng, base, line, column, grid[line][column])
                cells[line, column] = recolour(photo.patches[i, j], [
                    (photo.plastic[i, j], base.plastic[line, column]),
                    (photo.hole[i, j], base.hole[line, column])])
                changed[line, column] = (photo.name, i, j)
        if cells:
            frame = paste(frame, homography, cells, self.library.scale,
                          MASKS.get(base.source, DEFAULT_MASK))
        frame, settings, jpeg = self._camera(rng, frame)
        return Composite(frame, grid, status, base.name, changed, homography, settings, jpeg)

    def _camera(self, rng: np.random.Generator,
                frame: np.ndarray) -> tuple[np.ndarray, dict, bytes | None]:
        """Camera changes that keep all four markers findable (milder on each retry)."""
        for strength in (1.0, 0.6, 0.3) if self.camera else ():
            changed, settings, jpeg = camera_changes(rng, frame, strength)
            if locate(changed, self.detector) is not None:
                return changed, settings, jpeg
        return frame, {}, None


@functools.cache
def default_composer() -> Composer:
    """A composer on the default shared folder (built on first use)."""
    return Composer(PatchLibrary.load())


def compose(rng: np.random.Generator, source: str | None = None
            ) -> tuple[np.ndarray, list[str], str]:
    """``(frame_bgr, grid_lines, status)`` of one composite from the default library."""
    result = default_composer().compose(rng, source)
    return result.frame, result.grid, result.status


def label_line(name: str, result: Composite) -> dict:
    """The ``labels.jsonl`` record of a written composite (the shared file's format)."""
    donors = ", ".join(donor + ".jpg" for donor in result.donors) or "none"
    return {"file": name, "status": result.status, "grid": result.grid,
            "source": f"composite of {result.base}.jpg + patches from {donors}",
            "tags": ["composite", "real-patches", result.base.split("_", 1)[0]],
            "size": [int(result.frame.shape[1]), int(result.frame.shape[0])],
            "camera": result.camera}


def fit_box(image: np.ndarray, box: int) -> np.ndarray:
    """``image`` scaled to fit a ``box`` x ``box`` square, centred on black."""
    factor = box / max(image.shape[:2])
    small = cv2.resize(image, (max(1, round(image.shape[1] * factor)),
                               max(1, round(image.shape[0] * factor))),
                       interpolation=cv2.INTER_AREA)
    out = np.zeros((box, box, 3), np.uint8)
    top, left = (box - small.shape[0]) // 2, (box - small.shape[1]) // 2
    out[top:top + small.shape[0], left:left + small.shape[1]] = small
    return out


def sheet_tile(result: Composite, box: int = 360) -> np.ndarray:
    """The frame, its grid region unwarped at full size, and its label as coloured dots."""
    quad = cv2.perspectiveTransform(np.array([[[80.0, 40.0]], [[640.0, 520.0]],
                                              [[80.0, 520.0]], [[640.0, 40.0]]]),
                                    result.plane_to_image).reshape(4, 2)
    low, high = np.maximum(quad.min(axis=0).astype(int), 0), quad.max(axis=0).astype(int) + 1
    crop = result.frame[low[1]:high[1], low[0]:high[0]]
    tile = np.hstack([fit_box(result.frame, box), fit_box(crop, box)])
    strip = np.full((84, tile.shape[1], 3), 40, np.uint8)
    colours = {EMPTY: (200, 200, 200), "R": (0, 0, 230), "Y": (0, 220, 240)}
    for i, j in np.ndindex(HEIGHT, WIDTH):
        cv2.circle(strip, (12 + 12 * j, 12 + 12 * i), 4, colours[result.grid[i][j]], -1)
    cv2.putText(strip, f"{result.status}  base {result.base}  {len(result.changed)} pasted",
                (100, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return cv2.copyMakeBorder(np.vstack([tile, strip]), 0, 6, 0, 6, cv2.BORDER_CONSTANT)


def contact_sheet(results: list[Composite], columns: int = 2) -> np.ndarray:
    """Tiles (:func:`sheet_tile`) of composites, ``columns`` per row, for a human check."""
    tiles = [sheet_tile(result) for result in results]
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[k:k + columns]) for k in range(0, len(tiles), columns)])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shared", type=Path, default=None,
                        help="shared folder (default: $C4PI_SHARED, else ../shared)")
    parser.add_argument("--source", choices=("zam", "res"), default=None)
    parser.add_argument("--long-side", type=int, default=1280,
                        help="output long side in px (0: the photo's own size)")
    parser.add_argument("--no-camera", action="store_true", help="no camera changes")
    parser.add_argument("--sheet", type=Path, default=None,
                        help="also write a contact sheet of the first frames (PNG)")
    parser.add_argument("--sheet-count", type=int, default=8)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (real_dev_dir(args.shared) / "labels.jsonl").is_file():
        print(f"no labelled photos in {real_dev_dir(args.shared)}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    composer = Composer(PatchLibrary.load(args.shared), long_side=args.long_side or None,
                        camera=not args.no_camera)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    shown: list[Composite] = []
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for index in range(args.count):
            result, name = composer.compose(rng, args.source), f"{index:04d}.jpg"
            (args.out / name).write_bytes(result.jpeg or cv2.imencode(
                ".jpg", result.frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())
            labels.write(json.dumps(label_line(name, result)) + "\n")
            if len(shown) < args.sheet_count:
                shown.append(result)
    if args.sheet and shown:
        cv2.imwrite(str(args.sheet), contact_sheet(shown))
    print(f"wrote {args.count} frames to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
