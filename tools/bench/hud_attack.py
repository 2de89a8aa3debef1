"""`c4pi demo` under a connection flood, with the 1,024-file limit of a default unit.

Starts the demo (its screen on a free port, its files limited to 1,024), then
opens ``--half`` connections that send half a request and stop, and
``--streams`` camera-stream clients that never read. Meanwhile the robot
port is asked a query every half second and the demo's views are counted.
Reports:

* robot queries answered, and the slowest answer;
* views the demo printed during the flood (the vision loop carries on);
* log lines the demo wrote during the flood, per second (the robot's queries
  log two lines each), of which refusals, and tracebacks;
* seconds until every half-sent connection was closed by the server;
* the page's answer time once they are gone.

    .venv/bin/python -m tools.bench.hud_attack --half 1100 --streams 200
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import serial

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_demo(work: Path, port: int) -> tuple[subprocess.Popen, str]:
    """The demo with 1,024 files, and its robot port."""
    config = work / "c4pi.toml"
    config.write_text(f"[hud]\nport = {port}\n[speech]\nsink = \"null\"\n")

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_py", "--config", str(config), "demo", "--seed", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=open(work / "log.txt", "wb"),  # noqa: SIM115
        preexec_fn=limit_files)
    selector, text = selectors.DefaultSelector(), b""
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if selector.select(0.2):
            text += os.read(process.stdout.fileno(), 4096)
            marker = b"serial robot link on "
            if marker in text:
                return process, text.split(marker, 1)[1].split()[0].decode()
    raise RuntimeError(f"the demo did not start: {text[-300:]!r}")


def count_views(process: subprocess.Popen, views: list[float], stop: threading.Event) -> None:
    while not stop.is_set():
        line = process.stdout.readline()
        if not line:
            return
        if line.startswith(b"t = "):
            views.append(time.monotonic())


def ask_robot(path: str, answers: list[float], stop: threading.Event) -> None:
    with serial.Serial(path, 9600, timeout=5) as port:
        while not stop.is_set():
            began = time.monotonic()
            port.write(b"!4453?")
            if len(port.read(5)) == 5:
                answers.append(time.monotonic() - began)
            stop.wait(0.5)


def flood(port: int, half: int, streams: int) -> list[socket.socket]:
    clients = []
    for index in range(half + streams):
        try:
            client = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            continue
        if index < half:
            client.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        else:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.sendall(f"GET /camera.mjpg HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                           .encode())
        clients.append(client)
    return clients


def all_closed(clients: list[socket.socket], timeout: float) -> float | None:
    """Seconds until every half-sent client was closed by the server (None: not all)."""
    began, pending = time.monotonic(), list(clients)
    for client in pending:
        client.setblocking(False)
    while pending and time.monotonic() - began < timeout:
        still = []
        for client in pending:
            try:
                data = client.recv(65536)
            except BlockingIOError:
                still.append(client)
                continue
            except OSError:
                data = b""
            if data:
                still.append(client)  # a stream client being fed: not closed yet
        pending = still
        time.sleep(0.1)
    return None if pending else round(time.monotonic() - began, 1)


def page_time(port: int) -> float:
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(f"GET /state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                       "Connection: close\r\n\r\n".encode())
        client.recv(100)
    return round(time.monotonic() - began, 3)


def run(half: int, streams: int, seconds: float) -> dict[str, Any]:
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
    work = Path(tempfile.mkdtemp(prefix="c4pi-attack-"))
    port = free_port()
    process, robot = start_demo(work, port)
    stop, views, answers = threading.Event(), [], []
    threads = [threading.Thread(target=count_views, args=(process, views, stop), daemon=True),
               threading.Thread(target=ask_robot, args=(robot, answers, stop), daemon=True)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(5)  # the demo settles
        log_before, began = (work / "log.txt").stat().st_size, time.monotonic()
        asked_before, views_before = len(answers), len(views)
        clients = flood(port, half, streams)
        closed_s = all_closed(clients[:half], seconds)
        flood_s = time.monotonic() - began
        logged = (work / "log.txt").read_bytes()[log_before:]
        log_lines = logged.count(b"\n")
        result = {"half_sent": half, "streams": streams, "connected": len(clients),
                  "half_sent_closed_after_s": closed_s,
                  "robot_answers": len(answers) - asked_before,
                  "robot_slowest_s": round(max(answers[asked_before:], default=0.0), 3),
                  "views_during_flood": len(views) - views_before,
                  "log_lines_per_s": round(log_lines / flood_s, 2),
                  "refusal_lines": logged.count(b"HUD refused"),
                  "tracebacks": logged.count(b"Traceback"),
                  "page_after_s": page_time(port)}
        for client in clients:
            client.close()
        return result
    finally:
        stop.set()
        process.terminate()
        process.wait(timeout=20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", type=int, default=1100, help="half-sent connections (1100)")
    parser.add_argument("--streams", type=int, default=200,
                        help="camera-stream clients that never read (200)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="how long to wait for the server to close them (30)")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.half, args.streams, args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
