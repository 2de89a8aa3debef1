# Shared by arm64_check.sh and armhf_check.sh (sourced, not run): a fresh Debian 12
# root of another architecture under qemu-user emulation, and c4pi cloned into it.
#
# The caller sets ARCH (debootstrap's: arm64, armhf), QEMU (qemu-aarch64, qemu-arm),
# MACHINE (what `uname -m` says inside: aarch64, armv7l), WORK and ROOT, and may set
# CPUINFO (a /proc/cpuinfo to show inside). Needs root, debootstrap,
# qemu-user-static and binfmt-support (Debian packages; installed when missing).
# The host's extra CA certificates are trusted inside too.

SUITE=bookworm
USER_NAME=tester
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
  command -v "$QEMU-static" >/dev/null || missing+=(qemu-user-static)
  command -v update-binfmts >/dev/null || missing+=(binfmt-support)
  if [ "${#missing[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  [ -e "/proc/sys/fs/binfmt_misc/$QEMU" ] || update-binfmts --enable "$QEMU"
  [ -e "/proc/sys/fs/binfmt_misc/$QEMU" ]
}

make_root() {
  debootstrap --arch="$ARCH" --variant=minbase \
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
  [ "$(chroot "$ROOT" uname -m)" = "$MACHINE" ]
}

mount_all() {
  mount -t proc proc "$ROOT/proc"
  if [ -n "${CPUINFO:-}" ]; then mount --bind "$CPUINFO" "$ROOT/proc/cpuinfo"; fi
  mount --rbind /sys "$ROOT/sys"
  mount --bind /dev "$ROOT/dev"
  mount --bind /dev/pts "$ROOT/dev/pts"
}

unmount_all() {
  for path in dev/pts dev sys proc/cpuinfo proc; do
    umount -l "$ROOT/$path" 2>/dev/null || true
  done
}

# As the tester, at home. They run as root with HOME=/home/tester: qemu-user's
# binfmt entry (flags PF, no C) does not honour setuid, so sudo cannot work
# inside the emulated root. C4PI_EMULATED tells the tests that cannot run under
# qemu-user (Chromium's driver does not start there) to skip, saying so.
as_user() { chroot "$ROOT" env HOME="/home/$USER_NAME" C4PI_EMULATED=qemu-user bash -lc "$*"; }

clone_project() {  # this repository's committed HEAD, cloned into ~/c4pi
  git -C "$HERE" bundle create "$WORK/c4pi.bundle" HEAD >/dev/null 2>&1
  cp "$WORK/c4pi.bundle" "$ROOT/home/$USER_NAME/"
  as_user "git clone -q ~/c4pi.bundle ~/c4pi && git -C ~/c4pi log --oneline -1"
}

start_root() {  # the common start: host tools, a fresh root, mounts, the clone
  [ "$(id -u)" = 0 ] || { echo "$(basename "$0"): run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
  mkdir -p "$WORK"
  log "work folder $WORK; project $(git -C "$HERE" rev-parse --short HEAD); $ARCH"
  trap unmount_all EXIT
  timed "host tools (debootstrap, qemu-user-static, binfmt)" host_tools
  timed "fresh $ARCH Debian $SUITE root" make_root
  mount_all
  timed "clone into /home/$USER_NAME/c4pi" clone_project
}
