"""Checks of the machine itself: free disk, free memory, CPU temperature."""

from __future__ import annotations

import shutil
from pathlib import Path

from firmware_py.config import PROJECT_DIR, Config
from firmware_py.selftest.core import Fail, SelftestOptions, Skip

MIN_FREE_DISK_MB = 200
MIN_FREE_MEMORY_MB = 150
MAX_CPU_TEMP_C = 80.0


def check_disk(config: Config, options: SelftestOptions, path: Path = PROJECT_DIR) -> str:
    free_mb = shutil.disk_usage(path).free / 2**20
    if free_mb < MIN_FREE_DISK_MB:
        raise Fail(f"only {free_mb:.0f} MB free on {path} (need {MIN_FREE_DISK_MB})")
    return f"{free_mb:.0f} MB free on {path}"


def read_meminfo(path: Path = Path("/proc/meminfo")) -> dict[str, int]:
    """``/proc/meminfo`` as kB values."""
    values = {}
    for line in path.read_text().splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0])
    return values


def check_memory(config: Config, options: SelftestOptions,
                 meminfo: Path = Path("/proc/meminfo")) -> str:
    try:
        info = read_meminfo(meminfo)
    except OSError as error:
        raise Skip(f"cannot read {meminfo}: {error.strerror}") from None
    available_mb = info.get("MemAvailable", 0) / 1024
    total_mb = info.get("MemTotal", 0) / 1024
    if available_mb < MIN_FREE_MEMORY_MB:
        raise Fail(f"only {available_mb:.0f} MB of {total_mb:.0f} MB available "
                   f"(need {MIN_FREE_MEMORY_MB})")
    return f"{available_mb:.0f} MB of {total_mb:.0f} MB available"


def check_temperature(config: Config, options: SelftestOptions,
                      zone: Path = Path("/sys/class/thermal/thermal_zone0/temp")) -> str:
    try:
        celsius = int(zone.read_text().strip()) / 1000
    except (OSError, ValueError):
        raise Skip(f"no CPU temperature sensor at {zone}") from None
    if celsius > MAX_CPU_TEMP_C:
        raise Fail(f"CPU at {celsius:.1f} °C (throttling above {MAX_CPU_TEMP_C:.0f} °C)")
    return f"CPU at {celsius:.1f} °C"
