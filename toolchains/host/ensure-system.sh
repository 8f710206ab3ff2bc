#!/usr/bin/env bash
# Installs the Debian packages the host build needs, only when missing:
# a C compiler, and Python's venv/ensurepip and headers (Debian splits them
# out of the interpreter package).  Usage: ensure-system.sh PYTHON
set -euo pipefail
python=${1:-python3}

need=()
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need+=(make)
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need+=("$("$python" -c 'import sys; print("python%d.%d-venv" % sys.version_info[:2])')")
fi
if ! "$python" -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  need+=("$("$python" -c 'import sys; print("python%d.%d-dev" % sys.version_info[:2])')")
fi
[ ${#need[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing system packages: ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
