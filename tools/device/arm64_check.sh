#!/usr/bin/env bash
# The README's two commands on a fresh arm64 Debian 12 (the closest thing to
# Raspberry Pi OS Bookworm 64-bit without a Pi), under qemu-user emulation.
#
#   sudo tools/device/arm64_check.sh [WORKDIR]     (default WORKDIR: a new temporary folder)
#
# 1. debootstrap a bookworm arm64 root from the mirror apt uses here;
# 2. clone this repository (its committed HEAD) into /home/tester/c4pi there;
# 3. there: `./setup.sh run` until the demo answers a serial query
#    (`c4pi client`), then stop it; then `./setup.sh test`, one pytest worker
#    per host core (`-n`, pytest-xdist). They run as root
#    with HOME=/home/tester: qemu-user's binfmt entry (flags PF, no C) does not
#    honour setuid, so sudo cannot work inside the emulated root.
# Prints each step's time and the test summary; exits non-zero on a failure.
# The emulated root: tools/device/emulated_root.sh. qemu-user shows the host's
# /proc/cpuinfo, on which LiteRT's CPU detection crashes, so a Raspberry Pi 4's
# is bind-mounted over it (tools/device/arm64/cpuinfo-pi4.txt). Not part of CI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$(mktemp -d /var/tmp/c4pi-arm64.XXXXXX)}"
ROOT="$WORK/root"
ARCH=arm64 QEMU=qemu-aarch64 MACHINE=aarch64
CPUINFO="$HERE/tools/device/arm64/cpuinfo-pi4.txt"
DEMO_WAIT_S=1800
# shellcheck source=tools/device/emulated_root.sh
source "$HERE/tools/device/emulated_root.sh"

run_demo_and_query() {
  local out="$ROOT/home/$USER_NAME/run.log" port="" waited=0
  as_user "cd ~/c4pi && ./setup.sh run > ~/run.log 2>&1" &
  local runner=$!
  while [ -z "$port" ] && [ "$waited" -lt "$DEMO_WAIT_S" ]; do
    sleep 10; waited=$((waited + 10))
    port=$(grep -oE 'serial robot link on /dev/pts/[0-9]+' "$out" 2>/dev/null | awk '{print $5}' || true)
    kill -0 "$runner" 2>/dev/null || break
  done
  [ -n "$port" ] || { tail -30 "$out"; kill "$runner" 2>/dev/null; return 1; }
  log "setup finished, demo on $port; querying"
  sleep 20  # the demo's solver and book are ready well before; give the pty a moment
  local answer
  answer=$(as_user "~/c4pi/.venv/bin/c4pi client --port $port 4453" 2>&1) || true
  log "c4pi client: $answer"
  chroot "$ROOT" pkill -TERM -f "bin/c4pi demo" || true
  local stopped=0
  wait "$runner" 2>/dev/null || stopped=$?
  log "the demo stopped on SIGTERM with exit status $stopped"
  echo "$answer" | grep -qE '[1-7][-+=][0-9]{2}' && [ "$stopped" = 0 ]
}

run_tests() {
  # One pytest worker per host core (pytest-xdist, a test extra): each test process
  # is emulated on one core; the suite passes in parallel as it does in order.
  as_user "cd ~/c4pi && PYTEST_ADDOPTS='-n $(nproc) --durations=20' ./setup.sh test > ~/test.log 2>&1"
  local status=$?
  grep -E "^(FAILED|ERROR)|passed|failed" "$ROOT/home/$USER_NAME/test.log" | tail -25
  return $status
}

main() {
  start_root
  timed "./setup.sh run (install, demo, one serial query)" run_demo_and_query
  timed "./setup.sh test" run_tests
  log "all passed on $(chroot "$ROOT" uname -m) in $(( $(date +%s) - START )) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
