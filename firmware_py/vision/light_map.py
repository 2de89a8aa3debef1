"""This frame's light against a model's: one colour map for the whole board.

A hole's look (:func:`~firmware_py.vision.cells.cell_features`: the mean CIE
Lab colour of four rings) moves when the room's light changes: dusk, a lamp
switched on, a cloud, the camera's exposure. A model that learnt each hole's
look in the morning (:mod:`.hole_looks`) would find every hole unfamiliar in
the evening, and read its holes as if it knew nothing, or worse, take a wall
that the dimmer light moved for something new in the hole (a red shape in
the room behind an empty hole, read as a red disc where one may stand).

A light change moves every hole alike; a disc landing, a hand, a glare spot
move a few. So the map from this frame's looks to the model's is fitted on
the board as a whole: per Lab channel a gain and an offset (the same for
all four rings and all holes), by least trimmed squares: each round keeps
the :data:`KEEP_SHARE` of the holes that the current map fits best (at
least :data:`MIN_HOLES`) and refits on those, so that holes whose content
changed (up to half of them, where 16 holes or more may fit) do not pull
the map. Each hole is paired with the model's look of the kind nearest to
it in this frame's raw light (``reference``; paired once, not again under
the map); a hole whose look is known of no kind, or that a hand covers,
takes no part. A channel whose looks hardly vary keeps gain 1.

The map is the identity, and the looks are compared as they are, when a
change of light cannot explain the frame: fewer than :data:`MIN_HOLES`
holes to fit; a fit, in any round, that would stretch or shrink a channel
beyond :data:`GAIN_RANGE` (refused, not clipped); or fewer than that share
of the holes looking as taught under the map
(:func:`~.look_evidence.familiar`), or no more of them than without it (a
flicker that washes out some colours and not others, a hand, the board
half out of view).

Pure numpy, about 0.2-0.4 ms a frame on a PC's core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from firmware_py.vision.look_evidence import familiar

RINGS, CHANNELS = 4, 3  # a look: 4 rings x Lab (cells.cell_features)
KEEP_SHARE = 0.5  # the holes best fitted each round, out of those that may fit
MIN_HOLES = 8  # holes needed to fit a map at all
GAIN_RANGE = (0.67, 1.5)  # a channel's gain: a change of light, not of content
ROUNDS = 3  # trimming rounds (the third changes the map by well under a Lab unit)
FLAT = 1.0  # Lab units squared: a channel whose looks vary less keeps gain 1


@dataclass(frozen=True, eq=False)
class LightMap:
    """Per Lab channel: model look = ``gain`` x frame look + ``offset``."""

    gain: np.ndarray = field(default_factory=lambda: np.ones(CHANNELS))
    offset: np.ndarray = field(default_factory=lambda: np.zeros(CHANNELS))

    def to_model(self, looks: np.ndarray) -> np.ndarray:
        """Looks (N, 12) of this frame in the model's light."""
        looks = np.asarray(looks, np.float64)
        return (looks.reshape(-1, RINGS, CHANNELS) * self.gain + self.offset).reshape(looks.shape)

    def to_frame(self, looks: np.ndarray) -> np.ndarray:
        """The model's looks (N, 12; NaN stays NaN) in this frame's light."""
        looks = np.asarray(looks, np.float64)
        by_channel = (looks.reshape(-1, RINGS, CHANNELS) - self.offset) / self.gain
        return by_channel.reshape(looks.shape)


def light_map(features: np.ndarray, reference: np.ndarray,
              usable: np.ndarray | None = None) -> LightMap:
    """The map of this frame's ``features`` (N, 12) onto the model's ``reference``
    looks (N, 12; a NaN row: no look known at that hole); ``usable`` (N bools): the
    holes that may take part (not covered). See the module docstring."""
    frame = np.asarray(features, np.float64).reshape(-1, RINGS, CHANNELS)
    model = np.asarray(reference, np.float64).reshape(-1, RINGS, CHANNELS)
    may_fit = np.isfinite(model).all(axis=(1, 2)) & np.isfinite(frame).all(axis=(1, 2))
    if usable is not None:
        may_fit &= np.asarray(usable, bool)
    holes = np.flatnonzero(may_fit)
    if len(holes) < MIN_HOLES:
        return LightMap()
    keep = max(MIN_HOLES, int(KEEP_SHARE * len(holes)))
    fitted = identity = LightMap()
    for _ in range(ROUNDS):
        residual = ((fitted.to_model(frame[holes]) - model[holes]) ** 2).sum(axis=(1, 2))
        best = holes[np.argsort(residual, kind="stable")[:keep]]
        refitted = _fit(frame[best], model[best])
        if refitted is None:
            return identity  # colours stretched beyond a change of light
        fitted = refitted
    looks, taught = (shape[holes].reshape(len(holes), -1) for shape in (frame, model))
    as_taught = familiar(fitted.to_model(looks), taught).sum()
    if as_taught < keep or as_taught <= familiar(looks, taught).sum():
        return identity  # no change of light: one that moves the holes otherwise
    return fitted


def _fit(frame: np.ndarray, model: np.ndarray) -> LightMap | None:
    """Least squares gain and offset per channel of frame looks onto model looks
    (H, 4, 3 each); None when a gain falls outside :data:`GAIN_RANGE`."""
    gain, offset = np.ones(CHANNELS), np.zeros(CHANNELS)
    for channel in range(CHANNELS):
        x, y = frame[:, :, channel].ravel(), model[:, :, channel].ravel()
        x_mean, y_mean = x.mean(), y.mean()
        spread = ((x - x_mean) ** 2).mean()
        slope = ((x - x_mean) * (y - y_mean)).mean() / spread if spread >= FLAT else 1.0
        if not GAIN_RANGE[0] <= slope <= GAIN_RANGE[1]:
            return None
        gain[channel], offset[channel] = slope, y_mean - slope * x_mean
    return LightMap(gain, offset)
