"""Properties of the solver API: symmetry, score ranges, best vs analyze,
input forms and errors, cancellation, the GIL."""

from __future__ import annotations

import contextlib
import random
import threading
import time

import pytest

from c4game.board import Board
from c4game.exc import (
    GameOverError,
    IllegalMoveError,
    InvalidGridError,
    PositionError,
    SolveCancelled,
)
from c4game.scores import max_score, min_score, plies_to_end
from cython_solver import Answer, Solver, bitboards

from .conftest import random_positions, read_set, sample

# A position that takes the solver well over a second without the book.
SLOW = "4444"


def _mirror(moves: str) -> str:
    return "".join(str(8 - int(m)) for m in moves)


def test_mirror_symmetry(book_solver: Solver, plain_solver: Solver) -> None:
    pairs = sample(read_set("middle-medium"), 60, seed=21) + sample(read_set("begin-easy"), 60,
                                                                     seed=22)
    for moves, score in pairs:
        assert book_solver.solve(_mirror(moves)) == score, moves
    for moves, _ in pairs[:60]:
        assert plain_solver.analyze(_mirror(moves)) == plain_solver.analyze(moves)[::-1], moves


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_score_range_and_parity(book_solver: Solver, seed: int) -> None:
    for board in random_positions(seed, 40, 0, 40):
        n = board.n_discs
        score = book_solver.solve(board)
        assert min_score(n) <= score <= max_score(n)
        plies = plies_to_end(score, n)
        assert 1 <= plies <= 42 - n
        # a win ends on one of our discs (odd plies), a loss on theirs (even)
        if score > 0:
            assert plies % 2 == 1
        elif score < 0:
            assert plies % 2 == 0


def test_best_is_consistent_with_analyze(book_solver: Solver) -> None:
    for moves, score in sample(read_set("middle-easy"), 80, seed=23):
        scores = book_solver.analyze(moves)
        answer = book_solver.best(moves)
        playable = [s for s in scores if s is not None]
        assert answer.score == score == max(playable)
        assert answer.scores is None
        full = book_solver.best(moves, scores=True)
        assert full.scores == tuple(scores)
        assert (full.column, full.score, full.best_columns) == (
            answer.column, answer.score, answer.best_columns)
        assert answer.best_columns == tuple(c for c in range(1, 8) if scores[c - 1] == score)
        assert answer.column == next(c for c in (4, 3, 5, 2, 6, 1, 7)
                                     if c in answer.best_columns)
        assert answer.plies == plies_to_end(score, len(moves))
        assert answer.n_discs == len(moves)
        board = Board.from_moves(moves)
        assert [s is None for s in scores] == [not board.can_play(c) for c in range(1, 8)]


def test_random_tie_break_picks_among_the_best(book_solver: Solver) -> None:
    moves = "4453"                        # three optimal columns
    rng = random.Random(5)
    best = book_solver.best(moves).best_columns
    assert len(best) > 1
    picked = {book_solver.best(moves, tie_break="random", rng=rng).column for _ in range(30)}
    assert picked == set(best)
    with pytest.raises(ValueError, match="tie_break"):
        book_solver.best(moves, tie_break="leftmost")


def test_answer_serial_format(book_solver: Solver) -> None:
    answer = book_solver.best("")
    assert isinstance(answer, Answer)
    assert answer.serial == "4+40"         # Red wins with its last disc: 41 plies
    # an immediate win is N+00
    assert book_solver.best("112233").serial in {"4+00"}
    assert book_solver.best("112233").score == 18


def test_position_forms_agree(book_solver: Solver) -> None:
    for moves, score in sample(read_set("begin-medium"), 10, seed=24):
        board = Board.from_moves(moves)
        assert book_solver.solve(board) == score
        assert book_solver.solve(board.bitboards()) == score
        grid_board = Board.from_grid(board.grid_lines())
        assert book_solver.solve(grid_board) == score
        assert bitboards(moves) == (*board.bitboards(), len(moves))


@pytest.mark.parametrize(("position", "error", "text"), [
    ("448", IllegalMoveError, "move 3"),
    ("4444444", IllegalMoveError, "column 4 is full"),
    ("12121213", IllegalMoveError, "already has four"),
    ("1212121", GameOverError, "four in a row"),
    ((0, 0b10), InvalidGridError, "floating"),
    ((1, 1), InvalidGridError, "side to move"),
    ((1 << 60, 1 << 60), InvalidGridError, "floating disc or sentinel"),
])
def test_invalid_positions(book_solver: Solver, position, error, text) -> None:
    with pytest.raises(error, match=text):
        book_solver.solve(position)
    assert issubclass(error, PositionError)


def test_full_board_is_game_over(book_solver: Solver) -> None:
    rng = random.Random(9)
    while True:                          # a random drawn game
        board = Board()
        for _ in range(42):
            board = board.play(rng.choice(board.legal_columns()))
            if board.winner:
                break
        if board.is_full and board.winner is None:
            break
    with pytest.raises(GameOverError):
        book_solver.analyze(board)


def test_wrong_type(book_solver: Solver) -> None:
    with pytest.raises(TypeError):
        book_solver.solve(42)  # type: ignore[arg-type]


def test_cancel_stops_promptly_and_solver_recovers() -> None:
    solver = Solver(tt_mb=16)
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["score"] = solver.solve(SLOW)
        except SolveCancelled as error:
            outcome["cancelled"] = error

    thread = threading.Thread(target=work)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive(), "the slow position finished before it could be cancelled"
    asked = time.perf_counter()
    solver.cancel()
    thread.join(timeout=5)
    stopped = time.perf_counter() - asked
    assert not thread.is_alive()
    assert "cancelled" in outcome, outcome
    assert stopped < 0.1, f"took {stopped:.3f} s to stop"
    # a cancel that arrives while idle does not affect the next call, and the
    # table holds nothing wrong after the interrupted search
    solver.cancel()
    for moves, score in sample(read_set("middle-medium"), 20, seed=25):
        assert solver.solve(moves) == score


def test_cancel_during_analyze_and_best() -> None:
    solver = Solver(tt_mb=16)
    for call in (solver.analyze, solver.best):
        timer = threading.Timer(0.2, solver.cancel)
        timer.start()
        with pytest.raises(SolveCancelled):
            call(SLOW)
        timer.join()


def test_search_releases_the_gil() -> None:
    solver = Solver(tt_mb=16)
    ticks = 0
    done = threading.Event()

    def work() -> None:
        with contextlib.suppress(SolveCancelled):
            solver.solve(SLOW)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    deadline = time.perf_counter() + 0.3
    while time.perf_counter() < deadline:
        ticks += 1                       # pure Python: runs only while the search has no GIL
    solver.cancel()
    thread.join(timeout=5)
    assert done.is_set()
    assert ticks > 10_000


def test_nodes_and_reset(plain_solver: Solver) -> None:
    moves = read_set("middle-medium")[0][0]
    plain_solver.reset()
    plain_solver.solve(moves)
    cold = plain_solver.nodes
    plain_solver.solve(moves)
    warm = plain_solver.nodes
    assert cold > 0 and warm < cold      # the table persists across calls
    plain_solver.reset()
    plain_solver.solve(moves)
    assert plain_solver.nodes == cold


def test_table_size_validation() -> None:
    with pytest.raises(ValueError, match="tt_mb"):
        Solver(tt_mb=0)
    assert Solver(tt_mb=8).tt_mb == 8


def test_parallel_analysis_matches_serial(book_path) -> None:
    serial = Solver(tt_mb=8, book=book_path, threads=1)
    parallel = Solver(tt_mb=8, book=book_path, threads=3)
    for moves, _ in sample(read_set("begin-medium"), 12, seed=26) + sample(
            read_set("middle-medium"), 12, seed=27):
        assert parallel.analyze(moves) == serial.analyze(moves), moves
    with pytest.raises(ValueError, match="threads"):
        Solver(tt_mb=8, threads=9)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_best_with_and_without_the_helpers_agree_with_the_test_set(book_solver: Solver,
                                                                    threads: int) -> None:
    solver = Solver(tt_mb=16, book=None, threads=threads)
    for moves, score in sample(read_set("middle-medium"), 25, seed=31):
        answer = solver.best(moves)
        assert answer.score == score
        assert answer.best_columns == book_solver.best(moves, scores=True).best_columns


def test_cancel_reaches_every_thread_of_best() -> None:
    # Without the book the answer for 4 discs takes far longer than the delays:
    # the cancel must reach the column tests and the threads racing on them.
    solver = Solver(tt_mb=16, threads=4)
    for delay in (0.02, 0.3):
        solver.reset()
        timer = threading.Timer(delay, solver.cancel)
        timer.start()
        started = time.perf_counter()
        with pytest.raises(SolveCancelled):
            solver.best(SLOW)
        assert time.perf_counter() - started < delay + 1.0
        timer.join()
    moves = "521731255533"
    solver.reset()
    answer = solver.best(moves)               # works on after cancels, and exactly
    assert answer.score == -1                 # its score in begin-hard
    assert answer.best_columns == tuple(c + 1 for c, s in enumerate(solver.analyze(moves))
                                        if s == answer.score)
