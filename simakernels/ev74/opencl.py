"""The EV74 kernel run on the host through an OpenCL runtime (pyopencl over
an installed platform such as pocl): what ``sk.ev74.Device(engine="opencl")``
executes.

Each submission runs the kernel program (:func:`kernel_source`) as the
device would: the native entry ``simaai_kernels_ev74_quant_v1`` validates
the descriptor and writes the dispatcher control; when it admits the
packet, ``simaai_kernels_ev74_quant_v1_workers`` runs over the ring, one
work-item per workgroup, with a trace buffer that records every work unit.
Device memory is mirrored into one OpenCL buffer around each submission
(the whole of it both ways, so a stray write anywhere shows).

The program is built once per process (the first engine pays for it).
"""
from __future__ import annotations

import threading
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from .._ffi import ffi, lib
from ..core import Error, ErrorCode

INSTALL_HINT = ("an OpenCL runtime is needed for engine='opencl': pip install pyopencl, and a platform, e.g. "
                "Debian's pocl-opencl-icd (apt-get install pocl-opencl-icd; `make test` installs both)")
UNIT_KINDS = {lib.SK_EV74_UNIT_DMA: "dma", lib.SK_EV74_UNIT_VECTOR: "vector", lib.SK_EV74_UNIT_SCATTER: "scatter"}
ENTRY = "simaai_kernels_ev74_quant_v1"
WORKERS = ENTRY + "_workers"


def kernel_source() -> str:
    """The OpenCL C program a firmware build compiles: the entry, its
    workers, the shared validation, control record and arithmetic."""
    source: bytes = ffi.string(lib.sk_ev74_kernel_source())
    return source.decode()


# One runtime per process: (pyopencl, context, queue, entry kernel, workers
# kernel).  A kernel object holds its arguments, so submissions (from every
# Device's worker thread) take turns under _lock.
_lock = threading.RLock()
_runtime: Optional[Tuple[Any, Any, Any, Any, Any]] = None


def runtime() -> Tuple[Any, Any, Any, Any, Any]:
    """The process's OpenCL runtime with the program built, on first use;
    RuntimeError naming what to install when there is none."""
    global _runtime
    with _lock:
        if _runtime is None:
            try:
                import pyopencl as cl
            except ImportError as exc:
                raise RuntimeError(f"{INSTALL_HINT} (import pyopencl: {exc})") from None
            try:
                devices = [d for p in cl.get_platforms() for d in p.get_devices()]
            except cl.Error as exc:
                raise RuntimeError(f"{INSTALL_HINT} (no OpenCL platform: {exc})") from None
            if not devices:
                raise RuntimeError(f"{INSTALL_HINT} (no OpenCL device)")
            context = cl.Context(devices[:1])
            # -w: the runtime's compiler notes stay out of the caller's stderr
            # (pocl on a CPU without AVX-512 notes the ABI of its 16-lane
            # vectors); the kernel's own warnings are the test suite's.
            program = cl.Program(context, kernel_source()).build(options=["-cl-std=CL1.2", "-w"])
            _runtime = (cl, context, cl.CommandQueue(context), cl.Kernel(program, ENTRY), cl.Kernel(program, WORKERS))
        return _runtime


class Engine:
    """The kernel over ``memory`` (device addresses [base, base + size))
    on a ring of ``workgroups``."""

    def __init__(self, memory: memoryview, base: int, size: int, workgroups: int) -> None:
        self._cl, self._context, self._queue, self._entry, self._workers = runtime()
        self._host = np.frombuffer(memory, np.uint8)
        self.base, self.size, self.ring = base, size, workgroups
        self._memory = self._cl.Buffer(self._context, self._cl.mem_flags.READ_WRITE, size)

    def execute(self, descriptor: bytes) -> Union[Tuple[int, List[Tuple[int, str, int, int, int, int]]], Error]:
        """Runs one packet: (workgroups, [(cpu, kind, input address, output
        address, count, slot) per unit, in unit order]), or the Error the
        device refused it with."""
        with _lock:
            return self._run(descriptor)

    def _run(self, descriptor: bytes) -> Union[Tuple[int, List[Tuple[int, str, int, int, int, int]]], Error]:
        cl, ctx, queue = self._cl, self._context, self._queue
        flags = cl.mem_flags
        raw = np.frombuffer(descriptor, np.uint8) if descriptor else np.zeros(1, np.uint8)
        packet = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=raw)
        control = np.zeros(lib.SK_EV74_CONTROL_SIZE, np.uint8)
        control_buffer = cl.Buffer(ctx, flags.READ_WRITE, control.nbytes)
        self._entry(queue, (1,), (1,), packet, np.uint32(len(descriptor)), np.uint32(self.base),
                    np.uint32(self.size), np.uint32(self.ring), control_buffer)
        cl.enqueue_copy(queue, control, control_buffer)
        units, workgroups = ffi.new("uint32_t *"), ffi.new("uint32_t *")
        input_slots, output_slots = ffi.new("uint32_t *"), ffi.new("uint32_t *")
        message = ffi.new("char[256]")
        status = lib.sk_ev74_control_read(ffi.from_buffer(control), control.nbytes, units, workgroups, input_slots,
                                          output_slots, message, 256)
        if status != lib.SK_OK:
            return Error(ErrorCode(status), ffi.string(message).decode())
        trace = np.zeros(max(1, units[0]) * lib.SK_EV74_TRACE_WORDS, np.uint32)
        trace_buffer = cl.Buffer(ctx, flags.READ_WRITE, trace.nbytes)
        cl.enqueue_copy(queue, self._memory, self._host)
        self._workers(queue, (self.ring,), (1,), control_buffer, self._memory, np.uint32(self.base), trace_buffer,
                      cl.LocalMemory(input_slots[0]), cl.LocalMemory(output_slots[0]))
        cl.enqueue_copy(queue, self._host, self._memory)
        cl.enqueue_copy(queue, trace, trace_buffer)
        queue.finish()
        records = trace[:units[0] * lib.SK_EV74_TRACE_WORDS].reshape(-1, lib.SK_EV74_TRACE_WORDS).astype(np.int64)
        slot = records[:, lib.SK_EV74_TRACE_SLOT]
        slot[slot == 0xFFFF_FFFF] = -1
        return workgroups[0], [
            (int(r[lib.SK_EV74_TRACE_CPU]), UNIT_KINDS[int(r[lib.SK_EV74_TRACE_KIND])], int(r[lib.SK_EV74_TRACE_INPUT]),
             int(r[lib.SK_EV74_TRACE_OUTPUT]), int(r[lib.SK_EV74_TRACE_COUNT]), int(r[lib.SK_EV74_TRACE_SLOT]))
            for r in records]
