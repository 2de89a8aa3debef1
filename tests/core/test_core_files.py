"""One way of replacing a file c4pi owns (:mod:`c4game.files`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from c4game.files import replaceable, write_whole


def test_a_file_is_written_whole_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "looks.json"
    path.write_text("old")
    assert write_whole(path, b"new") == path
    assert path.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["looks.json"]


def test_a_link_stays_a_link_and_its_file_is_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert write_whole(link, b"new") == real
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert real.stat().st_mode & 0o777 == 0o640  # its permissions kept


def test_a_loop_of_links_is_an_os_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(OSError):
        write_whole(loop, b"new")


def test_a_folder_or_a_pipe_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path in (folder, pipe):
        with pytest.raises(OSError, match="is not a regular file"):
            write_whole(path, b"new")
    assert folder.is_dir() and not pipe.is_file() and pipe.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "pipe"]


def test_a_folder_it_cannot_create_files_in_is_said_before_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # root passes every check
    with pytest.raises(OSError, match=re.escape(f"cannot create files in {tmp_path}")):
        replaceable(tmp_path / "missing" / "book.c4b")


def test_the_book_command_refuses_a_bad_out_before_building(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    import cython_solver.bookbuild
    from firmware_py.cli import main

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("built before the path was checked")

    monkeypatch.setattr(cython_solver.bookbuild, "build_book", never)
    assert main(["book", "build", "--out", str(tmp_path)]) == 1
    assert f"cannot write {tmp_path}: {tmp_path} is not a regular file" in capsys.readouterr().err


def test_a_write_that_fails_leaves_the_file_as_it_was_and_nothing_beside_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "looks.json"
    path.write_text("old")

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        write_whole(path, b"new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["looks.json"]


def test_a_path_under_a_file_is_said(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("")
    with pytest.raises(OSError, match="is not a folder"):
        replaceable(tmp_path / "f.txt" / "book.c4b")
