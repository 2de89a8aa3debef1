"""Fuzzing the service: arbitrary bytes never crash it; frames in noise are answered right."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c4game.board import Board
from firmware_py.serial_link.protocol import decode_answer, encode_answer
from firmware_py.serial_link.service import SerialService
from firmware_py.serial_link.transport import MemoryPort
from firmware_py.worker import SolverWorker

from .conftest import GateSolver, read_test_set, wait_until
from .test_serial_protocol import reference_frames


class SinglePort:
    """Opener handing out one MemoryPort (then failing, so a loss would show)."""

    def __init__(self) -> None:
        self.port = MemoryPort()

    def __call__(self) -> MemoryPort:
        return self.port


@pytest.fixture(scope="module")
def fake_service() -> Iterator[tuple[SerialService, SinglePort, SolverWorker]]:
    worker = SolverWorker(GateSolver(auto=True)).start()
    opener = SinglePort()
    service = SerialService(opener, worker).start()
    assert service.wait_connected(5)
    yield service, opener, worker
    service.stop()
    worker.stop()


@pytest.fixture(scope="module")
def real_service(real_solver: object) -> Iterator[tuple[SerialService, SinglePort]]:
    worker = SolverWorker(real_solver).start()
    opener = SinglePort()
    service = SerialService(opener, worker).start()
    assert service.wait_connected(5)
    yield service, opener
    service.stop()
    worker.stop()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=st.binary(max_size=300) | st.lists(
    st.sampled_from([b"!", b"?", b"4", b"1", b"7", b" ", b"\n", b"9", b"\xff", b"4444"]),
    max_size=100).map(b"".join))
def test_arbitrary_bytes_never_crash(fake_service, stream: bytes) -> None:
    service, opener, worker = fake_service
    port = opener.port
    before = len(port.sent)
    port.inject(stream)
    port.inject(b"\n!?")  # a sentinel query: the service must still answer it
    expected_acks = "".join(reply for reply, _ in reference_frames(stream + b"\n!?"))

    def acks() -> str:
        return bytes(b for b in port.sent[before:] if b in b"!?").decode()

    assert wait_until(lambda: acks() == expected_acks and port.sent.endswith(b"4=41"), 5), \
        (port.sent[before:], expected_acks)
    assert service._thread.is_alive()  # type: ignore[union-attr]
    assert service.stats.losses == 0


NOISE = st.binary(max_size=40).map(lambda b: b.replace(b"!", b""))
INSIDE = st.sampled_from(["", " ", "\r\n", "\t"])


@pytest.fixture(scope="module")
def pool() -> list[tuple[str, int]]:
    return read_test_set("end-easy", 200) + read_test_set("middle-easy", 200)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), before=NOISE, after=NOISE)
def test_frames_in_noise_are_answered_correctly(real_service, checker_solver, pool, data,
                                                before: bytes, after: bytes) -> None:
    service, opener = real_service
    port = opener.port
    moves, score = data.draw(st.sampled_from(pool))
    gaps = [data.draw(INSIDE) for _ in moves]
    frame = "!" + "".join(g + m for g, m in zip(gaps, moves, strict=True)) + data.draw(INSIDE)
    start = len(port.sent)
    port.inject(before + frame.encode() + b"?" + after)
    assert wait_until(lambda: len(port.sent) >= start + 5, 10), port.sent[start:]
    time.sleep(0.005)
    reply = port.sent[start:]
    assert reply[:1] == b"!" and len(reply) == 5, reply
    board = Board.from_moves(moves)
    column, got = decode_answer(reply[1:], board.n_discs)
    assert got == score  # the test set's exact score
    expected = checker_solver.best(board)  # an independent solver instance
    assert reply[1:] == encode_answer(expected.column, expected.score, board.n_discs)
