"""Guard pages: memory that faults on any access just outside a tensor's
span, and the child processes that turn such a fault into a test failure.

A :class:`GuardedRegion` is an anonymous mapping whose first and last pages
are ``PROT_NONE``; a span placed ``"upper"`` ends exactly where the upper
guard begins (page end), one placed ``"lower"`` starts exactly where the
lower guard ends (page start).  A kernel that reads or writes one byte past
either end of its span then dies of SIGSEGV.  So that a fault fails one test
instead of killing the suite, the cases run in a child process
(:func:`run_child`); the child announces every case on stdout before running
it (:func:`announce`), and :func:`child_problem` names the last one when the
child dies.

This module imports only NumPy and the standard library: the children start
quickly (one per operation and route) and under ``python -P`` against an
installed wheel.
"""
from __future__ import annotations

import ctypes
import mmap
import os
import signal
import subprocess
import sys
from typing import Callable, Dict, Optional, Sequence

import numpy as np

PAGE = mmap.PAGESIZE
FLUSHES = ("upper", "lower")
_PROT_NONE = 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


def _protect(address: int, nbytes: int) -> None:
    if _libc.mprotect(address, nbytes, _PROT_NONE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mprotect(PROT_NONE) at {address:#x}: {os.strerror(err)}")


class GuardedRegion:
    """At least ``nbytes`` accessible bytes (whole pages) between two
    inaccessible pages.  ``bytes`` is the accessible part as a uint8 array
    (never index outside it: the pages around it fault); the mapping lives
    as long as the region."""

    def __init__(self, nbytes: int) -> None:
        self.size = max(1, -(-nbytes // PAGE)) * PAGE
        self._map = mmap.mmap(-1, self.size + 2 * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        whole = np.frombuffer(self._map, dtype=np.uint8)
        base = whole.ctypes.data
        _protect(base, PAGE)
        _protect(base + PAGE + self.size, PAGE)
        self.bytes = whole[PAGE:PAGE + self.size]
        self.start = base + PAGE

    def offset(self, nbytes: int, flush: str) -> int:
        """Where a span of ``nbytes`` starts when flush against the ``"upper"``
        guard (it ends at the region's end) or the ``"lower"`` one."""
        if nbytes > self.size:
            raise ValueError(f"{nbytes} bytes do not fit a {self.size}-byte region")
        if flush == "upper":
            return self.size - nbytes
        if flush == "lower":
            return 0
        raise ValueError(f"flush must be one of {FLUSHES}, got {flush!r}")

    def words(self, offset: int, dtype, shape: Sequence[int], strides: Optional[Sequence[int]] = None) -> np.ndarray:
        """A NumPy view of the tensor at ``offset`` (byte strides; None: C
        order).  NumPy checks that it lies inside the accessible bytes."""
        return np.ndarray(tuple(shape), dtype=dtype, buffer=self.bytes, offset=offset,
                          strides=None if strides is None else tuple(strides))


class Regions:
    """One region per port, regrown when a case needs more room (a child
    reuses them across its cases: a mapping per case would cost more than
    the case)."""

    def __init__(self) -> None:
        self._by_port: Dict[str, GuardedRegion] = {}

    def __call__(self, port: str, nbytes: int) -> GuardedRegion:
        region = self._by_port.get(port)
        if region is None or region.size < nbytes:
            region = self._by_port[port] = GuardedRegion(max(nbytes, 4 * PAGE))
        return region


def span(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> int:
    """Bytes from the first element through the end of the farthest one (0
    for an empty tensor); non-negative strides."""
    if 0 in tuple(shape):
        return 0
    return itemsize + sum((e - 1) * s for e, s in zip(shape, strides))


def c_strides(shape: Sequence[int], itemsize: int) -> tuple:
    strides, step = [], itemsize
    for extent in reversed(tuple(shape)):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


# ------------------------------------------------------------ child side


class Log:
    """What a child reports: each case before it runs (flushed, so the last
    line names the case a fault interrupted), problems on stderr, and a
    final count; ``finish`` exits with status 1 when anything was wrong."""

    def __init__(self, limit: int = 20) -> None:
        self.cases = 0
        self.problems: list = []
        self.limit = limit

    def announce(self, what: str) -> None:
        self.cases += 1
        sys.stdout.write(f"case: {what}\n")
        sys.stdout.flush()

    def problem(self, text: Optional[str]) -> None:
        if text:
            self.problems.append(text)

    def finish(self) -> None:
        print(f"done: {self.cases} cases, {len(self.problems)} with problems", flush=True)
        for text in self.problems[:self.limit]:
            print(text, file=sys.stderr)
        if len(self.problems) > self.limit:
            print(f"... and {len(self.problems) - self.limit} more", file=sys.stderr)
        sys.stderr.flush()
        sys.exit(1 if self.problems else 0)


def image_report(got: np.ndarray, expected: np.ndarray, what: str,
                 elements: Optional[Callable[[], np.ndarray]] = None, limit: int = 8) -> Optional[str]:
    """None when a region's bytes equal the expected image, else the first
    differing bytes in hex (``elements`` gives a mask of the bytes that
    belong to logical elements, to tell wrong results from stray writes;
    called only on a failure)."""
    if np.array_equal(got, expected):
        return None
    bad = np.flatnonzero(got != expected)
    if elements is not None:
        elements = elements()
    shown = ", ".join(f"byte {int(i):#x}: expected {int(expected[i]):#04x} got {int(got[i]):#04x}"
                      f"{'' if elements is None else ' (element)' if elements[i] else ' (gap)'}"
                      for i in bad[:limit])
    return f"{what}: {bad.size} byte(s) differ: {shown}"


# ----------------------------------------------------------- parent side

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/, above support/


def child_env(route: Optional[str] = None) -> Dict[str, str]:
    """The parent's environment with its import path (so a child sees the
    same simakernels, e.g. the sanitizer build) and, when given, the route
    forced for everything the child runs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    if route is not None:
        env["SIMAKERNELS_FORCE_ROUTE"] = route
    return env


def run_child(code: str, route: Optional[str] = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """Runs ``python -c code`` in the tests directory (the suite's modules
    importable) and returns the finished process with its output."""
    return subprocess.run([sys.executable, "-c", code], cwd=TESTS_DIR, env=child_env(route),
                          capture_output=True, text=True, timeout=timeout)


def last_case(stdout: str) -> Optional[str]:
    for line in reversed(stdout.splitlines()):
        if line.startswith("case: "):
            return line[len("case: "):]
    return None


def fault(child: subprocess.CompletedProcess) -> Optional[str]:
    """"SIGSEGV" (or the signal's name) when the child died of a signal,
    "SIGSEGV" also when a preloaded AddressSanitizer caught the fault and
    aborted; None otherwise."""
    if "AddressSanitizer: SEGV" in child.stderr:
        return "SIGSEGV"
    if child.returncode < 0:
        return signal.Signals(-child.returncode).name
    return None


def child_problem(child: subprocess.CompletedProcess, what: str) -> Optional[str]:
    """None when the child ran every case cleanly, else a report naming
    the case that was running when it died, and the child's own reports."""
    finished = any(line.startswith("done: ") for line in child.stdout.splitlines())
    if child.returncode == 0 and finished:
        return None
    died = fault(child)
    if died:
        head = f"{what}: child killed by {died} while running: {last_case(child.stdout)}"
    elif not finished:
        head = f"{what}: child exited with status {child.returncode} while running: {last_case(child.stdout)}"
    else:
        head = f"{what}: child reported problems"
    return f"{head}\n{child.stderr[-6000:]}"


def assert_child_clean(child: subprocess.CompletedProcess, what: str) -> None:
    problem = child_problem(child, what)
    assert problem is None, problem


def call(module: str, function: str, *args: object) -> str:
    """``python -c`` code that imports ``module`` and calls ``function(*args)``."""
    return f"import {module}; {module}.{function}({', '.join(repr(a) for a in args)})"

