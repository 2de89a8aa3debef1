"""`c4pi demo` under a connection flood, with the 1,024-file limit of a default unit.

Starts the demo (its screen on a free port, the Pi's screen on its own
``[hud] kiosk_port``, its files limited to 1,024), then at once:

* ``--half`` connections that send half a request and stop;
* ``--streams`` camera-stream clients that never read;
* ``--sse`` loopback event-stream clients that read normally (the page
  port's pool);
* ``--reconnect`` threads that open, read a little of and close event
  streams and pages as fast as they can (a reconnecting flood);
* ``--play`` threads that post column inputs to one /play game at once.

Meanwhile the robot port is asked a query every half second, the kiosk
page (on its port) is fetched every quarter second, and the demo's views
are counted. Reports:

* robot queries answered, and the slowest answer;
* kiosk page probes, how many failed or took over 1 s, and the slowest;
* play inputs answered, by status (200, 409 busy or full, 0 refused by the
  page port's full pool: never a 5xx), and the game's state after;
* moves the demo showed during the flood (the vision loop carries on);
* log lines the demo wrote during the flood, per second (the robot's queries
  log two lines each), of which refusals, and tracebacks;
* seconds until every half-sent connection was closed by the server;
* the page's answer time once they are gone.

    .venv/bin/python -m tools.bench.hud_attack --half 1100 --streams 200 \
        --sse 64 --reconnect 4 --play 36
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
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
from collections import Counter
from pathlib import Path
from typing import Any

import serial

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_demo(work: Path, port: int, kiosk_port: int) -> tuple[subprocess.Popen, str]:
    """The demo with 1,024 files, and its robot port."""
    config = work / "c4pi.toml"
    config.write_text(f"[hud]\nport = {port}\nkiosk_port = {kiosk_port}\n"
                      "[speech]\nsink = \"null\"\n")

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
        if line.startswith((b"move ", b"new game")):
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


def get(port: int, path: str, timeout: float = 10.0, method: str = "GET",
        body: bytes = b"", answer: list[bytes] | None = None) -> tuple[int, float]:
    """(status, seconds) of one request on a fresh connection; status 0: it failed.
    The body answered is appended to ``answer`` when given."""
    began = time.monotonic()
    headers = {"Host": f"127.0.0.1:{port}"}
    if body:
        headers.update({"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin",
                        "Origin": f"http://127.0.0.1:{port}"})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body or None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        status = response.status
        if answer is not None:
            answer.append(data)
    except (OSError, http.client.HTTPException):
        status = 0
    finally:
        connection.close()
    return status, time.monotonic() - began


def probe_kiosk(port: int, probes: list[tuple[int, float]], stop: threading.Event) -> None:
    while not stop.is_set():
        probes.append(get(port, "/", timeout=5))
        stop.wait(0.25)


def read_events(port: int, stop: threading.Event) -> None:
    """One loopback event-stream client that reads normally until stopped."""
    with contextlib.suppress(OSError), \
            socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                if not client.recv(65536):
                    return


def reconnect(port: int, stop: threading.Event, made: list[int]) -> None:
    """Open an event stream or a page, read a little, close; again at once."""
    paths = ("/events", "/state", "/camera.mjpg", "/")
    while not stop.is_set():
        with contextlib.suppress(OSError), \
                socket.create_connection(("127.0.0.1", port), timeout=2) as client:
            path = paths[len(made) % len(paths)]
            client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            client.recv(512)
            made.append(1)


def play_inputs(port: int, threads: int) -> Counter:
    """Statuses of ``threads`` column inputs posted at once to one /play game."""
    answer: list[bytes] = []
    status, _ = get(port, "/play/new", method="POST", answer=answer,
                    body=json.dumps({"level": 1, "colour": "R"}).encode())
    if status != 200:
        return Counter({f"new game {status}": 1})
    game = json.loads(answer[0])["game"]
    statuses: Counter = Counter()
    barrier = threading.Barrier(threads)

    def one(column: int) -> None:
        barrier.wait()
        answer, _ = get(port, f"/play/{game}", method="POST",
                        body=json.dumps({"input": str(column)}).encode())
        statuses[answer] += 1
    workers = [threading.Thread(target=one, args=(1 + i % 2,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    after, _ = get(port, f"/play/{game}")
    statuses[f"game after: {after}"] += 1
    return statuses


def page_time(port: int) -> float | None:
    """Seconds the page's state takes on the page's port (None: refused)."""
    status, seconds = get(port, "/state")
    return round(seconds, 3) if status == 200 else None


def run(half: int, streams: int, seconds: float, sse: int = 0, reconnects: int = 0,
        play: int = 0) -> dict[str, Any]:
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
    work = Path(tempfile.mkdtemp(prefix="c4pi-attack-"))
    port, kiosk_port = free_port(), free_port()
    process, robot = start_demo(work, port, kiosk_port)
    stop, views, answers, probes, made = threading.Event(), [], [], [], []
    threads = [threading.Thread(target=count_views, args=(process, views, stop), daemon=True),
               threading.Thread(target=ask_robot, args=(robot, answers, stop), daemon=True)]
    attackers = [threading.Thread(target=read_events, args=(port, stop), daemon=True)
                 for _ in range(sse)]
    attackers += [threading.Thread(target=reconnect, args=(port, stop, made), daemon=True)
                  for _ in range(reconnects)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(5)  # the demo settles
        log_before, began = (work / "log.txt").stat().st_size, time.monotonic()
        asked_before, views_before = len(answers), len(views)
        prober = threading.Thread(target=probe_kiosk, args=(kiosk_port, probes, stop),
                                  daemon=True)
        prober.start()
        for thread in attackers:
            thread.start()
        clients = flood(port, half, streams)
        closed_s = all_closed(clients[:half], seconds)
        played = play_inputs(port, play) if play else Counter()  # under the streams still
        flood_s = time.monotonic() - began
        logged = (work / "log.txt").read_bytes()[log_before:]
        log_lines = logged.count(b"\n")
        slow = [t for status, t in probes if status != 200 or t > 1.0]
        result = {"half_sent": half, "streams": streams, "sse": sse, "reconnecting": reconnects,
                  "connected": len(clients), "reconnections": len(made),
                  "half_sent_closed_after_s": closed_s,
                  "robot_answers": len(answers) - asked_before,
                  "robot_slowest_s": round(max(answers[asked_before:], default=0.0), 3),
                  "kiosk_probes": len(probes), "kiosk_failed_or_over_1s": len(slow),
                  "kiosk_slowest_s": round(max((t for _, t in probes), default=0.0), 3),
                  "play_inputs": {str(k): v for k, v in sorted(played.items(), key=str)},
                  "moves_shown_during_flood": len(views) - views_before,
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
    parser.add_argument("--sse", type=int, default=64,
                        help="loopback event-stream clients that read normally (64)")
    parser.add_argument("--reconnect", type=int, default=4,
                        help="threads reconnecting to streams and pages at once (4)")
    parser.add_argument("--play", type=int, default=36,
                        help="column inputs posted at once to one /play game (36)")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.half, args.streams, args.seconds, args.sse, args.reconnect,
                         args.play)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
