"""Helpers for the browser tests: Debian's Chromium driven by Selenium, and ``c4pi``
started as a user starts it (a subprocess with a config file)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = ROOT / "build" / "test-artefacts" / "hud"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage")


def chromium() -> Iterator[object]:
    """A headless Chromium (skips, saying why, where it cannot run)."""
    if os.environ.get("C4PI_EMULATED"):
        pytest.skip(f"Chromium's driver does not start under {os.environ['C4PI_EMULATED']} "
                    "emulation (tools/device/arm64_check.sh); these tests run on real machines")
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed "
                    "(./setup.sh test installs them)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                    "(./setup.sh test installs it)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument("--window-size=1280,800")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


def set_viewport(driver: object, width: int, height: int) -> None:
    """Make the page's own area (``innerWidth`` x ``innerHeight``) ``width`` x ``height``."""
    window = [width, height]
    inner: list[int] = []
    for _ in range(5):  # a busy machine may apply a resize late: measure, correct, again
        driver.set_window_size(*window)
        inner, before = driver.execute_script("return [innerWidth, innerHeight]"), None
        for _ in range(10):  # until two readings agree
            if inner == [width, height]:
                return
            if inner == before:
                break
            time.sleep(0.05)
            inner, before = driver.execute_script("return [innerWidth, innerHeight]"), inner
        window = [window[0] + width - inner[0], window[1] + height - inner[1]]
    assert inner == [width, height], f"the browser window gives {inner}, not {width}x{height}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_config(folder: Path, port: int, *, lan: bool = False) -> Path:
    """A config for a test: the screen on ``port``, no speech, no LED, no serial port."""
    path = folder / "c4pi.toml"
    path.write_text(f"[hud]\nport = {port}\nlan = {str(lan).lower()}\n"
                    "[speech]\nenabled = false\n[led]\nactivity = \"none\"\n")
    return path


def start(config: Path, *command: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "firmware_py", "--config", str(config),
                             *command], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until(driver: object, predicate: Callable[[dict], object], timeout: float, what: str,
               script: str) -> dict:
    """Run ``script`` in the page until ``predicate`` holds for what it returns."""
    deadline = time.monotonic() + timeout
    screen: dict = {}
    while time.monotonic() < deadline:
        screen = driver.execute_script(script)
        if predicate(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the page never showed {what}; it shows {screen}")


def load(driver: object, port: int, process: subprocess.Popen, path: str = "/") -> None:
    """Open ``path`` once ``process`` serves its page."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("c4pi did not serve its page: "
                                     + process.stderr.read().decode()[-2000:]) from None
            time.sleep(0.2)
    driver.get(f"http://127.0.0.1:{port}{path}")
