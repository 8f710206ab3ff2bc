"""Explicit parallelism for the array layer: ``workers=N`` splits the
outermost axis into at most N slabs and runs them on as many threads at once
(the native calls release the GIL; plans are immutable and shared).

N is an upper bound: a call never runs more threads than the CPUs this
process may use (its CPU affinity), than the outermost extent, or than
slabs of :data:`MIN_SLAB_ELEMENTS` elements each, so a small tensor runs on
the calling thread alone.

The kernels keep no pool: the threads live for one call.  New threads inherit
the caller's FP environment, so every slab runs under the state the caller's
own checks saw.  Everything that could fail is checked on the whole call
first (plan, bindings, FP environment), so an error still leaves the output
untouched."""
from __future__ import annotations

import operator
import os
import threading
from typing import Any, Callable, List, Tuple

import numpy as np

from ._ffi import lib
from .a65 import _backend
from .buffers import ConstHostBuffer, HostBuffer, bind
from .core import Error, ErrorCode, KernelError, describe
from .fenv import describe_unmet
from .ops import _base


#: The fewest elements a slab may hold: enough work on the slowest route to
#: outweigh starting a thread (docs/PERF.md, "Explicit parallelism").
MIN_SLAB_ELEMENTS = 1 << 16


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has
    one, else the machine's count)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return os.cpu_count() or 1


def check_workers(workers: Any) -> int:
    """``workers`` as an int: a positive Python or NumPy integer (not a bool),
    else KernelError INVALID_PARAMS naming it."""
    try:
        value = None if isinstance(workers, (bool, np.bool_)) else operator.index(workers)
    except TypeError:
        value = None
    if value is None or value < 1:
        raise KernelError(Error(ErrorCode.INVALID_PARAMS,
                                f"workers {describe(workers)} ({type(workers).__name__}) must be a positive integer"))
    return value


def thread_count(workers: int, shape: Tuple[int, ...], unit: int = 1) -> int:
    """How many threads ``workers`` gives for a tensor of ``shape``: at most
    ``workers``, the usable CPUs, the outermost extent (in slabs of
    ``unit`` rows: the block size when it is the block axis of blocked
    parameters) and one per :data:`MIN_SLAB_ELEMENTS` elements; at least 1."""
    if not shape or workers == 1:
        return 1
    count = 1
    for extent in shape:
        count *= extent
    return max(1, min(workers, usable_cpus(), -(-shape[0] // unit), count // MIN_SLAB_ELEMENTS))


def slabs(extent: int, workers: int, unit: int = 1) -> List[Tuple[int, int]]:
    """[start, stop) ranges of the outermost axis, each starting at a
    multiple of ``unit`` (a block of the block axis), sizes in units
    differing by <= 1 (the last may hold a partial unit)."""
    units = -(-extent // unit)
    count = min(workers, units)
    return [(unit * (units * i // count), min(extent, unit * (units * (i + 1) // count))) for i in range(count)]


def _check_whole_call(plan: Any, operation: str, x: np.ndarray, out: np.ndarray) -> None:
    """The checks one native call would make on the whole tensor, made here
    because the slabs are separate calls (a slab's own check cannot see the
    others, e.g. an output overlapping another slab's input)."""
    binding = plan._native.binding
    views = []
    for array, nbytes, writable in ((x, binding.in_nbytes, False), (out, binding.out_nbytes, True)):
        address = array.__array_interface__["data"][0]
        views.append((HostBuffer if writable else ConstHostBuffer).from_address(address, nbytes, keepalive=array))
    if not out.flags.writeable:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out is read-only, a writable array is required"))
    bound = bind(views[:1], views[1:], plan.shared.input_requirements(), plan.shared.output_requirements())
    if isinstance(bound, Error):
        raise KernelError(bound)
    unmet = lib.sk_fenv_unmet(plan._fenv_needs) if x.size else 0
    if unmet:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_ENVIRONMENT,
                                f"{operation}: {describe_unmet(unmet)}; nothing was written"))


def row_unit(plan: Any) -> int:
    """The rows a slab of ``plan`` holds a multiple of: the block size when
    the outermost axis is the block axis of blocked parameters, else 1."""
    if isinstance(plan, Error):
        return 1
    shared = plan.shared
    return _base.row_unit(shared.params, len(shared.shape)) if hasattr(shared, "params") else 1


def run(plan: Any, x: np.ndarray, out: np.ndarray, workers: int,
        execute: Callable[[Any, np.ndarray, np.ndarray], Any]) -> np.ndarray:
    """Runs ``execute(slab_plan, x_slab, out_slab)`` (the array layer's
    single-threaded call) on every slab of the outermost axis, the first on
    the calling thread; each slab's plan is made once from ``plan``
    (:func:`simakernels.a65._backend.slab`)."""
    _check_whole_call(plan, plan._operation, x, out)
    ranges = slabs(x.shape[0], workers, row_unit(plan))
    plans = [_backend.slab(plan, start, stop) for start, stop in ranges]
    failures: List[BaseException] = []

    def work(index: int) -> None:
        start, stop = ranges[index]
        try:
            execute(plans[index], x[start:stop], out[start:stop])
        except BaseException as exc:  # re-raised on the calling thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(1, len(ranges))]
    for thread in threads:
        thread.start()
    work(0)
    for thread in threads:
        thread.join()
    if failures:  # unreachable after the whole-call checks; never hide it
        raise failures[0]
    return out
