"""Make the README's and docs/hud.md's pictures of the screen, from the real page.

    .venv/bin/python -m tools.screen_snapshots      # writes docs/img/hud-*.png

Runs ``c4pi watch sim --moves 4455667 --hud`` (a finished game with its
review) and ``c4pi demo`` (a game in play, served to the network so that the
QR code shows), and photographs the page in Debian's Chromium at the 7-inch
touchscreen's 800x480, at 1280x800 and on a 390x844 phone.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.shared_data import REPO

SHOTS = (  # (file, command, width, height, what the page must show first)
    ("hud-finished.png", ("watch", "sim", "--moves", "4455667", "--seed", "3", "--hud"),
     1280, 800, "finished"),
    ("hud-touchscreen.png", ("demo", "--seed", "21"), 800, 480, "solved"),
    ("hud-phone.png", ("demo", "--seed", "21"), 390, 844, "solved"),
)
READY = """
const reviewed = document.querySelectorAll("#game .mark").length > 0;
const state = document.getElementById("state").dataset.state;
return state === arguments[0] && document.getElementById("camera").naturalWidth > 0
       && (state !== "finished" || reviewed)
       && (innerWidth < innerHeight || !document.getElementById("phone").hidden
           || state === "finished");
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def browser() -> object:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def shoot(driver: object, folder: Path, name: str, command: tuple[str, ...], width: int,
          height: int, ready: str) -> None:
    port = free_port()
    lan = "true" if command[0] == "demo" else "false"
    config = folder / "c4pi.toml"
    config.write_text(f"[hud]\nport = {port}\nlan = {lan}\n[speech]\nenabled = false\n"
                      "[led]\nactivity = \"none\"\n")
    process = subprocess.Popen([sys.executable, "-m", "firmware_py", "--config", str(config),
                                *command], cwd=REPO, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3.0)
        driver.set_window_size(width, height)
        inner = driver.execute_script("return [innerWidth, innerHeight]")
        driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
        driver.get(f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 120
        while not driver.execute_script(READY, ready):
            if time.monotonic() > deadline:
                raise SystemExit(f"{name}: the page never showed a {ready} board")
            time.sleep(0.2)
        time.sleep(1.0)
        driver.save_screenshot(str(REPO / "docs" / "img" / name))
        print(f"docs/img/{name}: {width}x{height}")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


def main() -> int:
    driver = browser()
    try:
        with tempfile.TemporaryDirectory() as folder:
            for name, command, width, height, ready in SHOTS:
                shoot(driver, Path(folder), name, command, width, height, ready)
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
