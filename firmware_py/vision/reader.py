"""Read one camera frame into a :class:`~firmware_py.vision.reading.Reading`.

Markers → plane fit (with checks) → top-down warp → 42 HSV crops → classifier
→ softmax → gravity / parity / finished rules. See ``docs/vision.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from firmware_py.config import CameraConfig, VisionConfig, resolve_path
from firmware_py.exc import VisionError
from firmware_py.vision.cells import blur_measure, cell_crops, to_model_input, warp_grid
from firmware_py.vision.classifier import CellClassifier, TFLiteCellClassifier, softmax
from firmware_py.vision.context import apply_context
from firmware_py.vision.fit import BoardFit, BoardLocator, Intrinsics
from firmware_py.vision.markers import MarkerDetector
from firmware_py.vision.postprocess import doubtful_cells, frontier_cells, grid_from_labels, judge
from firmware_py.vision.reading import INVALID, NO_BOARD, Reading


@dataclass(frozen=True)
class FrameAnalysis:
    """Everything :meth:`BoardReader.analyse` computed for one frame (for tools)."""

    reading: Reading
    fit: BoardFit
    grid_image: np.ndarray | None = None
    probabilities: np.ndarray | None = None


def intrinsics_from_config(camera: CameraConfig | None,
                           frame_size: tuple[int, int] | None = None) -> Intrinsics | None:
    """Intrinsics from ``[camera] fx fy cx cy distortion``; None when fx or fy is 0.

    A principal point of 0 means the centre of the configured frame size.
    """
    if camera is None or camera.fx <= 0 or camera.fy <= 0:
        return None
    width, height = frame_size or (camera.width, camera.height)
    cx = camera.cx if camera.cx > 0 else width / 2
    cy = camera.cy if camera.cy > 0 else height / 2
    return Intrinsics.from_values(camera.fx, camera.fy, cx, cy, camera.distortion)


class BoardReader:
    """Turns BGR frames into readings; holds one classifier (not thread-safe).

    ``warp_step`` 2 (default) warps the grid at half resolution (see
    :mod:`firmware_py.vision.cells`); 1 warps it at the full 80 px per pitch.
    With ``flip_votes`` (default), a frame with doubtful cells (below the
    frontier confidence) is classified three more times, mirrored left-right,
    upside down and both, and each doubtful cell takes the mean of its four
    probability vectors (the model was trained with flips; a disc reads the
    same either way, glare and shading do not). Confident cells keep theirs.
    Frontier cells (a column's top disc and the empty cell above it, where a
    misreading leaves a legal grid) are voted on below the stricter
    ``frontier_vote_confidence`` (0.95): one view's 0.875 for "empty" on a
    red disc seen against a red backdrop became 0.74 over four views.
    With ``context_check`` (default), a doubtful cell that looks much more like
    the frame's sure cells of another class takes that class, still doubtful
    (:mod:`firmware_py.vision.context`).
    """

    def __init__(self, classifier: CellClassifier, *, detector: MarkerDetector | None = None,
                 locator: BoardLocator | None = None, min_cell_confidence: float = 0.6,
                 min_frontier_confidence: float = 0.85, warp_step: int = 2,
                 flip_votes: bool = True, frontier_vote_confidence: float = 0.95,
                 context_check: bool = True) -> None:
        self.classifier = classifier
        self.warp_step = warp_step
        self.flip_votes = flip_votes
        self.context_check = context_check
        self.detector = detector or MarkerDetector()
        self.locator = locator or BoardLocator()
        self.min_cell_confidence = min_cell_confidence
        self.min_frontier_confidence = min_frontier_confidence
        self.frontier_vote_confidence = frontier_vote_confidence

    @classmethod
    def from_config(cls, vision: VisionConfig, camera: CameraConfig | None = None, *,
                    num_threads: int = 1) -> BoardReader:
        """A reader set up from ``[vision]`` (and ``[camera]`` intrinsics, if any)."""
        model = resolve_path(vision.model) if vision.model else None
        locator = BoardLocator(marker_size_pitch=vision.marker_size_pitch,
                               calibration=vision.calibration,
                               max_reprojection_px=vision.max_reprojection_px,
                               intrinsics=intrinsics_from_config(camera))
        return cls(TFLiteCellClassifier(model, num_threads=num_threads), locator=locator,
                   detector=MarkerDetector(marker_size_pitch=vision.marker_size_pitch),
                   min_cell_confidence=vision.min_cell_confidence,
                   min_frontier_confidence=vision.min_frontier_confidence,
                   flip_votes=vision.flip_votes,
                   frontier_vote_confidence=vision.frontier_vote_confidence,
                   context_check=vision.context_check)

    def read(self, frame: np.ndarray) -> Reading:
        """Read one BGR frame (H x W x 3 uint8)."""
        return self.analyse(frame).reading

    def analyse(self, frame: np.ndarray) -> FrameAnalysis:
        """Read one frame and keep the intermediate results."""
        _check_frame(frame)
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = self.detector.detect(grey)
        fit = self.locator.locate(markers, (frame.shape[1], frame.shape[0]))
        if not fit.ok:
            reading = Reading(NO_BOARD, markers=fit.markers, reason=fit.reason,
                              reprojection_px=fit.reprojection_px)
            return FrameAnalysis(reading, fit)
        grid_image = warp_grid(frame, fit, step=self.warp_step)
        crops = cell_crops(grid_image)
        batch = to_model_input(crops, upsample=self.warp_step)
        probabilities = softmax(self.classifier.logits(batch))
        voted = (self._cells_to_vote(probabilities) if self.flip_votes
                 else np.empty(0, np.int64))
        if voted.size:
            probabilities = self._vote_with_flips(batch, probabilities, voted)
        if self.context_check:
            probabilities = apply_context(crops, probabilities)
        verdict = judge(probabilities, self.min_cell_confidence, self.min_frontier_confidence)
        if verdict.status == INVALID and voted.size:
            # the votes made a reading the rules reject: let the rules settle
            # the voted cells instead, as they settle doubtful ones
            settled = judge(probabilities, self.min_cell_confidence,
                            self.min_frontier_confidence, also_doubtful=voted)
            if settled.status != INVALID:
                verdict = settled
        reading = Reading(verdict.status, grid=verdict.grid, board=verdict.board,
                          confidence=verdict.confidence,
                          cell_confidence=verdict.cell_confidence, markers=fit.markers,
                          reason=verdict.reason, blur=blur_measure(grid_image),
                          reprojection_px=fit.reprojection_px)
        return FrameAnalysis(reading, fit, grid_image, probabilities)

    def _cells_to_vote(self, probabilities: np.ndarray) -> np.ndarray:
        """Doubtful cells, and frontier cells below ``frontier_vote_confidence``."""
        confidence = probabilities.max(axis=1)
        doubtful = doubtful_cells(confidence, self.min_cell_confidence,
                                  self.min_frontier_confidence)
        frontier = np.array(frontier_cells(grid_from_labels(probabilities.argmax(axis=1))),
                            np.int64)
        shaky = frontier[confidence[frontier] < self.frontier_vote_confidence]
        return np.union1d(doubtful, shaky)

    def _vote_with_flips(self, batch: np.ndarray, probabilities: np.ndarray,
                         doubtful: np.ndarray) -> np.ndarray:
        """The ``doubtful`` cells' probabilities averaged over the batch and its three flips."""
        total = probabilities[doubtful]
        for view in (batch[:, :, ::-1], batch[:, ::-1], batch[:, ::-1, ::-1]):
            total = total + softmax(self.classifier.logits(np.ascontiguousarray(view)))[doubtful]
        voted = probabilities.copy()
        voted[doubtful] = total / 4.0
        return voted

def _check_frame(frame: np.ndarray) -> None:
    if not isinstance(frame, np.ndarray):
        raise VisionError(f"a frame must be a numpy array, got {type(frame).__name__}")
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionError(f"a frame must be H x W x 3 uint8 BGR, got shape {frame.shape} "
                          f"dtype {frame.dtype}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise VisionError(f"frame of {frame.shape[1]} x {frame.shape[0]} px is too small")
