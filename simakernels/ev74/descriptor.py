"""The 224-byte little-endian EV74 Quant descriptor: the wire layout (one
module-level ``struct.Struct``, built from the C core's field table, the
one the native decoder reads) and the packing of an admitted plan."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Tuple

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
_PLACE = {name: (offset, code) for name, offset, _, code in FIELDS}  # a scalar field's offset and struct code


@dataclass(frozen=True)
class Geometry:
    """The lowered tensor description a descriptor carries (rank 1..6), each
    attribute named as its field."""

    flags: int
    count: int
    input_span: int
    output_span: int
    extents: Tuple[int, ...]
    input_strides: Tuple[int, ...]
    output_strides: Tuple[int, ...]


def pack(conversion: int, geometry: Geometry, multiplier_bits: int, zero_point: int, rounding: int,
         input_address: int = 0, output_address: int = 0) -> bytes:
    """The descriptor of these values, each placed by its field's name in the
    table (array fields padded with zeros); magic, version and length are
    the wire's, the reserved fields 0."""
    values = dict(vars(geometry), magic=MAGIC, version=VERSION, length=SIZE, conversion=conversion,
                  rank=len(geometry.extents), input_address=input_address, output_address=output_address,
                  multiplier=multiplier_bits, zero_point=zero_point, rounding=rounding)
    return LAYOUT.pack(*(item for name, _, count, _ in FIELDS for item in _items(values.get(name, 0), count)))


def _items(value: Any, count: int) -> Tuple[int, ...]:
    return (value,) if count == 1 else tuple(value) + (0,) * (count - len(value))


# LAYOUT's values in order: the field (an array field's element) and its offset.
_VALUES = tuple((f"{name}[{i}]" if count > 1 else name, offset + i * struct.calcsize("<" + code))
                for name, offset, count, code in FIELDS for i in range(count))


def first_difference(a: bytes, b: bytes) -> Tuple[str, int, int, int]:
    """(field name, byte offset, value in ``a``, value in ``b``) of the first
    field in which two descriptors differ (they must differ)."""
    for (name, offset), x, y in zip(_VALUES, LAYOUT.unpack(a), LAYOUT.unpack(b)):
        if x != y:
            return name, offset, x, y
    raise ValueError("the descriptors are equal")


def with_addresses(descriptor: bytes, input_address: int, output_address: int) -> bytes:
    """A copy of ``descriptor`` with its relocation slots set."""
    patched = bytearray(descriptor)
    for name, value in (("input_address", input_address), ("output_address", output_address)):
        offset, code = _PLACE[name]
        struct.pack_into("<" + code, patched, offset, value)
    return bytes(patched)
