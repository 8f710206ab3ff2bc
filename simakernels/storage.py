"""What a binding may be (a binding is storage): the NumPy dtype of
each tensor dtype, and which arrays are the raw storage of a port.

Raw storage is taken as it is: bytes-like objects, host views, void arrays
and arrays of unsigned integers (``uint8`` for any port, or the unsigned
integer as wide as the port's element).  An array of the port's own dtype is
its storage too.  An array of any other number format (``float64`` bound to
a FLOAT32 port, ``float16`` or ``int16`` to a BFLOAT16 port) is refused:
reinterpreting its bytes would compute on garbage.

Every layer reads the dtype map here (the array layer, the EV74 device model
and the Dask layer name dtypes the same way)."""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Union

import ml_dtypes
import numpy as np
import numpy.typing as npt

from .core import DType, Error, ErrorCode, KernelError, describe

NUMPY: Dict[DType, "np.dtype[Any]"] = {
    DType.INT8: np.dtype(np.int8),
    DType.UINT8: np.dtype(np.uint8),
    DType.INT16: np.dtype(np.int16),
    DType.UINT16: np.dtype(np.uint16),
    DType.INT32: np.dtype(np.int32),
    DType.UINT32: np.dtype(np.uint32),
    DType.FLOAT16: np.dtype(np.float16),
    DType.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DType.FLOAT32: np.dtype(np.float32),
    # one element per byte, its low bits (ml_dtypes' own image of them)
    DType.INT4: np.dtype(ml_dtypes.int4),
    DType.UINT4: np.dtype(ml_dtypes.uint4),
    DType.INT2: np.dtype(ml_dtypes.int2),
    DType.UINT2: np.dtype(ml_dtypes.uint2),
}
FROM_NUMPY: Dict["np.dtype[Any]", DType] = {v: k for k, v in NUMPY.items()}
SUPPORTED = ", ".join(str(d) for d in NUMPY.values())  # for messages

#: What the array functions take as a dtype: a :class:`DType`, a NumPy
#: dtype or scalar type (``ml_dtypes.bfloat16`` for BF16), or a name.
DTypeSpec = Union[DType, npt.DTypeLike]


def numpy_dtype(dtype: DType) -> "np.dtype[Any]":
    """The NumPy dtype that stores ``dtype`` (BF16 is ``ml_dtypes.bfloat16``)."""
    return NUMPY[dtype]


def to_dtype(dtype: Any) -> DType:
    """A :class:`DType` from a DType, a NumPy dtype, a scalar type or a name."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in DType.__members__:
        return DType[dtype.upper()]
    try:
        found = FROM_NUMPY.get(np.dtype(dtype))
    except TypeError:
        found = None
    if found is None:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE,
                                f"no simakernels dtype for {describe(dtype)}; supported: {SUPPORTED}"))
    return found


_UNSIGNED: Dict[int, "np.dtype[Any]"] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32)}


def accepted(dtype: DType) -> FrozenSet["np.dtype[Any]"]:
    """The array dtypes (besides void) that a port of ``dtype`` takes."""
    return frozenset({NUMPY[dtype], _UNSIGNED[1], _UNSIGNED[dtype.itemsize]})


def error(obj: Any, dtype: DType, name: str) -> Optional[Error]:
    """INVALID_BINDING for an array that is not ``dtype``'s storage."""
    if not isinstance(obj, np.ndarray):
        return None
    found = obj.dtype
    if found in accepted(dtype) or found.type is np.void:
        return None
    return Error(
        ErrorCode.INVALID_BINDING,
        f"{name}: a {found} array is not {dtype.name} storage; bind a {NUMPY[dtype]} array or raw storage "
        f"(bytes-like, a host view, a uint8 or {_UNSIGNED[dtype.itemsize]} array): its bytes are never reinterpreted",
    )
