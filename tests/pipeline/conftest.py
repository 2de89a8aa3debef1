"""Fixtures of the pipeline tests (the fakes live in firmware_py.pipeline.fakes)."""

from __future__ import annotations

import pytest

from firmware_py.pipeline.fakes import RecordingAnnouncer


@pytest.fixture
def announcer() -> RecordingAnnouncer:
    return RecordingAnnouncer()
