"""Config loading and validation: every error path names the file and the key."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from c4game.exc import C4piError
from firmware_py import config as config_module
from firmware_py.config import (
    DEFAULT_CONFIG,
    Config,
    ConfigError,
    load_config,
    parse_config,
    resolve_path,
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c4pi.toml"
    path.write_text(text)
    return path


def test_default_file_matches_dataclass_defaults() -> None:
    loaded = load_config(DEFAULT_CONFIG)
    assert loaded == Config()


def test_default_file_lists_every_key() -> None:
    data = tomllib.loads(DEFAULT_CONFIG.read_text())
    defaults = Config()
    for section in config_module.SECTIONS:
        assert section in data, section
        assert set(data[section]) == set(vars(getattr(defaults, section))), section


def test_partial_file_keeps_defaults(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, "[solver]\ntt_mb = 8\n"))
    assert loaded.solver.tt_mb == 8
    assert loaded.solver.tie_break == "centre"
    assert loaded.serial == Config().serial
    assert loaded.source == str(tmp_path / "c4pi.toml")


def test_int_accepted_for_float(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, "[camera]\nfps = 15\n"))
    assert loaded.camera.fps == 15.0 and isinstance(loaded.camera.fps, float)


@pytest.mark.parametrize(
    ("text", "key", "fragment"),
    [
        ("[solvr]\ntt_mb = 8\n", "[solvr]", "unknown section (did you mean 'solver'?)"),
        ("[solver]\ntt_mbb = 8\n", "[solver] tt_mbb", "unknown key (did you mean 'tt_mb'?)"),
        ("[solver]\ntt_mb = '64'\n", "[solver] tt_mb", "expected an integer"),
        ("[solver]\ntt_mb = 4\n", "[solver] tt_mb", "or from 8 to 4096, got 4"),
        ("[solver]\ntt_mb = -1\n", "[solver] tt_mb", "from 0 to 4096, got -1"),
        ("[solver]\ntt_mb = 1.5\n", "[solver] tt_mb", "expected an integer"),
        ("[solver]\nuse_book = 1\n", "[solver] use_book", "expected true or false"),
        ("[solver]\ntie_break = 'left'\n", "[solver] tie_break", "one of 'centre', 'random'"),
        ("[camera]\nfps = true\n", "[camera] fps", "expected a number"),
        ("[camera]\nfps = 100.0\n", "[camera] fps", "from 1.0 to 60.0"),
        ("[camera]\ndistortion = 0.1\n", "[camera] distortion", "expected a list of float"),
        ("[camera]\ndistortion = [0.1, 'x']\n", "[camera] distortion", "expected a number"),
        ("[vision]\ncalibration = [0.0]\n", "[vision] calibration", "expected 8 values"),
        ("[vision]\nmin_cell_confidence = 0.4\n", "[vision] min_cell_confidence",
         "from 0.5 to 1.0, got 0.4"),
        ("[led]\nactivity = 'gpio'\n", "[led] gpio_pin", "must be set"),
        ("[led]\nadvantage_red_pin = 5\n", "[led] advantage_red_pin", "both advantage pins"),
        ("[serial]\nbaud = 9601\n", "[serial] baud", "one of"),
        ("[serial]\nreconnect_min_s = 20.0\n", "[serial] reconnect_min_s", "reconnect_max_s"),
        ("solver = 3\n", "solver", "expected a [solver] table"),
        ("[log]\nlevel = 'loud'\n", "[log] level", "one of 'debug'"),
    ],
)
def test_bad_values_name_file_and_key(tmp_path: Path, text: str, key: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    error = info.value
    assert error.key == key
    assert error.path == str(path)
    assert fragment in str(error)
    assert str(error).startswith(f"{path}: {key}: ")
    assert isinstance(error, C4piError) and isinstance(error, ValueError)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.toml")


def test_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[solver\n"))


def test_config_is_frozen() -> None:
    loaded = parse_config({})
    with pytest.raises(AttributeError):
        loaded.solver.tt_mb = 9  # type: ignore[misc]


def test_config_path_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = tmp_path / "etc.toml"
    monkeypatch.setattr(config_module, "SYSTEM_CONFIG", system)
    assert config_module.config_path(None) == DEFAULT_CONFIG
    system.write_text("")
    assert config_module.config_path(None) == system
    assert config_module.config_path("x.toml") == Path("x.toml")


def test_resolve_path() -> None:
    assert resolve_path("/abs/file") == Path("/abs/file")
    assert resolve_path("books/x") == config_module.PROJECT_DIR / "books" / "x"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_py", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_exit_78_names_key(tmp_path: Path) -> None:
    path = write(tmp_path, "[speech]\nvolumme = 0.5\n")
    result = run_cli("--config", str(path), "config")
    assert result.returncode == 78
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "[speech] volumme" in lines[0] and str(path) in lines[0]


def test_cli_help_and_version() -> None:
    from firmware_py import __version__

    assert run_cli("--version").stdout.strip() == f"c4pi {__version__}"
    result = run_cli("--help")
    assert result.returncode == 0 and "COMMAND" in result.stdout


def test_cli_config_prints_effective_values(tmp_path: Path) -> None:
    path = write(tmp_path, "[solver]\ntt_mb = 16\n")
    result = run_cli("--config", str(path), "config", "--json")
    assert result.returncode == 0
    import json

    data = json.loads(result.stdout)
    assert data["solver"]["tt_mb"] == 16 and data["source"] == str(path)


def test_retired_vision_keys_load_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    # a config kept in /etc/c4pi from an earlier version must still start the service
    loaded = parse_config({"vision": {"flip_votes": True, "context_check": False,
                                      "illegal_margin": 3.0, "vote_window": 5,
                                      "confidence_gate": 0.6,
                                      "min_cell_confidence": 0.7}}, "old.toml")
    assert loaded.vision.min_cell_confidence == 0.7
    assert "old.toml: [vision] flip_votes is no longer used" in caplog.text
    # a board is read only as it is seen: no margin lets an illegal grid be corrected
    assert "old.toml: [vision] illegal_margin is no longer used" in caplog.text
    # the one game filter replaced the voter and the confidence gate
    assert "old.toml: [vision] vote_window is no longer used" in caplog.text
    assert "old.toml: [vision] confidence_gate is no longer used" in caplog.text
    with pytest.raises(ConfigError, match="flip_vote"):
        parse_config({"vision": {"flip_vote": True}}, "typo.toml")


def _float_keys() -> list[tuple[str, str]]:
    """(section, key) of every float setting, read from the schema (a new key is covered)."""
    import dataclasses
    import typing

    found = []
    for name, section in typing.get_type_hints(Config).items():
        if not dataclasses.is_dataclass(section):
            continue
        hints = typing.get_type_hints(section)
        found += [(name, field.name) for field in dataclasses.fields(section)
                  if hints[field.name] is float]
    return found


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize(("section", "key"), _float_keys())
def test_nan_and_infinities_are_refused_for_every_float_key(
        tmp_path: Path, section: str, key: str, value: str) -> None:
    path = write(tmp_path, f"[{section}]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == f"[{section}] {key}" and "finite" in str(info.value)


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_bytes(b'[vision]\nmodel = "\xff\xfe"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.path == str(path) and "not UTF-8" in str(caught.value)


def test_the_command_line_exits_78_on_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c4pi.toml"
    path.write_bytes(b"[solver]\n# caf\xe9\n")
    done = subprocess.run([sys.executable, "-m", "firmware_py", "--config", str(path),
                           "solve", "44"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 78, done.stderr
    assert "not UTF-8" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("key, kind", [("[speech]\nclip_dir", "file"),
                                       ("[speech]\nwav_path", "folder"),
                                       ("[solver]\nbook", "folder"),
                                       ("[vision]\nmodel", "folder")])
def test_a_path_of_the_wrong_kind_names_the_key(tmp_path: Path, key: str, kind: str) -> None:
    target = tmp_path / "thing"
    if kind == "file":
        target.write_text("x")
    else:
        target.mkdir()
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, f'{key} = "{target}"\n'))
    section, name = key.split("\n")
    assert caught.value.key == f"{section} {name}" and f"is a {kind}" in str(caught.value)


def test_c4pi_config_says_where_a_relative_missing_book_was_looked_for(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from firmware_py.cli import main
    from firmware_py.config import PROJECT_DIR

    path = write(tmp_path, '[solver]\nbook = "nosuch/book.c4b"\n')
    assert main(["--config", str(path), "config"]) == 78
    err = capsys.readouterr().err
    assert f"no such file: {PROJECT_DIR / 'nosuch' / 'book.c4b'} (" in err


def test_c4pi_config_names_a_book_or_model_file_that_is_not_there(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from firmware_py.cli import main

    gone = tmp_path / "gone.c4b"
    path = write(tmp_path, f'[solver]\nbook = "{gone}"\n[vision]\nmodel = "{gone}.tflite"\n')
    assert main(["--config", str(path), "config"]) == 78
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"c4pi config: {path}: ") for line in lines)
    assert "[solver] book" in lines[0] and str(gone) in lines[0] and "no such file" in lines[0]
    assert "[vision] model" in lines[1] and "[solver]" in captured.out  # the values still shown
    path = write(tmp_path, f'[solver]\nbook = "{gone}"\nuse_book = false\n')
    assert main(["--config", str(path), "config"]) == 0  # no book read: nothing missing
    assert main(["config"]) == 0  # the shipped config names files that are there
    capsys.readouterr()
    path = write(tmp_path, f'[solver]\nbook = "{gone}"\n')
    assert main(["--config", str(path), "config", "--json"]) == 78
    shown = json.loads(capsys.readouterr().out)
    assert shown["exit"] == 78 and "[solver] book" in shown["error"] and "solver" in shown
