"""Benchmark the kiosk page's server (the screen figures in docs/figures.md).

    .venv/bin/python -m tools.bench.hud            # all four measurements, about 2 minutes

1. **Vision frame rate with 0 and 20 clients**: the frame loop (simulated
   camera as fast as it renders, board reader, pipeline, solver) with the
   HUD's hub and server, first with no client, then with 20 clients each
   holding the event stream and the MJPEG camera stream open.
2. **Added CPU of the web server with one client**: the process's CPU time
   while the paced simulated camera (``[camera] fps``) runs for ``--seconds``,
   with the HUD and one client (events + camera), minus the same run
   without the HUD; in percent of one core.
3. **Page ready**: Debian's Chromium (headless) loads the page from the
   server; the time from the navigation's start to the first state drawn.
4. **State change to page**: a view posted to the hub; the time until the
   page has drawn it (both clocks are this machine's), median of 20.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import sys
import threading
import time
from typing import Any

from firmware_py.config import load_config
from firmware_py.hud.hub import HudHub
from firmware_py.hud.server import HudServer
from firmware_py.hud.taps import AnalysingReader
from firmware_py.pipeline.assemble import (
    make_port,
    make_reader,
    make_solver,
    params_from_config,
)
from firmware_py.pipeline.events import View
from firmware_py.pipeline.runtime import FrameLoop, Pipeline
from firmware_py.sources.factory import open_source


class Client:
    """Holds ``path`` open and reads it to the end (a browser tab's stream)."""

    def __init__(self, port: int, path: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        self.bytes = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while chunk := self.response.read1(65536):
                self.bytes += len(chunk)
        except Exception:  # closed by close(): the stream ends here
            pass

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.sock.shutdown(2)


def run_loop(config: Any, seconds: float, *, fast: bool, hud: bool, clients: int,
             seed: int = 5) -> tuple[float, float, HudServer | None]:
    """(frames per second, CPU seconds per second) of the frame loop for ``seconds``."""
    source = open_source("sim", config.camera, fast=fast, seed=seed)
    source.open()
    reader = make_reader(config, source, stored_looks=False)
    port = make_port(config, make_solver(config), live=True)
    hub = server = None
    if hud:
        hub = HudHub()
        server = HudServer(hub, port=0).start()
        reader = AnalysingReader(reader, hub)
    pipeline = Pipeline(params_from_config(config), port,
                        on_show=hub.on_view if hub else None,
                        on_commit=hub.on_commit if hub else None, clock=time.monotonic)
    stop = threading.Event()
    loop = FrameLoop(source, reader, pipeline, stop=stop)
    streams = []
    if server is not None:
        for _ in range(clients):
            streams += [Client(server.port, "/events"), Client(server.port, "/camera.mjpg")]
    loop.run(10)  # warm up
    timer = threading.Timer(seconds, stop.set)
    start_frames, start, cpu = loop.frames, time.monotonic(), time.process_time()
    timer.start()
    loop.run()
    elapsed, used = time.monotonic() - start, time.process_time() - cpu
    for stream in streams:
        stream.close()
    if server is not None:
        server.stop()
    port.worker.stop()
    source.close()
    return (loop.frames - start_frames) / elapsed, used / elapsed, server


def browser_timings(samples: int) -> tuple[float, list[float]]:
    """(page ready ms, state-to-page ms per sample) in headless Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    hub = HudHub()
    server = HudServer(hub, port=0).start()
    try:
        driver.get(f"http://127.0.0.1:{server.port}/")
        while not driver.execute_script("return window.c4piShown || null"):
            time.sleep(0.01)
        ready = driver.execute_script(
            "return window.c4piShown.at - performance.timeOrigin")
        delays = []
        for index in range(samples):
            view = View("solved", ("." * 7,) * 6, 4, 1 + index % 5, 41)
            sent = time.time() * 1000
            hub.on_view(view, float(index))
            seq = hub.snapshot()["seq"]
            while True:
                shown = driver.execute_script("return window.c4piShown")
                if shown["seq"] >= seq:
                    delays.append(shown["at"] - sent)
                    break
                time.sleep(0.002)
            time.sleep(0.05)
        return ready, delays
    finally:
        server.stop()
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each measured run")
    args = parser.parse_args()
    config = load_config(None)
    fps_none, _, _ = run_loop(config, args.seconds, fast=True, hud=True, clients=0)
    fps_twenty, _, _ = run_loop(config, args.seconds, fast=True, hud=True, clients=20)
    print(f"vision loop (simulated camera unpaced): {fps_none:.1f} frames/s with 0 clients, "
          f"{fps_twenty:.1f} with 20 ({100 * (fps_twenty / fps_none - 1):+.1f} %)")
    _, cpu_without, _ = run_loop(config, args.seconds, fast=False, hud=False, clients=0)
    _, cpu_with, _ = run_loop(config, args.seconds, fast=False, hud=True, clients=1)
    print(f"CPU at {config.camera.fps:g} frames/s: {100 * cpu_without:.1f} % of a core "
          f"without the HUD, {100 * cpu_with:.1f} % with it and one client "
          f"(added {100 * (cpu_with - cpu_without):.1f} %)")
    ready, delays = browser_timings(20)
    print(f"page ready in {ready:.0f} ms; state change to page: median "
          f"{statistics.median(delays):.0f} ms, max {max(delays):.0f} ms (20 changes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
