#!/usr/bin/env bash
# The README's two commands on a fresh arm64 Debian 12 (the closest thing to
# Raspberry Pi OS Bookworm 64-bit without a Pi), under qemu-user emulation.
#
#   sudo tools/device/arm64_check.sh [WORKDIR]     (default WORKDIR: a new temporary folder)
#
# 1. debootstrap a bookworm arm64 root from the mirror apt uses here;
# 2. clone this repository (its committed HEAD) into /home/tester/c4pi there;
# 3. there: `./setup.sh run` until the demo answers a serial query
#    (`c4pi client`), then stop it; then `./setup.sh test`. They run as root
#    with HOME=/home/tester: qemu-user's binfmt entry (flags PF, no C) does not
#    honour setuid, so sudo cannot work inside the emulated root.
# Prints each step's time and the test summary; exits non-zero on a failure.
# Needs root, debootstrap, qemu-user-static and binfmt-support (Debian
# packages; installed when missing). The host's extra CA certificates are
# trusted inside too. qemu-user shows the host's /proc/cpuinfo,
# on which LiteRT's CPU detection crashes, so a Raspberry Pi 4's is bind-mounted
# over it (tools/device/arm64/cpuinfo-pi4.txt). Takes most of an hour; not part of CI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$(mktemp -d /var/tmp/c4pi-arm64.XXXXXX)}"
ROOT="$WORK/root"
SUITE=bookworm
USER_NAME=tester
DEMO_WAIT_S=1800
START=$(date +%s)

log() { printf '[%5ds] %s\n' "$(( $(date +%s) - START ))" "$*"; }
fail() { log "FAILED: $*"; exit 1; }
timed() {  # timed NAME COMMAND...: run, print how long it took
  local name="$1" began; shift
  began=$(date +%s)
  log "$name ..."
  "$@" || fail "$name"
  log "$name: $(( $(date +%s) - began )) s"
}

mirror() {  # $C4PI_DEBIAN_MIRROR, else the Debian archive apt uses here
  local uri
  uri=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list \
        /etc/apt/sources.list.d/ 2>/dev/null | head -1 | awk '{print $2}' || true)
  echo "${C4PI_DEBIAN_MIRROR:-${uri:-http://deb.debian.org/debian}}"
}

host_tools() {
  local missing=()
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
  command -v update-binfmts >/dev/null || missing+=(binfmt-support)
  if [ "${#missing[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]
}

make_root() {
  debootstrap --arch=arm64 --variant=minbase \
    --include=ca-certificates,git,sudo,python3,procps,locales "$SUITE" "$ROOT" "$(mirror)" \
    > "$WORK/debootstrap.log" 2>&1 || { tail -20 "$WORK/debootstrap.log"; return 1; }
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  # The host's own trusted certificates (an egress proxy's CA, say), so that
  # pip inside reaches PyPI as the host does.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    chroot "$ROOT" update-ca-certificates >/dev/null
  fi
  mkdir -p "$ROOT/home/$USER_NAME"
  [ "$(chroot "$ROOT" uname -m)" = aarch64 ]
}

mount_all() {
  mount -t proc proc "$ROOT/proc"
  mount --bind "$HERE/tools/device/arm64/cpuinfo-pi4.txt" "$ROOT/proc/cpuinfo"
  mount --rbind /sys "$ROOT/sys"
  mount --bind /dev "$ROOT/dev"
  mount --bind /dev/pts "$ROOT/dev/pts"
}

unmount_all() {
  for path in dev/pts dev sys proc/cpuinfo proc; do
    umount -l "$ROOT/$path" 2>/dev/null || true
  done
}

# C4PI_EMULATED tells the tests that cannot run under qemu-user (Chromium's
# driver does not start there) to skip, saying so.
as_user() { chroot "$ROOT" env HOME="/home/$USER_NAME" C4PI_EMULATED=qemu-user bash -lc "$*"; }

clone_project() {
  git -C "$HERE" bundle create "$WORK/c4pi.bundle" HEAD >/dev/null 2>&1
  cp "$WORK/c4pi.bundle" "$ROOT/home/$USER_NAME/"
  as_user "git clone -q ~/c4pi.bundle ~/c4pi && git -C ~/c4pi log --oneline -1"
}

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
  as_user "cd ~/c4pi && ./setup.sh test > ~/test.log 2>&1"
  local status=$?
  tail -5 "$ROOT/home/$USER_NAME/test.log"
  return $status
}

main() {
  [ "$(id -u)" = 0 ] || { echo "arm64_check.sh: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
  mkdir -p "$WORK"
  log "work folder $WORK; project $(git -C "$HERE" rev-parse --short HEAD)"
  trap unmount_all EXIT
  timed "host tools (debootstrap, qemu-user-static, binfmt)" host_tools
  timed "fresh arm64 Debian $SUITE root" make_root
  mount_all
  timed "clone into /home/$USER_NAME/c4pi" clone_project
  timed "./setup.sh run (install, demo, one serial query)" run_demo_and_query
  timed "./setup.sh test" run_tests
  log "all passed on $(chroot "$ROOT" uname -m) in $(( $(date +%s) - START )) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
