"""Every vision and pipeline default is the config's (#57: one place for a default)."""

from __future__ import annotations

import inspect

from firmware_py.config import VisionConfig
from firmware_py.pipeline.belief import BeliefParams
from firmware_py.pipeline.reducer import PipelineParams
from firmware_py.vision.reader import BoardReader


def test_the_pipelines_defaults_are_the_configs() -> None:
    assert PipelineParams() == PipelineParams.from_config(VisionConfig())
    assert BeliefParams().margin == VisionConfig().accept_margin


def test_the_readers_defaults_are_the_configs() -> None:
    defaults = inspect.signature(BoardReader.__init__).parameters
    config = VisionConfig()
    assert defaults["margin"].default == config.accept_margin
    assert defaults["disc_depth_pitch"].default == config.disc_depth_pitch
    assert defaults["marker_size_pitch"].default == config.marker_size_pitch
