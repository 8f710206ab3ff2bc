"""Tests that run a kernel on raw, wrapped or extreme addresses and layouts,
each in a forked child: a wild load or store (a fault planted in the C core)
then fails that one test, naming it and the last case it announced, instead
of ending the whole run with a SIGSEGV.

Mark a test (or a module, or one parameter set) ``@pytest.mark.in_child``;
tests/conftest.py then calls it through :func:`run_in_child`.  The child is
a ``fork`` of the pytest process: nothing is imported or set up again, so a
child costs a few milliseconds and every marked test gets its own (the
guard-page tests, tests/support/guarded.py, start fresh interpreters
instead, one per batch, because they also run against an installed wheel
under ``python -P``).  Inside a test, :func:`announce` names the case about
to run, as guarded.Log.announce does; the parent reports the last one when
the child dies.
"""
from __future__ import annotations

import os
import select
import signal
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

import pytest

TIMEOUT = 300.0          # seconds a child may run before it is killed as hung
_pipe: Optional[int] = None   # the child's end of the report pipe (None in the parent)


def announce(what: str) -> None:
    """Names the case about to run (a no-op outside a child)."""
    if _pipe is not None:
        _write(_pipe, f"case: {what}\n")


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8", "replace")
    while data:
        data = data[os.write(fd, data):]


def _child(fd: int, fn: Callable[..., Any], kwargs: Dict[str, Any]) -> None:
    """Runs the test and reports how it ended; never returns."""
    global _pipe
    _pipe = fd
    status = 0
    try:
        fn(**kwargs)
        _write(fd, "outcome: passed\n")
    except pytest.skip.Exception as exc:
        _write(fd, f"outcome: skipped\n{exc.msg}")
    except BaseException:  # noqa: BLE001 - everything the test raised goes to the parent
        _write(fd, "outcome: failed\n" + traceback.format_exc())
        status = 1
    finally:
        try:
            os.close(fd)
        finally:
            os._exit(status)   # no atexit handlers, no pytest teardown in the child


def _read_all(fd: int, pid: int, timeout: float) -> bytes:
    chunks: List[bytes] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            chunks.append(b"\ntimeout: the child ran too long and was killed\n")
            return b"".join(chunks)
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            data = os.read(fd, 1 << 16)
            if not data:
                return b"".join(chunks)
            chunks.append(data)


def last_case(report: str) -> Optional[str]:
    for line in reversed(report.splitlines()):
        if line.startswith("case: "):
            return line[len("case: "):]
    return None


def verdict(report: str, wait_status: int, name: str) -> Optional[str]:
    """None when the child passed, "skip: <reason>" when it skipped, else the
    failure text naming the test and, for a crash, the last announced case."""
    case = last_case(report)
    where = f"{name}" + (f", case {case}" if case else "")
    if os.WIFSIGNALED(wait_status):
        died = signal.Signals(os.WTERMSIG(wait_status)).name
        if "timeout:" in report:
            return f"{where}: the child hung and was killed after {TIMEOUT:.0f} s"
        return f"{where}: child killed by {died} (a wild memory access in the kernel?)"
    _, sep, outcome = report.partition("outcome: ")
    if not sep:
        return f"{where}: child exited with status {os.WEXITSTATUS(wait_status)} without reporting an outcome"
    if outcome.startswith("passed"):
        return None
    if outcome.startswith("skipped"):
        return "skip: " + outcome[len("skipped\n"):]
    return outcome[len("failed\n"):]


def run_in_child(fn: Callable[..., Any], kwargs: Dict[str, Any], name: str, timeout: float = TIMEOUT) -> None:
    """Calls ``fn(**kwargs)`` in a forked child; fails (or skips) the calling
    test as the child's test failed (or skipped), and fails it naming
    ``name`` and the last announced case when the child dies."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, fn, kwargs)
    os.close(write_fd)
    try:
        report = _read_all(read_fd, pid, timeout).decode("utf-8", "replace")
    finally:
        os.close(read_fd)
    _, wait_status = os.waitpid(pid, 0)
    problem = verdict(report, wait_status, name)
    if problem is None:
        return
    if problem.startswith("skip: "):
        pytest.skip(problem[len("skip: "):])
    pytest.fail(problem, pytrace=False)
