#!/usr/bin/env bash
# Host tools for the coverage-guided fuzz harnesses (`make fuzz`): clang 15
# and its compiler-rt runtimes (libFuzzer, AddressSanitizer, UBSan), which
# Debian 12 ships in libclang-common-15-dev, a dependency of clang-15 (there
# is no libclang-rt-15-dev there).  gcc has no libFuzzer, so the harnesses
# are clang's.  Idempotent: does nothing (not even `apt-get update`) when
# the tools are already there.
set -euo pipefail

need=()
command -v clang-15 >/dev/null || need+=(clang-15)
# The runtimes live under LLVM 15's own prefix: test the libFuzzer archive.
compgen -G "/usr/lib/llvm-15/lib/clang/15*/lib/linux/libclang_rt.fuzzer-$(uname -m).a" >/dev/null \
    || need+=(libclang-common-15-dev)
[ ${#need[@]} -eq 0 ] && exit 0

# sudo only when not already root (CI and dev machines here run as root).
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
