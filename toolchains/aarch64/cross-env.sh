# shellcheck shell=bash
# Source from bash (`. toolchains/aarch64/cross-env.sh`) to cross-compile
# setuptools/cffi extensions for aarch64 with the HOST python3 (the core is
# built for the limited API, cp39-abi3, against the target's 3.11 headers).
# Uses $AARCH64_DIR (default <repo>/.aarch64), built by sysroot.sh. From
# make or sh, use the `cross-python` wrapper.
# No `set -euo pipefail` here: a sourced file would impose it on the caller.
_x_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AARCH64_DIR=${AARCH64_DIR:-$(cd "$_x_here/../.." && pwd)/.aarch64}
_x_sr=$AARCH64_DIR/sysroot
if [ ! -f "$AARCH64_DIR/cross/_sysconfigdata__aarch64-linux-gnu.py" ]; then
  echo "cross-env.sh: no $AARCH64_DIR/cross; run toolchains/aarch64/sysroot.sh" >&2
  # shellcheck disable=SC2317  # exit: when run instead of sourced
  return 1 2>/dev/null || exit 1
fi
export AARCH64_DIR
# sysconfig/distutils then read the target's config vars: EXT_SUFFIX,
# SOABI and get_platform() == linux-aarch64 (build dirs, wheel platform). Setting only
# CC/LDSHARED gives an aarch64 ELF named *.cpython-311-x86_64-linux-gnu.so.
export _PYTHON_HOST_PLATFORM=linux-aarch64
export _PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata__aarch64-linux-gnu
case ":${PYTHONPATH:-}:" in
  *":$AARCH64_DIR/cross:"*) ;;
  *) export PYTHONPATH=$AARCH64_DIR/cross${PYTHONPATH:+:$PYTHONPATH} ;;
esac
# Debian's sysconfigdata already names aarch64-linux-gnu-gcc; explicit anyway,
# and LDSHARED without Debian's -Bsymbolic-functions/-g extras.
export CC=aarch64-linux-gnu-gcc
export LDSHARED="aarch64-linux-gnu-gcc -shared"
# Target Python.h first (before the host's include dir that setuptools adds);
# its pyconfig.h includes <aarch64-linux-gnu/python3.11/pyconfig.h>, found via
# -idirafter after the cross libc headers (the sysroot has no libc6-dev).
export CFLAGS="-I$_x_sr/usr/include/python3.11 -idirafter $_x_sr/usr/include"
unset _x_here _x_sr
