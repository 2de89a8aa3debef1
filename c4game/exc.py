"""One exception tree for all of c4pi.

Every error c4pi raises on purpose derives from :class:`C4piError`. Leaves that
describe bad input also derive from :class:`ValueError`, so callers that only
know the standard library can still catch them. Messages carry the bad input.
"""

from __future__ import annotations

EXCERPT_CHARACTERS = 240  # the most of a bad input a message repeats (a long path whole)


def excerpt(text: str, limit: int = EXCERPT_CHARACTERS) -> str:
    """``text`` quoted as ``repr`` does, its middle cut out when it is longer than
    ``limit`` characters (a message need not repeat 10,000 characters of bad input)."""
    if len(text) <= limit:
        return repr(text)
    head, tail = text[:limit * 2 // 3], text[-(limit // 3):]
    return f"{head + ' … ' + tail!r} ({len(text):,} characters)"


class C4piError(Exception):
    """Root of every error raised by c4pi."""


# --- configuration ---------------------------------------------------------


class ConfigError(C4piError, ValueError):
    """A config file is unreadable or holds a bad section, key, type or value."""

    def __init__(self, path: str, key: str, problem: str) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        shown = path if len(path) <= EXCERPT_CHARACTERS else excerpt(path)
        where = f"{shown}: {key}: " if key else f"{shown}: "
        super().__init__(where + problem)


# --- positions -------------------------------------------------------------


class PositionError(C4piError, ValueError):
    """A position (move sequence or grid) is not a legal Connect Four position."""


class IllegalMoveError(PositionError):
    """A move sequence holds a bad character, a full column or a move after a win."""


class InvalidGridError(PositionError):
    """A grid has a bad shape or character, a floating disc or wrong parity."""


class GameOverError(PositionError):
    """The position is finished (four in a row or full); there is nothing to solve."""


# --- solver and book -------------------------------------------------------


class SolverError(C4piError):
    """The solver could not produce an answer."""


class SolveCancelled(SolverError):
    """A search was cancelled from another thread before it finished."""


class BookError(SolverError):
    """An opening book file is missing, truncated, corrupt or of the wrong version."""


# --- vision ----------------------------------------------------------------


class VisionError(C4piError):
    """The vision pipeline could not process a frame."""


class ModelError(VisionError):
    """The cell classifier model is missing, unreadable or has the wrong shape."""


# --- devices -----------------------------------------------------------------


class DeviceError(C4piError):
    """A piece of hardware (camera, serial port, LED, speaker) failed."""


class CameraError(DeviceError):
    """The camera or frame source cannot deliver frames."""


class SerialPortError(DeviceError):
    """The serial port cannot be opened, read or written."""


class LedError(DeviceError):
    """An LED cannot be driven."""


class AudioError(DeviceError):
    """The audio output or the speech clips are unusable."""


class ProtocolError(C4piError, ValueError):
    """A serial frame breaks the robot protocol (SPEC §3)."""


class HudError(C4piError):
    """The HUD web server could not start (the port is taken, the address is wrong)."""


class RecordingError(C4piError):
    """An annotated video cannot be written."""


class PlayError(C4piError, ValueError):
    """A request the play page cannot take (an unknown game, a bad level or colour)."""
