#!/usr/bin/env bash
# Build an aarch64 Debian bookworm userland + Python 3.11 under DIR (default
# <repo>/.aarch64) for qemu-aarch64-static, without touching the host's dpkg
# state, plus target wheels in DIR/site installed by the HOST pip.
# Usage: sysroot.sh [-r REQUIREMENTS] [DIR]    (DIR also from $AARCH64_DIR)
#   REQUIREMENTS defaults to toolchains/aarch64/requirements.txt (the
#   project's pins plus pip).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
req=$here/requirements.txt
while getopts r: opt; do
  case $opt in r) req=$OPTARG ;; *) echo "usage: $0 [-r requirements.txt] [DIR]" >&2; exit 2 ;; esac
done
shift $((OPTIND - 1))
DIR=${1:-${AARCH64_DIR:-$repo/.aarch64}}
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
req=$(cd "$(dirname "$req")" && pwd)/$(basename "$req")
SR=$DIR/sysroot

# Stamps: the sysroot depends only on this script, site/ also on the
# requirements; a rerun with nothing changed exits at once.
sum() { cat "$@" | sha256sum | cut -d' ' -f1; }
sr_key=$(sum "${BASH_SOURCE[0]}")
# (the default file includes the project's pins, so those count too)
site_key=$(sum "${BASH_SOURCE[0]}" "$req" "$repo/requirements.txt" "$repo/requirements-dev.txt")
if [ "$(cat "$DIR/.sysroot.stamp" 2>/dev/null)" = "$sr_key" ] &&
   [ "$(cat "$DIR/.site.stamp" 2>/dev/null)" = "$site_key" ]; then
  exit 0
fi

# The host interpreter must be 3.11 too: it writes the target's .pyc (one
# magic number for all 3.11.x).  The wheel it cross-builds is cp39-abi3,
# the same file for a DevKit with any CPython from 3.9.
PY=${HOST_PYTHON:-python3}
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' ||
  { echo "sysroot.sh: $PY is not Python 3.11" >&2; exit 1; }

if [ "$(cat "$DIR/.sysroot.stamp" 2>/dev/null)" != "$sr_key" ]; then
  # --- private apt: own config/state/lists/cache, empty dpkg status, arm64 only.
  A=$DIR/apt
  mkdir -p "$A"/{etc/parts,etc/sources.list.d,state/lists/partial,cache/archives/partial,log,debs}
  : > "$A/state/status"   # empty: apt resolves the full closure for a bare system
  # Same archive and suites as the host's /etc/apt/sources.list.d/debian.sources.
  mirror=${DEBIAN_MIRROR:-http://deb.debian.org}
  key=/usr/share/keyrings/debian-archive-keyring.gpg
  cat > "$A/etc/sources.list" <<SRC
deb [arch=arm64 signed-by=$key] $mirror/debian bookworm main
deb [arch=arm64 signed-by=$key] $mirror/debian bookworm-updates main
deb [arch=arm64 signed-by=$key] $mirror/debian-security bookworm-security main
SRC
  # Dir::Etc::Parts points to an empty dir so the host's apt.conf.d hooks
  # (packagekit, appstream, docker-clean) do not run; the host's one
  # network-relevant setting (no Valid-Until check: the archive here may
  # serve a dated snapshot) is repeated.
  cat > "$A/apt.conf" <<CONF
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
APT::Install-Recommends "false";
# apt-get download writes into a root-only dir: no _apt sandbox user.
APT::Sandbox::User "root";
Dir::Etc::Parts "$A/etc/parts";
Dir::Etc::SourceList "$A/etc/sources.list";
Dir::Etc::SourceParts "$A/etc/sources.list.d";
Dir::Etc::Preferences "$A/etc/preferences";
Dir::Etc::PreferencesParts "$A/etc/parts";
Dir::State "$A/state";
Dir::State::status "$A/state/status";
Dir::Cache "$A/cache";
Dir::Log "$A/log";
Acquire::Languages "none";
Acquire::GzipIndexes "true";          # lists stay compressed (~40 MB less)
Dir::Cache::srcpkgcache "";           # no source packages: no cache file for them
Acquire::Check-Valid-Until "false";
CONF
  export APT_CONFIG=$A/apt.conf
  # bookworm-security may be unreachable from some networks: warn, go on;
  # the download below fails loudly if the main suite is missing.
  apt-get update -qq || echo "sysroot.sh: apt-get update reported errors (continuing)" >&2
  # Runtime: interpreter + stdlib (python3.11 itself only adds pydoc/tzdata/
  # media-types); libstdc++6 because numpy's extension links it.
  apt-get -qq -y --download-only install python3.11-minimal libpython3.11-stdlib libstdc++6
  # Build-time only, without their dependencies (which pull libc6-dev):
  # Python.h/pyconfig.h and _sysconfigdata__aarch64-linux-gnu.py.
  (cd "$A/debs" && apt-get -qq download libpython3.11-dev libpython3.11)

  rm -rf "$SR"; mkdir -p "$SR"
  for deb in "$A"/cache/archives/*.deb "$A"/debs/*.deb; do
    case ${deb##*/} in
      libc6-dev_*|linux-libc-dev_*) continue ;;   # would shadow the cross gcc's libc: link breaks
    esac
    dpkg-deb -x "$deb" "$SR"
  done
  # Absolute symlinks (e.g. /lib/ld-linux-aarch64.so.1 -> /lib/aarch64-linux-gnu/...)
  # would resolve on the host: make them relative inside the sysroot.
  find "$SR" -type l -lname '/*' | while read -r l; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$SR$(readlink "$l")")" "$l"
  done
  # Without its own ld.so.cache the guest ld.so would read the host's (x86-64).
  mkdir -p "$SR/etc"; : > "$SR/etc/ld.so.cache"
  # For cross-env.sh: the target sysconfigdata alone in a dir of its own, as
  # the rest of the target stdlib on PYTHONPATH would shadow the host's.
  rm -rf "$DIR/cross"; mkdir -p "$DIR/cross"
  # Its include dirs are repointed into the sysroot, else setuptools adds the
  # host's /usr/include/python3.11 (x86-64 headers) to each compile.
  sed "s|'/usr/include|'$SR/usr/include|" \
    "$SR/usr/lib/python3.11/_sysconfigdata__aarch64-linux-gnu.py" \
    > "$DIR/cross/_sysconfigdata__aarch64-linux-gnu.py"
  # Bytecode on the host (3.11.x share one magic number; best effort, a file
  # that fails here fails at import as before): otherwise each
  # emulated start compiles the stdlib again (~3 s more per start).
  "$PY" -m compileall -q -j0 "$SR/usr/lib/python3.11" >/dev/null || true
  echo "$sr_key" > "$DIR/.sysroot.stamp"
  rm -f "$DIR/.site.stamp"
fi

# --- target wheels, resolved by the host pip for cp311 manylinux aarch64
# (glibc 2.36 in bookworm, so every manylinux_2_17 .. 2_36 tag is acceptable).
plats=(--platform manylinux2014_aarch64)
for m in $(seq 17 36); do plats+=(--platform "manylinux_2_${m}_aarch64"); done
rm -rf "$DIR/site"
"$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-compile \
  --target "$DIR/site" "${plats[@]}" --python-version 3.11 --implementation cp \
  --abi cp311 --only-binary=:all: -r "$req"
"$PY" -m compileall -q -j0 "$DIR/site" >/dev/null || true
echo "$site_key" > "$DIR/.site.stamp"
