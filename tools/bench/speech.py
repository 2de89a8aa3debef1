"""Speech benchmark: clip rendering, loading, and the mixer's real-time factor.

    .venv/bin/python -m tools.bench.speech [--seconds 120] [--block 1024] [--json]

Renders the clip set into a temporary directory (espeak-ng, 4 processes),
loads it, then mixes SECONDS of the busiest timeline (the move repeating,
the distance overlaid every 8 s) in BLOCK-frame callbacks, as the PyAudio
sink would, and reports CPU time per block and the real-time factor.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from firmware_py.config import SpeechConfig
from firmware_py.speech.announcer import Announcer
from firmware_py.speech.clips import ClipSettings, build_clips, load_clips


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--block", type=int, default=1024)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="c4pi-clips-") as directory:
        started = time.perf_counter()
        manifest = build_clips(directory, ClipSettings())
        results["render_s"] = time.perf_counter() - started
        results["clips"] = len(manifest["clips"])  # type: ignore[arg-type]
        started = time.perf_counter()
        clips = load_clips(directory, ClipSettings())
        results["load_ms"] = (time.perf_counter() - started) * 1000
    for rate in (clips.rate, 48000):
        results.update(_mix(clips.resampled(rate), args.seconds, args.block, rate))
    if args.json:
        print(json.dumps({key: round(value, 4) for key, value in results.items()}))
    else:
        for key, value in results.items():
            print(f"{key:28} {value:10.4f}")
    return 0


def _mix(clips, seconds: float, block: int, rate: int) -> dict[str, float]:
    announcer = Announcer(clips, None, SpeechConfig())
    announcer.show_recommendation("Y", 5, "-", 12)
    blocks = int(seconds * rate / block)
    started = time.process_time()
    for _ in range(blocks):
        announcer.render(block)
    cpu = time.process_time() - started
    audio = blocks * block / rate
    return {f"mix_{rate}_us_per_block": cpu / blocks * 1e6,
            f"mix_{rate}_realtime_factor": audio / cpu,
            f"mix_{rate}_cpu_percent": 100 * cpu / audio}


if __name__ == "__main__":
    raise SystemExit(main())
