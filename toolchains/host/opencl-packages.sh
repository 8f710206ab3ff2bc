#!/usr/bin/env bash
# What the EV74 kernel's tests need from Debian, only when missing: an
# OpenCL platform on the CPU (pocl, with the ICD loader pyopencl finds) and
# clang 15 (the host check compiles the kernel's vector expressions with
# it, and the OpenCL C program with its assertions).
set -euo pipefail
need=()
[ -e /etc/OpenCL/vendors/pocl.icd ] || need+=(pocl-opencl-icd ocl-icd-libopencl1)
command -v clang-15 >/dev/null 2>&1 || need+=(clang-15)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
