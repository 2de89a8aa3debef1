"""What `c4pi demo`'s screen shows against what stands on its simulated table, in real time.

Runs the demo's appliance in this process (simulated camera, reader, solver
worker, screen server, speech into a WAV file, the robot link on a
pseudo-terminal) for ``--seconds`` on this machine's real clock, and records
each frame's table (the simulator's truth) and each view the screen shows.
Reports:

* positions on the table and those the screen showed (solved or finished);
* the longest silence: seconds from a position landing to the screen first
  showing it (to its end when never shown);
* seconds and views showing a wrong board (its answer shown or pending): a
  board that did not stand on the table in the last ``--late`` seconds (the
  board before a landing, shown while the commit waits, is late, not wrong).

    .venv/bin/python -m tools.bench.demo_screen --seconds 1800
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from firmware_py.config import load_config
from firmware_py.pipeline.events import FINISHED, SOLVED

Grid = tuple[str, ...]


class Recorder:
    """Times of the table's changes and of the screen's views."""

    def __init__(self) -> None:
        self.table: list[tuple[float, Grid]] = []  # (t, grid) whenever the table changes
        self.views: list[tuple[float, Grid | None, bool]] = []  # (t, board, answered)
        self.lock = threading.Lock()

    def on_frame(self, scene: Any) -> None:
        grid = tuple(scene.truth.grid_lines())
        with self.lock:
            if not self.table or self.table[-1][1] != grid:
                self.table.append((time.monotonic(), grid))

    def on_view(self, view: Any, _t: float) -> None:
        board = tuple(view.grid) if view.grid else None  # on the screen, answer or not
        answered = board is not None and view.state in (SOLVED, FINISHED)
        with self.lock:
            self.views.append((time.monotonic(), board, answered))


def recording_source(source: Any, recorder: Recorder) -> Any:
    """``source`` whose every frame's scene is recorded."""
    read = source.read

    def read_and_record() -> Any:
        frame = read()
        if frame is not None and frame.info is not None:
            recorder.on_frame(frame.info)
        return frame
    source.read = read_and_record
    return source


def score(recorder: Recorder, end: float, late_s: float) -> dict[str, Any]:
    """The figures of the module docstring."""
    table, views = recorder.table, recorder.views
    positions = shown = wrong_views = 0
    longest, wrong_s = 0.0, 0.0
    for index, (landed, grid) in enumerate(table):
        until = table[index + 1][0] if index + 1 < len(table) else end
        first = next((t for t, seen, answered in views
                      if answered and seen == grid and landed <= t < until), None)
        positions += 1
        shown += first is not None
        longest = max(longest, (first if first is not None else until) - landed)
    for index, (t, seen, _answered) in enumerate(views):
        if seen is not None and seen not in stood_between(table, t - late_s, t, end):
            wrong_views += 1
            wrong_s += (views[index + 1][0] if index + 1 < len(views) else end) - t
    return {"seconds": round(end - (table[0][0] if table else end), 1), "positions": positions,
            "shown": shown, "longest_silence_s": round(longest, 2),
            "views_showing_wrong": wrong_views, "seconds_showing_wrong": round(wrong_s, 2)}


def stood_between(table: list[tuple[float, Grid]], start: float, stop: float,
                  end: float) -> set[Grid]:
    """The grids that stood on the table at some time in ``start`` .. ``stop``."""
    ends = [landed for landed, _ in table[1:]] + [end]
    return {grid for (landed, grid), until in zip(table, ends, strict=True)
            if landed <= stop and until > start}


def run(seconds: float, seed: int, late_s: float, config_path: str | None) -> dict[str, Any]:
    from firmware_py.appliance.app import Appliance
    from firmware_py.appliance.demo import demo_config, demo_parts
    from firmware_py.notify import SystemdNotifier
    from firmware_py.serial_link.ptywire import PtyWire

    recorder = Recorder()
    work = Path(tempfile.mkdtemp(prefix="c4pi-demo-screen-"))
    config = demo_config(load_config(config_path), wav_path=work / "demo.wav", speaker=False,
                         seed=seed, fps=None)
    with PtyWire() as wire, open(work / "terminal.txt", "w") as out:  # noqa: SIM115
        parts = demo_parts(wire, seed, out, "", [])
        make_source, show = parts.source, parts.on_view

        def source(cfg: Any, wait: Any) -> Any:
            return recording_source(make_source(cfg, wait), recorder)

        def on_view(view: Any, t: float) -> None:
            recorder.on_view(view, t)
            if show is not None:
                show(view, t)
        parts.source, parts.on_view = source, on_view
        appliance = Appliance(config, SystemdNotifier(), parts)
        stop = threading.Event()
        timer = threading.Timer(seconds, stop.set)
        try:
            appliance.start()
            timer.start()
            appliance.run(stop)
        finally:
            timer.cancel()
            appliance.stop()
    return score(recorder, time.monotonic(), late_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1800.0,
                        help="how long to run the demo (1800: the figures are printed at "
                             "the end)")
    parser.add_argument("--seed", type=int, default=1, help="the simulated games' seed (1)")
    parser.add_argument("--late", type=float, default=0.5,
                        help="seconds a board may stay shown after it left the table (0.5)")
    parser.add_argument("--config", help="c4pi config (default as c4pi)")
    args = parser.parse_args(argv)
    results = run(args.seconds, args.seed, args.late, args.config)
    print(json.dumps(results))
    return 1 if results["views_showing_wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
