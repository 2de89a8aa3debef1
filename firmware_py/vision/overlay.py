"""What the reader saw, drawn on the frame: the aiming aid (``c4pi snapshot --annotate``).

Drawn over the camera frame:

* each detected marker's outline and id (green: used by the fit; orange:
  found but left out);
* the fitted grid on the board's face (cyan when the board was read, red
  when the fit was rejected), and where the discs were read (the disc plane,
  thin, when the depth correction moved it);
* each cell's reading (``R``, ``Y`` or ``.``) and its confidence in percent,
  red where it is below the reader's bound;
* a band above the frame (it covers nothing): status, how many of the four
  markers were found, confidence, why a frame is not ``ok`` and what to do
  (:func:`~firmware_py.vision.remedy.remedy`), wrapped to the width.
"""

from __future__ import annotations

import cv2
import numpy as np

from c4game.board import HEIGHT, WIDTH
from firmware_py.vision.fit import BoardFit
from firmware_py.vision.geometry import GRID_ORIGIN, cell_centres
from firmware_py.vision.reader import FrameAnalysis
from firmware_py.vision.reading import CLASSES, FINISHED, OK, Reading
from firmware_py.vision.remedy import remedy

USED, UNUSED = (60, 200, 60), (0, 140, 255)  # BGR
GRID_READ, GRID_REJECTED, DISC_PLANE = (255, 220, 0), (40, 40, 230), (200, 160, 0)
DOUBTFUL = (40, 40, 230)
ADVICE = (80, 190, 255)  # BGR: the screen's warning orange
CELL_COLOURS = {"R": (40, 40, 230), "Y": (0, 220, 255), ".": (235, 235, 235)}
FONT = cv2.FONT_HERSHEY_SIMPLEX


def annotate(frame: np.ndarray, analysis: FrameAnalysis,
             min_cell_confidence: float = 0.6, *, banner: bool = True,
             band_lines: int | None = None) -> np.ndarray:
    """A copy of ``frame`` (BGR) with what the reader found drawn on it: markers, grid,
    holes, and with ``banner`` the status, reason and advice in a band above the frame
    (the picture grows by its height; the screen says those in its own caption, one
    place, and draws no banner). ``band_lines``: the band's height in lines, fixed (a
    video's frames keep one size; lines beyond it are left out), else as many as needed."""
    image = frame.copy()
    scale = max(image.shape[1] / 1280, 0.5)
    _draw_markers(image, analysis, scale)
    fit = analysis.fit
    if fit.plane_to_image is not None:
        colour = GRID_READ if fit.ok else GRID_REJECTED
        _draw_grid(image, fit, colour, max(1, round(2 * scale)))
        disc = analysis.disc_fit
        if disc is not None and disc.depth:
            _draw_grid(image, disc, DISC_PLANE, 1)
    if analysis.reading.grid is not None and fit.ok:
        _draw_cells(image, analysis, min_cell_confidence, scale)
    return _banner(image, analysis, scale, band_lines) if banner else image


def _draw_markers(image: np.ndarray, analysis: FrameAnalysis, scale: float) -> None:
    used = set(analysis.fit.marker_ids) if analysis.fit.ok else set()
    for marker_id, marker in analysis.markers.items():
        colour = USED if marker_id in used else UNUSED
        corners = marker.corners.astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [corners], True, colour, max(1, round(3 * scale)), cv2.LINE_AA)
        x, y = marker.corners.min(axis=0)
        _text(image, f"id {marker_id}", (int(x), int(y - 8 * scale)), colour, 0.8 * scale)


def _draw_grid(image: np.ndarray, fit: BoardFit, colour: tuple[int, int, int],
               thickness: float) -> None:
    x0, y0 = GRID_ORIGIN
    lines = [((x0 + 80 * c, y0), (x0 + 80 * c, y0 + 80 * HEIGHT)) for c in range(WIDTH + 1)]
    lines += [((x0, y0 + 80 * r), (x0 + 80 * WIDTH, y0 + 80 * r)) for r in range(HEIGHT + 1)]
    for start, end in lines:
        points = np.linspace(start, end, 12)  # a lens may bend the lines
        projected = fit.project(points)
        if np.all(np.isfinite(projected)):
            cv2.polylines(image, [projected.astype(np.int32).reshape(-1, 1, 2)], False,
                          colour, int(thickness), cv2.LINE_AA)


def _draw_cells(image: np.ndarray, analysis: FrameAnalysis, bound: float,
                scale: float) -> None:
    reading = analysis.reading
    fit = analysis.disc_fit or analysis.fit
    centres = fit.project(cell_centres())
    labels = "".join(reading.grid or ())
    shown = shown_confidences(analysis)
    for index, (x, y) in enumerate(centres):
        label = labels[index]
        confidence = shown[index]
        colour = CELL_COLOURS[label]
        cv2.circle(image, (int(x), int(y)), int(7 * scale), colour, -1, cv2.LINE_AA)
        cv2.circle(image, (int(x), int(y)), int(7 * scale), (0, 0, 0), 1, cv2.LINE_AA)
        _text(image, f"{confidence * 100:.0f}%", (int(x - 16 * scale), int(y + 22 * scale)),
              DOUBTFUL if confidence < bound else (255, 255, 255), 0.5 * scale)


def shown_confidences(analysis: FrameAnalysis) -> list[float]:
    """(42) each cell's confidence as the overlay prints it: the reading's own; on a
    refused reading each cell's probability of the class shown, as the reason quotes
    it (the reading caps its doubtful cells at one half, so that they give the game
    filter no evidence: decide.py)."""
    reading = analysis.reading
    if reading.status in (OK, FINISHED) or analysis.log_probs is None or not reading.grid:
        return [reading.cell_confidence[index] if index < len(reading.cell_confidence)
                else 0.0 for index in range(WIDTH * HEIGHT)]
    labels = "".join(reading.grid)
    return [float(np.exp(analysis.log_probs[index, CLASSES.index(label)]))
            for index, label in enumerate(labels)]


def _found(reading: Reading) -> str:
    """How the board was found, or what was looked for."""
    markers = f"{reading.markers} of 4 markers found"
    if reading.found_by == "markers":
        return markers
    if reading.found:
        return "found by its holes"
    return f"{markers}, holes not found" if reading.markers else "holes not found"


def _banner(image: np.ndarray, analysis: FrameAnalysis, scale: float,
            band_lines: int | None = None) -> np.ndarray:
    """``image`` below a band that says the status, how many markers were found, the
    confidence, why a frame was not accepted and what to do, every line wrapped to the
    width (the band is added above the frame: it covers nothing of it)."""
    reading = analysis.reading
    good = reading.status in (OK, FINISHED)
    size = 0.8 * scale
    head = f"{reading.status}  {_found(reading)}"
    if reading.found:
        head += f"  confidence {reading.confidence:.2f}"
    lines = [(head, USED if good else DOUBTFUL)]
    lines += [(line, (255, 255, 255)) for line in _wrap(reading.reason, image.shape[1], size)]
    advice = remedy(reading.status, reading.reason)
    lines += [(line, ADVICE) for line in _wrap(f"What to do: {advice}" if advice else "",
                                                 image.shape[1], size)]
    if band_lines is not None:
        lines = lines[:band_lines]
    step = int(34 * scale)
    rows = len(lines) if band_lines is None else band_lines
    band = np.full((step * rows + int(14 * scale), image.shape[1], 3), 24, np.uint8)
    for row, (line, colour) in enumerate(lines):
        _text(band, line, (int(10 * scale), int(30 * scale) + step * row), colour, size)
    return np.vstack([band, image])


def _wrap(text: str, width: int, size: float) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` pixels at ``size``."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        fits = cv2.getTextSize(candidate, FONT, size, max(1, round(2 * size)))[0][0] \
            <= width - 20 * size
        if lines and fits:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines


def _text(image: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, int, int],
          size: float) -> None:
    thickness = max(1, round(2 * size))
    # a dark outline: the same strokes shifted around (a thicker stroke is also a wider
    # text in OpenCV 5, whose copy then sticks out to the right of the coloured one)
    x, y = origin
    for dx, dy in ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)):
        cv2.putText(image, text, (x + dx, y + dy), FONT, size, (0, 0, 0), thickness, cv2.LINE_AA)
    cv2.putText(image, text, origin, FONT, size, colour, thickness, cv2.LINE_AA)
