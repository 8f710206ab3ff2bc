"""The array layer: NumPy in, NumPy out, exceptions on errors, plans cached.

Any non-negative strides execute in place (no hidden copy); negative strides
raise :class:`~simakernels.core.KernelError` with ``UNSUPPORTED_LAYOUT``.
"""
from __future__ import annotations

import os
import struct
from typing import Any, Callable, Dict, Optional

import ml_dtypes
import numpy as np

from . import a65
from .buffers import ConstHostBuffer, HostBuffer
from .core import DType, Error, ErrorCode, KernelError, Strided, TensorSpec
from .ops import cast as ops_cast
from .ops import dequant as ops_dequant
from .ops import quant as ops_quant

_NUMPY = {
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
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"no simakernels dtype for {dtype!r}"))
    return found


def _spec(array: np.ndarray, name: str) -> TensorSpec:
    dtype = _FROM_NUMPY.get(array.dtype)
    if dtype is None:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"{name}: NumPy dtype {array.dtype} is not supported"))
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


def _output(x: np.ndarray, dtype: DType, out: Optional[np.ndarray]) -> np.ndarray:
    if out is None:
        return np.empty(x.shape, numpy_dtype(dtype))
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if not out.flags.writeable:
        raise KernelError(Error(ErrorCode.INVALID_BINDING, "output 0: out is read-only"))
    if out.dtype != numpy_dtype(dtype):
        raise KernelError(
            Error(ErrorCode.UNSUPPORTED_DTYPE, f"output 0: out has dtype {out.dtype}, expected {numpy_dtype(dtype)}")
        )
    return out


# Plans (or the Error a request gets) by everything that determines them:
# operation, both layouts, the parameters with their types (True == 1, but
# only 1 is a valid zero point) and SIMAKERNELS_FORCE_ROUTE.  Bounded:
# cleared when full.
_PLANS: Dict[Any, Any] = {}
_MAX_PLANS = 1024


def _plan(key: Any, build: Callable[[], Any]) -> Any:
    try:
        plan = _PLANS.get(key)
    except TypeError:  # unhashable parameters (e.g. a 0-d array): no caching
        return build()
    if plan is None:
        plan = build()
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def clear_plans() -> None:
    """Forgets the array layer's cached plans."""
    _PLANS.clear()


# os.environ.get costs more than a small call; on POSIX its backing dict
# (bytes keys, kept current by os.environ assignments) is a plain lookup.
_ENV_DATA = getattr(os.environ, "_data", None)
_ROUTE_KEY = os.fsencode(a65.FORCE_ROUTE_ENV)


def _forced_route() -> Any:
    if isinstance(_ENV_DATA, dict):
        return _ENV_DATA.get(_ROUTE_KEY)
    return os.environ.get(a65.FORCE_ROUTE_ENV)


def _param_key(p: Any) -> Any:
    """A parameter by its type and representation: hashing a float would be
    FP arithmetic, which a caller's enabled traps could turn into SIGFPE."""
    if type(p) is float:
        return float, _DOUBLE.pack(p)
    if isinstance(p, np.generic):
        return type(p), p.tobytes()
    return type(p), p


_DOUBLE = struct.Struct("<d")


def _key(op: str, x: np.ndarray, out: np.ndarray, *params: Any) -> Any:
    return (op, x.shape, x.strides, x.dtype, out.shape, out.strides, out.dtype,
            tuple([_param_key(p) for p in params]), _forced_route())


def _run(backend: Any, plan: Any, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    if isinstance(plan, Error):
        raise KernelError(plan)
    binding = plan._native.binding
    status = backend.execute(plan, [_view(x, binding.in_nbytes, False)], [_view(out, binding.out_nbytes, True)])
    if status is not None:
        raise KernelError(status)
    return out


def _route() -> Optional[str]:
    return os.environ.get(a65.FORCE_ROUTE_ENV) or None


def cast(x: Any, dtype: Any, *, out: Optional[np.ndarray] = None) -> np.ndarray:
    """FLOAT32 <-> BFLOAT16 by the specification's bit rules.

    ``dtype`` is the output type (``sk.DType``, ``ml_dtypes.bfloat16``,
    ``numpy.float32`` or their names).  Raises :class:`KernelError`."""
    x = np.asarray(x)
    result = _output(x, to_dtype(dtype), out)
    plan = _plan(_key("cast", x, result), lambda: a65.cast.check_inference(
        ops_cast.Request([_spec(x, "input 0")], [_spec(result, "output 0")]), _route()))
    return _run(a65.cast, plan, x, result)


def dequantize(
    x: Any, scale: Any, zero_point: int = 0, *, dtype: Any = DType.FLOAT32, out: Optional[np.ndarray] = None
) -> np.ndarray:
    """INT8 -> FLOAT32 or BFLOAT16 by the staged expression
    ``(float(q) - float(zero_point)) * scale`` (binary32, nearest-even).

    ``scale`` becomes ``numpy.float32(scale)``.  Raises :class:`KernelError`
    (``INVALID_PARAMS``, ``UNSUPPORTED_ENVIRONMENT``, ...)."""
    x = np.asarray(x)
    result = _output(x, to_dtype(dtype), out)

    def build() -> Any:
        params = ops_dequant.Params(scale, zero_point)
        return a65.dequant.check_inference(
            ops_dequant.Request([_spec(x, "input 0")], [_spec(result, "output 0")], params), _route())

    return _run(a65.dequant, _plan(_key("dequant", x, result, scale, zero_point), build), x, result)


def quantize(
    x: Any, multiplier: Any, zero_point: int = 0, *, rounding: Any = "nearest_even",
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """FLOAT32 / BFLOAT16 / FLOAT16 -> INT8: ``saturate(round(x * multiplier) +
    zero_point)`` with the product rounded to binary32 first.

    ``rounding``: a ``quant.Rounding`` or its lower-case name.  Raises
    :class:`KernelError`."""
    x = np.asarray(x)
    result = _output(x, DType.INT8, out)

    def build() -> Any:
        try:
            params = ops_quant.Params(multiplier, zero_point, rounding)
        except ValueError as exc:
            return Error(ErrorCode.INVALID_PARAMS, str(exc))
        return a65.quant.check_inference(
            ops_quant.Request([_spec(x, "input 0")], [_spec(result, "output 0")], params), _route())

    return _run(a65.quant, _plan(_key("quant", x, result, multiplier, zero_point, rounding), build), x, result)
