"""`c4pi selftest` on this machine: passes what can pass, skips absent hardware with
reasons, and fails (non-zero) when the book is corrupted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_py.config import Config, resolve_path
from firmware_py.leds import is_raspberry_pi
from firmware_py.selftest import checks
from tools.shared_data import missing_reason, solver_sets_dir

BOOK = resolve_path(Config().solver.book)
needs_book = pytest.mark.skipif(not BOOK.is_file(), reason="opening book not built "
                                                           "(./setup.sh builds it)")


def selftest(tmp_path: Path, extra: str = "") -> tuple[int, dict[str, dict[str, str]]]:
    config = tmp_path / "c4pi.toml"
    config.write_text(f"[speech]\nclip_dir = \"{tmp_path / 'clips'}\"\n{extra}")
    result = subprocess.run([sys.executable, "-m", "firmware_py", "--config", str(config),
                             "selftest", "--json", "--frames", "3"],
                            capture_output=True, text=True, timeout=300)
    data = json.loads(result.stdout)
    return result.returncode, {check["name"]: check for check in data["checks"]}


@needs_book
@pytest.mark.skipif(is_raspberry_pi(), reason="expects a machine that is not a Pi")
def test_selftest_here(tmp_path: Path) -> None:
    from firmware_py.speech import ClipSettings, build_clips

    build_clips(tmp_path / "clips", ClipSettings.from_config(Config().speech))
    code, results = selftest(tmp_path)
    for name in ("solver", "book", "model", "speech clips", "disk", "memory"):
        assert results[name]["status"] == "PASS", results[name]
    for name in ("camera", "serial", "led", "audio"):
        assert results[name]["status"] == "SKIP", results[name]
        assert "not a Raspberry Pi" in results[name]["detail"]
    assert code == 0


@needs_book
def test_selftest_fails_on_corrupt_book(tmp_path: Path) -> None:
    corrupt = tmp_path / "book.c4b"
    shutil.copyfile(BOOK, corrupt)
    with open(corrupt, "r+b") as handle:
        handle.seek(corrupt.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0xFF]))
    code, results = selftest(tmp_path, f'[solver]\nbook = "{corrupt}"\n')
    assert results["book"]["status"] == "FAIL"
    assert "sha256" in results["book"]["detail"]
    assert code != 0


def test_selftest_reports_missing_clips(tmp_path: Path) -> None:
    code, results = selftest(tmp_path, "")
    assert results["speech clips"]["status"] == "FAIL"
    assert results["speech clips"]["detail"].count("c4pi clips build") == 1  # said once
    assert code != 0


def test_vectors_are_published_scores() -> None:
    data = solver_sets_dir()
    if not data.is_dir():
        pytest.skip(missing_reason(data))
    for moves, score, name in checks.load_vectors():
        lines = (data / f"{name}.txt").read_text().splitlines()
        assert f"{moves} {score}" in lines


def test_pi_detection(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 4 Model B Rev 1.5\0")
    assert is_raspberry_pi(model)
    model.write_text("QEMU Virtual Machine")
    assert not is_raspberry_pi(model)
    assert not is_raspberry_pi(tmp_path / "missing")


def test_the_screen_check_finds_the_running_page_and_says_when_it_is_not_ours() -> None:
    import socket
    import threading
    from dataclasses import replace

    from firmware_py.config import Config
    from firmware_py.hud.hub import HudHub
    from firmware_py.hud.server import HudServer
    from firmware_py.selftest.checks import check_screen
    from firmware_py.selftest.core import Fail, SelftestOptions, Skip

    server = HudServer(HudHub(), port=0).start()
    config = Config()
    try:
        config = replace(config, hud=replace(config.hud, port=server.port))
        assert "answers (this machine only)" in check_screen(config, SelftestOptions())
    finally:
        server.stop()
    with pytest.raises(Skip, match="nothing answers"):
        check_screen(config, SelftestOptions())
    with socket.socket() as other:  # another program on the port, answering nonsense
        other.bind(("127.0.0.1", 0))
        other.listen(1)

        def answer() -> None:
            peer, _ = other.accept()
            peer.recv(1024)
            peer.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello")
            peer.close()
        threading.Thread(target=answer, daemon=True).start()
        config = replace(config, hud=replace(config.hud, port=other.getsockname()[1]))
        with pytest.raises(Fail, match="not as c4pi's screen"):
            check_screen(config, SelftestOptions())
    with pytest.raises(Skip, match="disabled"):
        check_screen(replace(config, hud=replace(config.hud, enabled=False)), SelftestOptions())


def test_a_missing_activity_led_warns_only_on_a_pi(tmp_path, caplog, monkeypatch) -> None:
    """A newcomer's re-test: every demo on a laptop began with a WARNING about the LED."""
    import logging

    from firmware_py import leds
    from firmware_py.config import LedConfig

    def no_led(root, names):
        raise leds.LedError("no LED found; tried /sys/class/leds/ACT")

    monkeypatch.setattr(leds.SysfsLed, "find", no_led)
    config = LedConfig()  # the default LED, as on every machine nobody set [led] on
    model = tmp_path / "model"
    for text, level in (("Raspberry Pi 4 Model B", logging.WARNING), ("a laptop", logging.INFO)):
        model.write_text(text)
        monkeypatch.setattr(leds, "PI_MODEL", model)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="firmware_py.leds"):
            assert isinstance(leds.open_activity_led(config), leds.NoLed)
        assert [r.levelno for r in caplog.records] == [level]
