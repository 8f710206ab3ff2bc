"""The ten Hurray storage types, and how sub-byte elements sit in bytes.

Written from the specification text, not from the package:

* Hurray, "Valid Storage Types": int8 (0x10), uint8 (0x11), int16 (0x12),
  uint16 (0x13), int32 (0x14), uint32 (0x15), int4 (0x48), uint4 (0x49),
  int2 (0x4A), uint2 (0x4B); "zero_point MUST lie within the representable
  range of the storage type".  The range of a b-bit type is the two's
  complement one, [-2^(b-1), 2^(b-1) - 1], or the unsigned one,
  [0, 2^b - 1].
* API.md, "Integer formats beyond INT8": sub-byte ports (INT4, UINT4, INT2,
  UINT2) are packed, "elements in C order, element 0 in the least
  significant bits of byte 0 (Hurray's and ONNX's order), ceil(n * bits / 8)
  bytes.  An output's unused high bits in its last byte are preserved, never
  written."  Read literally: the tensor is one little-endian bit string,
  element i occupying bits [i * bits, (i + 1) * bits) of it.
* The one-element-per-byte image (ml_dtypes' int4 / uint4 / int2 / uint2
  arrays, the design of issue 32): the byte holds the element's low ``bits``
  bits (its two's complement pattern for signed types) and zeros above;
  reading one, only the low ``bits`` bits count.

:func:`pack` and :func:`unpack` build and read that bit string as one Python
integer (``int.to_bytes`` / ``int.from_bytes``, little-endian), element by
element: no table, no vector trick.  NumPy is not used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Sequence

__all__ = [
    "StorageType",
    "STORAGE_TYPES",
    "BY_NAME",
    "QUANT_OUTPUTS",
    "SUB_BYTE",
    "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT4", "UINT4", "INT2", "UINT2",
    "storage_type",
    "field",
    "from_field",
    "packed_size",
    "pack",
    "unpack",
    "unpacked_image",
    "from_unpacked_image",
    "little_endian",
    "from_little_endian",
]


@dataclass(frozen=True)
class StorageType:
    """One storage type: its name (lower case, as the Hurray text spells it),
    its Hurray type tag, its width in bits and its signedness."""

    name: str
    tag: int
    bits: int
    signed: bool

    @property
    def lo(self) -> int:
        """Least representable value."""
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        """Greatest representable value."""
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def mask(self) -> int:
        """2^bits - 1: the field of one element."""
        return (1 << self.bits) - 1

    @property
    def sub_byte(self) -> bool:
        return self.bits < 8

    @property
    def nbytes(self) -> int:
        """Bytes of one element of a byte-or-wider type (sub-byte types: 1,
        their one-element-per-byte image)."""
        return max(1, self.bits // 8)

    def contains(self, value: int) -> bool:
        return self.lo <= value <= self.hi

    def values(self) -> range:
        """Every representable value, least first."""
        return range(self.lo, self.hi + 1)

    def __repr__(self) -> str:  # short, for test ids and messages
        return f"StorageType({self.name})"


# The Hurray list, in its order.
INT8 = StorageType("int8", 0x10, 8, True)
UINT8 = StorageType("uint8", 0x11, 8, False)
INT16 = StorageType("int16", 0x12, 16, True)
UINT16 = StorageType("uint16", 0x13, 16, False)
INT32 = StorageType("int32", 0x14, 32, True)
UINT32 = StorageType("uint32", 0x15, 32, False)
INT4 = StorageType("int4", 0x48, 4, True)
UINT4 = StorageType("uint4", 0x49, 4, False)
INT2 = StorageType("int2", 0x4A, 2, True)
UINT2 = StorageType("uint2", 0x4B, 2, False)

STORAGE_TYPES = (INT8, UINT8, INT16, UINT16, INT32, UINT32, INT4, UINT4, INT2, UINT2)
BY_NAME = {t.name: t for t in STORAGE_TYPES}
# affine_quant writes every type but the two 32-bit ones (API.md's table).
QUANT_OUTPUTS = tuple(t for t in STORAGE_TYPES if t.bits != 32)
SUB_BYTE = tuple(t for t in STORAGE_TYPES if t.sub_byte)


def storage_type(which) -> StorageType:
    """A :class:`StorageType` from itself, its name in any case, or anything
    whose ``.name`` is one (an enum member such as ``DType.INT4``)."""
    if isinstance(which, StorageType):
        return which
    name = getattr(which, "name", which)
    if isinstance(name, str) and name.lower() in BY_NAME:
        return BY_NAME[name.lower()]
    raise ValueError(f"{which!r} is not one of the storage types {tuple(BY_NAME)}")


def field(value: int, st: StorageType) -> int:
    """The ``bits``-bit pattern of a representable value (two's complement
    for signed types): what one element occupies."""
    st = storage_type(st)
    if not st.contains(value):
        raise ValueError(f"{value} is outside {st.name}'s range [{st.lo}, {st.hi}]")
    return value % (1 << st.bits)


def from_field(pattern: int, st: StorageType) -> int:
    """The value of a ``bits``-bit pattern: the pattern itself for unsigned
    types; minus 2^bits when the top bit is set for signed ones."""
    st = storage_type(st)
    if not 0 <= pattern <= st.mask:
        raise ValueError(f"{pattern:#x} is not a {st.bits}-bit pattern")
    if st.signed and pattern >> (st.bits - 1):
        return pattern - (1 << st.bits)
    return pattern


def packed_size(count: int, bits: int) -> int:
    """ceil(count * bits / 8)."""
    if count < 0 or bits < 1:
        raise ValueError("count must be >= 0 and bits >= 1")
    return -(-count * bits // 8)


def _bits_of(which) -> int:
    if isinstance(which, int) and not isinstance(which, bool):
        return which
    return storage_type(which).bits


def pack(values: Iterable[int], which, previous: int = 0) -> bytes:
    """The packed bytes of ``values`` (C order) for a storage type (or a bit
    width): element i's pattern in bits [i * bits, (i + 1) * bits) of a
    little-endian bit string of ceil(n * bits / 8) bytes.

    ``previous`` is the byte that was at the last byte's place before: its
    bits above the last element (when n * bits is not a multiple of 8) are
    kept.  With a bit width instead of a type, values are taken modulo
    2^bits (any sign); with a type, they must lie in its range."""
    values = list(values)
    if isinstance(which, int) and not isinstance(which, bool):
        bits = which
        patterns = [v % (1 << bits) for v in values]
    else:
        st = storage_type(which)
        bits = st.bits
        patterns = [field(v, st) for v in values]
    if not 0 <= previous <= 0xFF:
        raise ValueError(f"previous byte {previous!r} is not a byte")
    nbytes = packed_size(len(patterns), bits)
    stream = 0
    for i, p in enumerate(patterns):
        stream |= p << (i * bits)
    used = len(patterns) * bits            # bits of the stream the elements occupy
    spare = nbytes * 8 - used              # high bits of the last byte no element owns
    if spare:
        kept = previous >> (8 - spare)     # the previous byte's top `spare` bits ...
        stream |= kept << used             # ... in the same places
    return stream.to_bytes(nbytes, "little")


def unpack(data: bytes, count: int, which) -> List[int]:
    """The ``count`` values packed in ``data`` (sign-extended for signed
    types); bytes past ceil(count * bits / 8) and the spare high bits of the
    last one are ignored."""
    st = storage_type(which)
    nbytes = packed_size(count, st.bits)
    if len(data) < nbytes:
        raise ValueError(f"{count} {st.name} elements need {nbytes} bytes, got {len(data)}")
    stream = int.from_bytes(bytes(data[:nbytes]), "little")
    return [from_field((stream >> (i * st.bits)) & st.mask, st) for i in range(count)]


def unpacked_image(values: Iterable[int], which) -> bytes:
    """One byte per element: its pattern in the low ``bits`` bits, zeros
    above (int4 -8 is 0x08, -1 is 0x0f; uint2 3 is 0x03)."""
    st = storage_type(which)
    if not st.sub_byte:
        raise ValueError(f"{st.name} is not a sub-byte type")
    return bytes(field(v, st) for v in values)


def from_unpacked_image(data: Sequence[int], which) -> List[int]:
    """The values of a one-element-per-byte image: each byte's low ``bits``
    bits (sign-extended for signed types); the bits above do not count."""
    st = storage_type(which)
    if not st.sub_byte:
        raise ValueError(f"{st.name} is not a sub-byte type")
    return [from_field(int(b) & st.mask, st) for b in data]


def little_endian(values: Iterable[int], which) -> bytes:
    """The storage bytes of a byte-or-wider type: each element's two's
    complement (or unsigned) pattern, little-endian (Hurray: "All
    multi-byte fields MUST be encoded in little-endian byte order")."""
    st = storage_type(which)
    if st.sub_byte:
        raise ValueError(f"{st.name} is packed: use pack()")
    return b"".join(field(v, st).to_bytes(st.bits // 8, "little") for v in values)


def from_little_endian(data: bytes, which) -> List[int]:
    st = storage_type(which)
    if st.sub_byte:
        raise ValueError(f"{st.name} is packed: use unpack()")
    width = st.bits // 8
    if len(data) % width:
        raise ValueError(f"{len(data)} bytes are not whole {st.name} elements")
    return [from_field(int.from_bytes(bytes(data[i:i + width]), "little"), st) for i in range(0, len(data), width)]
