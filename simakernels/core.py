"""Values shared by every operation: dtypes, layouts, tensor specs, errors."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Tuple, Union

import numpy as np

from ._ffi import lib
from .fenv import default_state

MAX_RANK = lib.SK_MAX_RANK
INT64_MAX = (1 << 63) - 1


class DType(enum.Enum):
    """Scalar storage types; ``.itemsize`` is the width in bytes of one
    element as a port stores it unpacked (a sub-byte type: one element per
    byte), ``.bits`` the type's width in bits."""

    INT8 = ("int8", 1, 8)
    UINT8 = ("uint8", 1, 8)
    INT16 = ("int16", 2, 16)
    UINT16 = ("uint16", 2, 16)
    INT32 = ("int32", 4, 32)
    UINT32 = ("uint32", 4, 32)
    FLOAT16 = ("float16", 2, 16)
    BFLOAT16 = ("bfloat16", 2, 16)
    FLOAT32 = ("float32", 4, 32)
    INT4 = ("int4", 1, 4)
    UINT4 = ("uint4", 1, 4)
    INT2 = ("int2", 1, 2)
    UINT2 = ("uint2", 1, 2)

    @property
    def itemsize(self) -> int:
        return self.value[1]

    @property
    def bits(self) -> int:
        return self.value[2]

    @property
    def sub_byte(self) -> bool:
        """Whether elements are narrower than a byte (INT4, UINT4, INT2,
        UINT2: packed ports hold ``8 // bits`` of them per byte)."""
        return self.value[2] < 8

    def __repr__(self) -> str:
        return f"DType.{self.name}"


@dataclass(frozen=True)
class Contiguous:
    """Row-major dense layout."""


@dataclass(frozen=True)
class Strided:
    """Byte strides, one per axis, in logical axis order."""

    strides: Tuple[int, ...]

    def __init__(self, strides: Iterable[int]) -> None:
        object.__setattr__(self, "strides", tuple(_as_int(s, "stride") for s in strides))


Layout = Union[Contiguous, Strided]


def _as_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an integer, got {describe(value)}")
    index: int = value.__index__()
    return index


@dataclass(frozen=True)
class TensorSpec:
    """Logical shape, scalar dtype and storage layout of one port.

    Immutable.  More than six dimensions raises ``ValueError``; negative
    extents are stored and rejected by admission.
    """

    shape: Tuple[int, ...]
    dtype: DType
    layout: Layout = Contiguous()

    def __init__(self, shape: Iterable[int], dtype: DType, layout: Layout = Contiguous()) -> None:
        dims = tuple(_as_int(d, "extent") for d in shape)
        if len(dims) > MAX_RANK:
            raise ValueError(f"TensorSpec supports rank 0..{MAX_RANK}, got rank {len(dims)}")
        if not isinstance(dtype, DType):
            raise TypeError(f"dtype must be a simakernels.DType, got {describe(dtype)}")
        if not isinstance(layout, (Contiguous, Strided)):
            raise TypeError(f"layout must be Contiguous() or Strided(...), got {describe(layout)}")
        object.__setattr__(self, "shape", dims)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "layout", layout)

    @property
    def rank(self) -> int:
        return len(self.shape)


class ErrorCode(enum.IntEnum):
    """Error categories: the C core's ``enum sk_status`` values, read from it."""

    INVALID_OPERATION = lib.SK_INVALID_OPERATION
    INVALID_ARITY = lib.SK_INVALID_ARITY
    UNSUPPORTED_DTYPE = lib.SK_UNSUPPORTED_DTYPE
    INVALID_SHAPE = lib.SK_INVALID_SHAPE
    UNSUPPORTED_LAYOUT = lib.SK_UNSUPPORTED_LAYOUT
    INVALID_PARAMS = lib.SK_INVALID_PARAMS
    OVERFLOW = lib.SK_OVERFLOW
    INVALID_BINDING = lib.SK_INVALID_BINDING
    UNSUPPORTED_ENVIRONMENT = lib.SK_UNSUPPORTED_ENVIRONMENT
    DEVICE_LIMIT = lib.SK_DEVICE_LIMIT
    PACKET_MISMATCH = lib.SK_PACKET_MISMATCH
    INVALID_DESCRIPTOR = lib.SK_INVALID_DESCRIPTOR


@dataclass(frozen=True)
class Error:
    """A rejected request, binding or descriptor: a value, never raised.

    ``str()`` is ``"CODE: message"``, the message naming the port, axis or
    field at fault, the offending value and what is required."""

    code: ErrorCode
    message: str

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def __repr__(self) -> str:
        code = f"ErrorCode.{self.code.name}" if isinstance(self.code, ErrorCode) else repr(self.code)
        return f"Error({code}, {self.message!r})"


class KernelError(Exception):
    """Raised by the array layer; ``.error`` holds the :class:`Error` and
    ``.code`` its :class:`ErrorCode`.  In a traceback it reads
    ``simakernels.core.KernelError: CODE: message``."""

    error: Error

    def __init__(self, error: Error) -> None:
        # The Error itself is the one argument, so a copied or pickled
        # exception (e.g. across a process pool) keeps .error and .code.
        super().__init__(error)
        self.error = error

    @property
    def code(self) -> ErrorCode:
        return self.error.code

    def __str__(self) -> str:
        return str(self.error)

    def __repr__(self) -> str:
        return f"KernelError({self.error!r})"


def type_name(value: object) -> str:
    """``module.Class`` of a refused object, for messages: the a65, ops and
    ev74 plans are all named ``Plan``."""
    return f"{type(value).__module__}.{type(value).__qualname__}"


@dataclass(frozen=True)
class Requirement:
    """Bytes a port's binding must provide and the alignment of its address."""

    nbytes: int
    alignment: int


@dataclass(frozen=True)
class QParams:
    """Quantization parameters (``sk.choose_qparams`` makes them): ``scale``
    (binary32, for ``sk.dequantize``), ``zero_point`` (int) and
    ``multiplier`` (binary32, the reciprocal of ``scale``, for
    ``sk.quantize``); NumPy arrays along ``axis`` (float32, int32, float32)
    when ``axis`` is not None, of the blocks' shape (the tensor's, with
    ``ceil(shape[axis] / block_size)`` along ``axis``) when ``block_size``
    is not None (None: per tensor or per axis).  ``dtype`` is the storage
    type whose levels they were chosen for (INT8 unless ``choose_qparams``
    was given another).  ``sk.quantize(x, qp)`` and ``sk.dequantize(q, qp)``
    take the whole object."""

    scale: Any
    zero_point: Any
    multiplier: Any
    axis: Optional[int] = None
    symmetric: bool = False
    block_size: Optional[int] = None
    dtype: DType = DType.INT8

    def __repr__(self) -> str:
        blocks = "" if self.block_size is None else f", block_size={self.block_size}"
        dtype = "" if self.dtype is DType.INT8 else f", dtype={self.dtype!r}"
        return (f"QParams(scale={describe(self.scale)}, zero_point={describe(self.zero_point)}, "
                f"multiplier={describe(self.multiplier)}, axis={self.axis}{blocks}, symmetric={self.symmetric}"
                f"{dtype})")


_SHOWN = 3      # entries of an array or sequence a message shows
_LONGEST = 100  # characters of any other value's repr a message shows


def describe(value: object) -> str:
    """A caller's value for a message, bounded whatever its size: an array
    by shape, dtype and first entries, a long list or tuple by length and
    first entries, anything else by its repr cut to 100 characters.  Formatted
    in the default FP state (float reprs under the caller's traps would raise
    SIGFPE)."""
    with default_state():
        return _describe(value)


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray) and value.ndim > 0:
        first = ", ".join(repr(v) for v in value.reshape(-1)[:_SHOWN].tolist())
        more = ", ..." if value.size > _SHOWN else ""
        return f"array of shape {value.shape} and dtype {value.dtype} [{first}{more}]"
    if isinstance(value, (list, tuple)) and len(value) > _SHOWN:
        first = ", ".join(_describe(v) for v in value[:_SHOWN])
        return f"{type(value).__name__} of {len(value)} entries [{first}, ...]"
    text = repr(value)
    return text if len(text) <= _LONGEST else text[:_LONGEST - 3] + "..."
