"""Camera calibration with a printed ChArUco board (OpenCV), for cameras without defaults.

The board (``c4pi markers --charuco``) is a chessboard of
:data:`SQUARES` whose white squares hold ArUco 4x4 markers (a dictionary apart
from the board's AprilTags, so neither is mistaken for the other). Each view
gives the chessboard's inner corners with their ids, found even when part of
the board is hidden; OpenCV's ``calibrateCamera`` fits fx, fy, cx, cy and
distortion (k1, k2, p1, p2, k3) to all views and reports the RMS
reprojection error. Views should show the board at different angles (up to
about 45°) and places in the frame; :data:`MIN_VIEWS` at least.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from c4game.exc import VisionError
from firmware_py.vision.sheet import A4_MM, mm_to_px

SQUARES = (7, 5)  # columns, rows
SQUARE_MM = 36.0  # fits A4 landscape with margins
MARKER_SHARE = 0.75  # marker side / square side
DICTIONARY = cv2.aruco.DICT_4X4_50
MIN_VIEWS = 6
MIN_CORNERS = 8  # corners a view must show to count


def charuco_board(square_mm: float = SQUARE_MM) -> cv2.aruco.CharucoBoard:
    """The calibration board (lengths in mm)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.CharucoBoard(SQUARES, square_mm, square_mm * MARKER_SHARE, dictionary)


def charuco_sheet(dpi: int = 300) -> np.ndarray:
    """An A4 landscape page (H x W uint8 grey) with the board at true size, centred."""
    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi {dpi} is out of range 72-1200")
    page = np.full((mm_to_px(A4_MM[0], dpi), mm_to_px(A4_MM[1], dpi)), 255, np.uint8)
    width = mm_to_px(SQUARES[0] * SQUARE_MM, dpi)
    height = mm_to_px(SQUARES[1] * SQUARE_MM, dpi)
    board = charuco_board().generateImage((width, height), marginSize=0, borderBits=1)
    top, left = (page.shape[0] - height) // 2, (page.shape[1] - width) // 2
    page[top:top + height, left:left + width] = board
    cv2.putText(page, f"c4pi camera calibration: squares {SQUARE_MM:g} mm - print at 100%",
                (left, top - mm_to_px(6, dpi)), cv2.FONT_HERSHEY_SIMPLEX, dpi / 300,
                0, max(1, dpi // 150), cv2.LINE_AA)
    return page


@dataclass(frozen=True)
class CameraCalibration:
    """What calibration found: K (3 x 3), distortion, RMS error (px), views used."""

    matrix: np.ndarray
    distortion: np.ndarray
    rms_px: float
    views: int
    size: tuple[int, int]

    def config_snippet(self) -> str:
        """The ``[camera]`` lines that make c4pi use this calibration."""
        fx, fy, cx, cy = (self.matrix[0, 0], self.matrix[1, 1], self.matrix[0, 2],
                          self.matrix[1, 2])
        distortion = ", ".join(f"{value:.6g}" for value in self.distortion.ravel())
        return (f"# c4pi calibrate-camera: {self.views} views, RMS reprojection error "
                f"{self.rms_px:.3f} px\n[camera]\nwidth = {self.size[0]}\n"
                f"height = {self.size[1]}\nfx = {fx:.2f}\nfy = {fy:.2f}\ncx = {cx:.2f}\n"
                f"cy = {cy:.2f}\ndistortion = [{distortion}]\n")


def board_points(image: np.ndarray, detector: cv2.aruco.CharucoDetector,
                 board: cv2.aruco.CharucoBoard) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points, image points) of the board's corners in one view, or None."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = detector.detectBoard(grey)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    objects, points = board.matchImagePoints(corners, ids)
    return objects.reshape(-1, 3).astype(np.float32), points.reshape(-1, 2).astype(np.float32)


def calibrate(images: list[np.ndarray]) -> CameraCalibration:
    """Calibrate from views of the board (all of one size); VisionError if too few."""
    if not images:
        raise VisionError("no views to calibrate from")
    size = (images[0].shape[1], images[0].shape[0])
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    objects, points = [], []
    for image in images:
        if (image.shape[1], image.shape[0]) != size:
            raise VisionError(f"views differ in size: {image.shape[1]}x{image.shape[0]} "
                              f"and {size[0]}x{size[1]}")
        found = board_points(image, detector, board)
        if found is not None:
            objects.append(found[0])
            points.append(found[1])
    if len(objects) < MIN_VIEWS:
        raise VisionError(f"the ChArUco board was found in {len(objects)} of {len(images)} "
                          f"views; need {MIN_VIEWS} (show all of it, sharp, at several angles)")
    rms, matrix, distortion, _, _ = cv2.calibrateCamera(objects, points, size, None, None)
    return CameraCalibration(matrix, distortion.ravel()[:5], float(rms), len(objects), size)
