"""The solver's command-line interface: solve, analyze, bench, book."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cython_solver import Solver
from firmware_py.cli import main

from .conftest import TEST_SETS, read_set


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_solve_prints_the_serial_answer(capsys, book_solver: Solver) -> None:
    for moves in ("", "4453", read_set("middle-medium")[3][0]):
        status, out, _ = _run(capsys, "solve", moves)
        assert status == 0
        assert out == book_solver.best(moves).serial + "\n"


def test_solve_json(capsys, book_solver: Solver) -> None:
    status, out, _ = _run(capsys, "solve", "4453", "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"moves", "score", "best", "scores", "plies", "ms"}
    answer = book_solver.best("4453", scores=True)
    assert data["moves"] == "4453"
    assert (data["score"], data["best"], data["scores"], data["plies"]) == (
        answer.score, list(answer.best_columns), list(answer.scores), answer.plies)


@pytest.mark.parametrize(("moves", "text"), [
    ("4489", "move 3"), ("1111111", "column 1 is full"), ("1212121", "game over"),
])
@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_invalid_input_exits_2(capsys, command: str, moves: str, text: str) -> None:
    status, out, err = _run(capsys, command, moves)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and text in err


def test_analyze(capsys, book_solver: Solver) -> None:
    moves = "4444443"                     # column 4 is full
    status, out, _ = _run(capsys, "analyze", moves, "--json")
    assert status == 0
    data = json.loads(out)
    assert data["scores"] == book_solver.analyze(moves)
    assert data["scores"][3] is None
    status, out, _ = _run(capsys, "analyze", moves)
    assert status == 0 and "best:" in out and "  -" in out


def test_bench_json_and_mismatch(capsys, tmp_path: Path) -> None:
    pairs = read_set("middle-easy")[:6]
    good = tmp_path / "good.txt"
    good.write_text("".join(f"{m} {s}\n" for m, s in pairs))
    status, out, _ = _run(capsys, "bench", str(good), "--json", "--no-book")
    assert status == 0
    row = json.loads(out)
    assert {"file", "n", "mean_ms", "worst_ms", "best_mean_ms", "best_worst_ms",
            "nodes_mean", "kpos_s", "mismatches"} <= set(row)
    assert row["n"] == 6 and row["mismatches"] == 0
    status, out, _ = _run(capsys, "bench", str(good), "--json", "--repeat", "2", "--no-answer")
    assert status == 0 and json.loads(out)["mismatches"] == 0
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{pairs[0][0]} {pairs[0][1] + 1}\n")
    status, out, _ = _run(capsys, "bench", str(bad), "--no-answer")
    assert status == 1 and "MISMATCH" in out
    broken = tmp_path / "broken.txt"
    broken.write_text("12x 3\n")
    status, _, err = _run(capsys, "bench", str(broken))
    assert status == 2 and "broken.txt:1" in err


def test_bench_text_table(capsys) -> None:
    path = TEST_SETS / "end-easy.txt"
    if not path.is_file():
        pytest.skip("test sets not found")
    status, out, _ = _run(capsys, "bench", str(path), "--limit", "20")
    assert status == 0
    assert "end-easy" in out and "kpos/s" in out


def test_book_commands(capsys, book_path: Path, tmp_path: Path) -> None:
    status, out, _ = _run(capsys, "book", "info", "--book", str(book_path))
    assert status == 0 and "4200899" in out
    status, out, _ = _run(capsys, "book", "verify", "--book", str(book_path), "--sample", "3",
                          "--jobs", "1")
    assert status == 0 and "checked 3 of 4200899 entries" in out and "0 wrong" in out
    status, out, _ = _run(capsys, "book", "build", "--if-missing", "--out", str(book_path))
    assert status == 0 and "nothing to do" in out
    status, _, err = _run(capsys, "book", "info", "--book", str(tmp_path / "none.c4b"))
    assert status == 1 and "no such file" in err


def test_bench_takes_the_empty_board(capsys, tmp_path: Path) -> None:
    # The empty board is a position (SPEC §1): its line has no moves. Red wins with its
    # last disc: (43 - 0) // 2 - 21 + 1 = 1.
    path = tmp_path / "empty.txt"
    path.write_text(" 1\n4 -1\n")
    status, out, _ = _run(capsys, "bench", str(path), "--json")
    assert status == 0
    row = json.loads(out)
    assert row["n"] == 2 and row["mismatches"] == 0
    path.write_text(" 2\n")
    assert _run(capsys, "bench", str(path), "--json", "--no-answer")[0] == 1  # a wrong score


@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_invalid_input_under_json_says_why_in_json_too(capsys, command: str) -> None:
    status, out, err = _run(capsys, command, "4489", "--json")
    assert status == 2
    assert json.loads(out) == {"error": err.strip().removeprefix(f"c4pi {command}: "),
                               "exit": 2}
    assert "move 3" in json.loads(out)["error"]


@pytest.mark.parametrize("value", ["-5", "5", "99999999", "abc"])
def test_a_table_size_out_of_range_is_a_usage_error(capsys, value: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "--tt-mb", value, "44"])
    assert exit_.value.code == 2 and "--tt-mb" in capsys.readouterr().err


@pytest.mark.parametrize("words", [["solve", "--tt-mb", "3", "44", "--json"],
                                   ["read", "shot.png", "--json", "--bogus"]])
def test_a_usage_error_under_json_says_why_in_json_too(capsys, words: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(words)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    said = json.loads(out)
    assert said["exit"] == 2 and said["error"] in err and said["error"]
    with pytest.raises(SystemExit):
        main([word for word in words if word != "--json"])
    assert capsys.readouterr().out == ""  # without --json, stderr alone


def test_json_may_come_before_the_command(capsys) -> None:
    assert main(["solve", "4453", "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert main(["--json", "solve", "4453"]) == 0
    before = json.loads(capsys.readouterr().out)
    before.pop("ms"), after.pop("ms")  # only the time may differ
    assert before == after
    with pytest.raises(SystemExit) as exit_:
        main(["--json", "demo"])  # no JSON output: said so, in JSON
    assert exit_.value.code == 2
    assert json.loads(capsys.readouterr().out)["error"] == "c4pi demo has no --json output"


@pytest.mark.parametrize("words", [["--config", "", "solve", "44"],
                                   ["solve", "44", "--config", " "]])
def test_an_empty_config_path_is_a_usage_error_not_the_default(capsys,
                                                               words: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(words)
    assert exit_.value.code == 2 and "--config needs a path" in capsys.readouterr().err


def test_moves_with_spaces_are_refused_with_the_way_to_write_them(capsys) -> None:
    assert main(["solve", "4 4"]) == 2
    assert "one word of digits" in capsys.readouterr().err


def test_verbose_may_follow_the_command(capsys) -> None:
    assert main(["solve", "4453", "-v"]) == 0
    assert capsys.readouterr().out.strip() == main_output(capsys)


def main_output(capsys) -> str:
    assert main(["-v", "solve", "4453"]) == 0
    return capsys.readouterr().out.strip()
