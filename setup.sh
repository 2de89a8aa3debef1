#!/usr/bin/env bash
# c4pi installer: the one script that sets up everything. Idempotent.
#
#   ./setup.sh            set up (Debian packages, .venv, extension, book, clips)
#   ./setup.sh run        set up, then run the appliance (the demo without a Pi camera)
#   ./setup.sh test       set up with test tools, then run the test suite
#   ./setup.sh --dry-run  print what would be done, do nothing
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

APT_PACKAGES=(
  build-essential python3-dev python3-venv python3-pip
  portaudio19-dev libasound2-plugins alsa-utils espeak-ng
  libgl1 libglib2.0-0
)
PI_APT_PACKAGES=(python3-picamera2 python3-lgpio)

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
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
  local missing
  mapfile -t missing < <(missing_apt_packages "${wanted[@]}")
  if [ "${#missing[@]}" = 0 ]; then echo "   all present"; return; fi
  echo "   installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" || die "apt-get install ${missing[*]}"
}

create_venv() {
  step "Python virtual environment ($VENV)"
  if [ -x "$PY" ]; then echo "   exists"; return; fi
  local flags=()
  # On the Pi, picamera2 and lgpio come from apt: let the venv see them.
  if is_pi; then flags+=(--system-site-packages); fi
  run python3 -m venv "${flags[@]}" "$VENV" || die "python3 -m venv"
  run "$PY" -m pip install -q --upgrade pip setuptools wheel || die "pip upgrade"
}

install_python_package() {
  step "c4pi and its Python dependencies (builds the Cython solver)"
  local extras="book"
  if [ "$WITH_TESTS" = 1 ]; then extras="book,test"; fi
  run "$PY" -m pip install -q -e "$HERE[$extras]" || die "pip install -e .[$extras]"
  run "$PY" -c "import firmware_py" || die "the package does not import"
}

build_opening_book() {
  step "Opening book"
  if "$VENV/bin/c4pi" book --help >/dev/null 2>&1; then
    run "$VENV/bin/c4pi" book build --if-missing || die "c4pi book build"
  else
    echo "   (this version has no opening book yet)"
  fi
}

render_speech_clips() {
  step "Speech clips"
  if "$VENV/bin/c4pi" clips --help >/dev/null 2>&1; then
    run "$VENV/bin/c4pi" clips build --if-missing || die "c4pi clips build"
  else
    echo "   (this version has no speech yet)"
  fi
}

run_tests() {
  step "Test suite"
  cd "$HERE"
  exec "$PY" -m pytest -q
}

run_appliance() {
  step "Starting c4pi"
  if "$VENV/bin/c4pi" demo --help >/dev/null 2>&1 && ! has_pi_camera; then
    echo "   no Pi camera found: running the built-in demo"
    exec "$VENV/bin/c4pi" demo
  elif "$VENV/bin/c4pi" run --help >/dev/null 2>&1; then
    exec "$VENV/bin/c4pi" run
  else
    echo "   this version has no appliance yet; the configuration is:"
    exec "$VENV/bin/c4pi" config
  fi
}

has_pi_camera() {
  is_pi && "$PY" -c "from picamera2 import Picamera2; import sys; sys.exit(not Picamera2.global_camera_info())" 2>/dev/null
}

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      run) ACTION=run ;;
      test) ACTION=test; WITH_TESTS=1 ;;
      --dry-run) DRY_RUN=1 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "setup.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
  done
}

main() {
  parse_args "$@"
  install_apt_packages
  create_venv
  install_python_package
  build_opening_book
  render_speech_clips
  case "$ACTION" in
    test) run_tests ;;
    run) run_appliance ;;
    *) say "Done. Try: $VENV/bin/c4pi --help" ;;
  esac
}

CURRENT_STEP=start
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
