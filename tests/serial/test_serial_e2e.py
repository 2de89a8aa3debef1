"""End to end over a real pseudo-terminal pair, pyserial at 9600 baud on both sides,
with the real solver. Answers are checked against the test sets, brute force and a
second solver instance."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from c4game.board import Board
from c4game.scores import CENTRE_FIRST, max_score
from firmware_py.serial_link.protocol import decode_answer, encode_answer, query_bytes
from firmware_py.serial_link.ptywire import PtyWire
from firmware_py.serial_link.robot import RobotClient
from firmware_py.serial_link.service import SerialService
from firmware_py.serial_link.transport import pyserial_opener
from firmware_py.worker import SolverWorker

from .conftest import brute_force_scores, expected_answer, read_test_set, wait_until

FORTY_ONE = "46754231124237573576567573313566162421442"
ACK_LIMIT_S = 0.5  # generous for a loaded test machine; tools/bench/serial_link.py measures


@dataclass
class Link:
    wire: PtyWire
    worker: SolverWorker
    service: SerialService
    robot: RobotClient


def open_link(tmp_path: Path, solver: object, *, connect: bool = True) -> Link:
    wire = PtyWire(link=tmp_path / "serial0")
    if not connect:
        wire.unplug()
    worker = SolverWorker(solver).start()
    service = SerialService(pyserial_opener(wire.service_path, 9600), worker,
                            reconnect_min_s=0.05, reconnect_max_s=0.2).start()
    if connect:
        assert service.wait_connected(5)
    robot = RobotClient(wire.robot_path, 9600)
    return Link(wire, worker, service, robot)


def close_link(link: Link) -> None:
    link.robot.close()
    link.service.stop()
    assert link.worker.stop(10)
    link.wire.close()


@pytest.fixture
def link(tmp_path: Path, real_solver: object) -> Iterator[Link]:
    link = open_link(tmp_path, real_solver)
    yield link
    close_link(link)


def check_answer(checker: object, moves: str, answer: str,
                 known_score: int | None = None) -> None:
    """The answer's score is the position's, and its column is a best one, centre first."""
    board = Board.from_moves(moves)
    column, score = decode_answer(answer, board.n_discs)
    if known_score is not None:
        assert score == known_score, (moves, answer)
    scores = checker.analyze(board)  # type: ignore[attr-defined]
    assert max(s for s in scores if s is not None) == score, (moves, answer, scores)
    best = [c for c in range(1, 8) if scores[c - 1] == score]
    assert column == next(c for c in CENTRE_FIRST if c in best), (moves, answer, scores)


def test_test_set_queries(link: Link, checker_solver: object) -> None:
    acks = []
    for name, count in (("end-easy", 5), ("middle-easy", 5), ("middle-medium", 3),
                        ("begin-easy", 3)):
        for moves, score in read_test_set(name, count):
            result = link.robot.query(moves, timeout=30)
            assert result.ok, result
            acks.append(result.ack_ms)
            check_answer(checker_solver, moves, result.answer, score)
    assert max(acks) < ACK_LIMIT_S * 1000


def test_answers_match_brute_force_near_the_end(link: Link) -> None:
    positions = [m for m, _ in read_test_set("end-easy", 400) if len(m) >= 34][:8]
    positions.append(FORTY_ONE)  # one hole left: N=00 or N+00
    for moves in positions:
        result = link.robot.query(moves, timeout=30)
        column, score = expected_answer(brute_force_scores(Board.from_moves(moves)))
        assert result.answer == encode_answer(column, score, len(moves)).decode(), moves
    # Red wins at once in column 1: the best score, and SPEC's "N+00".
    assert link.robot.query("121212").answer == encode_answer(1, max_score(6), 6).decode()
    assert link.robot.query("121212").answer == "1+00"


def test_invalid_queries_get_question_mark_and_nothing_else(link: Link) -> None:
    for frame in (b"!4444444?", b"!12121212?", b"!1212121?", b"!4x?", b"!48?", b"!0?",
                  b"!" + FORTY_ONE.encode() + b"1"):
        result = link.robot.query("", timeout=1, raw=frame)
        assert result.ack == "?", frame
    time.sleep(0.1)
    assert link.robot.read_bytes(10, 0.1) == b""
    assert link.service.stats.rejected == 7


def test_bytes_split_across_writes(link: Link, checker_solver: object) -> None:
    moves, score = read_test_set("middle-easy", 1)[0]
    frame = b"\r\nxx!" + b" ".join(bytes([b]) for b in moves.encode()) + b"\r\n?"
    for byte in frame:
        link.robot.send(bytes([byte]))
        time.sleep(0.002)
    assert link.robot.read_bytes(1, 2) == b"!"
    answer = link.robot.read_bytes(4, 10).decode()
    check_answer(checker_solver, moves, answer, score)


def test_burst_is_answered_at_most_once_per_query_and_last_always(
        link: Link, checker_solver: object) -> None:
    positions = read_test_set("end-easy", 30)[10:30]
    link.robot.send(b"".join(query_bytes(m) for m, _ in positions))
    stream = bytearray()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stream += link.robot.read_bytes(64, 0.2)
        if stream.count(b"!") == len(positions) and not stream.endswith(b"!") and \
                link.robot.read_bytes(1, 0.3) == b"":
            break
    acked = -1
    answered = set()
    i = 0
    while i < len(stream):
        if stream[i:i + 1] == b"!":
            acked += 1
            i += 1
            continue
        answer = stream[i:i + 4].decode()
        assert acked not in answered, stream  # each query answered at most once
        answered.add(acked)
        moves, score = positions[acked]  # an answer is for the latest acknowledged query
        check_answer(checker_solver, moves, answer, score)
        i += 4
    assert acked == len(positions) - 1
    assert acked in answered  # the last one is always answered


def test_query_while_solving_supersedes(tmp_path: Path, checker_solver: object) -> None:
    """A slow search (no book, early position) is superseded by a newer query."""
    from cython_solver import Solver

    link = open_link(tmp_path, Solver(tt_mb=16, book=None))
    try:
        slow = "4453"  # several seconds without a book
        link.robot.send(query_bytes(slow))
        assert link.robot.read_bytes(1, 2) == b"!"
        assert wait_until(lambda: link.worker.busy, 2)
        time.sleep(0.2)
        moves, score = read_test_set("middle-easy", 2)[1]
        sent = link.robot.send(query_bytes(moves))
        assert link.robot.read_bytes(1, 2) == b"!"
        ack_s = time.perf_counter() - sent
        answer = link.robot.read_bytes(4, 10).decode()
        check_answer(checker_solver, moves, answer, score)
        assert ack_s < ACK_LIMIT_S
        assert wait_until(lambda: not link.worker.busy, 5)  # the slow search was cancelled
        assert link.robot.read_bytes(4, 0.3) == b""  # and never answered
        assert link.service.stats.superseded == 1
    finally:
        close_link(link)


def test_unplug_and_replug(link: Link, checker_solver: object) -> None:
    moves, score = read_test_set("end-easy", 1)[0]
    assert link.robot.query(moves).ok
    link.wire.unplug()
    assert wait_until(lambda: not link.service.connected, 5)
    time.sleep(0.3)  # a few failed reopen attempts while the symlink is gone
    link.wire.replug()
    assert link.service.wait_connected(5)
    result = link.robot.query(moves, timeout=10)
    assert result.ok
    check_answer(checker_solver, moves, result.answer, score)
    assert link.service.stats.opens == 2 and link.service.stats.losses == 1


def test_port_missing_at_start(tmp_path: Path, real_solver: object) -> None:
    link = open_link(tmp_path, real_solver, connect=False)
    try:
        time.sleep(0.4)
        assert not link.service.connected and link.service.stats.open_failures >= 2
        link.wire.replug()
        assert link.service.wait_connected(5)
        moves, score = read_test_set("end-easy", 1)[0]
        result = link.robot.query(moves, timeout=10)
        assert result.ok and decode_answer(result.answer, len(moves))[1] == score
    finally:
        close_link(link)
