"""Run by test_speech_alsa.py in a child process whose $HOME holds the test asoundrc.

Plays the announcement for one recommendation through the real stack
(Announcer -> PyAudioSink -> PortAudio -> ALSA -> file plugin) until the
audio clock reaches the given number of seconds, then prints a JSON summary.
"""

from __future__ import annotations

import json
import sys
import time

from firmware_py.config import SpeechConfig
from firmware_py.speech.announcer import Announcer
from firmware_py.speech.clips import ClipSettings, load_clips
from firmware_py.speech.sinks import PyAudioSink


def main(clip_dir: str, seconds: float, overrides: str) -> int:
    clips = load_clips(clip_dir, ClipSettings())
    config = SpeechConfig(**json.loads(overrides))
    sink = PyAudioSink("", frames_per_buffer=512)
    announcer = Announcer(clips, sink, config)
    announcer.show_recommendation("R", 4, "+", 13)   # before start: from sample 0
    deadline = time.monotonic() + 30.0
    with announcer:
        while announcer.time < seconds and time.monotonic() < deadline:
            time.sleep(0.002)
    print(json.dumps({"rate": announcer.rate, "opens": sink.opens, "time": announcer.time,
                      "error": sink.last_error}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2]), sys.argv[3]))
