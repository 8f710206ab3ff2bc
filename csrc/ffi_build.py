"""cffi out-of-line API-mode builder for ``simakernels._native``.

Every compiler flag of the C core lives here.  The cdef is the public header
read from disk with its preprocessor lines removed, so the declarations cffi
parses are exactly the ones the C sources compile against (never the host's
preprocessed view, which would leak host ``#ifdef`` results into a cross
build).
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import sys

from cffi import FFI

CSRC = pathlib.Path(__file__).resolve().parent
ROOT = CSRC.parent
HEADER = CSRC / "include" / "simakernels.h"
# Test support the suite declares too; its counters exist only in test
# builds (SIMAKERNELS_TEST_HOOKS=1: the Makefile's in-place and sanitizer
# builds), never in a wheel.
TESTING_HEADER = CSRC / "include" / "simakernels_testing.h"
TEST_HOOKS = os.environ.get("SIMAKERNELS_TEST_HOOKS", "") == "1"

# -O2 without fast-math; no FMA contraction anywhere (GCC contracts by default
# on AArch64, which would change rounding); no -march, so a wheel runs on every
# CPU of its architecture's baseline; warnings are errors.
CFLAGS = [
    "-std=c11",
    "-O2",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",  # cffi's generated wrappers
    # Only the module's init function is exported (Python.h marks it); the
    # core's calls between its own files then go direct, not through the
    # PLT (a 64-element execute made 8-12 such calls on AArch64).
    "-fvisibility=hidden",
]
EXTRA_CFLAGS = os.environ.get("SIMAKERNELS_EXTRA_CFLAGS", "").split()  # sanitizer builds


def read_version() -> str:
    namespace: dict[str, str] = {}
    exec((ROOT / "simakernels" / "_version.py").read_text(), namespace)
    return namespace["__version__"]


def c_sources() -> list[pathlib.Path]:
    return sorted(p for p in CSRC.rglob("*.c"))


def _load_digest_module():
    spec = importlib.util.spec_from_file_location(
        "_sk_sourcedigest", ROOT / "simakernels" / "_sourcedigest.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_digest() -> str:
    return _load_digest_module().source_digest(CSRC)


# A one-line inline function of the header: cffi takes its prototype (and
# calls the header's definition from the generated wrapper).
_INLINE = re.compile(r"^static inline (.+\))\s*\{.*\}\s*$")


def cdef_text() -> str:
    """The headers' declarations: preprocessor lines dropped, and with them
    the OpenCL C branch (its type names are the kernel's, not the host's);
    one-line inline functions as their prototypes."""
    lines, opencl = [], False
    for line in (HEADER.read_text() + TESTING_HEADER.read_text()).splitlines():
        directive = line.lstrip()
        if directive.startswith("#ifdef __OPENCL_C_VERSION__"):
            opencl = True
        elif opencl and (directive.startswith("#else") or directive.startswith("#endif")):
            opencl = False
        elif not opencl and not directive.startswith("#"):
            inline = _INLINE.match(line)
            lines.append(inline.group(1) + ";" if inline else line)
    return "\n".join(lines)


def c_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


EV74_KERNEL = CSRC / "ev74" / "kernel.cl"
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


def kernel_source(path: pathlib.Path = EV74_KERNEL, seen: "set[pathlib.Path] | None" = None) -> str:
    """The EV74 kernel as one OpenCL C program: every project header it
    includes, inlined once where first included (the headers guard their
    host-only parts with __OPENCL_C_VERSION__)."""
    seen = set() if seen is None else seen
    out = []
    for line in path.read_text().splitlines():
        match = _INCLUDE.match(line)
        if match is None:
            out.append(line)
            continue
        header = (path.parent / match.group(1)).resolve()
        if header not in seen:
            seen.add(header)
            out.append(f"/* ---- {header.relative_to(CSRC).as_posix()} ---- */")
            out.append(kernel_source(header, seen))
    return "\n".join(out)


def embedded_kernel() -> str:
    """C for the module: sk_ev74_kernel_source() returns the program."""
    # One literal per line, ending in an escaped newline ("?" escaped: C11
    # reads trigraphs).
    lines = "\n".join("    " + c_string(line).replace("?", "\\?")[:-1] + '\\n"'
                      for line in kernel_source().splitlines())
    return ("static const char SK_EV74_KERNEL_SOURCE[] =\n" + lines + ";\n"
            "const char *sk_ev74_kernel_source(void) { return SK_EV74_KERNEL_SOURCE; }\n")


ffibuilder = FFI()
ffibuilder.cdef(cdef_text())
ffibuilder.set_source(
    "simakernels._native",
    '#include "simakernels.h"\n#include "simakernels_testing.h"\n' + embedded_kernel(),
    sources=[str(p.relative_to(ROOT)) for p in c_sources()],
    include_dirs=[str((CSRC / "include").relative_to(ROOT))],
    define_macros=[
        ("SK_VERSION", c_string(read_version())),
        ("SK_SOURCE_DIGEST", c_string(source_digest())),
        ("SK_BUILD_FLAGS", c_string(" ".join(CFLAGS + EXTRA_CFLAGS))),
        ("SK_TEST_HOOKS", "1" if TEST_HOOKS else "0"),
    ],
    extra_compile_args=CFLAGS + EXTRA_CFLAGS,
    extra_link_args=EXTRA_CFLAGS,  # sanitizer runtimes link too
    # The stable ABI (cffi defines Py_LIMITED_API): one _native.abi3.so, one
    # wheel per platform for every CPython from setup.py's floor up.  The
    # per-call cost this adds is measured in docs/PERF.md ("Limited API").
    # cffi turns it off by itself for a free-threaded interpreter.
    py_limited_api=True,
)

if __name__ == "__main__":
    sys.stdout.write(f"routes compiled from {len(c_sources())} C files\n")
    ffibuilder.compile(verbose=True)
