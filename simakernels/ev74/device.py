"""The EV74 on the host, for tests and demonstrations: a simulated 32-bit
device address space backed by host memory, region allocation, and
asynchronous submission of bound Quant packets to one of two engines:

* ``engine="model"`` (the default): a host model, described below;
* ``engine="opencl"``: the kernel itself (``kernel_source()``, OpenCL C),
  built and run by an OpenCL runtime on the host (:mod:`.opencl`): the
  descriptor is validated and the work done by the device program.

Both give the same results, the same errors and the same work units.

The model:
Execution decodes with the native decoder, then follows the specification's
task geometry: the common contiguous suffix of both ports is cut into DMA
blocks (spans of at least 128 elements; 4,096 FP32 or 8,192 BF16/FP16
elements through ping-pong local input/output slots), direct vector rows
(16..127 elements) or single scatter elements (shorter spans or no common
suffix).  One work unit runs on CPU0 alone; otherwise the complete ring of
up to four workgroups is launched, unit ranges are split in order (unit 0
stays with CPU0) and the CPUs run in the order 1, ..., N-1, 0.  The
arithmetic is the shared Quant core (the same leaves as ``sk.a65.quant``).
Every work unit is recorded, so tests can prove each logical element is
written exactly once and no gap is touched.

Neither engine is EV instruction or DMA validation: pocl runs the kernel's
vector code and copies on the host CPU.
"""
from __future__ import annotations

import concurrent.futures
import queue
import threading
import weakref
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _routes, _rules
from .._ffi import ffi, lib
from ..storage import DTypeSpec, numpy_dtype, to_dtype
from ..core import DType, Error, ErrorCode, KernelError, describe, type_name
from . import opencl
from . import quant as ev_quant
from .region import DeviceRegion

# The block constants the kernel counts by (simakernels.h, enum sk_ev74_geometry).
DMA_MIN = lib.SK_EV74_DMA_MIN            # contiguous spans from here use DMA blocks
DIRECT_MIN = lib.SK_EV74_DIRECT_MIN      # 16..127: direct vector loads and stores
MAX_WORKGROUPS = lib.SK_EV74_MAX_WORKGROUPS
DMA_BLOCK = {DType.FLOAT32: lib.SK_EV74_DMA_BLOCK_F32, DType.BFLOAT16: lib.SK_EV74_DMA_BLOCK_16BIT,
             DType.FLOAT16: lib.SK_EV74_DMA_BLOCK_16BIT}  # elements
INPUT_SLOT_BYTES = lib.SK_EV74_INPUT_SLOT_BYTES
ENGINES = ("model", "opencl")


@dataclass(frozen=True)
class WorkUnit:
    """One recorded unit: ``count`` elements, input and output device
    addresses of its first element (output runs are contiguous for "dma"
    and "vector" units; "scatter" units are single elements)."""

    cpu: int
    kind: str
    input_address: int
    output_address: int
    count: int
    slot: int = -1        # ping-pong slot of a DMA unit


@dataclass(frozen=True)
class Completion:
    """What a submission did, in execution order."""

    workgroups: int
    units: Tuple[WorkUnit, ...]


class Device:
    """``size`` bytes of device memory at device address ``base``.

    ``memory``: the host bytes that back device memory (any writable
    buffer of exactly ``size`` bytes, kept alive by the Device), e.g. a
    mapping between guard pages in tests; by default new zeroed bytes.
    ``engine``: "model" (the host model, the default) or "opencl" (the
    kernel on an OpenCL runtime; RuntimeError saying what to install when
    there is none).  ``route``: the host CPU route of the model's
    arithmetic."""

    def __init__(self, size: int = 1 << 24, base: int = 0x1000_0000, workgroups: int = MAX_WORKGROUPS,
                 memory: Any = None, route: Optional[str] = None, engine: str = "model") -> None:
        if not (0 < base and 0 < size and base + size <= _rules.DEVICE_END):
            raise ValueError("device memory must lie inside the 32-bit domain, above address 0")
        if not 1 <= workgroups:
            raise ValueError("at least one workgroup")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {describe(engine)}")
        self.base, self.size, self.workgroups = base, size, workgroups
        # The host CPU route that runs the modelled arithmetic, chosen as the
        # A65 backend chooses (``route``, else $SIMAKERNELS_FORCE_ROUTE, else
        # the best available).
        chosen = _routes.choose(route)
        if isinstance(chosen, Error):
            raise ValueError(str(chosen))
        self.route, self._route_id = chosen
        self._memory = memoryview(bytearray(size) if memory is None else memory).cast("B")
        if self._memory.readonly or self._memory.nbytes != size:
            raise ValueError(f"memory must be a writable buffer of {size} bytes")
        self._host = ffi.from_buffer("char[]", self._memory)
        self.engine = engine
        # The kernel on the configured ring, capped at four workgroups.
        self._kernel = None if engine == "model" else opencl.Engine(
            self._memory, base, size, min(workgroups, MAX_WORKGROUPS))
        self._next = base
        self._lock = threading.Lock()
        # One worker thread, the modelled device.  Not a ThreadPoolExecutor:
        # its submit does float arithmetic (a semaphore timeout) on the
        # caller's thread, which an enabled FP trap turns into SIGFPE.
        # The worker holds no reference to the Device between jobs, so an
        # unclosed Device is still collected (and its worker then stopped).
        self._jobs: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._closed = False
        self._worker = threading.Thread(target=_serve, args=(self._jobs,), name="ev74", daemon=True)
        self._worker.start()
        self._stop = weakref.finalize(self, self._jobs.put, None)

    # ---- memory -----------------------------------------------------------
    def allocate(self, nbytes: int, alignment: int = 64) -> DeviceRegion:
        """A new region of ``nbytes`` (an int >= 0) at an address aligned to
        ``alignment`` (a power of two); MemoryError when the model is full."""
        if type(nbytes) is not int or nbytes < 0:  # (bool is no size either)
            raise ValueError(f"allocate: nbytes must be an int >= 0, got {describe(nbytes)}")
        if type(alignment) is not int or alignment < 1 or alignment & (alignment - 1):
            raise ValueError(f"allocate: alignment must be a power of two, got {describe(alignment)}")
        with self._lock:
            start = -(-self._next // alignment) * alignment
            if start + nbytes > self.base + self.size:
                raise MemoryError(f"device memory exhausted: {nbytes} bytes requested")
            self._next = start + nbytes
        return DeviceRegion(start, nbytes)

    def _offset(self, address: int, nbytes: int) -> int:
        if not (self.base <= address and address + nbytes <= self.base + self.size):
            raise ValueError(f"device range {address:#x} + {nbytes} is not backed by this model")
        return address - self.base

    def write(self, address: Union[int, DeviceRegion], data: Any) -> None:
        """Copies ``data`` to device memory at ``address``; into a region,
        only what fits its capacity (ValueError otherwise).

        ``data``: a NumPy array of any shape and strides (FP32, BF16 as
        ``ml_dtypes.bfloat16``, FP16, INT8, raw uint8, ...: the dtypes of
        ``sk.DType``), written as its elements in C (row-major) order, the
        bytes ``data.tobytes()`` gives; or any other buffer (bytes,
        bytearray, memoryview, mmap), written as its bytes in C order.
        Refused before any byte is written: an array of another dtype
        (float64, big-endian words, objects) with a ValueError, anything that
        is not a buffer with a TypeError."""
        data = _bytes_of(data)
        if isinstance(address, DeviceRegion):
            if len(data) > address.capacity:
                raise ValueError(f"write: {len(data)} bytes do not fit the region of {address.capacity} bytes "
                                 f"at {address.address:#x}")
            address = address.address
        offset = self._offset(address, len(data))
        self._memory[offset:offset + len(data)] = data

    def read(self, address: Union[int, DeviceRegion], nbytes: int = -1) -> bytes:
        """``nbytes`` of device memory at ``address`` (from a region: by
        default its whole capacity, never more)."""
        if isinstance(address, DeviceRegion):
            if nbytes < 0:
                nbytes = address.capacity
            elif nbytes > address.capacity:
                raise ValueError(f"read: {nbytes} bytes exceed the region of {address.capacity} bytes "
                                 f"at {address.address:#x}")
            address = address.address
        if nbytes < 0:
            raise ValueError(f"read: nbytes must be given (>= 0) for a plain address, got {nbytes}")
        offset = self._offset(address, nbytes)
        return bytes(self._memory[offset:offset + nbytes])

    def read_array(self, address: Union[int, DeviceRegion], dtype: DTypeSpec,
                   shape: Union[int, Sequence[int], None] = None) -> np.ndarray:
        """A new C-contiguous array of ``shape`` and ``dtype`` (an
        ``sk.DType`` or its NumPy dtype: ``np.int8`` for Quant results,
        ``ml_dtypes.bfloat16`` ...) read from device memory at ``address``.
        From a region, ``shape`` defaults to the 1-D array of its whole
        capacity (which must then be a whole number of elements) and may not
        exceed it; a plain address needs ``shape``.  ValueError for a bad
        shape, ``sk.KernelError`` (UNSUPPORTED_DTYPE) for a dtype the
        package does not know."""
        element = numpy_dtype(to_dtype(dtype))
        if shape is None:
            if not isinstance(address, DeviceRegion):
                raise ValueError("read_array: shape must be given for a plain address")
            if address.capacity % element.itemsize:
                raise ValueError(f"read_array: the region's {address.capacity} bytes are not a whole number of "
                                 f"{element} elements; give shape")
            dims: Tuple[int, ...] = (address.capacity // element.itemsize,)
        else:
            dims = (shape,) if isinstance(shape, int) else tuple(shape)
            if any(type(d) is not int or d < 0 for d in dims):  # (bool is no extent either)
                raise ValueError(f"read_array: shape must be ints >= 0, got {describe(shape)}")
        count = 1
        for d in dims:
            count *= d
        raw = bytearray(self.read(address, count * element.itemsize))  # a writable copy
        return np.frombuffer(raw, element).reshape(dims)

    # ---- submission -------------------------------------------------------
    def submit(self, bound: ev_quant.BoundPacket) -> "concurrent.futures.Future[Union[Completion, Error]]":
        """Queues a bound packet; the future completes (with a Completion, or
        an Error for a packet the device rejects) after the work is done.
        No FP arithmetic on the caller's thread, whatever its FP state."""
        done: "concurrent.futures.Future[Union[Completion, Error]]" = concurrent.futures.Future()
        if isinstance(bound, ev_quant.BoundPacket) and bound.empty:
            done.set_result(Completion(0, ()))  # no numerical submission
            return done
        if self._closed:
            raise RuntimeError("cannot submit to a closed Device")
        self._jobs.put((done, self._execute, bound))
        return done

    def close(self) -> None:
        """Waits for the queued work, then stops the worker."""
        if not self._closed:
            self._closed = True
            self._stop()
            self._worker.join()

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _execute(self, bound: Any) -> Union[Completion, Error]:
        if isinstance(bound, Error):  # a failed bind or encode: its own error, not a new one
            return bound
        if not isinstance(bound, ev_quant.BoundPacket):
            return Error(ErrorCode.INVALID_DESCRIPTOR, f"submit takes a BoundPacket, got {type_name(bound)}")
        if self._kernel is not None:  # validated and run by the device program
            ran = self._kernel.execute(bound.descriptor)
            if isinstance(ran, Error):
                return ran
            workgroups, records = ran
            order = {cpu: k for k, cpu in enumerate(list(range(1, workgroups)) + [0])}  # CPU0 last
            records.sort(key=lambda r: order[r[0]])  # stable: each CPU's units stay in order
            return Completion(workgroups, tuple(WorkUnit(*r) for r in records))
        desc = ev_quant.decode(bound.descriptor)
        if isinstance(desc, Error):
            return desc
        refused = ev_quant.admit(desc, self.base, self.size)
        if refused is not None:
            return refused
        units = _work_units(desc)
        n_workers = 1 if len(units) == 1 else min(self.workgroups, MAX_WORKGROUPS)
        # Consecutive ranges, rounded up so that unit 0 always stays on CPU0
        # (with fewer units than CPUs, the last CPUs get none).
        bounds = [-(-w * len(units) // n_workers) for w in range(n_workers + 1)]
        chunks = [units[bounds[w]:bounds[w + 1]] for w in range(n_workers)]
        done: List[WorkUnit] = []
        for cpu in list(range(1, n_workers)) + [0]:      # CPU0 last
            done.extend(self._run_worker(desc, cpu, chunks[cpu]))
        return Completion(n_workers, tuple(done))

    def _run_worker(
        self, desc: ev_quant.Descriptor, cpu: int, units: List[Tuple[str, int, int, int]]
    ) -> List[WorkUnit]:
        item = desc.conversion.itemsize
        block = DMA_BLOCK[desc.conversion]
        local_in = [bytearray(INPUT_SLOT_BYTES) for _ in range(2)]    # ping-pong slots
        local_out = [bytearray(block) for _ in range(2)]
        host_in = [ffi.from_buffer(s) for s in local_in]
        host_out = [ffi.from_buffer(s, require_writable=True) for s in local_out]
        records, slot = [], 0
        for kind, src, dst, count in units:
            if kind == "dma":
                offset = src - self.base
                local_in[slot][:count * item] = self._memory[offset:offset + count * item]
                _run_span_checked(desc._native, self._route_id, host_in[slot], len(host_in[slot]), host_out[slot],
                                  len(host_out[slot]), count)
                offset = dst - self.base
                self._memory[offset:offset + count] = local_out[slot][:count]
                records.append(WorkUnit(cpu, kind, src, dst, count, slot))
                slot ^= 1
            else:
                src_at, dst_at = src - self.base, dst - self.base
                _run_span_checked(desc._native, self._route_id, self._host + src_at, self.size - src_at,
                                  self._host + dst_at, self.size - dst_at, count)
                records.append(WorkUnit(cpu, kind, src, dst, count))
        return records


def _run_span_checked(native: Any, route: int, src: Any, src_len: int, dst: Any, dst_len: int, count: int) -> None:
    """One packed run through the decoded entry; the native binding check
    refusing it would mean the model's own walk is wrong."""
    status = lib.sk_ev74_run_span(native, route, src, src_len, dst, dst_len, count)
    if status != lib.SK_OK:
        raise AssertionError(f"sk_ev74_run_span refused a run of the model's walk: status {status}")


def _bytes_of(data: Any) -> np.ndarray:
    """``data``'s bytes in C order, as :meth:`Device.write` documents."""
    if isinstance(data, np.ndarray):
        # Only the package's element types: a float64 array (NumPy's default)
        # or big-endian words in an FP32 region would be misread by the
        # device, never refused by it.
        try:
            to_dtype(data.dtype)
        except KernelError as exc:
            raise ValueError(f"write: data: {exc.error.message}") from None
        # memoryview() cannot export ml_dtypes' bfloat16, so take the bytes
        # from NumPy; a contiguous array is not copied here.
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(f"write: data must be a NumPy array or a bytes-like object, got "
                        f"{type_name(data)}") from None
    return np.frombuffer(view.cast("B") if view.c_contiguous else view.tobytes(), np.uint8)


def _device_fp_environment() -> None:
    """Puts the worker thread (the modelled EV74) in the device's own FP
    environment: round-to-nearest-even, gradual underflow, every exception
    masked.  A new thread inherits its creator's FP state (POSIX), i.e. the
    state of whichever thread submitted first; without this, a first
    submission under an enabled trap would SIGFPE the process and one under
    another rounding mode would skew every later result."""
    device_state = ffi.new("sk_fenv_state *")
    device_state.rounding = lib.SK_ROUND_NEAREST
    lib.sk_fenv_set(device_state)


def _serve(jobs: "queue.SimpleQueue[Any]") -> None:
    """The worker: in the device's FP state, runs ``(future, run, packet)``
    jobs in order until it takes None."""
    _device_fp_environment()
    while True:
        job = jobs.get()
        if job is None:
            return
        done, run, bound = job
        if done.set_running_or_notify_cancel():
            try:
                done.set_result(run(bound))
            except BaseException as exc:  # noqa: BLE001 - delivered through the future
                done.set_exception(exc)
        del job, done, run, bound  # no reference to the Device while waiting


def _work_units(desc: ev_quant.Descriptor) -> List[Tuple[str, int, int, int]]:
    """(kind, input address, output address, count) for every unit, in
    logical order; the outer coordinates advance by carry."""
    item = desc.conversion.itemsize
    extents, s_in, s_out = desc.extents, desc.input_strides, desc.output_strides
    # Common contiguous suffix of both ports (singleton axes are inert).
    suffix, outer = 1, len(extents)
    while outer > 0:
        a = outer - 1
        if extents[a] != 1 and not (s_in[a] == item * suffix and s_out[a] == suffix):
            break
        suffix *= extents[a]
        outer -= 1
    if suffix >= DIRECT_MIN:
        axes = list(range(outer))
        run = suffix
    else:                       # scatter: every element is a unit
        axes = list(range(len(extents)))
        run = 1
    block = DMA_BLOCK[desc.conversion] if run >= DMA_MIN else run
    kind = "dma" if run >= DMA_MIN else "vector" if run >= DIRECT_MIN else "scatter"
    units = []
    index = [0] * len(axes)
    src, dst = desc.input_address, desc.output_address
    for _ in range(max(1, _product(extents[a] for a in axes))):
        for start in range(0, run, block):
            units.append((kind, src + start * item, dst + start, min(block, run - start)))
        for k in reversed(range(len(axes))):   # carry, fastest axis first
            a = axes[k]
            index[k] += 1
            if index[k] < extents[a]:
                src += s_in[a]
                dst += s_out[a]
                break
            index[k] = 0
            src -= s_in[a] * (extents[a] - 1)
            dst -= s_out[a] * (extents[a] - 1)
    return units


def _product(values: Any) -> int:
    result = 1
    for v in values:
        result *= v
    return result
