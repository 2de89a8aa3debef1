"""Read one camera frame into a :class:`~firmware_py.vision.reading.Reading`.

One straight line of named stages (see ``docs/vision.md``):

1. **markers** → **fit**: the four AprilTags give the board's front face, or
   without them (``[vision] board``) its lattice of holes (:mod:`.hole_locator`);
2. **reference**: the markers' white and black (:mod:`.colour`; without
   markers the camera's own exposure and white balance);
3. **disc plane** (:mod:`.depth`): the face moved to where the discs show;
4. **warp**: the disc plane top-down at half resolution, **normalised** by
   the reference, cut into 42 **crops**;
5. two **readers** that fail differently: the CNN (:mod:`.classifier`) and the
   colour reader (:mod:`.colour_reader`, told which holes no longer look as
   they did empty, compared in this frame's light (:mod:`.light_map`: one
   colour map for the whole board, fitted on the holes), and the disc
   colours: calibrated ones, else this frame's own where the fixed bands do
   not name its discs, :mod:`.frame_discs`);
6. **combine** (:mod:`.combine`): one calibrated opinion per cell (on a frame
   read with its own disc colours the CNN's "empty" vetoes no disc the colour
   reader sees; a hole something lies over, a hand, :mod:`.hidden`: none);
   **doubt** (:mod:`.frame_doubt`): a hole read empty that looks like the
   discs the readers are sure of in this frame, far more than like its sure
   empty holes, ties with that disc, and a disc that looks like the discs
   read the other colour ties its two colours (sureness only taken away);
7. **recall** (:mod:`.hole_looks`, when given): this installation's one model
   of how each hole looks empty, with a red and with a yellow disc; a hole
   that looks as a known look (in the same light) is read as that, the
   others as the readers read them; (the **frame fit**, :mod:`.frame_fit`,
   this frame's own looks, only when asked: off live);
8. **expect** (:mod:`.expectation`, when the game filter hands one with the
   frame): a hole that still looks as the game expects is held to what it held;
9. **decide** (:mod:`.decide`): the most probable legal position, read only
   as it is seen and when it is far enough ahead of its runner-up.

The reader learns nothing from its own readings: the model of looks is
taught only boards known for sure (``c4pi calibrate``, boards the game
confirmed: :mod:`firmware_py.pipeline.teach`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial

import cv2
import numpy as np

from c4game.exc import VisionError
from firmware_py.config import BOARD_FINDERS, CameraConfig, VisionConfig, resolve_path
from firmware_py.vision.cells import (
    blur_measure,
    cell_crops,
    cell_features,
    crops_lab,
    to_model_input,
    warp_grid,
)
from firmware_py.vision.classifier import CellClassifier, TFLiteCellClassifier, softmax
from firmware_py.vision.colour import CAMERA_AS_IS, ColourReference, colour_reference
from firmware_py.vision.colour_reader import ColourCellReader, covered_cells
from firmware_py.vision.combine import combine, readers_differ
from firmware_py.vision.decide import DEFAULT_MARGIN, Decision
from firmware_py.vision.depth import ESTIMATED, NONE, seen_disc_fit
from firmware_py.vision.expectation import weigh_and_decide
from firmware_py.vision.fit import BoardFit, BoardLocator, Intrinsics
from firmware_py.vision.frame_discs import frame_disc_colours
from firmware_py.vision.frame_doubt import Doubted, doubt
from firmware_py.vision.frame_fit import frame_evidence
from firmware_py.vision.geometry import GRID_CORNERS, MARKER_IDS, marker_corners
from firmware_py.vision.hidden import border_plastic, hidden_holes
from firmware_py.vision.hole_locator import HoleLocator
from firmware_py.vision.hole_looks import HoleLooks
from firmware_py.vision.markers import Marker, MarkerDetector
from firmware_py.vision.reading import INVALID, NO_BOARD, Expectation, Reading

# pitches: common boards hold their discs 0.3-0.4 P behind the face ([vision] disc_depth_pitch)
DEFAULT_DISC_DEPTH: float = VisionConfig.disc_depth_pitch
DEPTH_NOTES = {
    ESTIMATED: "no camera intrinsics: the discs' depth is corrected with a focal length "
               "estimated from the board's view (its markers or its holes)",
    NONE: "no camera intrinsics and a view too frontal to estimate them: the discs' depth "
          "is not corrected in such frames",
}
LOG = logging.getLogger(__name__)
GREY_STEP = 32  # px between the pixels sampled to tell a picture without colour (0.06 ms)
GREY_SPREAD = 2  # 8-bit levels the channels of a grey picture's pixel may differ by
GREY_CONTRAST = 32  # 8-bit levels between its darkest and brightest: a scene, not a blank
NO_COLOUR = ("the picture has no colour (a grey or infrared camera): the discs are told "
             "by their colours")


@dataclass(frozen=True)
class FrameAnalysis:
    """Everything :meth:`BoardReader.analyse` computed for one frame (for tools)."""

    reading: Reading
    fit: BoardFit  # the front face (markers, holes)
    disc_fit: BoardFit | None = None  # the disc plane, warped for the crops
    grid_image: np.ndarray | None = None  # normalised, half resolution
    cnn: np.ndarray | None = None  # (42, 3) probabilities
    colour: np.ndarray | None = None  # (42, 3) probabilities
    log_probs: np.ndarray | None = None  # (42, 3) combined (:mod:`.combine`), recalled, held
    decision: Decision | None = None
    markers: dict[int, Marker] = field(default_factory=dict)  # as detected, by id


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
    """Turns BGR frames into readings (not thread-safe: one TFLite interpreter).

    ``hole_looks`` (None: no memory) is this installation's model of its holes'
    looks, consulted each frame and taught elsewhere (never by the reader).
    ``frame_discs`` (on in the product): a frame whose discs the fixed hue bands
    do not name is read by its own two disc colours (:mod:`.frame_discs`).
    ``frame_doubt`` (on in the product): a hole read empty that looks like this
    frame's sure discs is not sure (:mod:`.frame_doubt`).
    """

    def __init__(self, classifier: CellClassifier, *, detector: MarkerDetector | None = None,
                 locator: BoardLocator | None = None,
                 colour_reader: ColourCellReader | None = None,
                 hole_looks: HoleLooks | None = None,
                 marker_size_pitch: float = VisionConfig.marker_size_pitch,
                 margin: float = DEFAULT_MARGIN,
                 disc_depth_pitch: float = DEFAULT_DISC_DEPTH,
                 frame_fit: bool = False, frame_discs: bool = True, frame_doubt: bool = True,
                 first: str = "either", board: str = "auto",
                 hole_locator: HoleLocator | None = None) -> None:
        self.classifier = classifier
        self.detector = detector or MarkerDetector(marker_size_pitch=marker_size_pitch)
        self.locator = locator or BoardLocator(marker_size_pitch=marker_size_pitch)
        self.colour_reader = colour_reader or ColourCellReader()
        self.hole_looks = hole_looks
        self.marker_size_pitch = marker_size_pitch
        self.margin = margin
        self.disc_depth_pitch = disc_depth_pitch
        self.frame_fit = frame_fit
        self.frame_discs = frame_discs
        self.frame_doubt = frame_doubt
        self.first = first  # who may start ([game] first, SPEC §1)
        if board not in BOARD_FINDERS:
            raise ValueError(f"board {board!r} is not one of {BOARD_FINDERS}")
        self.board = board  # how the board is found ([vision] board)
        self.hole_locator = hole_locator or HoleLocator()
        self._markers_seen = False  # under auto: a marker installation (see _locate)
        # where the markers of the board found by its holes would stand (MarkerDetector)
        self._marker_places: dict[int, np.ndarray] | None = None
        self._depth_noted: set[str] = set()

    @classmethod
    def from_config(cls, vision: VisionConfig, camera: CameraConfig | None = None, *,
                    num_threads: int = 1, first: str = "either") -> BoardReader:
        """A reader set up from ``[vision]`` (and ``[camera]`` intrinsics, if any);
        ``first``: who may start (``[game] first``)."""
        model = resolve_path(vision.model) if vision.model else None
        locator = BoardLocator(marker_size_pitch=vision.marker_size_pitch,
                               calibration=vision.calibration,
                               max_reprojection_px=vision.max_reprojection_px,
                               intrinsics=intrinsics_from_config(camera))
        return cls(TFLiteCellClassifier(model, num_threads=num_threads), locator=locator,
                   hole_looks=HoleLooks() if vision.remember_empty_board else None,
                   marker_size_pitch=vision.marker_size_pitch,
                   margin=vision.accept_margin,
                   disc_depth_pitch=vision.disc_depth_pitch, first=first,
                   board=vision.board)

    def read(self, frame: np.ndarray, expectation: Expectation | None = None) -> Reading:
        """Read one BGR frame (H x W x 3 uint8), under the game filter's ``expectation``
        when it is given (:mod:`.expectation`)."""
        return self.analyse(frame, expectation).reading

    def analyse(self, frame: np.ndarray,
                expectation: Expectation | None = None) -> FrameAnalysis:
        """Read one frame and keep the intermediate results."""
        _check_frame(frame)
        if _without_colour(frame):
            return FrameAnalysis(Reading(NO_BOARD, reason=NO_COLOUR), BoardFit(False, NO_COLOUR))
        markers = (self.detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY),
                                        where=self._marker_places)
                   if self.board != "holes" else {})
        fit = self._locate(frame, markers)
        if len(markers) == len(MARKER_IDS) and not (fit.ok and fit.markers == len(markers)):
            self.detector.forget()  # four markers that made no board of four: search anew
        self._marker_places = (_marker_places(fit, self.marker_size_pitch)
                               if fit.ok and fit.found_by == "holes" and self.board == "auto"
                               else None)
        if not fit.ok:
            return FrameAnalysis(Reading(NO_BOARD, markers=fit.markers, reason=fit.reason,
                                         reprojection_px=fit.reprojection_px,
                                         found_by=fit.found_by), fit, markers=markers)
        reference = (colour_reference(frame, fit, self.marker_size_pitch)
                     if fit.found_by == "markers" else CAMERA_AS_IS)
        if reference is None:
            return FrameAnalysis(Reading(INVALID, markers=fit.markers,
                                         reason="the markers' white and black cannot be "
                                                "told apart (too dark, or washed out)",
                                         reprojection_px=fit.reprojection_px), fit,
                                 markers=markers)
        disc_fit = self._disc_plane(fit, (frame.shape[1], frame.shape[0]))
        grid_image = reference.normalise(warp_grid(frame, disc_fit, step=2))
        crops = cell_crops(grid_image)
        lab = crops_lab(crops)
        features = cell_features(crops, lab)
        cnn = softmax(self.classifier.logits(to_model_input(crops)))
        hidden = self._hidden(frame, fit, disc_fit, reference, crops)
        covered = covered_cells(crops, lab) | hidden  # a hand beside it too: no colour opinion
        grid_corners = fit.project(GRID_CORNERS)
        looks = self.hole_looks
        discs = looks.discs if looks and looks.discs else None
        frame_discs = (frame_disc_colours(crops, cnn, covered)
                       if discs is None and self.frame_discs else None)
        light = looks.light(features, covered=covered, grid_corners=grid_corners) \
            if looks else None
        colour = self.colour_reader.probabilities(
            crops, covered, discs=frame_discs or discs, features=features,
            fixed_bands=not frame_discs,
            empty_looks=looks.empty_looks(grid_corners, light) if looks else None)
        log_probs = combine(cnn, colour, unfamiliar=bool(frame_discs), hidden=hidden)
        doubted = doubt(log_probs, features, covered) if self.frame_doubt else None
        if doubted is not None:
            log_probs = doubted.log_probs
        if looks is not None:
            log_probs = looks.recall(log_probs, features, covered=covered,
                                     grid_corners=grid_corners, light=light)
        if self.frame_fit:
            log_probs = _normalised(log_probs + frame_evidence(log_probs, features,
                                                               covered=covered))
        weighed = weigh_and_decide(log_probs, features, expectation, margin=self.margin,
                                   rule=self.first,
                                   explain=partial(_explain, cnn, colour, doubted, hidden))
        decision = weighed.decision
        reading = Reading(decision.status, grid=decision.grid, board=decision.board,
                          confidence=decision.confidence,
                          cell_confidence=decision.cell_confidence, markers=fit.markers,
                          reason=decision.reason, blur=blur_measure(grid_image),
                          reprojection_px=fit.reprojection_px,
                          cell_log_probs=weighed.log_probs, cell_looks=features,
                          cell_covered=covered, grid_corners=grid_corners,
                          found_by=fit.found_by, cell_held=weighed.held,
                          expectation=expectation)
        return FrameAnalysis(reading, fit, disc_fit, grid_image, cnn, colour,
                             weighed.log_probs, decision, markers)

    def _locate(self, frame: np.ndarray, markers: dict[int, Marker]) -> BoardFit:
        """The board's front face: by its markers, else (``auto``) or only (``holes``)
        by its holes. Under ``auto`` a reader that has seen a marker is a marker
        installation: a frame whose markers are hidden is not read by its holes (its
        readings, and the looks the game teaches, stay those of the markers)."""
        if self.board != "holes":
            fit = self.locator.locate(markers, (frame.shape[1], frame.shape[0]))
            self._markers_seen = self._markers_seen or bool(markers)
            if fit.ok or self.board == "markers" or self._markers_seen:
                return fit
        holes = self.hole_locator.locate(frame)
        if holes.ok or self.board == "holes":
            return holes
        return BoardFit(False, f"no markers in view, and {holes.reason}", found_by="holes")

    @staticmethod
    def _hidden(frame: np.ndarray, fit: BoardFit, disc_fit: BoardFit,
                reference: ColourReference, crops: np.ndarray) -> np.ndarray:
        """(42,) holes something lies over (a hand: :mod:`.hidden`), found on the
        face's crops (the readers' own where the disc plane is the face)."""
        face_crops = crops if disc_fit is fit else cell_crops(
            reference.normalise(warp_grid(frame, fit, step=2)))
        return hidden_holes(face_crops, border_plastic(frame, fit, reference.normalise))

    def _disc_plane(self, fit: BoardFit, frame_size: tuple[int, int]) -> BoardFit:
        disc_fit, how = seen_disc_fit(fit, self.disc_depth_pitch, frame_size)
        if self.disc_depth_pitch and how in DEPTH_NOTES and how not in self._depth_noted:
            self._depth_noted.add(how)
            LOG.info(DEPTH_NOTES[how])
        return disc_fit


def _marker_places(fit: BoardFit, marker_size_pitch: float) -> dict[int, np.ndarray]:
    """Where on the image each marker would stand (SPEC §5) on the board ``fit`` found."""
    return {marker_id: fit.project(marker_corners(marker_id, marker_size_pitch))
            for marker_id in MARKER_IDS}


def _explain(cnn: np.ndarray, colour: np.ndarray, doubted: Doubted | None,
             hidden: np.ndarray, cell: int) -> str:
    """What is known of a doubtful ``cell``: hidden, the readers' views where they
    differ, and the kind of this frame's holes it looks like where it was doubted."""
    if hidden[cell]:
        return "something lies over it (a hand?)"
    notes = (readers_differ(cnn, colour, cell), doubted.note(cell) if doubted else "")
    return "; ".join(note for note in notes if note)


def _normalised(log_probs: np.ndarray) -> np.ndarray:
    """Each cell's log-probabilities summing to 1."""
    return log_probs - np.logaddexp.reduce(log_probs, axis=1, keepdims=True)


def _without_colour(frame: np.ndarray) -> bool:
    """Whether ``frame`` shows a scene without colour (a grey or infrared picture): its
    three channels within :data:`GREY_SPREAD` of one another at every sampled pixel,
    with light and shade (not a black or blank frame: that is said as it is)."""
    sample = frame[::GREY_STEP, ::GREY_STEP].astype(np.int16)
    return (int(np.ptp(sample, axis=2).max()) <= GREY_SPREAD
            and int(np.ptp(sample)) >= GREY_CONTRAST)


def _check_frame(frame: np.ndarray) -> None:
    if not isinstance(frame, np.ndarray):
        raise VisionError(f"a frame must be a numpy array, got {type(frame).__name__}")
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionError(f"a frame must be H x W x 3 uint8 BGR, got shape {frame.shape} "
                          f"dtype {frame.dtype}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise VisionError(f"frame of {frame.shape[1]} x {frame.shape[0]} px is too small")
