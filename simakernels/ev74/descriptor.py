"""The 224-byte little-endian EV74 Quant descriptor: the wire layout (one
module-level ``struct.Struct``, built from the C core's field table, the
one the native decoder reads) and the packing of an admitted plan."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Tuple

from .._ffi import ffi, lib

_CODE = {(1, 0): "B", (2, 0): "H", (4, 0): "I", (4, 1): "i", (8, 0): "Q"}


def _fields() -> Tuple[Tuple[str, int, int, str], ...]:
    """The C core's field table: (name, offset, count, struct code) per field,
    in wire order, checked to tile the descriptor without gaps."""
    fields, end = [], 0
    for index in range(lib.SK_EV74_FIELD_COUNT):
        f = lib.sk_ev74_field_at(index)
        name = ffi.string(f.name).decode()
        assert f.offset == end, f"EV74 descriptor field {name}: offset {f.offset}, previous field ends at {end}"
        fields.append((name, f.offset, f.count, _CODE[(f.size, f.is_signed)]))
        end = f.offset + f.size * f.count
    assert end == lib.SK_EV74_DESCRIPTOR_SIZE, (end, lib.SK_EV74_DESCRIPTOR_SIZE)
    return tuple(fields)


FIELDS = _fields()
LAYOUT = struct.Struct("<" + "".join(f"{count}{code}" for _, _, count, code in FIELDS))
SIZE = LAYOUT.size
MAGIC = lib.SK_EV74_MAGIC
VERSION = lib.SK_EV74_VERSION
MAX_RANK = lib.SK_EV74_MAX_RANK
FLAG_SCALAR = lib.SK_EV74_FLAG_SCALAR
ADDRESS_SLOTS = struct.Struct("<QQ")  # patched in place by binding
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


# LAYOUT's values in order: (field name, offset, element index or None).
_VALUES = tuple((name, offset, i if count > 1 else None) for name, offset, count, _ in FIELDS for i in range(count))


def first_difference(a: bytes, b: bytes) -> Tuple[str, int, int, int]:
    """(field name, byte offset, value in ``a``, value in ``b``) of the first
    field in which two descriptors differ (they must differ)."""
    for (name, offset, index), x, y in zip(_VALUES, LAYOUT.unpack(a), LAYOUT.unpack(b)):
        if x != y:
            offset += 8 * index if index is not None else 0
            return (name if index is None else f"{name}[{index}]"), offset, x, y
    raise ValueError("the descriptors are equal")


def with_addresses(descriptor: bytes, input_address: int, output_address: int) -> bytes:
    """A copy of ``descriptor`` with its relocation slots set."""
    patched = bytearray(descriptor)
    ADDRESS_SLOTS.pack_into(patched, ADDRESS_OFFSET, input_address, output_address)
    return bytes(patched)
