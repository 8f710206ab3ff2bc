"""Explicit parallelism for the array layer: ``workers=N`` splits the
outermost axis into N slabs and runs them on N threads at once (the native
calls release the GIL; plans are immutable and shared).

The kernels keep no pool: the threads live for one call.  New threads inherit
the caller's FP environment, so every slab runs under the state the caller's
own checks saw.  Everything that could fail is checked on the whole call
first (plan, bindings, FP environment), so an error still leaves the output
untouched."""
from __future__ import annotations

import threading
from typing import Any, Callable, List, Tuple

import numpy as np

from ._ffi import lib
from .buffers import ConstHostBuffer, HostBuffer, bind
from .core import Error, ErrorCode, KernelError
from .fenv import describe_unmet


def check_workers(workers: Any) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return workers


def slabs(extent: int, workers: int) -> List[Tuple[int, int]]:
    """[start, stop) ranges of the outermost axis, sizes differing by <= 1."""
    count = min(workers, extent)
    return [(extent * i // count, extent * (i + 1) // count) for i in range(count)]


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


def run(plan: Any, operation: str, x: np.ndarray, out: np.ndarray, workers: int,
        call: Callable[[np.ndarray, np.ndarray], Any]) -> np.ndarray:
    """Runs ``call(x_slab, out_slab)`` (the single-threaded array function)
    on every slab of the outermost axis, the first on the calling thread."""
    _check_whole_call(plan, operation, x, out)
    ranges = slabs(x.shape[0], workers)
    failures: List[BaseException] = []

    def work(start: int, stop: int) -> None:
        try:
            call(x[start:stop], out[start:stop])
        except BaseException as exc:  # re-raised on the calling thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=r, daemon=True) for r in ranges[1:]]
    for thread in threads:
        thread.start()
    work(*ranges[0])
    for thread in threads:
        thread.join()
    if failures:  # unreachable after the whole-call checks; never hide it
        raise failures[0]
    return out
