"""Speech: espeak-ng clips, the two-channel announcer, and audio sinks.

See ``docs/speech.md``. Import the pieces from here::

    from firmware_py.speech import open_announcer
"""

from firmware_py.speech.announcer import Announcer, MutedAnnouncer, make_sink, open_announcer
from firmware_py.speech.clips import (
    ClipSet,
    ClipSettings,
    build_clips,
    check_clips,
    default_clip_dir,
    ensure_clips,
    load_clips,
)
from firmware_py.speech.mixer import Mixer
from firmware_py.speech.scheduler import DISTANCE, MOVE, Cut, Play, Scheduler
from firmware_py.speech.sinks import AudioSink, NullSink, PyAudioSink
from firmware_py.speech.wav_sink import WavSink

__all__ = [
    "DISTANCE", "MOVE", "Announcer", "AudioSink", "ClipSet", "ClipSettings", "Cut", "Mixer",
    "MutedAnnouncer", "NullSink", "Play", "PyAudioSink", "Scheduler", "WavSink", "build_clips",
    "check_clips", "default_clip_dir", "ensure_clips", "load_clips", "make_sink",
    "open_announcer",
]
