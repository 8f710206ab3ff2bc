#!/usr/bin/env bash
# Host tools for `make bench-aarch64`: Debian's dynamically linked
# qemu-aarch64 (package qemu-user; the static qemu-aarch64-static that the
# test suite uses cannot load TCG plugins), the cross gcc for the guest
# build and the host gcc for the plugin.  Idempotent: does nothing (not even
# `apt-get update`) when the tools are already there.
set -euo pipefail

need=()
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v gcc >/dev/null || need+=(gcc)
[ ${#need[@]} -eq 0 ] && exit 0

# sudo only when not already root (CI and dev machines here run as root).
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
