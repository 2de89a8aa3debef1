"""Ask ``c4pi serve`` the robot's questions, as the robot does, and measure its memory.

    python -m tools.device.robot_queries --per-set 50 --out answers.txt

Starts ``c4pi serve --pty`` (this interpreter's c4pi, the config given, else
the default: the book loaded, the table sized from memory), sends ``!MOVES?``
for the first ``--per-set`` positions of each public test set and writes one
line per position, ``MOVES ANSWER``, to ``--out``: two machines' files must be
equal (``tools/device/armhf_check.sh`` compares a 32-bit ARM root's with this
machine's). Every answer's outcome and distance are also checked against the
test set's score. Prints a JSON summary: positions, answers that disagree with
the test set, the answer time, and the serve process's peak resident memory
(``VmHWM``; under qemu-user that is the emulator's process, emulator included).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

from firmware_py.serial_link.protocol import decode_answer
from tools.shared_data import REPO, solver_sets_dir

SETS = ("end-easy", "middle-easy", "begin-easy", "begin-medium", "middle-medium", "begin-hard")


def read_positions(folder: Path, sets: list[str], per_set: int) -> list[tuple[str, int]]:
    """``(moves, score)`` of the first ``per_set`` positions of each test set."""
    positions = []
    for name in sets:
        lines = [line.split() for line in (folder / f"{name}.txt").read_text().splitlines()
                 if line.strip()]
        positions += [(moves, int(score)) for moves, score in lines[:per_set]]
    return positions


def start_serve(config: Path | None) -> tuple[subprocess.Popen[str], int]:
    """``c4pi serve --pty`` and the robot's end of its pseudo-terminal."""
    command = [sys.executable, "-m", "firmware_py"]
    if config is not None:
        command += ["--config", str(config)]
    process = subprocess.Popen([*command, "serve", "--pty"], cwd=REPO, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = process.stdout.readline()
    if not line.startswith("robot side: "):
        process.kill()
        raise SystemExit(f"c4pi serve did not start: {line}{process.stderr.read()[-2000:]}")
    return process, os.open(line.split(": ", 1)[1].strip(), os.O_RDWR | os.O_NOCTTY)


def ask(robot: int, moves: str, timeout_s: float) -> tuple[str, float]:
    """The acknowledgement and answer (``!4+40``) or a refusal (``?``), and the seconds
    they took."""
    started = time.monotonic()
    os.write(robot, f"!{moves}?".encode())
    received = b""
    while len(received) < 5 and received[:1] != b"?" and time.monotonic() - started < timeout_s:
        ready, _, _ = select.select([robot], [], [], 1.0)
        if ready:
            received += os.read(robot, 16)
    return received.decode(errors="replace"), time.monotonic() - started


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory (``VmHWM``) in MB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    kb = next((int(line.split()[1]) for line in status.splitlines()
               if line.startswith("VmHWM:")), None)
    return None if kb is None else round(kb / 1024, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets-dir", type=Path, default=solver_sets_dir())
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--per-set", type=int, default=50)
    parser.add_argument("--config", type=Path, help="c4pi config (default: the default)")
    parser.add_argument("--timeout-s", type=float, default=600.0, help="per query")
    parser.add_argument("--out", type=Path, required=True, help="MOVES ANSWER per line")
    args = parser.parse_args(argv)

    positions = read_positions(args.sets_dir, args.sets, args.per_set)
    process, robot = start_serve(args.config)
    lines, seconds, wrong = [], [], []
    try:
        for moves, score in positions:
            answer, took = ask(robot, moves, args.timeout_s)
            lines.append(f"{moves or '-'} {answer[1:] if answer.startswith('!') else answer}")
            seconds.append(took)
            if len(answer) != 5 or answer[0] != "!" \
                    or decode_answer(answer[1:], len(moves))[1] != score:
                wrong.append(f"{moves} {answer!r} (test set: {score})")
        peak = peak_rss_mb(process.pid)
    finally:
        os.close(robot)
        process.terminate()
        process.wait(timeout=30)
    args.out.write_text("\n".join(lines) + "\n")
    print(json.dumps({"positions": len(positions), "wrong": wrong, "peak_rss_mb": peak,
                      "answer_s": {"median": round(statistics.median(seconds), 3),
                                   "max": round(max(seconds), 3)},
                      "machine": os.uname().machine}))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
