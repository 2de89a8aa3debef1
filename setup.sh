#!/usr/bin/env bash
# c4pi installer: the one script that sets up everything. Idempotent.
#
#   ./setup.sh            set up (Debian packages, .venv, extension, book, clips)
#   ./setup.sh run        set up, then run the appliance (the demo without a Pi camera)
#   ./setup.sh test       set up with test tools, then run the test suite
#   ./setup.sh --system   on a Pi: install and start the c4pi service (as root)
#   ./setup.sh --system --kiosk   also show the c4pi screen full-screen on the Pi's display
#   ./setup.sh --robot    only the robot's solver (c4pi serve: solver, book, serial, LED);
#                         for 32-bit Pis and 512 MB boards (Pi Zero, Zero W; Pi 2, 3 on 32 bits)
#   ./setup.sh --robot run        the robot-only install, then c4pi serve on a pseudo-terminal
#   ./setup.sh --robot --system   on a Pi: install and start the robot-only service
#   ./setup.sh --uninstall  stop and remove the service (keeps /etc/c4pi)
#   --dry-run             print what would be done, do nothing (with any of the above)
#   --rebuild             reinstall c4pi and rebuild the Cython solver even when up to date
#
# Each step is a small function; a failing step stops the script with a
# message naming it and a non-zero exit status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
PY="$VENV/bin/python"
DRY_RUN=0
ACTION=setup
WITH_TESTS=0
REBUILD=0
STAMP="$VENV/.c4pi-build"

APT_PACKAGES=(
  build-essential python3-dev python3-venv python3-pip
  portaudio19-dev libasound2-plugins alsa-utils espeak-ng
  libgl1 libglib2.0-0
)
PI_APT_PACKAGES=(python3-picamera2 python3-lgpio)
# The robot-only install: the solver's build tools, and NumPy from apt (PyPI has no
# NumPy wheels for 32-bit ARM; the venv sees the system's packages).
ROBOT_APT_PACKAGES=(build-essential python3-dev python3-venv python3-pip python3-numpy)
ROBOT_PI_APT_PACKAGES=(python3-lgpio)
ROBOT=0
ROBOT_UNIT_PATH=/etc/systemd/system/c4pi-robot.service
# The kiosk page's browser tests drive Debian's Chromium (no browser download);
# the robot sketch runs on an emulated Arduino Uno (avr-gcc, the Arduino core, simavr).
TEST_APT_PACKAGES=(chromium chromium-driver gcc-avr avr-libc arduino-core-avr simavr libsimavr-dev)
# picamera2 (from apt) imports simplejpeg, whose apt build is for NumPy 1; the venv
# has NumPy 2 (OpenCV 5 needs it), so the venv gets a NumPy-2 build from PyPI.
PI_PIP_PACKAGES=(simplejpeg)
INSTALL_DIR="${C4PI_INSTALL_DIR:-/opt/c4pi}"
SERVICE_USER=c4pi
ETC_DIR=/etc/c4pi
UNIT_PATH=/etc/systemd/system/c4pi.service
KIOSK=0
KIOSK_USER="${C4PI_KIOSK_USER:-}"
KIOSK_LAUNCHER=/usr/local/bin/c4pi-kiosk
COMMAND_LINK=/usr/local/bin/c4pi  # --system: `c4pi` on every user's PATH
KIOSK_APT_PACKAGES=(curl)

say() {  # bold only on a terminal: a log or a pipe gets plain text
  if [ -t 1 ]; then printf '\033[1m==>\033[0m %s\n' "$*"; else printf '==> %s\n' "$*"; fi
}
die() { printf 'setup.sh: step "%s" failed: %s\n' "$CURRENT_STEP" "$*" >&2; exit 1; }
run() {
  if [ "$DRY_RUN" = 1 ]; then printf '   would run: %s\n' "$*"; else "$@"; fi
}
as_root() {
  if [ "$(id -u)" = 0 ]; then run "$@"
  elif command -v sudo >/dev/null; then run sudo "$@"
  else die "needs root for: $* (install sudo or run as root)"; fi
}
step() { CURRENT_STEP="$1"; say "$1"; }
# pip install, quiet: -q, and setuptools' "Editable installation" advice (a 10-line
# warning block every editable install prints, -q or not) filtered out by its message;
# errors and any other warning still show.
QUIET_WARNINGS="ignore:Editable installation"
pip_install() { run env PYTHONWARNINGS="$QUIET_WARNINGS" "$PY" -m pip install -q "$@"; }
is_pi() { grep -qi "raspberry pi" /proc/device-tree/model 2>/dev/null; }

missing_apt_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || printf '%s\n' "$pkg"
  done
}

install_apt_packages() {
  step "Debian packages"
  command -v apt-get >/dev/null || { say "no apt-get: skipping (install ${APT_PACKAGES[*]} yourself)"; return; }
  local wanted=("${APT_PACKAGES[@]}")
  if is_pi; then wanted+=("${PI_APT_PACKAGES[@]}"); fi
  if [ "$WITH_TESTS" = 1 ]; then wanted+=("${TEST_APT_PACKAGES[@]}"); fi
  if [ "$ROBOT" = 1 ]; then  # its tests need no browser and no emulated Arduino
    wanted=("${ROBOT_APT_PACKAGES[@]}")
    if is_pi; then wanted+=("${ROBOT_PI_APT_PACKAGES[@]}"); fi
  fi
  local missing
  mapfile -t missing < <(missing_apt_packages "${wanted[@]}")
  if [ "${#missing[@]}" = 0 ]; then echo "   all present"; return; fi
  echo "   installing: ${missing[*]}"
  apt_quietly update || die "apt-get update"
  apt_quietly install -y --no-install-recommends "${missing[@]}" \
    || die "apt-get install ${missing[*]}"
}

# apt-get as root with its and dpkg's progress ("Selecting previously unselected
# package", "Unpacking", "Setting up") kept in a log: shown only when it fails.
apt_quietly() {
  if [ "$DRY_RUN" = 1 ]; then as_root apt-get -qq "$@"; return; fi
  local log status=0
  log="$(mktemp)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -qq -o Dpkg::Use-Pty=0 "$@" \
    > "$log" 2>&1 || status=$?
  if [ "$status" != 0 ]; then tail -n 25 "$log" >&2; fi
  rm -f "$log"
  return "$status"
}

create_venv() {
  step "Python virtual environment ($VENV)"
  if [ -x "$PY" ]; then echo "   exists"; return; fi
  local flags=()
  # On the Pi, picamera2 and lgpio come from apt, and for the robot-only install
  # NumPy too: let the venv see them.
  if is_pi || [ "$ROBOT" = 1 ]; then flags+=(--system-site-packages); fi
  run python3 -m venv "${flags[@]}" "$VENV" || die "python3 -m venv"
  pip_install --upgrade pip setuptools wheel || die "pip upgrade"
}

# What the installed package and extension were built from: the build files, the
# solver's sources and the Python. Same fingerprint, same build.
build_fingerprint() {
  {
    printf 'python=%s pi=%s\n' "$("$PY" -c 'import sys; print(sys.version)' 2>/dev/null)" \
      "$(is_pi && echo yes || echo no)"
    cd "$HERE" && sha256sum pyproject.toml setup.py cython_solver/*.pyx cython_solver/*.pxd \
      cython_solver/*.h 2>/dev/null
  } | sha256sum | cut -d' ' -f1
}

# True when the last build (stamp: "fingerprint extras") came from the same
# fingerprint, had every extra asked for and still imports.
build_is_current() {
  local fingerprint="$1" extras="$2" built_print built_extras extra
  [ -f "$STAMP" ] || return 1
  read -r built_print built_extras < "$STAMP" || return 1
  [ "$built_print" = "$fingerprint" ] || return 1
  for extra in ${extras//,/ }; do
    [[ ",$built_extras," == *",$extra,"* ]] || return 1
  done
  "$PY" -c "import firmware_py, cython_solver.engine" >/dev/null 2>&1
}

# The Python extras: the robot's solver is the plain package (+ the book's source);
# the whole appliance adds the camera, speech and screen parts.
python_extras() {
  local extras="book"
  if [ "$ROBOT" = 0 ]; then extras="appliance,$extras"; fi
  if [ "$WITH_TESTS" = 1 ]; then extras="$extras,test"; fi
  echo "$extras"
}

install_python_package() {
  step "c4pi and its Python dependencies (builds the Cython solver)"
  local extras
  extras="$(python_extras)"
  local fingerprint
  fingerprint="$(build_fingerprint)"
  if [ "$REBUILD" = 0 ] && build_is_current "$fingerprint" "$extras"; then
    echo "   up to date: sources unchanged since the last build (./setup.sh --rebuild forces it)"
    return
  fi
  run rm -f "$STAMP"
  pip_install -e "$HERE[$extras]" || die "pip install -e .[$extras]"
  if is_pi && [ "$ROBOT" = 0 ]; then
    pip_install --upgrade "${PI_PIP_PACKAGES[@]}" || die "pip install ${PI_PIP_PACKAGES[*]}"
  fi
  run "$PY" -c "import firmware_py, cython_solver.engine" || die "the package does not import"
  if [ "$DRY_RUN" = 0 ]; then printf '%s %s\n' "$fingerprint" "$extras" > "$STAMP"; fi
}

build_opening_book() {
  step "Opening book"
  run "$VENV/bin/c4pi" book build --if-missing || die "c4pi book build"
}

render_speech_clips() {
  step "Speech clips"
  if [ "$ROBOT" = 1 ]; then echo "   (robot-only install: no speech)"; return; fi
  run "$VENV/bin/c4pi" clips build --if-missing || die "c4pi clips build"
}

# The robot-only install runs the tests of what it has: the solver, the serial
# link (robot protocol, LEDs), the core and the robot-only commands.
ROBOT_TESTS=(tests/solver tests/serial tests/core tests/app/test_app_robot_only.py)

# The last step of `test` and `run`: the command replaces this script (a dry run prints it).
run_last() {
  if [ "$DRY_RUN" = 1 ]; then printf '   would run: %s\n' "$*"; return; fi
  exec "$@"
}

run_tests() {
  step "Test suite"
  cd "$HERE"
  local tests=()
  if [ "$ROBOT" = 1 ]; then tests=("${ROBOT_TESTS[@]}"); fi
  # one pytest-xdist worker per core, two at most, unless the owner's PYTEST_ADDOPTS
  # says otherwise (its -n comes last and wins: "-n 0" runs the suite in this process)
  local workers
  workers="$(nproc 2>/dev/null || echo 1)"
  if [ "$workers" -gt 2 ]; then workers=2; fi
  run_last env PYTEST_ADDOPTS="-n $workers ${PYTEST_ADDOPTS:-}" "$PY" -m pytest -q "${tests[@]}"
}

run_appliance() {
  step "Starting c4pi"
  if [ "$ROBOT" = 1 ]; then
    echo "   robot-only install: the serial solver on a pseudo-terminal (c4pi serve --pty)"
    run_last "$VENV/bin/c4pi" serve --pty
  elif has_pi_camera; then
    run_last "$VENV/bin/c4pi" run
  else
    echo "   no Pi camera found: running the built-in demo"
    run_last "$VENV/bin/c4pi" demo
  fi
}

has_pi_camera() {
  is_pi && "$PY" -c "from picamera2 import Picamera2; import sys; sys.exit(not Picamera2.global_camera_info())" 2>/dev/null
}

# ---------------------------------------------------------------- --system

create_service_user() {
  step "Service user $SERVICE_USER"
  if id "$SERVICE_USER" >/dev/null 2>&1; then echo "   exists"; return; fi
  as_root useradd --system --no-create-home --home-dir /var/lib/c4pi \
    --shell /usr/sbin/nologin "$SERVICE_USER" || die "useradd $SERVICE_USER"
  local group
  local groups=(video dialout gpio audio)  # camera, UART, LEDs, speaker
  if [ "$ROBOT" = 1 ]; then groups=(dialout gpio); fi
  for group in "${groups[@]}"; do
    if getent group "$group" >/dev/null; then
      as_root usermod -aG "$group" "$SERVICE_USER" || die "usermod -aG $group"
    fi
  done
}

install_code() {
  step "c4pi code in $INSTALL_DIR"
  as_root mkdir -p "$INSTALL_DIR" || die "mkdir $INSTALL_DIR"
  if [ "$HERE" = "$INSTALL_DIR" ]; then echo "   running from $INSTALL_DIR"; return; fi
  local files
  if git -C "$HERE" rev-parse --git-dir >/dev/null 2>&1; then
    files="git -C $HERE ls-files"
  else
    files="find . -path ./.venv -prune -o -type f -print"
  fi
  if [ "$DRY_RUN" = 1 ]; then
    printf '   would run: copy the files of %s (%s) to %s\n' "$HERE" "$files" "$INSTALL_DIR"
  else
    (cd "$HERE" && $files | tar -cf - -T -) | as_root tar -C "$INSTALL_DIR" -xf - \
      || die "copy to $INSTALL_DIR"
  fi
  local flags=()
  if [ "$ROBOT" = 1 ]; then flags+=(--robot); fi
  as_root "$INSTALL_DIR/setup.sh" "${flags[@]}" || die "$INSTALL_DIR/setup.sh"
}

link_command() {
  step "Put c4pi on the PATH ($COMMAND_LINK)"
  as_root ln -sfn "$INSTALL_DIR/.venv/bin/c4pi" "$COMMAND_LINK" || die "ln $COMMAND_LINK"
}

# A clone's command: where it is, and how to type just `c4pi` (one line).
say_where_the_command_is() {
  echo "   the command is $VENV/bin/c4pi; to type just c4pi:" \
       "mkdir -p ~/.local/bin && ln -sfn $VENV/bin/c4pi ~/.local/bin/c4pi (then log in again)"
}

install_config() {
  step "Config $ETC_DIR/config.toml"
  as_root mkdir -p "$ETC_DIR" || die "mkdir $ETC_DIR"
  if [ -e "$ETC_DIR/config.toml" ]; then
    if cmp -s "$HERE/config/c4pi.toml" "$ETC_DIR/config.toml"; then
      echo "   up to date"
    else
      echo "   kept your changed $ETC_DIR/config.toml; new defaults in $ETC_DIR/config.toml.default"
      as_root install -m 0644 "$HERE/config/c4pi.toml" "$ETC_DIR/config.toml.default" \
        || die "install config.toml.default"
    fi
    return
  fi
  as_root install -m 0644 "$HERE/config/c4pi.toml" "$ETC_DIR/config.toml" || die "install config"
}

# install_template SOURCE DEST [MODE]: SOURCE (relative to the checkout) written to
# DEST with @INSTALL_DIR@ filled in.
install_template() {
  local source=$1 dest=$2 mode=${3:-0644}
  if [ "$DRY_RUN" = 1 ]; then
    printf '   would run: write %s from %s with INSTALL_DIR=%s\n' "$dest" "$source" "$INSTALL_DIR"
    return
  fi
  sed "s#@INSTALL_DIR@#$INSTALL_DIR#g" "$HERE/$source" \
    | as_root tee "$dest" >/dev/null || die "write $dest"
  as_root chmod "$mode" "$dest" || die "chmod $dest"
}

install_unit() {
  if [ "$ROBOT" = 1 ]; then
    step "systemd unit $ROBOT_UNIT_PATH (robot only)"
    install_template systemd/c4pi-robot.service "$ROBOT_UNIT_PATH"
  else
    step "systemd unit $UNIT_PATH"
    install_template systemd/c4pi.service "$UNIT_PATH"
  fi
  as_root systemctl daemon-reload || die "systemctl daemon-reload"
}

enable_uart() {
  step "UART on, serial login console off"
  if ! command -v raspi-config >/dev/null && [ "$DRY_RUN" = 0 ]; then
    echo "   no raspi-config (not a Pi): skipped"; return
  fi
  as_root raspi-config nonint do_serial_hw 0 || die "raspi-config do_serial_hw"
  as_root raspi-config nonint do_serial_cons 1 || die "raspi-config do_serial_cons"
}

start_service() {
  local unit=c4pi.service other=c4pi-robot.service
  if [ "$ROBOT" = 1 ]; then unit=c4pi-robot.service; other=c4pi.service; fi
  step "Start the service $unit"
  # One of the two owns the serial port: the other is stopped and disabled.
  if systemctl list-unit-files "$other" 2>/dev/null | grep -q "$other"; then
    as_root systemctl disable --now "$other" || true
  fi
  as_root systemctl enable --now "$unit" || die "systemctl enable --now $unit"
  run "$INSTALL_DIR/.venv/bin/c4pi" selftest || echo "   selftest reported failures (see above)"
}

install_system() {
  install_apt_packages
  create_service_user
  install_code
  link_command
  install_config
  install_unit
  enable_uart
  start_service
  if [ "$KIOSK" = 1 ] && [ "$ROBOT" = 0 ]; then install_kiosk; fi
}

# ---------------------------------------------------------------- --kiosk

# The desktop user whose session shows the page: C4PI_KIOSK_USER, else the
# user who ran sudo, else the first normal user (uid 1000, the Pi's own).
kiosk_user() {
  if [ -n "$KIOSK_USER" ]; then echo "$KIOSK_USER"; return; fi
  if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then echo "$SUDO_USER"; return; fi
  getent passwd 1000 | cut -d: -f1 || true  # none: the caller says so (set -e, pipefail)
}

# Append LINE to FILE (owned by USER) unless a line with "c4pi-kiosk" is there.
add_autostart_line() {
  local user="$1" file="$2" line="$3"
  if [ -f "$file" ] && grep -q "c4pi-kiosk" "$file"; then echo "   $file: already there"; return; fi
  if [ "$DRY_RUN" = 1 ]; then printf '   would run: add "%s" to %s\n' "$line" "$file"; return; fi
  install -d -o "$user" -g "$user" "$(dirname "$file")"
  printf '%s\n' "$line" >> "$file"
  chown "$user:$user" "$file"
}

# wayfire.ini needs the line inside its [autostart] section.
add_wayfire_autostart() {
  local user="$1" file="$2"
  if [ -f "$file" ] && grep -q "c4pi-kiosk" "$file"; then echo "   $file: already there"; return; fi
  if [ "$DRY_RUN" = 1 ]; then
    printf '   would run: add "c4pi = %s" to [autostart] of %s\n' "$KIOSK_LAUNCHER" "$file"; return
  fi
  install -d -o "$user" -g "$user" "$(dirname "$file")"
  if [ -f "$file" ] && grep -q '^\[autostart\]' "$file"; then
    sed -i "/^\[autostart\]/a c4pi = $KIOSK_LAUNCHER" "$file"
  else
    printf '\n[autostart]\nc4pi = %s\n' "$KIOSK_LAUNCHER" >> "$file"
  fi
  chown "$user:$user" "$file"
}

install_kiosk() {
  step "Kiosk: the c4pi screen full-screen on the Pi's display"
  local user home
  user="$(kiosk_user)"
  [ -n "$user" ] || die "no desktop user found: set C4PI_KIOSK_USER=name"
  home="$(getent passwd "$user" | cut -d: -f6 || true)"
  [ -n "$home" ] || home="/home/$user"
  # Pi OS calls its build chromium-browser; Debian calls it chromium.
  local browser=chromium missing
  if apt-cache policy chromium-browser 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    browser=chromium-browser
  fi
  mapfile -t missing < <(missing_apt_packages "${KIOSK_APT_PACKAGES[@]}" "$browser")
  if [ "${#missing[@]}" != 0 ] && command -v apt-get >/dev/null; then
    apt_quietly install -y "${missing[@]}" || die "apt-get install ${missing[*]}"
  fi
  install_template tools/device/kiosk/c4pi-kiosk "$KIOSK_LAUNCHER" 0755
  echo "   desktop user: $user ($home)"
  add_autostart_line "$user" "$home/.config/labwc/autostart" "$KIOSK_LAUNCHER &"
  add_wayfire_autostart "$user" "$home/.config/wayfire.ini"
  add_autostart_line "$user" "$home/.config/lxsession/LXDE-pi/autostart" "@$KIOSK_LAUNCHER"
  if command -v raspi-config >/dev/null || [ "$DRY_RUN" = 1 ]; then
    as_root raspi-config nonint do_boot_behaviour B4 || die "raspi-config do_boot_behaviour B4"
  else
    echo "   no raspi-config: log in to the desktop yourself (or turn on autologin)"
  fi
  echo "   the screen opens at the next boot (sudo reboot)"
}

uninstall_system() {
  step "Remove the c4pi service"
  as_root systemctl disable --now c4pi.service c4pi-robot.service || true
  as_root rm -f "$UNIT_PATH" "$ROBOT_UNIT_PATH" || die "rm $UNIT_PATH"
  if [ "$(readlink "$COMMAND_LINK" 2>/dev/null)" = "$INSTALL_DIR/.venv/bin/c4pi" ]; then
    as_root rm -f "$COMMAND_LINK" || true
  fi
  as_root systemctl daemon-reload || true
  as_root rm -rf "$INSTALL_DIR" /var/lib/c4pi || die "rm $INSTALL_DIR"
  if id "$SERVICE_USER" >/dev/null 2>&1; then as_root userdel "$SERVICE_USER" || true; fi
  echo "   kept $ETC_DIR (your config); remove it by hand if you want"
}

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      run) ACTION=run ;;
      test) ACTION=test; WITH_TESTS=1 ;;
      --system) ACTION=system ;;
      --uninstall) ACTION=uninstall ;;
      --kiosk) KIOSK=1 ;;
      --robot) ROBOT=1 ;;
      --dry-run) DRY_RUN=1 ;;
      --rebuild) REBUILD=1 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "setup.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
  done
}

# The system's own architecture: a 32-bit Raspberry Pi OS on a Pi 4 runs a 64-bit
# kernel (uname -m says aarch64) under a 32-bit userland (dpkg says armhf).
userland_arch() { dpkg --print-architecture 2>/dev/null || uname -m; }

# The whole appliance needs a 64-bit OS: OpenCV and LiteRT publish nothing for 32-bit
# ARM, so pip would try for hours to build them. Say so at once.
check_architecture() {
  local arch
  arch="$(userland_arch)"
  case "$arch" in
    armhf|armel|armv6l|armv7l|armv8l)
      if [ "$ROBOT" = 0 ] && [ "$ACTION" != uninstall ]; then
        CURRENT_STEP="architecture"
        die "32-bit ARM ($arch): the whole appliance needs 64-bit Raspberry Pi OS; for a robot, ./setup.sh --robot installs the robot's solver here"
      fi ;;
  esac
}

main() {
  parse_args "$@"
  check_architecture
  case "$ACTION" in
    system) install_system; return ;;
    uninstall) uninstall_system; return ;;
  esac
  install_apt_packages
  create_venv
  install_python_package
  build_opening_book
  render_speech_clips
  case "$ACTION" in
    test) run_tests ;;
    run) say_where_the_command_is; run_appliance ;;
    *) say "Done. Try: $VENV/bin/c4pi --help"; say_where_the_command_is ;;
  esac
}

CURRENT_STEP=start
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
