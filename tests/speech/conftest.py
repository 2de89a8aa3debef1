"""Fixtures for the speech tests: one clip set rendered per session, configs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware_py.config import SpeechConfig
from firmware_py.speech.clips import ClipSet, ClipSettings, build_clips, load_clips

SETTINGS = ClipSettings()


@pytest.fixture(scope="session")
def clip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clip set rendered once with espeak-ng (never modify it: copy it first)."""
    directory = tmp_path_factory.mktemp("clips")
    build_clips(directory, SETTINGS)
    return directory


@pytest.fixture(scope="session")
def clips(clip_dir: Path) -> ClipSet:
    return load_clips(clip_dir, SETTINGS)


@pytest.fixture
def make_config() -> Callable[..., SpeechConfig]:
    """``make_config(**overrides)``: the default ``[speech]`` section with overrides."""
    def make(**overrides: object) -> SpeechConfig:
        return dataclasses.replace(SpeechConfig(), **overrides)
    return make
