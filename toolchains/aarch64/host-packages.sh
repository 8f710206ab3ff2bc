#!/usr/bin/env bash
# Host tools for the aarch64 route: a cross gcc/binutils and qemu user-mode
# emulation. Idempotent: does nothing (not even `apt-get update`) when the
# tools are already on PATH, so CI reruns cost nothing.
set -euo pipefail

need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v aarch64-linux-gnu-objdump >/dev/null || need+=(binutils-aarch64-linux-gnu)
# libc headers/crt files for the target: only a Recommends of the cross gcc,
# so --no-install-recommends would drop them and every link would fail.
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
[ ${#need[@]} -eq 0 ] && exit 0

# sudo only when not already root (CI and dev machines here run as root).
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
