"""Packed sub-byte tensors: INT4, UINT4, INT2 and UINT2 elements in C order,
element 0 in the least significant bits of byte 0 (Hurray's and ONNX's
order), ``ceil(n * bits / 8)`` bytes.  Packing and unpacking run natively
(``sk_pack`` / ``sk_unpack``)."""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from . import storage
from ._ffi import ffi, lib
from .core import DType, Error, ErrorCode, KernelError, describe, type_name
from .ops.affine_dequant import STORAGE

SUB_BYTE = tuple(d for d in STORAGE if d.sub_byte)


def packed_nbytes(dtype: DType, count: int) -> int:
    """Bytes of ``count`` packed elements of ``dtype``: ``ceil(count * bits / 8)``."""
    return -(-count * dtype.bits // 8)


def _sub_byte(dtype: Any, name: str) -> DType:
    found = storage.to_dtype(dtype)
    if found not in SUB_BYTE:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"{name}: {found.name} is not a packed sub-byte type "
                                                             f"(INT4, UINT4, INT2, UINT2)"))
    return found


class Packed:
    """A packed sub-byte tensor: ``data`` (a C-contiguous uint8 array of
    exactly ``ceil(prod(shape) * dtype.bits / 8)`` bytes), ``dtype`` (an
    ``sk.DType`` INT4, UINT4, INT2 or UINT2, or its name or ml_dtypes type)
    and ``shape``.  ``data`` is kept as given (not copied): the array layer
    writes packed outputs into it in place; the unused high bits of its
    last byte keep their value."""

    __slots__ = ("data", "dtype", "shape")

    def __init__(self, data: Any, dtype: Any, shape: Any) -> None:
        kind = _sub_byte(dtype, "Packed dtype")
        dims = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if any(d < 0 for d in dims) or len(dims) > 6:
            raise KernelError(Error(ErrorCode.INVALID_SHAPE, f"Packed shape {dims}: extents must be >= 0, rank <= 6"))
        if not (isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.flags.c_contiguous):
            raise KernelError(Error(ErrorCode.INVALID_BINDING, f"Packed data must be a C-contiguous uint8 array, got "
                                                               f"{describe(data)} ({type_name(data)})"))
        need = packed_nbytes(kind, int(np.prod(dims, dtype=object)))
        if data.size != need:
            raise KernelError(Error(ErrorCode.INVALID_BINDING, f"Packed data has {data.size} bytes; {dims} "
                                                               f"{kind.name} elements take {need}"))
        self.data: np.ndarray = data
        self.dtype: DType = kind
        self.shape: Tuple[int, ...] = dims

    @classmethod
    def wrap(cls, data: np.ndarray, dtype: DType, shape: Tuple[int, ...]) -> "Packed":
        """A packed tensor of values already checked (the array layer's
        new outputs, of a plan's admitted shape and bytes)."""
        made = cls.__new__(cls)
        made.data, made.dtype, made.shape = data, dtype, shape
        return made

    @classmethod
    def empty(cls, shape: Any, dtype: Any) -> "Packed":
        """A new packed tensor (its bytes zero)."""
        kind = _sub_byte(dtype, "Packed dtype")
        dims = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        return cls(np.zeros(packed_nbytes(kind, int(np.prod(dims, dtype=object))), np.uint8), kind, dims)

    @property
    def size(self) -> int:
        """The element count."""
        return int(np.prod(self.shape, dtype=np.int64))

    def unpack(self) -> np.ndarray:
        """The elements as an ml_dtypes int4/uint4/int2/uint2 array of
        ``shape`` (one element per byte)."""
        out = np.empty(self.shape, storage.NUMPY[self.dtype])
        _native(lib.sk_unpack, self.dtype, self.data, out, self.size)
        return out

    def __repr__(self) -> str:
        return f"Packed(dtype={self.dtype!r}, shape={self.shape}, nbytes={self.data.size})"


def pack(a: Any) -> Packed:
    """A :class:`Packed` tensor of an ml_dtypes int4, uint4, int2 or uint2
    array (any layout; read in C order)."""
    if not isinstance(a, np.ndarray):
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"pack takes an ml_dtypes int4/uint4/int2/uint2 array, "
                                                             f"got {describe(a)} ({type_name(a)})"))
    kind = storage.FROM_NUMPY.get(a.dtype)
    if kind not in SUB_BYTE:
        raise KernelError(Error(ErrorCode.UNSUPPORTED_DTYPE, f"pack takes an ml_dtypes int4/uint4/int2/uint2 array, "
                                                             f"got dtype {a.dtype}"))
    assert kind is not None
    source = np.ascontiguousarray(a)
    result = Packed.empty(a.shape, kind)
    _native(lib.sk_pack, kind, source, result.data, source.size)
    return result


def _native(entry: Any, kind: DType, src: np.ndarray, dst: np.ndarray, count: int) -> None:
    s, d = ffi.from_buffer(src.view(np.uint8)), ffi.from_buffer(dst.view(np.uint8), require_writable=True)
    status = entry(STORAGE[kind], s, len(s), d, len(d), count)
    if status != lib.SK_OK:
        raise KernelError(Error(ErrorCode(status), f"packing {count} {kind.name} elements: the native core refused "
                                                   f"the buffers (status {status})"))
