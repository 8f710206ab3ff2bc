"""The 224-byte little-endian EV74 Quant descriptor: the wire layout (one
module-level ``struct.Struct``), checked against the C decoder's offsets at
import, and the packing of an admitted plan."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Tuple

from .._ffi import lib

# magic, version, length, conversion, rank, flags, reserved,
# input/output address slots, count, input/output spans,
# 6 extents, 6 input strides, 6 output strides,
# multiplier bits, zero point, rounding code, reserved.
LAYOUT = struct.Struct("<IHHIIII" "QQ" "QQQ" "6Q" "6Q" "6Q" "IiII")
SIZE = LAYOUT.size
MAGIC = lib.SK_EV74_MAGIC
VERSION = lib.SK_EV74_VERSION
MAX_RANK = lib.SK_EV74_MAX_RANK
FLAG_SCALAR = lib.SK_EV74_FLAG_SCALAR
ADDRESS_SLOTS = struct.Struct("<QQ")  # patched in place by binding

_OFFSETS = {  # field -> (offset by this struct, offset the C decoder reads)
    "magic": (struct.calcsize("<"), lib.SK_EV74_OFF_MAGIC),
    "version": (struct.calcsize("<I"), lib.SK_EV74_OFF_VERSION),
    "length": (struct.calcsize("<IH"), lib.SK_EV74_OFF_LENGTH),
    "conversion": (struct.calcsize("<IHH"), lib.SK_EV74_OFF_CONVERSION),
    "rank": (struct.calcsize("<IHHI"), lib.SK_EV74_OFF_RANK),
    "flags": (struct.calcsize("<IHHII"), lib.SK_EV74_OFF_FLAGS),
    "reserved0": (struct.calcsize("<IHHIII"), lib.SK_EV74_OFF_RESERVED0),
    "input_address": (struct.calcsize("<IHHIIII"), lib.SK_EV74_OFF_INPUT_ADDRESS),
    "output_address": (struct.calcsize("<IHHIIIIQ"), lib.SK_EV74_OFF_OUTPUT_ADDRESS),
    "count": (struct.calcsize("<IHHIIIIQQ"), lib.SK_EV74_OFF_COUNT),
    "input_span": (struct.calcsize("<IHHIIIIQQQ"), lib.SK_EV74_OFF_INPUT_SPAN),
    "output_span": (struct.calcsize("<IHHIIIIQQQQ"), lib.SK_EV74_OFF_OUTPUT_SPAN),
    "extents": (struct.calcsize("<IHHIIIIQQQQQ"), lib.SK_EV74_OFF_EXTENTS),
    "input_strides": (struct.calcsize("<IHHIIIIQQQQQ6Q"), lib.SK_EV74_OFF_INPUT_STRIDES),
    "output_strides": (struct.calcsize("<IHHIIIIQQQQQ12Q"), lib.SK_EV74_OFF_OUTPUT_STRIDES),
    "multiplier": (struct.calcsize("<IHHIIIIQQQQQ18Q"), lib.SK_EV74_OFF_MULTIPLIER),
    "zero_point": (struct.calcsize("<IHHIIIIQQQQQ18QI"), lib.SK_EV74_OFF_ZERO_POINT),
    "rounding": (struct.calcsize("<IHHIIIIQQQQQ18QIi"), lib.SK_EV74_OFF_ROUNDING),
    "reserved1": (struct.calcsize("<IHHIIIIQQQQQ18QIiI"), lib.SK_EV74_OFF_RESERVED1),
}
assert SIZE == lib.SK_EV74_DESCRIPTOR_SIZE, (SIZE, lib.SK_EV74_DESCRIPTOR_SIZE)
for _name, (_python, _c) in _OFFSETS.items():
    assert _python == _c, f"EV74 descriptor field {_name}: Python offset {_python}, C offset {_c}"
ADDRESS_OFFSET = lib.SK_EV74_OFF_INPUT_ADDRESS


@dataclass(frozen=True)
class Geometry:
    """The lowered tensor description a descriptor carries (rank 1..6)."""

    conversion: int
    flags: int
    count: int
    input_span: int
    output_span: int
    extents: Tuple[int, ...]
    input_strides: Tuple[int, ...]
    output_strides: Tuple[int, ...]


def pack(geometry: Geometry, multiplier_bits: int, zero_point: int, rounding: int,
         input_address: int = 0, output_address: int = 0) -> bytes:
    pad = MAX_RANK - len(geometry.extents)
    return LAYOUT.pack(
        MAGIC, VERSION, SIZE, geometry.conversion, len(geometry.extents), geometry.flags, 0,
        input_address, output_address,
        geometry.count, geometry.input_span, geometry.output_span,
        *geometry.extents, *(0,) * pad,
        *geometry.input_strides, *(0,) * pad,
        *geometry.output_strides, *(0,) * pad,
        multiplier_bits, zero_point, rounding, 0,
    )


# LAYOUT's values in order: (field name, element index or None).
_VALUES = (
    [(n, None) for n in ("magic", "version", "length", "conversion", "rank", "flags", "reserved0",
                         "input_address", "output_address", "count", "input_span", "output_span")]
    + [(n, i) for n in ("extents", "input_strides", "output_strides") for i in range(6)]
    + [(n, None) for n in ("multiplier", "zero_point", "rounding", "reserved1")]
)
assert len(_VALUES) == len(LAYOUT.unpack(bytes(SIZE)))


def first_difference(a: bytes, b: bytes) -> Tuple[str, int, int, int]:
    """(field name, byte offset, value in ``a``, value in ``b``) of the first
    field in which two descriptors differ (they must differ)."""
    for (name, index), x, y in zip(_VALUES, LAYOUT.unpack(a), LAYOUT.unpack(b)):
        if x != y:
            offset = _OFFSETS[name][0] + (8 * index if index is not None else 0)
            return (name if index is None else f"{name}[{index}]"), offset, x, y
    raise ValueError("the descriptors are equal")


def with_addresses(descriptor: bytes, input_address: int, output_address: int) -> bytes:
    """A copy of ``descriptor`` with its relocation slots set."""
    patched = bytearray(descriptor)
    ADDRESS_SLOTS.pack_into(patched, ADDRESS_OFFSET, input_address, output_address)
    return bytes(patched)
