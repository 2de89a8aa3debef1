"""One way of replacing a file c4pi owns (:mod:`c4game.files`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from c4game.files import write_whole


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
        with pytest.raises(OSError, match="not a regular file"):
            write_whole(path, b"new")
    assert folder.is_dir() and not pipe.is_file() and pipe.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "pipe"]
