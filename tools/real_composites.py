#!/usr/bin/env python3
"""Test frames composed from real photographs only (a held-out generalisation test).

The 21 labelled photographs of ``<shared>/data/real-dev`` (SPEC §5 markers
composited in) are the only material. For every photo the repo's own reader
code finds the markers and the plane-to-image homography
(:class:`~firmware_py.vision.markers.MarkerDetector`,
:class:`~firmware_py.vision.fit.BoardLocator`); the grid is warped top-down at
``scale`` x 80 px per pitch and cut into 42 cell patches (the whole 80 x 80
plane px cell, hole rim included), each labelled with its cell's truth. Photos
are grouped by board source (file-name prefix: ``zam`` the translucent
turquoise board, ``res`` the navy one).

A new frame (:func:`compose`): a base photo of a source (weighted towards its
emptiest boards), a random legal position (a random game of random length
0-42, stopping at a four), and for every cell whose class differs from the
base's, a patch of the wanted class from a photo of the same source (another
photo preferred, the same cell, row or column preferred), gain-matched per
channel to the base's board plastic around the cell and blended with a soft
circular mask (full inside 0.4 pitch, none beyond 0.5 pitch). Only the
pasted discs are warped back into the (downscaled) photo, with premultiplied
alpha; every other pixel, markers included, is the photo's own. Then camera
changes on the whole frame: white balance, exposure, noise, JPEG 60-95. The
four markers are checked with the repo's detector; a frame where they are not
all found gets fresh (finally no) camera changes.

Never train on these frames: they measure generalisation to real boards.

    .venv/bin/python tools/real_composites.py --count 200 --seed 1 --out /tmp/comp \\
        --sheet /tmp/comp_sheet.png
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from firmware_py.board import HEIGHT, WIDTH, Board  # noqa: E402
from firmware_py.vision.fit import BoardLocator  # noqa: E402
from firmware_py.vision.markers import MarkerDetector  # noqa: E402

CELL = 80  # plane px per pitch (SPEC §5)
CANVAS_ORIGIN = (40, 0)  # plane point at the canvas's top-left: the grid plus half a cell
CANVAS_SIZE = (640, 560)  # plane units covered by the canvas
PATCH_MARGIN = 8  # plane px cut beyond each cell side: patches are 96 px (1.2 pitch)
MASKS = {"zam": (0.44, 0.49), "res": (0.44, 0.44)}
"""Paste mask per source: semi-axes (x, y, pitches) fully pasted, hole rim included.

The turquoise board's column pitch is 1.19 x its row pitch, so on the plane
its round holes, rims and discs are ellipses 1.19 times taller than wide."""
DEFAULT_MASK = (0.44, 0.44)
FEATHER = 0.08  # pitches over which the mask fades to nothing beyond its ellipse
PLASTIC_RADIUS = 0.52  # cell pixels beyond this (pitches) are board plastic
FIELD_SIGMA = 1.5  # cells: smoothing of the plastic colour over the empty cells
GAIN_LIMITS = (0.75, 1.33)
CLASSES = (".", "R", "Y")


def default_shared_dir() -> Path:
    """``$C4PI_SHARED``, else ``shared`` beside the repository root."""
    return Path(os.environ.get("C4PI_SHARED") or ROOT.parent / "shared")


def real_dev_dir(shared_dir: Path | str | None = None) -> Path:
    """The folder of the labelled real photographs."""
    return Path(shared_dir or default_shared_dir()) / "data" / "real-dev"


def real_dev_frames(shared_dir: Path | str | None = None
                    ) -> Iterator[tuple[Path, np.ndarray, dict]]:
    """``(path, BGR frame, label dict)`` for every line of ``real-dev/labels.jsonl``."""
    folder = real_dev_dir(shared_dir)
    with open(folder / "labels.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            label = json.loads(line)
            path = folder / label["file"]
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                raise OSError(f"cannot read {path}")
            yield path, frame, label


def canvas_transform(scale: int) -> np.ndarray:
    """Homography from plane units to canvas pixels (pixel centres at +0.5)."""
    x0, y0 = CANVAS_ORIGIN
    return np.array([[scale, 0.0, -scale * x0 - 0.5], [0.0, scale, -scale * y0 - 0.5],
                     [0.0, 0.0, 1.0]])


def patch_slice(line: int, column: int, scale: int) -> tuple[slice, slice]:
    """Canvas rows and columns of the patch of cell (line from the top, column), 0-based."""
    x0 = (CELL * (column + 1) - PATCH_MARGIN - CANVAS_ORIGIN[0]) * scale
    y0 = (40 + CELL * line - PATCH_MARGIN - CANVAS_ORIGIN[1]) * scale
    side = (CELL + 2 * PATCH_MARGIN) * scale
    return slice(y0, y0 + side), slice(x0, x0 + side)


@functools.cache
def patch_offsets(scale: int) -> tuple[np.ndarray, np.ndarray]:
    """x and y (pitches) of every patch pixel from the cell centre, (S, 1) and (1, S)."""
    side = (CELL + 2 * PATCH_MARGIN) * scale
    coords = ((np.arange(side) + 0.5) / scale - CELL / 2 - PATCH_MARGIN) / CELL
    return coords[:, None].astype(np.float32), coords[None, :].astype(np.float32)


@functools.cache
def paste_alpha(scale: int, axes: tuple[float, float] = DEFAULT_MASK) -> np.ndarray:
    """The soft elliptical paste mask of one patch (float32, smoothstep edge)."""
    y, x = patch_offsets(scale)
    inner = np.hypot(x / axes[0], y / axes[1])
    outer = np.hypot(x / (axes[0] + FEATHER), y / (axes[1] + FEATHER))
    t = np.clip((1.0 - outer) / np.maximum(inner - outer, 1e-6), 0.0, 1.0)
    t = np.where(inner <= 1.0, 1.0, t)
    return (t * t * (3.0 - 2.0 * t)).astype(np.float32)


def plastic_colour(patch: np.ndarray, scale: int) -> np.ndarray:
    """Median BGR of the board plastic in a cell patch (the cell's corners)."""
    y, x = patch_offsets(scale)
    corners = (np.hypot(x, y) > PLASTIC_RADIUS) & (np.maximum(abs(x), abs(y)) < 0.5)
    return np.median(patch[corners], axis=0).astype(np.float32)


def plastic_field(plastic: np.ndarray, grid: list[str]) -> np.ndarray:
    """The board plastic's colour at every cell (6, 7, 3), smoothed from the empty cells.

    Around a disc the translucent plastic is tinted by the disc, so only the
    empty cells count: a Gaussian-weighted mean (``FIELD_SIGMA`` cells) of them.
    """
    empty = np.array([[char == "." for char in line] for line in grid]).ravel()
    if not empty.any():
        empty[:] = True
    line, column = np.mgrid[0:HEIGHT, 0:WIDTH]
    cells = np.stack([line.ravel(), column.ravel()], axis=1).astype(np.float64)
    distance = np.linalg.norm(cells[:, None, :] - cells[None, empty, :], axis=2)
    weights = np.exp(-0.5 * (distance / FIELD_SIGMA) ** 2)
    field = weights @ plastic.reshape(-1, 3)[empty] / weights.sum(axis=1, keepdims=True)
    return field.reshape(HEIGHT, WIDTH, 3).astype(np.float32)


def patch_gain(base: np.ndarray, donor: np.ndarray) -> float:
    """Brightness gain taking the donor's plastic to the base's (one for all channels).

    Not per channel: the plastic's tint varies between photos while the scene
    behind the holes stays neutral (the turquoise board's red channel is
    nearly black and its ratio mere noise), so per-channel ratios turned grey
    holes pink and yellow discs orange.
    """
    return float(np.clip(base.sum() / max(float(donor.sum()), 1.0), *GAIN_LIMITS))


def scaling(from_size: tuple[int, int], to_size: tuple[int, int]) -> np.ndarray:
    """Homography from pixels of an image to pixels of its resized copy."""
    sx, sy = to_size[0] / from_size[0], to_size[1] / from_size[1]
    return np.array([[sx, 0.0, 0.5 * sx - 0.5], [0.0, sy, 0.5 * sy - 0.5], [0.0, 0.0, 1.0]])


def photo_source(path: Path) -> str:
    """Board source of a photo: its file-name prefix (``zam``, ``res``)."""
    return path.stem.split("_", 1)[0]


@dataclass
class Photo:
    """One labelled photo: where its plane is, its cell patches and plastic colours."""

    name: str
    path: Path
    source: str
    grid: list[str]
    size: tuple[int, int]  # width, height
    plane_to_image: np.ndarray
    patches: np.ndarray  # (6, 7, S, S, 3) uint8, grid order (top line first)
    plastic: np.ndarray  # (6, 7, 3) float32, smooth (:func:`plastic_field`)

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
    donors: list[str]
    changed: list[tuple[int, int]]  # (line from the top, column), 0-based
    plane_to_image: np.ndarray  # of ``frame``
    camera: dict = field(default_factory=dict)
    jpeg: bytes | None = None  # the camera's JPEG of ``frame``, when it made one


def locate(frame: np.ndarray, detector: MarkerDetector) -> np.ndarray:
    """The plane-to-image homography of a frame with its four markers (or raise)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    markers = detector.detect(grey)
    fit = BoardLocator().locate(markers, (frame.shape[1], frame.shape[0]))
    if not fit.ok or len(markers) < 4:
        raise ValueError(f"board not located ({len(markers)} markers): {fit.reason}")
    return fit.plane_to_image


def cut_patches(frame: np.ndarray, plane_to_image: np.ndarray, scale: int) -> np.ndarray:
    """The 42 cell patches (6, 7, S, S, 3) of a frame, warped top-down."""
    size = (CANVAS_SIZE[0] * scale, CANVAS_SIZE[1] * scale)
    pixels_per_pitch = np.linalg.norm(plane_to_image[:2, :2], axis=0).mean() * CELL
    shrink = min(1.0, 1.25 * scale * CELL / pixels_per_pitch)
    if shrink < 1.0:  # pre-filter instead of aliasing in the warp
        small = cv2.resize(frame, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        plane_to_image = scaling(frame.shape[1::-1], small.shape[1::-1]) @ plane_to_image
        frame = small
    canvas = cv2.warpPerspective(frame, plane_to_image @ np.linalg.inv(canvas_transform(scale)),
                                 size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_REPLICATE)
    return np.stack([np.stack([canvas[patch_slice(line, column, scale)]
                               for column in range(WIDTH)]) for line in range(HEIGHT)])


class PatchLibrary:
    """Every labelled photo's cell patches, by board source."""

    def __init__(self, photos: list[Photo], scale: int) -> None:
        self.photos = photos
        self.scale = scale
        self.sources = sorted({photo.source for photo in photos})

    @classmethod
    def load(cls, shared_dir: Path | str | None = None, scale: int = 2,
             detector: MarkerDetector | None = None) -> PatchLibrary:
        """Read and cut every photo of ``real-dev`` (about 2 s)."""
        detector = detector or MarkerDetector()
        photos = []
        for path, frame, label in real_dev_frames(shared_dir):
            homography = locate(frame, detector)
            patches = cut_patches(frame, homography, scale)
            plastic = plastic_field(np.array([[plastic_colour(patch, scale) for patch in line]
                                              for line in patches]), label["grid"])
            photos.append(Photo(path.stem, path, photo_source(path), list(label["grid"]),
                                (frame.shape[1], frame.shape[0]), homography, patches,
                                plastic))
        return cls(photos, scale)

    def of_source(self, source: str) -> list[Photo]:
        return [photo for photo in self.photos if photo.source == source]

    def donor(self, rng: np.random.Generator, base: Photo, line: int, column: int,
              wanted: str) -> tuple[Photo, int, int]:
        """A patch of class ``wanted`` for a cell of ``base``: (photo, line, column).

        Lighting and parallax vary over the board, so the same cell weighs
        x12, else the same row x4, the same column x3, a neighbour x2. A disc
        from another photo weighs x2 (new material); an empty hole from the
        base photo itself x2 (a hole shows the scene behind the board).
        """
        candidates, weights = [], []
        for photo in self.of_source(base.source):
            for i, text in enumerate(photo.grid):
                for j, char in enumerate(text):
                    if char != wanted or (photo is base and (i, j) == (line, column)):
                        continue
                    candidates.append((photo, i, j))
                    weights.append(donor_weight(photo is base, wanted, i - line, j - column))
        if not candidates:
            raise LookupError(f"no {wanted!r} patch for source {base.source}")
        chosen = rng.choice(len(candidates), p=np.array(weights) / sum(weights))
        return candidates[int(chosen)]


def donor_weight(same_photo: bool, wanted: str, lines: int, columns: int) -> float:
    """Weight of a donor patch ``lines`` x ``columns`` cells away (see ``donor``)."""
    if lines == columns == 0:
        weight = 12.0
    else:
        weight = (4.0 if lines == 0 else 1.0) * (3.0 if columns == 0 else 1.0)
        weight *= 2.0 if max(abs(lines), abs(columns)) == 1 else 1.0
    return weight * (2.0 if same_photo == (wanted == ".") else 1.0)


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
    reduce = max((f for f in (1, 2, 4, 8) if max(photo.size) / f >= target), default=1)
    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2,
            4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}[reduce]
    frame = cv2.imread(str(photo.path), flag)
    if frame is None:
        raise OSError(f"cannot read {photo.path}")
    factor = target / max(frame.shape[:2])
    if factor < 1.0:
        size = (round(frame.shape[1] * factor), round(frame.shape[0] * factor))
        frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return frame, scaling(photo.size, frame.shape[1::-1]) @ photo.plane_to_image


def paste(frame: np.ndarray, plane_to_image: np.ndarray, cells: dict[tuple[int, int],
          np.ndarray], scale: int, axes: tuple[float, float] = DEFAULT_MASK) -> np.ndarray:
    """``frame`` with float patches pasted at their cells (soft mask, premultiplied).

    Masks of neighbouring cells may overlap a little (vertically on the
    turquoise board); there the patches are averaged by their weights.
    """
    alpha = paste_alpha(scale, axes)
    size = (CANVAS_SIZE[0] * scale, CANVAS_SIZE[1] * scale)
    colour = np.zeros((size[1], size[0], 3), np.float32)
    weight = np.zeros((size[1], size[0]), np.float32)
    for (line, column), patch in cells.items():
        rows, cols = patch_slice(line, column, scale)
        colour[rows, cols] += patch * alpha[..., None]
        weight[rows, cols] += alpha
    excess = np.maximum(weight, 1.0)
    colour /= excess[..., None]
    weight /= excess
    to_frame = plane_to_image @ np.linalg.inv(canvas_transform(scale))
    low, high = frame_box(to_frame, size, frame.shape[1::-1])
    shift = np.array([[1.0, 0.0, -low[0]], [0.0, 1.0, -low[1]], [0.0, 0.0, 1.0]])
    roi_size = (int(high[0] - low[0]), int(high[1] - low[1]))
    warped = cv2.warpPerspective(colour, shift @ to_frame, roi_size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(weight, shift @ to_frame, roi_size, flags=cv2.INTER_LINEAR)
    out = frame.copy()
    roi = out[low[1]:high[1], low[0]:high[0]].astype(np.float32)
    roi = roi * (1.0 - mask[..., None]) + warped
    out[low[1]:high[1], low[0]:high[0]] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    return out


def frame_box(to_frame: np.ndarray, size: tuple[int, int],
              frame_size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Pixel box (low, high) of the frame that the canvas of ``size`` maps into."""
    corners = cv2.perspectiveTransform(np.array(
        [[[0, 0]], [[size[0], 0]], [[size[0], size[1]]], [[0, size[1]]]], np.float64), to_frame)
    low = np.maximum(np.floor(corners.min(axis=(0, 1))).astype(int) - 2, 0)
    high = np.minimum(np.ceil(corners.max(axis=(0, 1))).astype(int) + 2, frame_size)
    return low, high


def camera_changes(rng: np.random.Generator, frame: np.ndarray,
                   strength: float = 1.0) -> tuple[np.ndarray, dict, bytes]:
    """White balance, exposure, sensor noise and JPEG on the whole frame (and its bytes)."""
    gains = np.exp(rng.uniform(np.log(0.8), np.log(1.25), 3) * strength)
    exposure = float(np.exp(rng.uniform(np.log(0.7), np.log(1.35)) * strength))
    noise = float(rng.uniform(0.0, 5.0) * strength)
    quality = int(round(95 - rng.uniform(0.0, 35.0) * strength))
    image = frame.astype(np.float32) * (gains * exposure).astype(np.float32)
    image += rng.normal(0.0, noise, image.shape[:2])[..., None].astype(np.float32)
    image += rng.normal(0.0, noise / 2, image.shape).astype(np.float32)
    encoded = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
    settings = {"wb": [round(float(g), 3) for g in gains], "exposure": round(exposure, 3),
                "noise": round(noise, 2), "jpeg": quality}
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR), settings, encoded.tobytes()


def status_of(board: Board) -> str:
    """SPEC §6 status of a legal board: ``finished`` (a four, or full) or ``ok``."""
    return "finished" if board.is_finished else "ok"


class Composer:
    """Composes frames from a :class:`PatchLibrary` (see the module docstring)."""

    def __init__(self, library: PatchLibrary, *, long_side: int | None = 1280,
                 camera: bool = True, detector: MarkerDetector | None = None) -> None:
        self.library = library
        self.long_side = long_side
        self.camera = camera
        self.detector = detector or MarkerDetector()

    def compose(self, rng: np.random.Generator, source: str | None = None) -> Composite:
        """One composite frame of board ``source`` (random source when None)."""
        source = source or str(rng.choice(self.library.sources))
        base = choose_base(rng, self.library.of_source(source))
        return self.compose_on(rng, base, random_board(rng))

    def compose_on(self, rng: np.random.Generator, base: Photo, board: Board) -> Composite:
        """``board`` composed on the photo ``base``."""
        grid = board.grid_lines()
        frame, homography = read_scaled(base, self.long_side)
        cells, donors = {}, []
        for line in range(HEIGHT):
            for column in range(WIDTH):
                if grid[line][column] == base.grid[line][column]:
                    continue
                photo, i, j = self.library.donor(rng, base, line, column, grid[line][column])
                gain = patch_gain(base.plastic[line, column], photo.plastic[i, j])
                cells[line, column] = photo.patches[i, j].astype(np.float32) * gain
                donors.append(photo.name)
        if cells:
            frame = paste(frame, homography, cells, self.library.scale,
                          MASKS.get(base.source, DEFAULT_MASK))
        frame, settings, jpeg = self._camera(rng, frame)
        return Composite(frame, grid, status_of(board), base.name, sorted(set(donors)),
                         sorted(cells), homography, settings, jpeg)

    def _camera(self, rng: np.random.Generator,
                frame: np.ndarray) -> tuple[np.ndarray, dict, bytes | None]:
        """Camera changes that keep all four markers findable (milder on each retry)."""
        if not self.camera:
            return frame, {}, None
        for strength in (1.0, 0.6, 0.3):
            changed, settings, jpeg = camera_changes(rng, frame, strength)
            if len(self.detector.detect(cv2.cvtColor(changed, cv2.COLOR_BGR2GRAY))) == 4:
                return changed, settings, jpeg
        return frame, {}, None


@functools.cache
def default_composer() -> Composer:
    """A composer on the default shared folder (built on first use)."""
    return Composer(PatchLibrary.load())


def compose(rng: np.random.Generator, source: str | None = None) -> tuple[np.ndarray,
                                                                          list[str], str]:
    """``(frame_bgr, grid_lines, status)`` of one composite from the default library."""
    result = default_composer().compose(rng, source)
    return result.frame, result.grid, result.status


def label_line(name: str, result: Composite) -> dict:
    """The ``labels.jsonl`` record of a written composite."""
    donors = ", ".join(donor + ".jpg" for donor in result.donors) or "none"
    return {"file": name, "status": result.status, "grid": result.grid,
            "source": f"composite of {result.base}.jpg + patches from {donors}",
            "tags": ["composite", "real-patches", result.base.split("_", 1)[0]],
            "size": [int(result.frame.shape[1]), int(result.frame.shape[0])],
            "camera": result.camera}


def write_jpeg(path: Path, result: Composite) -> None:
    """The camera's own JPEG bytes when there are some (no second compression), else q95."""
    if result.jpeg is None:
        cv2.imwrite(str(path), result.frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    else:
        path.write_bytes(result.jpeg)


def contact_sheet(frames: list[np.ndarray], grids: list[list[str]], columns: int = 3,
                  width: int = 560) -> np.ndarray:
    """Thumbnails with their label drawn as a small dot grid in the top-left corner."""
    tiles = []
    for frame, grid in zip(frames, grids, strict=True):
        tile = cv2.resize(frame, (width, round(frame.shape[0] * width / frame.shape[1])),
                          interpolation=cv2.INTER_AREA)
        cv2.rectangle(tile, (0, 0), (7 * 12 + 6, 6 * 12 + 6), (40, 40, 40), -1)
        colours = {".": (200, 200, 200), "R": (0, 0, 230), "Y": (0, 220, 240)}
        for i, text in enumerate(grid):
            for j, char in enumerate(text):
                cv2.circle(tile, (9 + 12 * j, 9 + 12 * i), 4, colours[char], -1)
        tiles.append(tile)
    height = max(tile.shape[0] for tile in tiles)
    tiles = [cv2.copyMakeBorder(t, 0, height - t.shape[0] + 4, 0, 4, cv2.BORDER_CONSTANT)
             for t in tiles]
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[k:k + columns]) for k in range(0, len(tiles), columns)])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shared", type=Path, default=None,
                        help="shared folder (default $C4PI_SHARED or ../shared)")
    parser.add_argument("--source", choices=("zam", "res"), default=None)
    parser.add_argument("--long-side", type=int, default=1280,
                        help="output long side in px (0: the photo's own size)")
    parser.add_argument("--no-camera", action="store_true", help="no camera changes")
    parser.add_argument("--sheet", type=Path, default=None,
                        help="also write a contact sheet of the first 9 frames (PNG)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cv2.setNumThreads(1)
    composer = Composer(PatchLibrary.load(args.shared), long_side=args.long_side or None,
                        camera=not args.no_camera)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    shown: list[tuple[np.ndarray, list[str]]] = []
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for index in range(args.count):
            result = composer.compose(rng, args.source)
            name = f"{index:04d}.jpg"
            write_jpeg(args.out / name, result)
            labels.write(json.dumps(label_line(name, result)) + "\n")
            if len(shown) < 9:
                shown.append((result.frame, result.grid))
    if args.sheet and shown:
        cv2.imwrite(str(args.sheet), contact_sheet(*map(list, zip(*shown, strict=True))))
    print(f"wrote {args.count} frames to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
