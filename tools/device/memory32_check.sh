#!/usr/bin/env bash
# The robot-only install's memory on a 32-bit userland, measured natively: a fresh
# Debian 12 i386 root (x86-64 kernels run 32-bit programs without emulation, so
# the figures are the program's own, not an emulator's), `./setup.sh --robot`,
# then `c4pi serve` answering 300 robot queries of the public test sets
# (tools/device/robot_queries.py) with a table of 8, 16, 32 and 64 MB: its peak
# resident memory (VmHWM) each time, and its answers compared with this machine's.
# 32-bit ARM (a Pi Zero, a Pi 2) has the same 4-byte pointers and C longs; its code
# is a little smaller. Not part of CI.
#
#   sudo tools/device/memory32_check.sh [WORKDIR]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$(mktemp -d /var/tmp/c4pi-i386.XXXXXX)}"
ROOT="$WORK/root"
ARCH=i386 QEMU=none
MACHINE=x86_64  # what plain chroot's uname says: the kernel's; linux32 below says i686
# shellcheck source=tools/device/emulated_root.sh
source "$HERE/tools/device/emulated_root.sh"
as_user() { linux32 chroot "$ROOT" env HOME="/home/$USER_NAME" bash -lc "$*"; }
host_tools() {  # no emulator: the kernel runs i386 programs itself
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
}

memory() {
  local sets="${C4PI_SHARED:-$HERE/../shared}/data/test-sets" mb
  mkdir -p "$ROOT/home/$USER_NAME/shared/data/test-sets"
  cp "$sets"/*.txt "$ROOT/home/$USER_NAME/shared/data/test-sets/"
  (cd "$HERE" && .venv/bin/python -m tools.device.robot_queries --sets-dir "$sets" \
    --per-set 50 --out "$WORK/answers-host.txt" > /dev/null)
  for mb in 8 16 32 64; do
    printf '[led]\nactivity = "none"\n[solver]\ntt_mb = %s\n' "$mb" > "$ROOT/home/$USER_NAME/tt.toml"
    log "table $mb MB: $(as_user "cd ~/c4pi && .venv/bin/python -m tools.device.robot_queries \
      --sets-dir ~/shared/data/test-sets --per-set 50 --config ~/tt.toml --out ~/answers.txt")"
    cmp -s "$WORK/answers-host.txt" "$ROOT/home/$USER_NAME/answers.txt" || { log "answers differ"; return 1; }
  done
}

main() {
  start_root
  timed "./setup.sh --robot (install)" as_user "cd ~/c4pi && ./setup.sh --robot > ~/setup.log 2>&1"
  timed "c4pi serve's peak memory, 32-bit" memory
  log "done on $(linux32 chroot "$ROOT" uname -m) in $(( $(date +%s) - START )) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
