"""The Hurray per-tensor affine quantization descriptor (scheme tag 0x01)
and its dequantization, ``x = scale * (q - zero_point)``.

Wire format, 16 bytes little-endian: tag u8 = 0x01, version u8 = 0x01,
flags u16 = 0, scale binary32 (finite, nonzero; negative allowed), zero point
i32 (within the storage type's range), four reserved zero bytes.

Arithmetic: ``q - zero_point`` in signed 32-bit integer arithmetic with
two's-complement wrap where the exact difference does not fit (only INT32 and
UINT32 storage can reach it: e.g. UINT32 q = 0xFFFFFFFF with zero point 0
gives -1, and INT32 q = 2147483647 with zero point -1 gives -2147483648),
then conversion to binary32 (nearest-even), then multiplication by the scale
in binary32 (nearest-even).
"""
from __future__ import annotations

import builtins
import enum
import struct
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, SupportsIndex, Tuple

import numpy as np

from .. import _binary32, _plans, _routes
from .._ffi import lib
from ..core import Contiguous, DType, Error, ErrorCode, KernelError, TensorSpec, describe, type_name
from ..fenv import default_state, describe_unmet
from ..a65 import _backend
from ..ops import affine_dequant as ops_affine_dequant
from ..ops import dequant as ops_dequant

__all__ = ["TAG", "VERSION", "SIZE", "HurrayFormatError", "StorageType", "PerTensorAffine", "dequantize", "quantize"]


def __dir__() -> List[str]:
    """The public names only (``dir()`` would list the imports too)."""
    return list(__all__)


TAG, VERSION, SIZE = 0x01, 0x01, 16
_LAYOUT = struct.Struct("<BBHIi4s")
assert _LAYOUT.size == SIZE


class HurrayFormatError(ValueError):
    """A descriptor that violates the format; the message names the field."""


class StorageType(enum.IntEnum):
    """Valid storage types (tensor descriptor type tags)."""

    INT8 = 0x10
    UINT8 = 0x11
    INT16 = 0x12
    UINT16 = 0x13
    INT32 = 0x14
    UINT32 = 0x15
    INT4 = 0x48
    UINT4 = 0x49
    INT2 = 0x4A
    UINT2 = 0x4B

    @property
    def bits(self) -> int:
        return _BITS[self]

    @property
    def signed(self) -> bool:
        return self.name.startswith("INT")

    @property
    def range(self) -> range:
        """The storage type's representable values (UINT32: [0, 2**32 - 1])."""
        if self.signed:
            return range(-(1 << (self.bits - 1)), 1 << (self.bits - 1))
        return range(0, 1 << self.bits)

    @property
    def zero_points(self) -> builtins.range:  # (``range`` here is the property above)
        """The zero points a descriptor can carry for this storage type: its
        range (the specification's rule) within the field's int32, which
        only narrows UINT32, to [0, 2**31 - 1]."""
        return range(max(self.range.start, _INT32.start), min(self.range.stop, _INT32.stop))


_INT32 = range(-(1 << 31), 1 << 31)
# The NumPy dtype of one stored element (little-endian, as the format stores
# it); sub-byte types have none, their packed bytes come as uint8.
_ELEMENT = {
    StorageType.INT8: np.dtype("i1"), StorageType.UINT8: np.dtype("u1"), StorageType.INT16: np.dtype("<i2"),
    StorageType.UINT16: np.dtype("<u2"), StorageType.INT32: np.dtype("<i4"), StorageType.UINT32: np.dtype("<u4"),
}
_NATIVE = {s: getattr(lib, f"SK_HURRAY_{s.name}") for s in StorageType}
_BITS: Dict[StorageType, int] = {s: int(lib.sk_hurray_storage_bits(code)) for s, code in _NATIVE.items()}


def _storage(storage: Any) -> StorageType:
    tag = _binary32.as_int(storage)  # Python or NumPy integers; not 16.0, not True
    if isinstance(tag, bool) or not isinstance(tag, int):
        raise HurrayFormatError(f"storage type {describe(storage)} is not an integer tag")
    try:
        return StorageType(tag)
    except ValueError:
        raise HurrayFormatError(
            f"storage type {describe(storage)} is not one of the valid tags "
            f"({', '.join(f'{s.name} {s.value:#04x}' for s in StorageType)})"
        ) from None


def _check_zero_point(zero_point: Any, kind: Optional[StorageType]) -> None:
    """An int32 (the field's type), and one of ``kind``'s zero points when given."""
    if isinstance(zero_point, bool) or not isinstance(zero_point, int) or zero_point not in _INT32:
        raise HurrayFormatError(f"zero_point (offset 8): {describe(zero_point)} is not an int32")
    if kind is not None and zero_point not in kind.zero_points:
        raise HurrayFormatError(
            f"zero_point (offset 8): {zero_point} is outside the {kind.name} range "
            f"[{kind.zero_points.start}, {kind.zero_points.stop - 1}]"
        )


_NOT_GIVEN = object()


def _check_scale(bits: int, given: Any = _NOT_GIVEN) -> None:
    """Finite and nonzero; ``given`` is the caller's value (from the
    constructor), shown where the bits alone would hide a rounding to binary32."""
    if (bits >> 23) & 0xFF == 0xFF:
        raise HurrayFormatError(f"scale (offset 4): bits {bits:#010x} are not finite{_as_given(given)}")
    if bits & 0x7FFFFFFF == 0:
        raise HurrayFormatError(f"scale (offset 4): bits {bits:#010x} are zero{_as_given(given)}")


def _as_given(given: Any) -> str:
    return "" if given is _NOT_GIVEN else f" (scale={describe(given)} as binary32)"


@dataclass(frozen=True)
class PerTensorAffine:
    """One ``scale`` (binary32) and ``zero_point`` (int32) for a tensor.

    The constructor refuses (HurrayFormatError) what the descriptor cannot
    hold: a scale that is not a real number, or whose binary32 value is not
    finite or is zero (1e-50 rounds to 0), and a zero point that is not an
    int32 integer.  The storage type's zero-point range is checked where the
    storage type is known (``decode``, ``dequantize``)."""

    scale: Any
    zero_point: int = 0

    def __post_init__(self) -> None:
        given = self.scale
        if not _binary32.is_real(given):
            raise HurrayFormatError(f"scale: {describe(given)} ({type_name(given)}) must be {_binary32.REAL_NUMBER}")
        bits = _binary32.bits_of(given)
        _check_scale(bits, given)
        zero_point = _binary32.as_int(self.zero_point)
        _check_zero_point(zero_point, None)
        object.__setattr__(self, "scale", _binary32.from_bits(bits))
        object.__setattr__(self, "zero_point", zero_point)

    @property
    def scale_bits(self) -> int:
        return _binary32.bits_of(self.scale)

    def encode(self) -> bytes:
        """The 16-byte descriptor (the constructor has validated both fields)."""
        return _LAYOUT.pack(TAG, VERSION, 0, self.scale_bits, self.zero_point, bytes(4))

    @classmethod
    def decode(cls, data: Any, storage: SupportsIndex) -> "PerTensorAffine":
        """Reads a descriptor for a tensor of ``storage`` type, rejecting
        every violation with a :class:`HurrayFormatError` naming the field."""
        kind = _storage(storage)
        try:
            raw = memoryview(data).tobytes()  # bytes-like only: bytes(16) would be sixteen zeros
        except TypeError:
            raise HurrayFormatError(
                f"data must be bytes-like (the 16 descriptor bytes), got {type_name(data)}"
            ) from None
        if len(raw) != SIZE:
            raise HurrayFormatError(f"length: {len(raw)} bytes, expected {SIZE}")
        tag, version, flags, scale_bits, zero_point, reserved = _LAYOUT.unpack(raw)
        if tag != TAG:
            raise HurrayFormatError(f"scheme_tag (offset 0): {tag:#04x}, expected {TAG:#04x}")
        if version != VERSION:
            raise HurrayFormatError(f"scheme_version (offset 1): {version:#04x}, expected {VERSION:#04x}")
        if flags:
            raise HurrayFormatError(f"flags (offset 2): {flags:#06x}, expected 0x0000")
        _check_scale(scale_bits)
        _check_zero_point(zero_point, kind)
        if reserved != bytes(4):
            raise HurrayFormatError(f"_reserved (offset 12): {reserved.hex()}, expected 00000000")
        return cls(_binary32.from_bits(scale_bits), zero_point)

    def to_dequant_params(self, storage: SupportsIndex = StorageType.INT8) -> ops_dequant.Params:
        """The equivalent ``sk.ops.dequant.Params``: only for INT8 storage
        with a positive scale, where Dequant's staged expression equals the
        format's formula (both are exact for INT8-range differences)."""
        kind = _storage(storage)
        if kind is not StorageType.INT8:
            raise HurrayFormatError(f"the Dequant bridge takes INT8 storage only, not {kind.name}")
        _check_zero_point(self.zero_point, kind)
        if self.scale_bits >> 31:
            raise HurrayFormatError(f"the Dequant bridge needs a positive scale, got "
                                    f"{_binary32.text(self.scale_bits)}")
        return ops_dequant.Params.from_bits(self.scale_bits, self.zero_point)


def _element_count(nbytes: int, kind: StorageType, count: Optional[int]) -> int:
    per_byte = 8 // kind.bits if kind.bits < 8 else 0
    if count is None:
        if kind.bits >= 8:
            if nbytes % (kind.bits // 8):
                raise ValueError(f"{nbytes} bytes is not a whole number of {kind.name} elements")
            return nbytes // (kind.bits // 8)
        return nbytes * per_byte
    count = _binary32.as_int(count)  # Python or NumPy integers; not 3.0, not True
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a nonnegative int, got {describe(count)}")
    needed = -(-count * kind.bits // 8)
    if needed > nbytes:
        raise ValueError(f"{count} {kind.name} elements need {needed} bytes, data has {nbytes}")
    return count



def _storage_bytes(data: Any, kind: StorageType) -> np.ndarray:
    """``data``'s bytes as a flat uint8 array, without a copy.  ``data`` is
    storage: a C-contiguous buffer whose elements are bytes (bytes,
    bytearray, mmap, uint8 arrays) or ``kind``'s own elements (an int16
    array for INT16); an array of another number format (float32 for INT8)
    is refused, never reinterpreted."""
    if isinstance(data, np.ndarray):
        array = data
    else:
        try:
            array = np.asarray(memoryview(data))  # a buffer, typed by its format ('B' for bytes)
        except (TypeError, ValueError, NotImplementedError):
            raise TypeError(f"data must be a C-contiguous buffer (bytes-like or NumPy array), got "
                            f"{type_name(data)}") from None
    own = _ELEMENT.get(kind, np.dtype(np.uint8))
    if array.dtype not in (np.dtype(np.uint8), own):
        raise TypeError(f"data: dtype {array.dtype} is not {kind.name} storage; data must be bytes-like, "
                        f"a uint8 array" + ("" if own == np.uint8 else f" or an array of dtype {own}"))
    if not array.flags.c_contiguous:
        raise ValueError(f"data must be C-contiguous (bytes-like or a C-contiguous NumPy array), got a "
                         f"non-contiguous {array.dtype} array of shape {array.shape}, strides {array.strides}")
    return array.reshape(-1).view(np.uint8)


def _describe(out: object) -> str:
    """What a refused ``out`` is, for the message."""
    if not isinstance(out, np.ndarray):
        return type_name(out)
    flags = ("" if out.flags.writeable else "read-only ") + ("" if out.flags.c_contiguous else "non-contiguous ")
    return f"a {flags}{out.dtype} array of shape {out.shape}"


def _environment_error() -> KernelError:
    """The refusal of the calling thread's FP state."""
    unmet = lib.sk_fenv_unmet(lib.sk_operation_fenv_needs(lib.SK_OP_HURRAY))
    return KernelError(Error(ErrorCode.UNSUPPORTED_ENVIRONMENT,
                             f"hurray.dequantize: {describe_unmet(unmet)}; nothing was written"))


def dequantize(data: Any, descriptor: PerTensorAffine, storage: SupportsIndex, count: Optional[int] = None,
               out: Optional[np.ndarray] = None) -> np.ndarray:
    """float32 values of ``count`` elements (default: all the data holds)
    stored as ``storage`` in ``data`` (little-endian; sub-byte types packed
    little-end first).  ``data`` is a C-contiguous buffer: bytes-like, a
    uint8 array or an array of the storage type's own dtype (int16 for
    INT16; uint8 only for sub-byte types), of any shape, read in C order;
    anything else is a TypeError (ValueError if not C-contiguous).  The
    same bits as ``sk.ops.affine_dequant`` (the same native engine)."""
    kind = _storage(storage)
    if not isinstance(descriptor, PerTensorAffine):
        raise TypeError(f"descriptor must be a PerTensorAffine, got {type_name(descriptor)}")
    _check_zero_point(descriptor.zero_point, kind)
    raw = _storage_bytes(data, kind)
    n = _element_count(raw.size, kind, count)
    if out is None:
        out = np.empty(n, np.float32)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (n,)
              and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writable contiguous float32 array of shape ({n},), got {_describe(out)}")
    plan = _plans.cached(("hurray", kind, n, descriptor.scale_bits, descriptor.zero_point,
                          _routes.forced_route_key()), lambda: _plan(kind, n, descriptor))
    if isinstance(plan, Error):
        raise KernelError(plan)
    data = raw[:-(-n * kind.bits // 8)]
    if data.ctypes.data % min(kind.bits // 8 or 1, 4):  # storage is read at any address: an aligned copy
        data = data.copy()
    status = _backend.execute_packed(plan, data, out, 0)
    if status is not None:
        raise _environment_error() if status.code is ErrorCode.UNSUPPORTED_ENVIRONMENT else KernelError(status)
    return out


def _plan(kind: StorageType, n: int, descriptor: PerTensorAffine) -> Any:
    """The A65 affine_dequant plan of ``n`` elements of ``kind`` storage
    (packed sub-byte) to FLOAT32 with the descriptor's parameters."""
    from .. import a65

    dtype = DType[kind.name]
    return a65.affine_dequant.check_inference(ops_affine_dequant.Request(
        [TensorSpec((n,), dtype, Contiguous())], [TensorSpec((n,), DType.FLOAT32, Contiguous())],
        ops_affine_dequant.Params.from_bits(descriptor.scale_bits, descriptor.zero_point)))


def quantize(x: Any, storage: SupportsIndex, scale: Any, zero_point: int = 0,
             rounding: Any = "nearest_even") -> Tuple[bytes, PerTensorAffine]:
    """A Hurray tensor of ``x`` (a float32, bfloat16 or float16 array, read
    in C order): its data, stored as ``storage`` (little-endian; sub-byte
    types packed, element 0 in the least significant bits of byte 0), and
    its descriptor.  The elements are ``sk.quantize(x, multiplier,
    zero_point, dtype=..., rounding=rounding)`` with ``multiplier`` the
    binary32 reciprocal of the binary32 ``scale`` (``np.float32(1) /
    np.float32(scale)``, nearest-even: as ``sk.choose_qparams`` gives them),
    so :func:`dequantize` maps them back within the quantization's error.
    The scale must be finite, positive (a quantization multiplies by its
    reciprocal, which must be finite too) and the zero point in the
    storage type's range; INT32 and UINT32 storage is refused (no
    quantization writes them): HurrayFormatError."""
    from ..arrays import quantize as quantize_array  # (the array layer imports the formats)

    kind = _storage(storage)
    if kind.bits > 16:
        raise HurrayFormatError(f"quantize writes 8-, 16- and sub-byte storage, not {kind.name}")
    descriptor = PerTensorAffine(scale, zero_point)
    _check_zero_point(descriptor.zero_point, kind)
    bits = descriptor.scale_bits
    with default_state():
        multiplier = np.float32(1) / np.float32(descriptor.scale)
    if bits >> 31 or not np.isfinite(multiplier):
        raise HurrayFormatError(f"scale (offset 4): {_binary32.text(bits)} (bits {bits:#010x}) must be positive with "
                                f"a finite binary32 reciprocal to quantize with")
    dtype = DType[kind.name]
    q = quantize_array(x, multiplier, descriptor.zero_point, dtype=dtype, packed=dtype.sub_byte, rounding=rounding)
    data = q.data if dtype.sub_byte else q.astype(q.dtype.newbyteorder("<"), copy=False)
    return np.ascontiguousarray(data).tobytes(), descriptor
