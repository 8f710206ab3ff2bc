"""Kernels called from threads with small stacks.

A child process per route starts a thread with a 128 KiB stack
(threading.stack_size; musl's default for threads) and runs, for every op, each walk
that puts scratch on the stack: a transpose in cache tiles, transposes in
the ordered tiles of walks beyond the cache (forced at a small size by the
streaming override, the documented test hook) and a staged strided run,
each checked bit for bit against the oracle (test_transposes.run_at).  The
ordered tiles once took 192 KiB of stack: this killed the child with
SIGSEGV.  In a child (guarded.run_child: the parent's simakernels), an
overflow fails this test instead of the run."""
import pytest

from support.guarded import fault, last_case, run_child
from support.helpers import ROUTES
from layouts.test_staged_layouts import OPS

STACK_BYTES = 128 * 1024

CHILD = """
import sys, threading
from simakernels._ffi import lib
from layouts.test_staged_layouts import OPS
from layouts.test_transposes import run_at

route = {route!r}
cases = [
    ("tiles in cache", (130, 70), (1, 130), None, False),
    ("ordered tiles", (130, 70), (1, 130), None, True),
    ("ordered tiles, output transposed", (70, 130), None, (1, 70), True),
    ("staged strided run", (3, 200), (600, 3), None, False),
]
reports = []

def work():
    for op in OPS:
        for name, shape, in_el, out_el, streamed in cases:
            print("case:", op, name, flush=True)
            lib.sk_stream_override(1 if streamed else 0)
            try:
                report = run_at(op, route, shape, in_el, out_el, 16, 0, seed=1)
            finally:
                lib.sk_stream_override(0)
            reports.append(op + " " + name + ": " + report if report else None)

threading.stack_size({stack})
thread = threading.Thread(target=work)
thread.start()
thread.join()
found = [r for r in reports if r]
print("\\n".join(found) if found else "ran %d cases" % len(reports))
sys.exit(1 if found or len(reports) != len(cases) * len(OPS) else 0)
"""


@pytest.mark.parametrize("route", ROUTES)
def test_walks_on_a_128_KiB_thread_stack(route):
    child = run_child(CHILD.format(route=route, stack=STACK_BYTES), timeout=900)
    what = f"{route} on a {STACK_BYTES // 1024} KiB thread stack"
    died = fault(child)
    assert died is None, f"{what}: killed by {died} while running: {last_case(child.stdout)}\n{child.stderr[-4000:]}"
    assert child.returncode == 0, f"{what}: exit {child.returncode}\n{child.stdout[-4000:]}{child.stderr[-4000:]}"
    assert child.stdout.strip().endswith(f"ran {4 * len(OPS)} cases"), child.stdout[-4000:]
