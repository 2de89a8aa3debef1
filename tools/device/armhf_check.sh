#!/usr/bin/env bash
# The robot-only install on 32-bit ARM, off the Pi: a fresh Debian 12 armhf root
# (ARMv7, as a Pi 2, or a Pi 3 on 32-bit Raspberry Pi OS) under qemu-user emulation.
#
#   sudo tools/device/armhf_check.sh [WORKDIR]     (default WORKDIR: a new temporary folder)
#
# 1. debootstrap a bookworm armhf root; clone this repository (its committed HEAD);
# 2. there: `./setup.sh --robot` (nothing by hand: NumPy from apt, the solver built
#    from source, the book built);
# 3. `c4pi serve --pty` there and here answer the same robot queries of the public
#    test sets (tools/device/robot_queries.py, ../shared/data/test-sets): every
#    answer must be equal; the serve process's peak memory there is reported;
# 4. a table too big for 32 bits is refused, a normal one works;
# 5. `./setup.sh --robot test` there (the solver, serial, core and robot-only tests).
# Prints each step's time; exits non-zero on a failure. The emulated root:
# tools/device/emulated_root.sh. Not part of CI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$(mktemp -d /var/tmp/c4pi-armhf.XXXXXX)}"
ROOT="$WORK/root"
ARCH=armhf QEMU=qemu-arm MACHINE=armv7l
PER_SET="${C4PI_PER_SET:-50}"  # positions of each of the six test sets: 300 queries
# shellcheck source=tools/device/emulated_root.sh
source "$HERE/tools/device/emulated_root.sh"

robot_install() {
  as_user "cd ~/c4pi && ./setup.sh --robot > ~/setup.log 2>&1" || { tail -30 "$ROOT/home/$USER_NAME/setup.log"; return 1; }
  as_user "~/c4pi/.venv/bin/python -c 'import cv2' 2>/dev/null" && { log "OpenCV is installed: not robot-only"; return 1; }
  as_user "~/c4pi/.venv/bin/c4pi solve 4453"
}

same_answers() {
  local sets="$HERE/../shared/data/test-sets" here_answers="$WORK/answers-host.txt"
  [ -d "${C4PI_SHARED:-$HERE/../shared}/data/test-sets" ] && sets="${C4PI_SHARED:-$HERE/../shared}/data/test-sets"
  [ -d "$sets" ] || { log "no public test sets at $sets (../shared)"; return 1; }
  # beside the clone as ../shared, where the tests look for them too
  mkdir -p "$ROOT/home/$USER_NAME/shared/data/test-sets"
  cp "$sets"/*.txt "$ROOT/home/$USER_NAME/shared/data/test-sets/"
  log "here ($(uname -m)): $(cd "$HERE" && .venv/bin/python -m tools.device.robot_queries \
    --sets-dir "$sets" --per-set "$PER_SET" --out "$here_answers")"
  log "there: $(as_user "cd ~/c4pi && .venv/bin/python -m tools.device.robot_queries \
    --sets-dir ~/shared/data/test-sets --per-set $PER_SET --out ~/answers.txt")"
  if cmp -s "$here_answers" "$ROOT/home/$USER_NAME/answers.txt"; then
    log "all $(wc -l < "$here_answers") answers equal"
  else
    diff "$here_answers" "$ROOT/home/$USER_NAME/answers.txt" | head -20; return 1
  fi
}

table_limits() {
  as_user "cd ~/c4pi && .venv/bin/python -c '
from cython_solver.engine import Engine
from cython_solver.solver import auto_tt_mb
Engine(64)
try:
    Engine(4096)
except MemoryError as error:
    print(\"4096 MB refused:\", error)
else:
    raise SystemExit(\"a 4096 MB table was accepted on 32 bits\")
print(\"the table sized from memory here:\", auto_tt_mb(), \"MB\")
'"
}

robot_tests() {
  as_user "cd ~/c4pi && ./setup.sh --robot test > ~/test.log 2>&1"
  local status=$?
  tail -5 "$ROOT/home/$USER_NAME/test.log"
  return $status
}

main() {
  start_root
  timed "./setup.sh --robot (install)" robot_install
  timed "c4pi serve: the same answers here and there" same_answers
  timed "transposition table limits on 32 bits" table_limits
  timed "./setup.sh --robot test" robot_tests
  log "all passed on $(chroot "$ROOT" uname -m) in $(( $(date +%s) - START )) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
