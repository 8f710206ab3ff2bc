#!/usr/bin/env bash
# clang-format 15 (Debian's clang-format-15) for `make lint`; ruff comes
# from requirements-tools.txt.  Does nothing when it is already there.
set -euo pipefail
command -v clang-format-15 >/dev/null && exit 0
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends clang-format-15
