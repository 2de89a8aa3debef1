"""setup.sh: argument handling and the pure logic of its steps."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "setup.sh"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"source {SETUP}; {script}"],
                          capture_output=True, text=True, timeout=60)


def test_sourcing_runs_nothing() -> None:
    result = bash("echo sourced")
    assert result.returncode == 0
    assert result.stdout.strip() == "sourced"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs dpkg")
def test_missing_apt_packages_lists_only_missing() -> None:
    result = bash("missing_apt_packages bash c4pi-no-such-package-xyz")
    assert result.stdout.split() == ["c4pi-no-such-package-xyz"]


def test_unknown_argument_fails_readably() -> None:
    result = subprocess.run(["bash", str(SETUP), "--bogus"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown argument: --bogus" in result.stderr


def test_help_lists_commands() -> None:
    result = subprocess.run(["bash", str(SETUP), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "./setup.sh test" in result.stdout and "./setup.sh run" in result.stdout


def test_failed_step_names_itself() -> None:
    result = bash('CURRENT_STEP="Opening book"; die "boom"')
    assert result.returncode == 1
    assert 'step "Opening book" failed: boom' in result.stderr


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    result = bash(f'DRY_RUN=1; VENV={tmp_path}/venv; PY=$VENV/bin/python; create_venv')
    assert result.returncode == 0
    assert "would run: python3 -m venv" in result.stdout
    assert not (tmp_path / "venv").exists()


@pytest.mark.parametrize(("action", "robot", "command"), [
    ("run_tests", 0, "-m pytest -q"), ("run_tests", 1, "-m pytest -q tests/solver"),
    ("run_appliance", 0, "c4pi demo"), ("run_appliance", 1, "c4pi serve --pty"),
])
def test_a_dry_run_prints_the_last_step_and_runs_nothing(tmp_path: Path, action: str,
                                                         robot: int, command: str) -> None:
    """``./setup.sh test --dry-run`` or ``run --dry-run``: no suite, no appliance."""
    result = bash(f'DRY_RUN=1; ROBOT={robot}; VENV={tmp_path}/venv; PY=$VENV/bin/python; '
                  f'is_pi() {{ return 1; }}; {action}; echo "still here"')
    assert result.returncode == 0, result
    would = [line for line in result.stdout.splitlines() if "would run:" in line]
    assert len(would) == 1 and command in would[0], result.stdout
    if action == "run_tests":  # on up to two cores unless the owner's PYTEST_ADDOPTS says
        assert "PYTEST_ADDOPTS=-n " in would[0], would[0]
    assert result.stdout.rstrip().endswith("still here"), result.stdout


def _stamp_check(tmp_path: Path, stamp: str, extras: str, fingerprint: str = "abc") -> bool:
    import sys

    (tmp_path / ".c4pi-build").write_text(stamp + "\n")
    result = bash(f'PY={sys.executable}; STAMP={tmp_path}/.c4pi-build; '
                  f'build_is_current {fingerprint} {extras} && echo current || echo stale')
    return result.stdout.strip() == "current"


def test_an_unchanged_build_is_not_rebuilt(tmp_path: Path) -> None:
    assert _stamp_check(tmp_path, "abc book", "book")
    assert _stamp_check(tmp_path, "abc book,test", "book")  # the test extras include the rest
    assert not _stamp_check(tmp_path, "abc book", "book,test")
    assert not _stamp_check(tmp_path, "abd book", "book")  # a source changed
    assert not _stamp_check(tmp_path, "", "book")


def test_the_fingerprint_follows_the_solver_sources(tmp_path: Path) -> None:
    import sys

    project = tmp_path / "project"
    shutil.copytree(SETUP.parent / "cython_solver", project / "cython_solver",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(SETUP.parent / name, project / name)
    script = f"PY={sys.executable}; HERE={project}; build_fingerprint"
    before = bash(script).stdout.strip()
    assert len(before) == 64 and bash(script).stdout.strip() == before
    engine = project / "cython_solver" / "engine.pyx"
    engine.write_text(engine.read_text() + "\n# changed\n")
    assert bash(script).stdout.strip() != before


def test_rebuild_is_an_option() -> None:
    result = bash("parse_args --rebuild --dry-run; echo $REBUILD $DRY_RUN")
    assert result.stdout.split() == ["1", "1"]


def test_kiosk_autostart_lines_are_added_once_in_the_right_place(tmp_path: Path) -> None:
    user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    wayfire = tmp_path / ".config" / "wayfire.ini"
    wayfire.parent.mkdir(parents=True)
    wayfire.write_text("[core]\nplugins = autostart\n\n[autostart]\npanel = wf-panel-pi\n\n"
                       "[output]\nmode = auto\n")
    labwc = tmp_path / ".config" / "labwc" / "autostart"
    script = (f"DRY_RUN=0; for i in 1 2; do add_wayfire_autostart {user} {wayfire}; "
              f"add_autostart_line {user} {labwc} '/usr/local/bin/c4pi-kiosk &'; done")
    result = bash(script)
    assert result.returncode == 0, result.stderr
    lines = wayfire.read_text().splitlines()
    start = lines.index("[autostart]")
    assert lines[start + 1] == "c4pi = /usr/local/bin/c4pi-kiosk"
    assert wayfire.read_text().count("c4pi-kiosk") == 1
    assert lines[lines.index("[output]") + 1] == "mode = auto"
    assert labwc.read_text() == "/usr/local/bin/c4pi-kiosk &\n"
    assert "already there" in result.stdout


def _run_launcher(tmp_path: Path, answering: str) -> tuple[str, str]:
    """Run the kiosk launcher with a fake ``curl`` (URLs containing ``answering`` answer
    as c4pi, the others as another web server) and a fake Chromium that records its
    URL and stops the launcher; the ports come from the default config (8080, and 8081
    for the screen)."""
    path = SETUP.parent / "tools" / "device" / "kiosk" / "c4pi-kiosk"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "curl").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/curl.log\n'
                               f'case "$*" in *{answering}*) echo \'{{"health": {{}}}}\';;\n'
                               '*) echo "<html>another program</html>";; esac\n')
    (fake / "chromium").write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/chromium.log\n'
                                   'kill -TERM $PPID\n')
    (fake / "sleep").write_text("#!/bin/sh\nexit 0\n")  # no waiting in the test
    for name in ("curl", "chromium", "sleep"):
        (fake / name).chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path),
           "C4PI_INSTALL_DIR": str(SETUP.parent)}
    subprocess.run(["bash", str(path)], env=env, capture_output=True, text=True, timeout=60)
    return (tmp_path / "chromium.log").read_text(), (tmp_path / "curl.log").read_text()


def test_the_kiosk_launcher_opens_the_screen_on_its_own_port(tmp_path: Path) -> None:
    """The Pi's screen uses [hud] kiosk_port, which no flood of other clients can fill."""
    chromium, curl = _run_launcher(tmp_path, "localhost:8081/")
    assert "--kiosk" in chromium and chromium.rstrip().endswith("http://localhost:8081/")
    assert "http://localhost:8081/" in curl.splitlines()[0]


def test_the_kiosk_launcher_falls_back_to_the_page_port(tmp_path: Path) -> None:
    """The screen's own port taken by another program (it answers, but not as c4pi):
    the service warned, the page port shows the screen."""
    chromium, _ = _run_launcher(tmp_path, "localhost:8080/")
    assert chromium.rstrip().endswith("http://localhost:8080/")


def _package(folder: Path, version: str = "0.1") -> Path:
    (folder / "quietpkg").mkdir(parents=True)
    (folder / "quietpkg" / "__init__.py").write_text("")
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "quietpkg"\nversion = "{version}"\n')
    return folder


def _pip_install(tmp_path: Path, package: Path) -> subprocess.CompletedProcess[str]:
    import sys

    offline = (f"--no-build-isolation --no-deps --no-index --prefix {tmp_path}/prefix "
               f"-e {package}")  # this venv's setuptools; installs nothing into the venv
    return bash(f"PY={sys.executable}; pip_install {offline}")


def test_the_editable_install_is_quiet_but_shows_errors(tmp_path: Path) -> None:
    """setuptools' "Editable installation" warning block no longer floods the set-up."""
    quiet = _pip_install(tmp_path, _package(tmp_path / "good"))
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == "" and "Editable installation" not in quiet.stderr
    assert quiet.stderr.strip() == ""
    broken = _pip_install(tmp_path, _package(tmp_path / "broken", version="not a version"))
    assert broken.returncode != 0
    assert "`project.version` must be pep440" in broken.stderr  # the real error shows


def test_every_pip_install_of_setup_goes_through_the_quiet_helper() -> None:
    lines = [line for line in SETUP.read_text().splitlines() if "-m pip install" in line]
    assert len(lines) == 1 and lines[0].startswith("pip_install()")


def test_the_system_install_puts_c4pi_on_the_path() -> None:
    """A newcomer's first set-up step failed with "c4pi: not found": --system links the
    command into /usr/local/bin (dry run: nothing changes)."""
    result = bash('DRY_RUN=1; id() { echo 0; }; link_command')
    assert result.returncode == 0, result
    assert "would run: ln -sfn /opt/c4pi/.venv/bin/c4pi /usr/local/bin/c4pi" in result.stdout
    listed = bash("declare -f install_system").stdout
    assert listed.index("install_code") < listed.index("link_command") \
        < listed.index("start_service")


def test_a_clone_install_says_in_one_line_how_to_type_just_c4pi(tmp_path: Path) -> None:
    result = bash(f"VENV={tmp_path}/venv; say_where_the_command_is")
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and f"ln -sfn {tmp_path}/venv/bin/c4pi ~/.local/bin/c4pi" in lines[0]


def test_the_step_lines_are_plain_text_in_a_log_or_a_pipe() -> None:
    result = bash("say 'Build the solver'")  # captured: not a terminal
    assert result.stdout == "==> Build the solver\n"


def _fake_apt(tmp_path: Path, fails: bool) -> str:
    """A PATH with an ``apt-get`` that prints dpkg's progress (and fails when asked)."""
    fake = tmp_path / "bin"
    fake.mkdir(parents=True)
    (fake / "apt-get").write_text(
        "#!/bin/sh\necho 'Selecting previously unselected package python3-serial.'\n"
        "echo 'Unpacking python3-serial (3.5-1.1) ...'\necho 'Setting up python3-serial'\n"
        + ("echo 'E: Unable to locate package c4pi-nothing' >&2\nexit 100\n" if fails
           else "exit 0\n"))
    (fake / "apt-get").chmod(0o755)
    (fake / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    (fake / "sudo").chmod(0o755)
    return f"PATH={fake}:$PATH"


def test_the_install_shows_no_dpkg_progress_but_shows_a_failure(tmp_path: Path) -> None:
    """#56.10: the robot install streamed raw dpkg progress."""
    quiet = bash(f"{_fake_apt(tmp_path / 'ok', False)}; apt_quietly install -y python3-serial")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    failed = bash(f"{_fake_apt(tmp_path / 'bad', True)}; apt_quietly install -y c4pi-nothing")
    assert failed.returncode == 100
    assert "Unable to locate package c4pi-nothing" in failed.stderr  # the real error shows
