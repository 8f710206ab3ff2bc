"""The array layer: NumPy in, NumPy out, exceptions on errors, plans cached.

Any non-negative strides execute in place (no hidden copy); negative strides
raise :class:`~simakernels.core.KernelError` with ``UNSUPPORTED_LAYOUT``.
"""
from __future__ import annotations

import functools
import os
import struct
from typing import Any, Callable, Dict, Optional, SupportsFloat, Union

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import _split, a65
from ._ffi import lib
from .a65._backend import _CHAR_ARRAY, _NOT_A_PLAIN_BUFFER, _from_buffer
from .buffers import ConstHostBuffer, HostBuffer
from .core import DType, Error, ErrorCode, KernelError, Strided, TensorSpec
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant

_NUMPY: Dict[DType, np.dtype[Any]] = {
    DType.INT8: np.dtype(np.int8),
    DType.UINT8: np.dtype(np.uint8),
    DType.INT16: np.dtype(np.int16),
    DType.UINT16: np.dtype(np.uint16),
    DType.INT32: np.dtype(np.int32),
    DType.UINT32: np.dtype(np.uint32),
    DType.FLOAT16: np.dtype(np.float16),
    DType.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DType.FLOAT32: np.dtype(np.float32),
}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}
_SUPPORTED = ", ".join(str(d) for d in _NUMPY.values())  # for messages

#: What the array functions take as a dtype: a :class:`DType`, a NumPy
#: dtype or scalar type (``ml_dtypes.bfloat16`` for BF16), or a name.
DTypeSpec = Union[DType, npt.DTypeLike]


def numpy_dtype(dtype: DType) -> np.dtype:
    """The NumPy dtype that stores ``dtype`` (BF16 is ``ml_dtypes.bfloat16``)."""
    return _NUMPY[dtype]


def to_dtype(dtype: Any) -> DType:
    """A :class:`DType` from a DType, a NumPy dtype, a scalar type or a name."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in DType.__members__:
        return DType[dtype.upper()]
    try:
        found = _FROM_NUMPY.get(np.dtype(dtype))
    except TypeError:
        found = None
    if found is None:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE,
                                f"no simakernels dtype for {dtype!r}; supported: {_SUPPORTED}"))
    return found


def _spec(array: np.ndarray, name: str) -> TensorSpec:
    dtype = _FROM_NUMPY.get(array.dtype)
    if dtype is None:
        hint = "; Python floats and lists become float64: pass np.asarray(x, np.float32)" \
            if array.dtype == np.float64 else ""
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"{name}: NumPy dtype {array.dtype} is not a "
                                f"simakernels dtype ({_SUPPORTED}){hint}"))
    if array.ndim > 6:
        raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"{name}: rank {array.ndim} exceeds 6"))
    return TensorSpec(array.shape, dtype, Strided(array.strides))


def _view(array: np.ndarray, nbytes: int, writable: bool) -> Any:
    """The array itself when it is contiguous (the native entry takes it
    directly); else a view of exactly the plan's accessed span."""
    if array.flags.c_contiguous:
        return array
    address = array.__array_interface__["data"][0]
    cls = HostBuffer if writable else ConstHostBuffer
    return cls.from_address(address, nbytes, keepalive=array)


def _masked(array: Any, port: str, name: str) -> Optional[Error]:
    """A masked array would be taken as its data with the mask dropped:
    masked elements converted as if valid, or the mask of ``out`` left
    stale.  Other ndarray subclasses (np.matrix, np.memmap) hold plain
    numbers in plain storage and are taken as they are."""
    if not isinstance(array, np.ma.MaskedArray):
        return None
    return Error(ErrorCode.INVALID_BINDING, f"{port} ({name}): numpy.ma.MaskedArray is not supported (its mask "
                                            f"would be ignored); pass {name}.filled(value) or {name}.data")


def _input(x: Any) -> np.ndarray:
    """``x`` as an ndarray (the callers keep plain ndarrays as they are)."""
    error = _masked(x, "input 0", "x")
    if error is not None:
        raise KernelError(error)
    return np.asarray(x)


def _output(x: np.ndarray, dtype: DType, out: Optional[np.ndarray]) -> np.ndarray:
    if out is None:
        return np.empty(x.shape, numpy_dtype(dtype))
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    error = _masked(out, "output 0", "out")
    if error is not None:
        raise KernelError(error)
    if not out.flags.writeable:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out is read-only, a writable array is required"))
    if out.dtype != numpy_dtype(dtype):
        raise KernelError(
            Error(ErrorCode.UNSUPPORTED_DTYPE, f"output 0: out has dtype {out.dtype}, expected {numpy_dtype(dtype)}")
        )
    return out


def _out_key(out: Optional[np.ndarray]) -> Any:
    """The output's part of a plan key: its layout when given (a cache hit
    then proves it was checked against the requested dtype), else None (the
    array layer allocates it C-contiguous from the input's shape)."""
    if out is None:
        return None
    if type(out) is np.ndarray:  # the callers inline this case
        return out.shape, out.strides, out.dtype
    if isinstance(out, np.ndarray):
        return type(out), out.shape, out.strides, out.dtype
    return [out]  # unhashable: never cached (_output rejects it anyway)


# Plans (or the Error a request gets) by everything that determines them:
# operation, both layouts, the requested output dtype, the parameters by type
# and representation (True == 1, but only 1 is a valid zero point) and
# SIMAKERNELS_FORCE_ROUTE (which admission reads itself, naming it in its
# error).  Bounded: cleared when full.
_PLANS: Dict[Any, Any] = {}
_MAX_PLANS = 1024


def clear_plans() -> None:
    """Forgets the array layer's cached plans."""
    _PLANS.clear()


# os.environ.get costs more than a small call; on POSIX its backing dict
# (bytes keys, kept current by os.environ assignments) is a plain lookup.
_ENV_DATA = getattr(os.environ, "_data", None)
_ROUTE_KEY = os.fsencode(a65.FORCE_ROUTE_ENV)


if isinstance(_ENV_DATA, dict):
    _forced_route: Callable[[], Any] = functools.partial(_ENV_DATA.get, _ROUTE_KEY)
else:  # pragma: no cover - non-POSIX os.environ
    _forced_route = functools.partial(os.environ.get, a65.FORCE_ROUTE_ENV)


_DOUBLE = struct.Struct("<d")
_FLOAT32 = np.float32
_ONE_WORKER = 1  # the default object: an identity test on the fast path
_memoryview = memoryview
_ENUMS = frozenset({DType, ops_quant.Rounding})
_FLOAT32_KEY = (DType, id(DType.FLOAT32))  # what _param_key gives the default
_pack_double = _DOUBLE.pack


def _param_key(p: Any) -> Any:
    """A parameter by its type and representation: hashing or comparing a
    float would be FP arithmetic, which the caller's FP state (DAZ makes all
    subnormals equal; traps) could change or turn into SIGFPE."""
    kind = type(p)
    if kind is int:
        return p
    if kind is float:
        return _pack_double(p)  # bytes never equal an int or a tuple
    if kind is _FLOAT32:
        return kind, _memoryview(p).tobytes()
    if kind in _ENUMS:  # members are singletons; Enum.__hash__ is slow Python
        return kind, id(p)
    if isinstance(p, np.generic):
        try:
            # (NumPy's stubs declare a scalar's buffer for Python 3.12+ only.)
            return kind, memoryview(p).tobytes()  # type: ignore[arg-type]  # a third of tobytes()'s cost
        except TypeError:
            return kind, p.tobytes()
    return kind, p


def _remember(key: Any, plan: Any) -> Any:
    try:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    except TypeError:
        pass
    return plan


def _plan(key: Any, build: Callable[[], Any]) -> Any:
    """The cached plan for ``key``, built and remembered on a miss (for
    callers with keys of their own, e.g. the Hurray bridge)."""
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    return _remember(key, build()) if plan is None else plan


def _execute(plan: Any, backend: Any, native: Any, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Runs ``plan`` (or raises the Error admission gave) on x and out.

    Contiguous arrays take one native call, which checks the bindings; other
    views, and calls the native check refuses, go through the backend's
    ``execute`` and its Python checks, which name the fault."""
    if type(plan) is Error:
        raise KernelError(plan)
    try:
        src = _from_buffer(x)
        dst = _from_buffer(_CHAR_ARRAY, out, True)
    except _NOT_A_PLAIN_BUFFER:
        if not out.flags.writeable:
            raise KernelError(Error(ErrorCode.INVALID_BINDING,
                                    "output 0: out is read-only, a writable array is required")) from None
    else:
        if native(plan._native, src, len(src), dst, len(dst)) == 0:
            return out
    binding = plan._native.binding
    status = backend.execute(plan, [_view(x, binding.in_nbytes, False)], [_view(out, binding.out_nbytes, True)])
    if status is not None:
        raise KernelError(status)
    return out


def _split_run(plan: Any, operation: str, x: np.ndarray, out: np.ndarray, workers: Any,
               call: Callable[[np.ndarray, np.ndarray], Any]) -> np.ndarray:
    """``workers=N``: the outermost axis in at most N slabs, one thread each
    (bounded by :func:`simakernels._split.thread_count`); one slab, or an
    error, runs as usual."""
    threads = _split.thread_count(_split.check_workers(workers), x.shape)
    if isinstance(plan, Error) or threads == 1:
        return _execute(plan, getattr(a65, operation), getattr(lib, f"sk_{operation}_execute"), x, out)
    return _split.run(plan, operation, x, out, threads, call)


# Each operation: the cache key (everything that determines the plan), then
# on a miss the checked output and a new plan; on a hit a given ``out`` was
# already checked against the requested dtype when the plan was made.

def cast(x: npt.ArrayLike, dtype: DTypeSpec, *, out: Optional[np.ndarray] = None, workers: int = 1) -> np.ndarray:
    """FLOAT32 <-> BFLOAT16 by the specification's bit rules.

    ``dtype`` is the output type (``sk.DType``, ``ml_dtypes.bfloat16``,
    ``numpy.float32`` or their names).  ``workers=N`` splits the outermost
    axis across N threads.  Raises :class:`KernelError`."""
    if type(x) is not np.ndarray:
        x = _input(x)
    key = ("cast", x.shape, x.strides, x.dtype, _param_key(dtype),
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _forced_route())
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    if plan is None or out is None:
        out = _output(x, to_dtype(dtype), out)
    if plan is None:
        request = ops_cast.Request([_spec(x, "input 0")], [_spec(out, "output 0")])
        plan = _remember(key, a65.cast.check_inference(request))
    if workers is not _ONE_WORKER:  # anything else is checked by _split_run
        return _split_run(plan, "cast", x, out, workers, lambda xs, os: cast(xs, dtype, out=os))
    return _execute(plan, a65.cast, lib.sk_cast_execute, x, out)


def dequantize(
    x: npt.ArrayLike, scale: SupportsFloat, zero_point: int = 0, *, dtype: DTypeSpec = DType.FLOAT32,
    out: Optional[np.ndarray] = None, workers: int = 1,
) -> np.ndarray:
    """INT8 -> FLOAT32 or BFLOAT16 by the staged expression
    ``(float(q) - float(zero_point)) * scale`` (binary32, nearest-even).

    ``scale`` becomes ``numpy.float32(scale)``; ``workers=N`` splits the
    outermost axis across N threads.  Raises :class:`KernelError`
    (``INVALID_PARAMS``, ``UNSUPPORTED_ENVIRONMENT``, ...)."""
    if type(x) is not np.ndarray:
        x = _input(x)
    key = ("dequant", x.shape, x.strides, x.dtype,
           _FLOAT32_KEY if dtype is DType.FLOAT32 else _param_key(dtype),
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _param_key(scale), zero_point if type(zero_point) is int else _param_key(zero_point),
           _forced_route())
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    if plan is None or out is None:
        out = _output(x, to_dtype(dtype), out)
    if plan is None:
        request = ops_dequant.Request([_spec(x, "input 0")], [_spec(out, "output 0")],
                                      ops_dequant.Params(scale, zero_point))
        plan = _remember(key, a65.dequant.check_inference(request))
    if workers is not _ONE_WORKER:  # anything else is checked by _split_run
        return _split_run(plan, "dequant", x, out, workers,
                          lambda xs, os: dequantize(xs, scale, zero_point, dtype=dtype, out=os))
    return _execute(plan, a65.dequant, lib.sk_dequant_execute, x, out)


def quantize(
    x: npt.ArrayLike, multiplier: SupportsFloat, zero_point: int = 0, *,
    rounding: Union[ops_quant.Rounding, str] = "nearest_even", out: Optional[np.ndarray] = None, workers: int = 1,
) -> np.ndarray:
    """FLOAT32 / BFLOAT16 / FLOAT16 -> INT8: ``saturate(round(x * multiplier) +
    zero_point)`` with the product rounded to binary32 first.

    ``rounding``: a ``quant.Rounding`` or its lower-case name; ``workers=N``
    splits the outermost axis across N threads.  Raises :class:`KernelError`."""
    if type(x) is not np.ndarray:
        x = _input(x)
    key = ("quant", x.shape, x.strides, x.dtype,
           (out.shape, out.strides, out.dtype) if type(out) is np.ndarray else _out_key(out),
           _param_key(multiplier), zero_point if type(zero_point) is int else _param_key(zero_point),
           rounding if type(rounding) is str else _param_key(rounding), _forced_route())
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    if plan is None or out is None:
        out = _output(x, DType.INT8, out)
    if plan is None:
        plan = _remember(key, _quant_plan(x, out, multiplier, zero_point, rounding))
    if workers is not _ONE_WORKER:  # anything else is checked by _split_run
        return _split_run(plan, "quant", x, out, workers,
                          lambda xs, os: quantize(xs, multiplier, zero_point, rounding=rounding, out=os))
    return _execute(plan, a65.quant, lib.sk_quant_execute, x, out)


def _quant_plan(x: np.ndarray, out: np.ndarray, multiplier: Any, zero_point: Any, rounding: Any) -> Any:
    try:
        params = ops_quant.Params(multiplier, zero_point, rounding)
    except ValueError as exc:
        return Error(ErrorCode.INVALID_PARAMS, str(exc))
    request = ops_quant.Request([_spec(x, "input 0")], [_spec(out, "output 0")], params)
    return a65.quant.check_inference(request)
