"""systemd notify protocol over a real datagram socket, and the watchdog."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from firmware_py.notify import RecordingNotifier, SystemdNotifier, Watchdog, watchdog_interval


def test_notifier_sends_to_socket_path(tmp_path: Path) -> None:
    path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(2)
    notifier = SystemdNotifier(path)
    notifier.notify("READY=1")
    notifier.notify("STATUS=solver ready")
    assert server.recv(100) == b"READY=1"
    assert server.recv(100) == b"STATUS=solver ready"
    notifier.close()
    server.close()


def test_notifier_abstract_socket() -> None:
    name = f"c4pi-test-{id(object())}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    server.settimeout(2)
    SystemdNotifier("@" + name).notify("WATCHDOG=1")
    assert server.recv(100) == b"WATCHDOG=1"
    server.close()


def test_notifier_without_socket_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notifier = SystemdNotifier()
    assert not notifier.enabled
    notifier.notify("READY=1")  # no error


def test_notifier_unreachable_socket_only_logs(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    SystemdNotifier(str(tmp_path / "missing.sock")).notify("READY=1")
    assert "cannot notify systemd" in caplog.text


def test_a_manager_that_stops_reading_never_blocks_the_notifier(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)  # never read: its queue fills (net.unix.max_dgram_qlen, often 10)
    notifier = SystemdNotifier(path)
    sender = threading.Thread(target=lambda: [notifier.notify(f"STATUS={n}")
                                              for n in range(2000)], daemon=True)
    sender.start()
    sender.join(timeout=30)
    assert not sender.is_alive(), "notify blocked on a full queue"
    assert "cannot notify systemd" in caplog.text  # the rest were dropped, and said so
    assert server.recv(100) == b"STATUS=0"  # the first ones arrived
    notifier.close()
    server.close()


def test_watchdog_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    assert watchdog_interval() == 10.0
    monkeypatch.delenv("WATCHDOG_USEC")
    assert watchdog_interval(3.0) == 3.0


def test_watchdog_pings_only_while_all_loops_beat() -> None:
    now = [0.0]
    notifier = RecordingNotifier()
    dog = Watchdog(notifier, interval_s=1.0, stale_s=5.0, clock=lambda: now[0])
    dog.register("vision")
    dog.register("serial")
    assert dog.check()
    now[0] = 4.0
    dog.beat("vision")
    dog.beat("serial")
    now[0] = 8.0
    dog.beat("vision")  # serial last beat at 4.0: still fresh at 8.0 (< 5 s)
    assert dog.check()
    now[0] = 9.5  # serial now 5.5 s stale: hung
    dog.beat("vision")
    assert not dog.check()
    assert dog.stale_loops() == ["serial"]
    assert notifier.count("WATCHDOG=1") == 2
    dog.beat("serial")
    assert dog.check()
    dog.unregister("serial")
    now[0] = 100.0
    assert dog.stale_loops() == ["vision"]
