"""Hostile config files and values: each is refused in one line naming the file and the key.

The schema is read from the dataclasses (types and ``_opt`` metadata), so a key
added later is covered without touching these tests.
"""

from __future__ import annotations

import dataclasses
import math
import os
import resource
import subprocess
import sys
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_py import config as config_module
from firmware_py.config import Config, ConfigError, load_config, parse_config

SOURCE = "hostile.toml"
ABSURD: tuple[Any, ...] = (1e308, -1e308, -1, 0, 10**30, -(10**30), 10**400, 1e-300)


@dataclasses.dataclass(frozen=True)
class Key:
    """One numeric setting (or list of numbers) of the schema."""

    section: str
    name: str
    kind: type  # int or float: the type of the value, or of each element of a list
    is_list: bool
    meta: Mapping[str, Any]
    default: Any

    @property
    def label(self) -> str:
        return f"[{self.section}] {self.name}"

    @property
    def bounds(self) -> tuple[Any, Any]:
        if self.is_list:
            return self.meta.get("elem_lo"), self.meta.get("elem_hi")
        return self.meta.get("lo"), self.meta.get("hi")


def _key(section: str, item: dataclasses.Field[Any], hint: Any) -> Key | None:
    is_list = typing.get_origin(hint) is list
    kind = typing.get_args(hint)[0] if is_list else hint
    if kind not in (int, float):
        return None
    default = (item.default_factory() if item.default is dataclasses.MISSING  # type: ignore[misc]
               else item.default)
    return Key(section, item.name, kind, is_list, item.metadata, default)


def numeric_keys() -> list[Key]:
    """Every int and float key, and every list of them, of every section."""
    found = []
    for section, cls in config_module.SECTIONS.items():
        hints = typing.get_type_hints(cls)
        found += [key for item in dataclasses.fields(cls)
                  if (key := _key(section, item, hints[item.name])) is not None]
    return found


KEYS = numeric_keys()
KEY_IDS = [key.label for key in KEYS]


def in_range(key: Key, value: Any) -> bool:
    lo, hi = key.bounds
    choices = key.meta.get("choices")
    if choices is not None:
        return value in choices
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def as_setting(key: Key, value: Any) -> Any:
    """``value`` for the key: itself, or a valid-length list holding it last."""
    if not key.is_list:
        return value
    lengths = key.meta.get("lengths") or (len(key.default),)
    size = min([length for length in lengths if length > 0] or [1])
    return [0.0] * (size - 1) + [value]


def assert_refused(key: Key, value: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({key.section: {key.name: as_setting(key, value)}}, SOURCE)
    error = caught.value
    assert error.key == key.label, (value, str(error))
    assert str(error).startswith(f"{SOURCE}: {key.label}: ")
    assert "\n" not in str(error) and len(str(error)) < 300


def test_the_schema_has_numeric_keys_and_lists() -> None:
    labels = {key.label for key in KEYS}
    assert {"[camera] fx", "[camera] distortion", "[vision] calibration"} <= labels


@pytest.mark.parametrize("key", KEYS, ids=KEY_IDS)
def test_every_numeric_key_has_a_range(key: Key) -> None:
    if key.meta.get("choices") is not None:
        return
    lo, hi = key.bounds
    assert lo is not None and hi is not None, f"{key.label} needs lo= and hi= (elem_ for lists)"
    assert math.isfinite(lo) and math.isfinite(hi) and lo <= hi


@pytest.mark.parametrize("key", KEYS, ids=KEY_IDS)
def test_every_default_passes_its_own_range(key: Key) -> None:
    values = key.default if key.is_list else [key.default]
    assert all(in_range(key, value) for value in values), key.label
    loaded = parse_config({key.section: {key.name: key.default}}, SOURCE)
    assert getattr(getattr(loaded, key.section), key.name) == key.default


def refused(key: Key, value: Any) -> bool:
    """Whether ``value`` is out of the key's range (a tiny focal length counts as out)."""
    tiny_focal = key.label in ("[camera] fx", "[camera] fy") and 0 < value < 1
    return tiny_focal or not in_range(key, value)


ABSURD_CASES = [(key, value) for key in KEYS for value in ABSURD if refused(key, value)]


def case_id(key: Key, value: Any) -> str:
    shown = repr(value)
    if len(shown) > 12:  # a huge integer
        shown = ("-" if value < 0 else "") + f"10**{len(str(abs(value))) - 1}"
    return f"{key.label}={shown}"


@pytest.mark.parametrize(("key", "value"), ABSURD_CASES,
                         ids=[case_id(key, value) for key, value in ABSURD_CASES])
def test_absurd_values_are_refused_naming_the_key(key: Key, value: Any) -> None:
    assert_refused(key, value)


def out_of_range(key: Key) -> st.SearchStrategy[Any]:
    """Finite numbers outside the key's range (or not among its choices)."""
    lo, hi = key.bounds
    finite = {"allow_nan": False, "allow_infinity": False}
    if key.meta.get("choices") is not None:
        return (st.integers() | st.floats(**finite)).filter(lambda v: not in_range(key, v))
    below = st.floats(max_value=lo, exclude_max=True, **finite) | st.integers(
        max_value=math.ceil(lo) - 1)
    above = st.floats(min_value=hi, exclude_min=True, **finite) | st.integers(
        min_value=math.floor(hi) + 1)
    return below | above


@pytest.mark.parametrize("key", KEYS, ids=KEY_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_any_finite_value_out_of_range_is_refused(key: Key, data: st.DataObject) -> None:
    if key.meta.get("choices") is None and None in key.bounds:
        pytest.fail(f"{key.label} has no range")
    assert_refused(key, data.draw(out_of_range(key)))


def test_small_positive_focal_lengths_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"\[camera\] fy: must be 0 .* got 0.5"):
        parse_config({"camera": {"fy": 0.5}}, SOURCE)
    assert parse_config({"camera": {"fx": 10.0, "fy": 100000}}).camera.fy == 100000.0


@pytest.mark.parametrize("size", [1, 2, 3, 6, 15])
def test_distortion_of_a_length_opencv_refuses_is_refused(size: int) -> None:
    with pytest.raises(ConfigError, match=r"\[camera\] distortion: expected 0, 4, 5, 8"):
        parse_config({"camera": {"distortion": [0.01] * size}}, SOURCE)


@pytest.mark.parametrize("size", [0, 4, 5, 8, 12, 14])
def test_distortion_of_a_length_opencv_takes_loads(size: int) -> None:
    assert len(parse_config({"camera": {"distortion": [0.01] * size}}).camera.distortion) == size


def test_a_long_value_is_shortened_in_the_message() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"log": {"level": "x" * 10_000}}, SOURCE)
    assert len(str(caught.value)) < 300


# --- files that are not small regular files ----------------------------------------


def _limit_memory() -> None:  # a regression that reads /dev/zero must not eat the machine
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_py", *args], capture_output=True,
                          text=True, timeout=60, preexec_fn=_limit_memory)


def assert_cli_refuses(path: Path | str, fragment: str) -> None:
    result = run_cli("--config", str(path), "config")
    assert result.returncode == 78, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0], lines


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "c4pi.toml"
    os.mkfifo(fifo)
    assert_cli_refuses(fifo, "not a regular file")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_an_endless_device_is_refused_before_reading() -> None:
    assert_cli_refuses("/dev/zero", "not a regular file")


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(tmp_path)


def test_a_file_over_a_megabyte_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_text("# " + "x" * 2_000_000 + "\n[solver]\ntt_mb = 0\n")
    with pytest.raises(ConfigError, match="larger than 1 MB") as caught:
        load_config(path)
    assert caught.value.path == str(path)
    assert_cli_refuses(path, "larger than 1 MB")


@pytest.mark.parametrize("nested", ["[" * 100_000, "{a = " * 100_000])
def test_deep_nesting_is_a_config_error(tmp_path: Path, nested: str) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_text("a = " + nested + "\n")
    with pytest.raises(ConfigError, match="nested too deeply") as caught:
        load_config(path)
    assert caught.value.path == str(path)
    assert_cli_refuses(path, "nested too deeply")


def test_an_integer_too_long_to_read_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_text("[camera]\nfps = " + "9" * 5000 + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.path == str(path) and len(str(caught.value)) < 300


def test_a_huge_integer_for_a_float_key_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_text("[camera]\nfps = " + "9" * 400 + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.key == "[camera] fps" and len(str(caught.value)) < 300


def test_a_path_with_a_nul_byte_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unusable path"):
        load_config("c4pi\0.toml")


def test_the_command_line_exits_78_on_an_absurd_focal_length(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_text("[camera]\nfx = 1e308\nfy = 1e308\ncx = 640.0\ncy = 360.0\n")
    assert_cli_refuses(path, "[camera] fx")


def test_the_defaults_still_load() -> None:
    assert load_config(config_module.DEFAULT_CONFIG) == Config()
