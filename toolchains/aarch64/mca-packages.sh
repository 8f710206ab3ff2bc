#!/usr/bin/env bash
# Host tools for the static NEON cost estimate (`make neon-estimate`): the
# aarch64 cross gcc (assembly of the NEON leaves) and LLVM 15's llvm-mca
# (its scheduling models).  Idempotent: does nothing (not even `apt-get
# update`) when the tools are already there.
set -euo pipefail

need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
# <stdint.h>/<stddef.h> of the target: only a Recommends of the cross gcc.
[ -e /usr/aarch64-linux-gnu/include/stdint.h ] || need+=(libc6-dev-arm64-cross)
# Debian installs LLVM 15's tools under its own prefix (no llvm-mca-15 on
# PATH unless the llvm-15 package's alternatives are set): test the file.
[ -x /usr/lib/llvm-15/bin/llvm-mca ] || need+=(llvm-15)
[ ${#need[@]} -eq 0 ] && exit 0

# sudo only when not already root (CI and dev machines here run as root).
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
