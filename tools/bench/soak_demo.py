"""Soak test of `c4pi demo`: RSS over time, errors logged, clean stop.

    .venv/bin/python -m tools.bench.soak_demo --seconds 1800

Prints RSS samples every --every seconds and a summary: RSS after warm-up,
peak, growth from the first sample after warm-up to the end, ERROR/Traceback
lines in the log, time until the first view, exit status after SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1800)
    parser.add_argument("--every", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=60)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="c4pi-soak-"))
    out, log = open(work / "view.txt", "w"), open(work / "log.txt", "w")  # noqa: SIM115
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "firmware_py", "demo", "--seed", "1",
                                "--wav", str(work / "demo.wav")], stdout=out, stderr=log)
    samples: list[tuple[float, float]] = []
    first_view = None
    while (elapsed := time.monotonic() - started) < args.seconds:
        if process.poll() is not None:
            print(f"demo exited early with {process.returncode}")
            break
        if first_view is None and (work / "view.txt").stat().st_size > 0:
            first_view = elapsed
        samples.append((elapsed, rss_mb(process.pid)))
        print(f"{elapsed:7.0f} s  RSS {samples[-1][1]:7.1f} MB", flush=True)
        time.sleep(args.every if first_view is not None else 0.1)
    process.send_signal(signal.SIGTERM)
    stop_started = time.monotonic()
    code = process.wait(timeout=30)
    stop_s = time.monotonic() - stop_started
    text = (work / "log.txt").read_text()
    errors = [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]
    settled = [rss for t, rss in samples if t >= args.warmup] or [samples[-1][1]]
    print(f"first view after {first_view:.2f} s; exit {code} after SIGTERM in {stop_s:.2f} s")
    print(f"RSS after warm-up {settled[0]:.1f} MB, peak {max(r for _, r in samples):.1f} MB, "
          f"end {settled[-1]:.1f} MB, growth {settled[-1] - settled[0]:+.1f} MB")
    print(f"error lines logged: {len(errors)}; log in {work / 'log.txt'}")
    for line in errors[:10]:
        print("  " + line)
    return 0 if code == 0 and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
