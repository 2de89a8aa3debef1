"""The systemd unit (verified by systemd itself) and `setup.sh --system --dry-run`."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "c4pi.service"


def rendered_unit(tmp_path: Path, install_dir: Path) -> Path:
    path = tmp_path / "c4pi.service"
    path.write_text(UNIT.read_text().replace("@INSTALL_DIR@", str(install_dir)))
    return path


def unit_settings(unit: Path = UNIT) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_unit_has_required_settings() -> None:
    settings = unit_settings()
    assert settings["Type"] == ["notify"]
    assert settings["Restart"] == ["on-failure"]
    assert int(settings["WatchdogSec"][0]) > 0
    assert set(settings["SupplementaryGroups"][0].split()) == {"video", "dialout", "gpio",
                                                               "audio"}
    assert settings["StateDirectory"] == ["c4pi"]
    for key in ("NoNewPrivileges", "ProtectHome", "PrivateTmp", "ProtectKernelModules",
                "ProtectControlGroups"):
        assert settings[key] == ["yes"], key
    assert settings["ProtectSystem"] == ["strict"]
    assert "PrivateDevices" not in settings
    assert "ProtectKernelTunables" not in settings
    assert settings["ExecStartPre"][0].startswith("+")
    assert settings["ExecStart"][0].endswith("/.venv/bin/c4pi run")


def test_unit_bounds_files_and_memory_above_what_the_appliance_uses() -> None:
    from firmware_py.config import HudConfig

    settings = unit_settings()
    files = int(settings["LimitNOFILE"][0])
    assert files >= 4 * HudConfig().max_connections  # the page's cap leaves room for the rest
    assert settings["MemoryMax"][0].endswith("M") and int(settings["MemoryMax"][0][:-1]) >= 512


def test_unit_parses_as_ini() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string(UNIT.read_text())
    assert set(parser.sections()) == {"Unit", "Service", "Install"}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
@pytest.mark.parametrize("name", ["c4pi.service", "c4pi-robot.service"])
def test_systemd_analyze_verify(tmp_path: Path, name: str) -> None:
    install_dir = tmp_path / "opt"
    binary = install_dir / ".venv" / "bin" / "c4pi"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    unit = tmp_path / name
    unit.write_text((ROOT / "systemd" / name).read_text().replace("@INSTALL_DIR@",
                                                                   str(install_dir)))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines() if str(unit) in line]
    assert result.returncode == 0, result.stderr
    assert problems == []


def dry_run(*args: str, env_extra: dict[str, str] | None = None) -> str:
    result = subprocess.run(["bash", str(ROOT / "setup.sh"), *args, "--dry-run"],
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                 **(env_extra or {})})
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_in_order(out: str, fragments: list[str]) -> None:
    position = 0
    for fragment in fragments:
        found = out.find(fragment, position)
        assert found >= 0, f"{fragment!r} missing or out of order in:\n{out}"
        position = found


def test_system_dry_run_prints_every_action() -> None:
    out = dry_run("--system", env_extra={"C4PI_INSTALL_DIR": "/opt/c4pi-test"})
    expected_in_order = [
        "copy the files of",
        "/opt/c4pi-test/setup.sh",
        "/etc/c4pi/config.toml",
        "write /etc/systemd/system/c4pi.service",
        "systemctl daemon-reload",
        "raspi-config nonint do_serial_hw 0",
        "raspi-config nonint do_serial_cons 1",
        "systemctl enable --now c4pi.service",
        "/opt/c4pi-test/.venv/bin/c4pi selftest",
    ]
    assert_in_order(out, expected_in_order)
    assert not Path("/opt/c4pi-test").exists()


def test_uninstall_dry_run() -> None:
    out = dry_run("--uninstall")
    assert "systemctl disable --now c4pi.service" in out
    assert "rm -f /etc/systemd/system/c4pi.service" in out
    assert "kept /etc/c4pi" in out


def test_kiosk_dry_run_sets_up_the_display_after_the_service() -> None:
    out = dry_run("--system", "--kiosk", env_extra={"C4PI_INSTALL_DIR": "/opt/c4pi-test",
                                                    "C4PI_KIOSK_USER": "kioskuser"})
    expected_in_order = [
        "systemctl enable --now c4pi.service",
        "write /usr/local/bin/c4pi-kiosk from tools/device/kiosk/c4pi-kiosk with "
        "INSTALL_DIR=/opt/c4pi-test",
        "desktop user: kioskuser",
        "kioskuser/.config/labwc/autostart",
        "kioskuser/.config/wayfire.ini",
        "kioskuser/.config/lxsession/LXDE-pi/autostart",
        "raspi-config nonint do_boot_behaviour B4",
    ]
    assert_in_order(out, expected_in_order)
    assert not Path("/usr/local/bin/c4pi-kiosk").exists()


def test_the_network_is_open_only_to_this_machine_and_private_networks() -> None:
    settings = unit_settings()
    assert "PrivateNetwork" not in settings  # the kiosk browser must reach the page
    assert settings["IPAddressDeny"] == ["any"]
    allowed = settings["IPAddressAllow"][0].split()
    assert "localhost" in allowed and "0.0.0.0/0" not in allowed and "any" not in allowed
    assert settings["PrivateMounts"] == ["yes"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_exposure_rating_stays_low(tmp_path: Path) -> None:
    unit = rendered_unit(tmp_path, tmp_path / "opt")
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", str(unit)],
                            capture_output=True, text=True, timeout=60)
    rating = [line for line in result.stdout.splitlines() if "Overall exposure" in line]
    if not rating:
        pytest.skip(f"this systemd-analyze cannot rate a unit file offline: {result.stderr}")
    assert float(rating[0].split(":")[1].split()[0]) <= 1.8, rating[0]


ROBOT_UNIT = ROOT / "systemd" / "c4pi-robot.service"


def test_the_robot_unit_runs_the_serial_solver_alone() -> None:
    settings = unit_settings(ROBOT_UNIT)
    assert settings["ExecStart"][0].endswith("/.venv/bin/c4pi serve")
    assert settings["Conflicts"] == ["c4pi.service"]  # one of them owns the serial port
    assert settings["Restart"] == ["always"] and settings["WantedBy"] == ["multi-user.target"]
    assert settings["Type"] == ["notify"] and int(settings["WatchdogSec"][0]) > 0
    assert settings["WorkingDirectory"] == ["/var/lib/c4pi"]  # writable: lgpio's pipes
    assert set(settings["SupplementaryGroups"][0].split()) == {"dialout", "gpio"}
    assert settings["ExecStartPre"][0].startswith("+")  # the ACT LED, as the appliance's
    assert settings["PrivateNetwork"] == ["yes"]  # the robot's solver needs no network
    assert int(settings["MemoryMax"][0][:-1]) <= 256  # a 512 MB board keeps the rest


def test_robot_system_dry_run_installs_the_robot_unit_and_the_uart() -> None:
    out = dry_run("--robot", "--system", env_extra={"C4PI_INSTALL_DIR": "/opt/c4pi-test"})
    assert_in_order(out, [
        "/opt/c4pi-test/setup.sh --robot",
        "/etc/c4pi/config.toml",
        "write /etc/systemd/system/c4pi-robot.service",
        "systemctl daemon-reload",
        "raspi-config nonint do_serial_hw 0",
        "raspi-config nonint do_serial_cons 1",
        "systemctl enable --now c4pi-robot.service",
        "/opt/c4pi-test/.venv/bin/c4pi selftest",
    ])
    assert "c4pi-kiosk" not in out and "write /etc/systemd/system/c4pi.service" not in out
