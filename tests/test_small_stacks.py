"""Kernels called from threads with small stacks.

A child process starts a thread with a 128 KiB stack (threading.stack_size;
musl's default for threads) and runs, for every op and route, each walk
that puts scratch on the stack: a transpose in cache tiles, a transpose in
the ordered tiles of walks beyond the cache (forced at a small size by the
streaming override, the documented test hook) and a staged strided run,
each checked bit for bit against the oracle (test_transposes.run_at).  The
ordered tiles once took 192 KiB of stack: this killed the child with
SIGSEGV.  In a child, an overflow fails this test instead of the run."""
import pathlib
import subprocess
import sys

import pytest

from helpers import ROUTES
from test_staged_layouts import OPS

TESTS = pathlib.Path(__file__).resolve().parent
STACK_BYTES = 128 * 1024

CHILD = """
import sys, threading
sys.path.insert(0, {tests!r})
from simakernels._ffi import lib
from test_transposes import run_at

op, route = {op!r}, {route!r}
cases = [
    ("tiles in cache", (130, 70), (1, 130), None, False),
    ("ordered tiles", (130, 70), (1, 130), None, True),
    ("ordered tiles, output transposed", (70, 130), None, (1, 70), True),
    ("staged strided run", (3, 200), (600, 3), None, False),
]
reports = []

def work():
    for name, shape, in_el, out_el, streamed in cases:
        lib.sk_stream_override(1 if streamed else 0)
        try:
            report = run_at(op, route, shape, in_el, out_el, 16, 0, seed=1)
        finally:
            lib.sk_stream_override(0)
        reports.append(name + ": " + report if report else None)

threading.stack_size({stack})
thread = threading.Thread(target=work)
thread.start()
thread.join()
found = [r for r in reports if r]
print("\\n".join(found) if found else "ran %d cases" % len(reports))
sys.exit(1 if found or len(reports) != len(cases) else 0)
"""


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("route", ROUTES)
def test_walks_on_a_128_KiB_thread_stack(route, op):
    code = CHILD.format(tests=str(TESTS), op=op, route=route, stack=STACK_BYTES)
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, (
        f"{route} {op} on a {STACK_BYTES // 1024} KiB thread stack: exit {child.returncode}\n"
        f"{child.stdout}{child.stderr}")
    assert child.stdout.strip() == "ran 4 cases", child.stdout
