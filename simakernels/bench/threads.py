"""``python -m simakernels.bench.threads``: do threads converting large
arrays overlap?  ``execute`` releases the GIL while computing, so k threads,
each running the same number of calls on arrays of its own, should take
about as long as one thread alone when there are k free cores.

For each route and operation: the wall time of 1 thread x N calls and of
k threads x N calls each (all released together), sampled in turn, medians
of many rounds; **overlap** = k x (1-thread time) / (k-thread time): k.00x
when the threads run fully in parallel, 1.00x when they are serialized.
The same for the memcpy-equivalent (``np.copyto``, which also releases the
GIL) shows what the memory system allows: on a memory-bound vector route
the overlap cannot beat the copy's.  Overlap above the core count is not
possible; on a shared machine expect less.  **cores busy** = the process's
CPU time over the wall time of the k-thread samples: it cannot exceed 1.00
while the calls hold the GIL, so a figure above 1 shows the release even
when other processes keep the overlap down.
"""
from __future__ import annotations

import argparse
import functools
import gc
import math
import os
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from .. import a65
from ..packed import Packed
from .cases import OPS, Op, make_parent, memcpy, ours, parse_size, size_label
from .timing import median

DEFAULT_OPS = ("cast-fp32-bf16", "dequant-int8-fp32", "quant-fp32-int8")
SAMPLE_S = 0.05      # calls per sample: the 1-thread sample lasts about this long


def wall(calls: Sequence[Callable[[], object]], reps: int) -> Tuple[float, float]:
    """Seconds from releasing one thread per callable (each calls it
    ``reps`` times) until the last one finishes, and the process's CPU
    seconds (all threads) meanwhile."""
    start = threading.Barrier(len(calls) + 1)

    def body(call: Callable[[], object]) -> None:
        start.wait()
        for _ in range(reps):
            call()

    threads = [threading.Thread(target=body, args=(c,)) for c in calls]
    for thread in threads:
        thread.start()
    start.wait()
    t0, c0 = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.join()
    return time.perf_counter() - t0, time.process_time() - c0


def _our_call(op: Op, x: Any, route: str) -> Callable[[], object]:
    """One thread's call: our runner on its own copy of ``x`` (an array, or
    a packed tensor)."""
    own = Packed(x.data.copy(), x.dtype, x.shape) if isinstance(x, Packed) else x.copy()
    return ours(op, own, route)[0].call


def _memcpy_call(n: int, op: Op) -> Callable[[], object]:
    return memcpy(n, op).call


def overlap(make: Callable[[], Callable[[], object]], threads: int, rounds: int) -> Dict[str, float]:
    """Median 1-thread and ``threads``-thread wall times (each thread its
    own callable from ``make``), the overlap they give, and the cores the
    threads kept busy (CPU time over wall time of the multi-thread samples:
    at most 1.00 if the calls held the GIL, whatever else runs)."""
    calls = [make() for _ in range(threads)]
    once = wall(calls[:1], 1)[0]
    reps = max(1, math.ceil(SAMPLE_S / max(once, 1e-6)))
    one: List[float] = []
    many: List[Tuple[float, float]] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):            # in turn: a slow patch of the machine hits both
            one.append(wall(calls[:1], reps)[0])
            many.append(wall(calls, reps))
    finally:
        if enabled:
            gc.enable()
    t1, tk = median(sorted(one)), median(sorted(t for t, _ in many))
    return {"reps": reps, "one_ms": t1 * 1e3, "many_ms": tk * 1e3, "overlap": threads * t1 / tk,
            "cores": sum(c for _, c in many) / sum(t for t, _ in many)}


def run(routes: Sequence[str], ops: Sequence[Op], n: int, threads: int, rounds: int,
        out: TextIO = sys.stdout) -> None:
    print(f"simakernels threads: {threads} threads x N calls against 1 thread x N calls, each thread converting "
          f"{size_label(n)} elements of its own (dense); medians of {rounds} rounds; "
          f"overlap = {threads} x t(1) / t({threads}), {threads}.00x = fully parallel, 1.00x = serialized", file=out)
    print(f"cores: {os.cpu_count()}, load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
          "(other processes take cores from the threads)", file=out)
    print(f"{'route':<8} {'op':<22} {'calls':>5} {'1 thread ms':>12} {f'{threads} threads ms':>13} {'overlap':>8} "
          f"{'cores busy':>10}", file=out)
    for op in ops:
        x = make_parent(op.src, (n,))
        for route in routes:
            row = overlap(functools.partial(_our_call, op, x, route), threads, rounds)
            print(f"{route:<8} {op.label:<22} {row['reps']:>5} {row['one_ms']:>12.2f} {row['many_ms']:>13.2f} "
                  f"{row['overlap']:>7.2f}x {row['cores']:>10.2f}", file=out, flush=True)
        row = overlap(functools.partial(_memcpy_call, n, op), threads, rounds)
        print(f"{'memcpy':<8} {'(same traffic)':<22} {row['reps']:>5} {row['one_ms']:>12.2f} {row['many_ms']:>13.2f} "
              f"{row['overlap']:>7.2f}x {row['cores']:>10.2f}", file=out, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simakernels.bench.threads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--routes", default=None,
                        help="comma-separated (default: scalar and the best route; available: "
                             + ", ".join(a65.available_routes()) + ")")
    parser.add_argument("--ops", default=",".join(DEFAULT_OPS), help="op keys: " + ", ".join(o.key for o in OPS))
    parser.add_argument("--size", default="4M", help="elements per thread (default %(default)s)")
    parser.add_argument("--threads", type=int, default=2, help="threads against one (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=15, help="samples of each (default %(default)s)")
    args = parser.parse_args(argv)
    available = a65.available_routes()
    routes = args.routes.split(",") if args.routes else list(dict.fromkeys(["scalar", available[0]]))
    by_key = {o.key: o for o in OPS}
    bad = [r for r in routes if r not in available] + [k for k in args.ops.split(",") if k not in by_key]
    if bad or args.threads < 2 or args.rounds < 1:
        parser.error(f"unknown route(s)/op(s) {', '.join(bad)}" if bad else "--threads >= 2, --rounds >= 1")
    run(routes, [by_key[k] for k in args.ops.split(",")], parse_size(args.size), args.threads, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
