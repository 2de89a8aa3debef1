"""The WAV file sink: the speech written into a bounded, locked WAV file."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import wave
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from c4game.exc import AudioError
from firmware_py.speech.clips import open_exclusive
from firmware_py.speech.sinks import PacedSink

log = logging.getLogger(__name__)

FILE_CHECK_S = 1.0  # how often a WAV sink looks that its file is still there


class WavSink(PacedSink):
    """Writes the audio into a mono 16-bit WAV file, bounded and fault-tolerant.

    The file is locked while it is written (``flock``, :func:`open_exclusive`): a
    second c4pi process asked to write the same file fails to start (its
    :class:`AudioError` says another c4pi process is writing it) and never
    truncates or interleaves into the first one's audio.

    Every ``max_s`` seconds of audio the file is finalised and moved to
    ``<name>.old.wav`` and a new one begins: the last ``max_s`` to 2 x ``max_s``
    of speech are kept (about 26 MB per 10 minutes), never more. A write that
    fails (a full disk, the folder deleted) or a file deleted under it does not
    stop the sink: :attr:`failure` says why (logged once, however often the
    retries fail; a file deleted or replaced is noticed within
    :data:`FILE_CHECK_S`), the audio is discarded, and the file is opened again every
    ``retry_s`` until a write works (then one line says so).
    """

    def __init__(self, path: str | Path, *, max_s: float = 600.0, retry_s: float = 5.0,
                 **kwargs: Any) -> None:  # Any: PacedSink's keywords
        super().__init__(**kwargs)
        self.path = Path(path)
        self.max_s = max_s
        self.retry_s = retry_s
        self.failure: str | None = None
        self._file: BinaryIO | None = None
        self._handle: wave.Wave_write | None = None
        self._rate = 0
        self._frames = 0
        self._since = 0.0  # when the file was last checked or last failed

    @property
    def old_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".old" + self.path.suffix)

    def _open(self, rate: int) -> None:
        self._rate = rate
        try:
            self._begin()
        except OSError as error:
            raise AudioError(f"cannot write {self.path}: {error.strerror}") from None

    def _begin(self) -> None:
        self._file = open_exclusive(self.path)  # locked until _finish closes it
        self._handle = wave.open(self._file, "wb")  # noqa: SIM115 (closed by _finish)
        self._handle.setnchannels(1)
        self._handle.setsampwidth(2)
        self._handle.setframerate(self._rate)
        self._frames, self._since = 0, self._clock()

    def _write(self, frames: np.ndarray) -> None:
        if self._handle is None and not self._reopen():
            return  # failing: the audio is discarded until the file can be written
        assert self._handle is not None
        try:
            self._handle.writeframes(frames.astype("<i2").tobytes())
            self._frames += len(frames)
            if self.failure is not None:  # written again, not only reopened or buffered
                assert self._file is not None
                self._file.flush()  # a full disk fails here, not in the buffer
                log.info("speech: writing %s again", self.path)
                self.failure = None
            if self._frames >= self.max_s * self._rate:
                self._finish()
                self.path.replace(self.old_path)
                self._begin()
            elif self._clock() - self._since >= min(self.retry_s, FILE_CHECK_S):
                self._since = self._clock()
                if not self._still_ours():  # deleted, or replaced by a folder or a file
                    raise FileNotFoundError(2, "the file was deleted or replaced")
        except OSError as error:
            self._fail(error)

    def _still_ours(self) -> bool:
        """True while ``path`` is the file this sink has open (not deleted, not replaced)."""
        try:
            named = os.stat(self.path)
        except OSError:
            return False
        if self._file is None or not stat.S_ISREG(named.st_mode):
            return False
        opened = os.fstat(self._file.fileno())
        return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)

    def _reopen(self) -> bool:
        if self._clock() - self._since < self.retry_s:
            return False
        try:
            self._begin()
        except OSError as error:
            self._fail(error)
            return False
        return True  # "writing again" once a write succeeds: a full disk opens files

    def _fail(self, error: OSError) -> None:
        failed_at = self._clock()  # read first: the retry is timed from the failure itself
        why = f"cannot write {self.path}: {error.strerror or error}"
        if why != self.failure:
            log.error("speech: %s; the audio is lost until it can be written (retried "
                      "every %g s)", why, self.retry_s)
        with contextlib.suppress(OSError):
            self._finish()
        self._handle, self._file, self._since = None, None, failed_at
        self.failure = why  # published last, once the state it describes is set

    def _finish(self) -> None:
        handle, file = self._handle, self._file
        self._handle = self._file = None
        try:
            if handle is not None:
                handle.close()
        finally:
            if file is not None:
                file.close()
