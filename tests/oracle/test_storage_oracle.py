"""Self-tests of the storage-type oracle (oracle/storage.py, oracle/affine.py)
against things independent of it:

* literals worked by hand from the specification text (the working is in
  the comments): ranges, packed bytes (the last byte's spare bits taken
  from the byte that was there), the one-element-per-byte image,
  saturation at every type's range edges, NaN / infinities / zeros,
  negative scales, the 32-bit wrap of ``q - zero_point``;
* the independently written INT8 oracles: ``affine_quant`` to int8 is
  ``quant`` (oracle/quant.py), ``affine_dequant`` is ``hurray_dequant``
  (oracle/hurray.py) for every type and, for INT8 with a positive scale and
  an INT8 zero point, ``dequant_f32`` / ``dequant_bf16`` (oracle/dequant.py);
* a second formulation of packing (byte index and shift per element) and
  ml_dtypes' own one-byte representation of int4 / uint4 / int2 / uint2;
* per-element loops (``numpy.ndindex``) for the per-axis and blocked
  bookkeeping;
* ONNX's documented QuantizeLinear / DequantizeLinear examples for int4,
  int16 and uint16 (values re-derived by hand below; ONNX divides by the
  scale, this library multiplies by a binary32 multiplier: the examples
  use scales whose reciprocals 0.5 and 0.25 are exact, and 1/3, whose
  binary32 reciprocal 0x3eaaaaab is worked through).

The package under test is not imported here.
"""

from __future__ import annotations

import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from . import (
    BFLOAT16,
    BINARY16,
    BINARY32,
    ROUNDING_MODES,
    dequant_bf16_table,
    dequant_f32_table,
    f32_to_bf16,
    hurray_dequant,
    quant_many,
    quant_table,
    round_fraction,
    to_bits,
    value_of,
)
from .affine import (
    BEYOND,
    affine_dequant,
    affine_dequant_axis,
    affine_dequant_bf16,
    affine_dequant_blocked,
    affine_dequant_f32,
    affine_dequant_many,
    affine_dequant_table,
    affine_quant,
    affine_quant_axis,
    affine_quant_blocked,
    affine_quant_many,
    affine_quant_table,
    int32_difference,
    quant_integer,
    quant_integer_table,
    quant_integers,
    saturate_integers,
)
from .blocked import parameter_index_of, parameter_shape
from .storage import (
    INT2,
    INT4,
    INT8,
    INT16,
    INT32,
    QUANT_OUTPUTS,
    STORAGE_TYPES,
    SUB_BYTE,
    UINT2,
    UINT4,
    UINT8,
    UINT16,
    UINT32,
    field,
    from_little_endian,
    from_unpacked_image,
    little_endian,
    pack,
    packed_size,
    storage_type,
    unpack,
    unpacked_image,
)

NE, TZ, TP, TN = ROUNDING_MODES
ONE = 0x3F800000
HALF = 0x3F000000
QUARTER = 0x3E800000
THIRD = 0x3EAAAAAB            # binary32 nearest to 1/3: 11184811 / 2^25 = 0.3333333432674407958984375
NAN32 = (0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF)
ML_DTYPE = {INT4: ml_dtypes.int4, UINT4: ml_dtypes.uint4, INT2: ml_dtypes.int2, UINT2: ml_dtypes.uint2}


def f32(x) -> int:
    return to_bits(BINARY32, x)


# ------------------------------------------------------------------ types


def test_storage_types_from_the_hurray_list():
    # (name, tag, bits, signed, lo, hi): Hurray's list; two's complement or
    # unsigned ranges of the width.
    expected = [
        ("int8", 0x10, 8, True, -128, 127), ("uint8", 0x11, 8, False, 0, 255),
        ("int16", 0x12, 16, True, -32768, 32767), ("uint16", 0x13, 16, False, 0, 65535),
        ("int32", 0x14, 32, True, -2147483648, 2147483647), ("uint32", 0x15, 32, False, 0, 4294967295),
        ("int4", 0x48, 4, True, -8, 7), ("uint4", 0x49, 4, False, 0, 15),
        ("int2", 0x4A, 2, True, -2, 1), ("uint2", 0x4B, 2, False, 0, 3),
    ]
    got = [(t.name, t.tag, t.bits, t.signed, t.lo, t.hi) for t in STORAGE_TYPES]
    assert got == expected
    assert [t.name for t in QUANT_OUTPUTS] == ["int8", "uint8", "int16", "uint16", "int4", "uint4", "int2", "uint2"]
    assert SUB_BYTE == (INT4, UINT4, INT2, UINT2)
    assert storage_type("INT4") is INT4 and storage_type(UINT2) is UINT2
    assert storage_type(type("E", (), {"name": "UINT16"})()) is UINT16
    with pytest.raises(ValueError):
        storage_type("int3")


def test_fields_are_twos_complement_patterns():
    assert [field(v, INT4) for v in (-8, -1, 0, 7)] == [0x8, 0xF, 0x0, 0x7]
    assert [field(v, INT2) for v in (-2, -1, 0, 1)] == [0b10, 0b11, 0b00, 0b01]
    assert field(-1, INT32) == 0xFFFFFFFF and field(2**32 - 1, UINT32) == 0xFFFFFFFF
    for bad, st in ((8, INT4), (-9, INT4), (16, UINT4), (-1, UINT2), (2, INT2)):
        with pytest.raises(ValueError):
            field(bad, st)


# ---------------------------------------------------------------- packing


def test_pack_int4_hand_worked():
    # Fields 0x1, 0xF, 0x7: byte 0 = 0x1 | 0xF << 4 = 0xF1; byte 1 holds
    # element 2 in its low nibble and keeps the previous byte's high nibble.
    assert pack([1, -1, 7], INT4) == bytes([0xF1, 0x07])
    assert pack([1, -1, 7], INT4, previous=0xA5) == bytes([0xF1, 0xA7])
    assert pack([1, -1, 7, -8], INT4, previous=0xA5) == bytes([0xF1, 0x87])   # no spare bits
    assert pack([15], UINT4, previous=0x3C) == bytes([0x3F])
    assert pack([], INT4, previous=0xFF) == b""


def test_pack_two_bit_hand_worked():
    # uint2 0, 1, 2, 3 -> 0b11_10_01_00 = 0xE4; element 4 (1) in bits 0-1 of
    # byte 1, bits 2-7 from the previous byte.
    assert pack([0, 1, 2, 3, 1], UINT2) == bytes([0xE4, 0x01])
    assert pack([0, 1, 2, 3, 1], UINT2, previous=0xFF) == bytes([0xE4, 0xFD])
    assert pack([0, 1, 2, 3, 1], UINT2, previous=0x80) == bytes([0xE4, 0x81])
    # int2 -2, -1, 0, 1 -> fields 10, 11, 00, 01 -> 0b01_00_11_10 = 0x4E.
    assert pack([-2, -1, 0, 1], INT2, previous=0x33) == bytes([0x4E])
    # Three elements: 6 bits used, the top 2 from the previous byte.
    assert pack([1, 1, 1], UINT2, previous=0b10_000000) == bytes([0b10_01_01_01])


def test_packed_size():
    assert [packed_size(n, 4) for n in range(6)] == [0, 1, 1, 2, 2, 3]
    assert [packed_size(n, 2) for n in range(10)] == [0, 1, 1, 1, 1, 2, 2, 2, 2, 3]


def test_unpack_hand_worked():
    assert unpack(bytes([0xF1, 0x07]), 3, INT4) == [1, -1, 7]
    assert unpack(bytes([0xF1, 0xA7]), 3, INT4) == [1, -1, 7]           # spare bits ignored
    assert unpack(bytes([0xF1, 0xA7]), 3, UINT4) == [1, 15, 7]
    assert unpack(bytes([0xE4, 0xFD, 0x99]), 5, UINT2) == [0, 1, 2, 3, 1]
    assert unpack(bytes([0xE4]), 4, INT2) == [0, 1, -2, -1]
    with pytest.raises(ValueError):
        unpack(bytes([0xE4]), 5, UINT2)


def _pack_by_index(values, bits, previous):
    """Second formulation: element i's pattern OR-ed into byte (i*bits)//8
    at shift (i*bits)%8 of a zeroed buffer; the last byte's spare bits
    copied from ``previous`` afterwards."""
    n = len(values)
    out = bytearray(-(-n * bits // 8))
    for i, v in enumerate(values):
        out[(i * bits) // 8] |= (v & ((1 << bits) - 1)) << ((i * bits) % 8)
    spare = len(out) * 8 - n * bits
    if spare:
        keep = ((1 << spare) - 1) << (8 - spare)
        out[-1] = (out[-1] & ~keep & 0xFF) | (previous & keep)
    return bytes(out)


@pytest.mark.parametrize("st", SUB_BYTE, ids=lambda t: t.name)
def test_pack_agrees_with_a_second_formulation_and_round_trips(st):
    rng = random.Random(st.tag)
    for n in list(range(0, 20)) + [63, 64, 65, 127, 128, 129, 1000]:
        values = [rng.randint(st.lo, st.hi) for _ in range(n)]
        previous = rng.randrange(256)
        data = pack(values, st, previous)
        assert data == _pack_by_index(values, st.bits, previous), (n, values, previous)
        assert unpack(data, n, st) == values
        assert pack(values, st.bits, previous) == data             # by width: values mod 2^bits


@pytest.mark.parametrize("st", SUB_BYTE, ids=lambda t: t.name)
def test_unpacked_image_is_ml_dtypes_representation(st):
    values = list(st.values())
    image = unpacked_image(values, st)
    assert image == np.array(values, dtype=ML_DTYPE[st]).view(np.uint8).tobytes()
    assert from_unpacked_image(image, st) == values
    # Only the low bits count on read: every byte value.
    def low_bits_value(b):
        p = b & st.mask
        return p - (1 << st.bits) if st.signed and p >> (st.bits - 1) else p
    assert from_unpacked_image(range(256), st) == [low_bits_value(b) for b in range(256)]


def test_unpacked_image_literals():
    assert unpacked_image([-8, -1, 7, 0], INT4) == bytes([0x08, 0x0F, 0x07, 0x00])
    assert unpacked_image([-2, -1, 1], INT2) == bytes([0x02, 0x03, 0x01])
    assert from_unpacked_image([0xF8, 0x80, 0x7F], INT4) == [-8, 0, -1]
    assert from_unpacked_image([0xF8, 0x80, 0x7F], UINT4) == [8, 0, 15]
    assert from_unpacked_image([0xFE, 0x03], INT2) == [-2, -1]
    with pytest.raises(ValueError):
        unpacked_image([1], INT8)


def test_little_endian_storage():
    assert little_endian([-2, 0x1234], INT16) == bytes([0xFE, 0xFF, 0x34, 0x12])
    assert little_endian([2**32 - 1, 1], UINT32) == bytes([0xFF] * 4 + [1, 0, 0, 0])
    assert from_little_endian(bytes([0xFE, 0xFF, 0x34, 0x12]), INT16) == [-2, 0x1234]
    assert from_little_endian(bytes([0xFE, 0xFF]), UINT16) == [0xFFFE]
    data = little_endian(list(range(-128, 128)), INT8)
    assert np.array_equal(np.frombuffer(data, np.int8), np.arange(-128, 128))


# ------------------------------------------------------------------ quant


@pytest.mark.parametrize("st", QUANT_OUTPUTS, ids=lambda t: t.name)
@pytest.mark.parametrize("mode", ROUNDING_MODES)
def test_quant_saturates_at_every_range_edge(st, mode):
    # Multiplier 1, zero point 0: integers pass unchanged inside the range,
    # one step beyond saturates; NaN and zeros give the zero point;
    # infinities saturate by sign.
    for x, expected in ((st.hi, st.hi), (st.hi + 1, st.hi), (st.hi + 1000, st.hi), (st.lo, st.lo),
                        (st.lo - 1, st.lo), (st.lo - 1000, st.lo), (0, 0)):
        assert affine_quant(f32(x), BINARY32, ONE, 0, mode, st) == expected, (x, expected)
    for zp in sorted({st.lo, 0, st.hi}):
        for nan in NAN32:
            assert affine_quant(nan, BINARY32, ONE, zp, mode, st) == zp
        for zero in (0x00000000, 0x80000000):
            assert affine_quant(zero, BINARY32, ONE, zp, mode, st) == zp
        assert affine_quant(0x7F800000, BINARY32, ONE, zp, mode, st) == st.hi
        assert affine_quant(0xFF800000, BINARY32, ONE, zp, mode, st) == st.lo
        # The zero point is added before saturation: hi - zp lands on hi,
        # lo - zp on lo, one beyond either saturates.
        assert affine_quant(f32(st.hi - zp), BINARY32, ONE, zp, mode, st) == st.hi
        assert affine_quant(f32(st.lo - zp), BINARY32, ONE, zp, mode, st) == st.lo
        assert affine_quant(f32(st.hi - zp + 1), BINARY32, ONE, zp, mode, st) == st.hi
        assert affine_quant(f32(st.lo - zp - 1), BINARY32, ONE, zp, mode, st) == st.lo
    # Half-way beyond the edges: hi + 0.5 rounds to hi or hi + 1 (both
    # give hi), lo - 0.5 to lo or lo - 1 (both give lo).
    assert affine_quant(f32(Fraction(2 * st.hi + 1, 2)), BINARY32, ONE, 0, mode, st) == st.hi
    assert affine_quant(f32(Fraction(2 * st.lo - 1, 2)), BINARY32, ONE, 0, mode, st) == st.lo


# (storage, input value (exact in FP32), multiplier bits, zero point,
#  (nearest_even, toward_zero, toward_positive, toward_negative)), by hand.
QUANT_LITERALS = [
    (INT4, "6.5", ONE, 0, (6, 6, 7, 6)),
    (INT4, "7.5", ONE, 0, (7, 7, 7, 7)),          # 8 or 7: 8 saturates
    (INT4, "-7.5", ONE, 0, (-8, -7, -7, -8)),
    (INT4, "-8.5", ONE, 0, (-8, -8, -8, -8)),     # -8 or -9, -9 saturates
    (INT4, "-8.5", ONE, 1, (-7, -7, -7, -8)),     # -8 + 1, -9 + 1
    (INT4, "9.5", ONE, -2, (7, 7, 7, 7)),         # 10 / 9 - 2 = 8 / 7
    (INT4, "8.5", ONE, -2, (6, 6, 7, 6)),
    (UINT4, "-0.5", ONE, 0, (0, 0, 0, 0)),        # -0 or -1 -> 0
    (UINT4, "-0.5", ONE, 1, (1, 1, 1, 0)),
    (UINT4, "15.5", ONE, 0, (15, 15, 15, 15)),
    (UINT4, "14.5", ONE, 0, (14, 14, 15, 14)),
    (UINT4, "14.5", ONE, 1, (15, 15, 15, 15)),    # 14 / 15 + 1 saturates
    (INT2, "1.5", ONE, 0, (1, 1, 1, 1)),
    (INT2, "-1.5", ONE, 0, (-2, -1, -1, -2)),
    (INT2, "3", ONE, -2, (1, 1, 1, 1)),
    (INT2, "2.5", ONE, -2, (0, 0, 1, 0)),
    (UINT2, "-1", ONE, 3, (2, 2, 2, 2)),
    (UINT2, "1", ONE, 3, (3, 3, 3, 3)),
    (UINT2, "-3.5", ONE, 3, (0, 0, 0, 0)),        # -4 / -3 + 3 = -1 / 0
    (UINT2, "-2.5", ONE, 3, (1, 1, 1, 0)),
    (UINT8, "300", ONE, 200, (255, 255, 255, 255)),
    (UINT8, "-100", ONE, 200, (100, 100, 100, 100)),
    (UINT8, "-250.5", ONE, 255, (5, 5, 5, 4)),    # -250 / -251 + 255
    (INT16, "32767.5", ONE, 0, (32767, 32767, 32767, 32767)),
    (INT16, "-32768.5", ONE, 0, (-32768, -32768, -32768, -32768)),
    (INT16, "-32768.5", ONE, 5, (-32763, -32763, -32763, -32764)),
    (UINT16, "65534.5", ONE, 0, (65534, 65534, 65535, 65534)),
    (UINT16, "70000", ONE, 65535, (65535, 65535, 65535, 65535)),
    (UINT16, "-65535", ONE, 65535, (0, 0, 0, 0)),
    (UINT16, "-65536", ONE, 65535, (0, 0, 0, 0)),
    # The specification's double rounding: 15 x 0x3e99999a rounds to the
    # binary32 4.5 first (spacing 2^-21 near 4.5).
    (UINT4, "15", 0x3E99999A, 0, (4, 4, 5, 4)),
    (INT4, "-15", 0x3E99999A, 0, (-4, -4, -4, -5)),
    (UINT2, "15", 0x3E99999A, 0, (3, 3, 3, 3)),
    (INT16, "15", 0x3E99999A, 32760, (32764, 32764, 32765, 32764)),
    # Subnormal multiplier 2^-149: the product 2^-149 is a positive
    # fraction (toward_positive gives 1), -2^-149 gives -1 toward negative.
    (UINT2, "1", 0x00000001, 0, (0, 0, 1, 0)),
    (INT2, "-1", 0x00000001, 0, (0, 0, 0, -1)),
    (UINT16, "1", 0x00000001, 65535, (65535, 65535, 65535, 65535)),
    # Overflow of the product to infinity saturates by sign.
    (INT4, "2", 0x7F7FFFFF, 0, (7, 7, 7, 7)),
    (UINT4, "-2", 0x7F7FFFFF, 5, (0, 0, 0, 0)),
    # The largest finite product (2 - 2^-23) 2^127 is an integer far out.
    (UINT16, "1", 0x7F7FFFFF, 0, (65535,) * 4),
]


@pytest.mark.parametrize("st, x, m, zp, expected", QUANT_LITERALS,
                         ids=[f"{c[0].name}-{c[1]}-{c[2]:#x}-zp{c[3]}" for c in QUANT_LITERALS])
def test_quant_literals(st, x, m, zp, expected):
    bits = f32(Fraction(x))
    got = tuple(affine_quant(bits, BINARY32, m, zp, mode, st) for mode in ROUNDING_MODES)
    assert got == expected


def test_quant_16bit_input_literals():
    # FP16 65504 (0x7bff, the largest finite) is an integer inside UINT16's
    # range; FP16 infinity saturates; BF16 65536 (0x4780) saturates UINT16,
    # 65280 (0x477f) does not.
    assert affine_quant(0x7BFF, BINARY16, ONE, 0, NE, UINT16) == 65504
    assert affine_quant(0x7BFF, BINARY16, ONE, 0, NE, INT16) == 32767
    assert affine_quant(0xFBFF, BINARY16, ONE, 31, NE, UINT16) == 0
    assert affine_quant(0x7C00, BINARY16, ONE, 0, NE, UINT4) == 15
    assert affine_quant(0x4780, BFLOAT16, ONE, 0, TZ, UINT16) == 65535
    assert affine_quant(0x477F, BFLOAT16, ONE, 0, TZ, UINT16) == 65280
    # FP16 subnormal 2^-24 (0x0001) x 2^24 = 1 exactly.
    assert affine_quant(0x0001, BINARY16, 0x4B800000, -2, NE, INT2) == -1
    # BF16 1.5 (0x3fc0): nearest-even 2, then zero point -1 -> 1 in int2.
    assert affine_quant(0x3FC0, BFLOAT16, ONE, -1, NE, INT2) == 1
    assert affine_quant(0xFFC1, BFLOAT16, ONE, 2, TP, UINT2) == 2          # NaN -> zero point


def test_quant_integer_is_step_three():
    assert quant_integer(f32(Fraction(9, 2)), BINARY32, ONE, NE) == 4
    assert quant_integer(f32(Fraction(9, 2)), BINARY32, ONE, TP) == 5
    assert quant_integer(0x7FC00000, BINARY32, ONE) == 0
    assert quant_integer(0xFF800000, BINARY32, ONE) == "-inf"
    assert quant_integer(f32(2), BINARY32, 0x7F7FFFFF) == "+inf"
    assert quant_integer(0x7F7FFFFF, BINARY32, ONE) == (2**24 - 1) << 104       # exact, unsaturated


@pytest.mark.parametrize("mode", ROUNDING_MODES)
def test_quant_integer_matches_the_rational_definition(mode):
    # Against a separate statement of steps 2-3: the exact product as a
    # Fraction, rounded once to binary32 (round_to_format), then to an
    # integer (round_fraction).
    rng = random.Random(mode)
    for m in (ONE, 0x3E99999A, 0x00400000, 0x4B800000, 0x3DCCCCCD):
        mv = value_of(BINARY32, m)
        for _ in range(300):
            bits = rng.choice([rng.getrandbits(32), f32(Fraction(rng.randint(-400000, 400000), 1000))])
            if (bits >> 23) & 0xFF == 0xFF:
                continue
            exact = value_of(BINARY32, bits) * mv
            got = quant_integer(bits, BINARY32, m, mode)
            if exact == 0:
                assert got == 0
                continue
            p_bits = to_bits(BINARY32, exact)
            if (p_bits >> 23) & 0xFF == 0xFF:             # the product overflowed
                assert got == ("-inf" if exact < 0 else "+inf")
                continue
            assert got == round_fraction(value_of(BINARY32, p_bits), mode), (hex(bits), hex(m))


# Multipliers and zero points for the INT8 agreement (the quant oracle's
# own profiles: the specification's, a tie maker, a subnormal, overflow).
INT8_PROFILES = ((0x3E99999A, -3), (HALF, 127), (0x3F808000, -128), (0x00400000, 17), (0x7F7FFFFF, 0))


# Every mode with the specification's multiplier, one mode each with the others.
INT8_CASES = [(0x3E99999A, -3, mode) for mode in ROUNDING_MODES] + [(HALF, 127, TP), (0x3F808000, -128, TN)]


@pytest.mark.parametrize("fmt", [BFLOAT16, BINARY16], ids=lambda f: f.name)
def test_int8_16bit_samples_equal_the_quant_oracle(fmt):
    rng = random.Random(fmt.width + fmt.fraction_bits)
    patterns = list(range(0, 0x80)) + list(range(0x8000, 0x8080)) + [rng.randrange(1 << 16) for _ in range(1200)]
    patterns += [0x7C00, 0xFC00, 0x7F80, 0xFF80, 0x7E00, 0x7FC0, 0x7BFF, 0xFBFF, 0x7F7F, 0xFF7F]
    for m, zp, mode in INT8_CASES:
        assert affine_quant_many(patterns, fmt, m, zp, mode, INT8) == quant_many(patterns, fmt, m, zp, mode)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [BFLOAT16, BINARY16], ids=lambda f: f.name)
def test_int8_tables_equal_the_quant_oracle(fmt):
    for m, zp, mode in INT8_CASES:
        mine = affine_quant_table(fmt, m, zp, mode, INT8)
        theirs = np.array(quant_table(fmt, m, zp, mode), dtype=np.int64)
        bad = np.flatnonzero(mine != theirs)
        assert bad.size == 0, f"{fmt.name} m={m:#x} zp={zp} {mode}: patterns {bad[:8]}"


def test_int8_fp32_samples_equal_the_quant_oracle():
    rng = random.Random(8)
    samples = [rng.getrandbits(32) for _ in range(500)] + list(NAN32) + [0, 0x80000000, 0x7F800000, 0xFF800000]
    samples += [f32(Fraction(rng.randint(-300000, 300000), 997)) for _ in range(500)]
    for m, zp in INT8_PROFILES:
        for mode in ROUNDING_MODES:
            assert affine_quant_many(samples, BINARY32, m, zp, mode, INT8) == quant_many(samples, BINARY32, m, zp, mode)


@pytest.mark.parametrize("st", QUANT_OUTPUTS, ids=lambda t: t.name)
def test_tables_are_the_scalar_oracle(st):
    rng = random.Random(st.tag)
    zps = sorted({st.lo, st.hi, (st.lo + st.hi) // 2})
    patterns = [rng.randrange(1 << 16) for _ in range(60)] + [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7F80, 0xFF80, 0x7BFF]
    for fmt, m in ((BFLOAT16, 0x3E99999A), (BINARY16, 0x3F808000)):
        if True:
            for zp in zps:
                for mode in ROUNDING_MODES:
                    table = affine_quant_table(fmt, m, zp, mode, st)
                    for p in patterns:
                        assert table[p] == affine_quant(p, fmt, m, zp, mode, st), (fmt.name, hex(m), zp, mode, hex(p))


def test_integer_table_clips_only_beyond_every_range():
    table = quant_integer_table(BFLOAT16, ONE, NE)
    assert table[0x7F80] == BEYOND and table[0xFF80] == -BEYOND and table[0x7FC0] == 0
    assert table[0x4780] == 65536 and table[0x7F7F] == BEYOND and table[0xFF7F] == -BEYOND
    assert table[0x3FC0] == 2
    with pytest.raises(ValueError):
        quant_integer_table(BINARY32, ONE)


@pytest.mark.parametrize("st", QUANT_OUTPUTS, ids=lambda t: t.name)
def test_integers_then_saturation_is_the_scalar_oracle(st):
    rng = random.Random(st.bits * 7 + st.signed)
    patterns = np.array([rng.getrandbits(32) for _ in range(200)] + list(NAN32) + [0x7F800000, 0xFF800000,
                        0x7F7FFFFF, 0xFF7FFFFF, 0, 0x80000000], dtype=np.uint32).reshape(2, -1)
    for m, mode in ((0x3E99999A, NE), (0x00400000, TP), (0x7F7FFFFF, TN)):
        integers = quant_integers(patterns, BINARY32, m, mode)
        assert integers.shape == patterns.shape
        for zp in (st.lo, st.hi):
            got = saturate_integers(integers, zp, st)
            assert got.reshape(-1).tolist() == affine_quant_many(patterns.reshape(-1).tolist(), BINARY32, m, zp,
                                                                 mode, st)
    with pytest.raises(ValueError):
        saturate_integers(np.array([BEYOND + 1]), 0, st)


def test_quant_rejects_inadmissible_arguments():
    for st, zp in ((INT4, 8), (INT4, -9), (UINT4, -1), (UINT2, 4), (INT2, -3), (UINT16, 65536), (INT8, 128)):
        with pytest.raises(ValueError):
            affine_quant(0, BINARY32, ONE, zp, NE, st)
    for st in (INT32, UINT32):
        with pytest.raises(ValueError):
            affine_quant(0, BINARY32, ONE, 0, NE, st)
    for m in (0, 0x80000000, 0xBF800000, 0x7F800000, 0x7FC00000):
        with pytest.raises(ValueError):
            affine_quant(0, BINARY32, m, 0, NE, INT4)
    with pytest.raises(ValueError):
        affine_quant_table(BINARY32, ONE, 0, NE, INT4)
    with pytest.raises(ValueError):
        affine_quant(0, BINARY32, ONE, 0, "nearest", INT4)


def test_onnx_quantize_examples():
    # ONNX's QuantizeLinear int4 example: per axis 0, scales 2, 3, 4, zero
    # points 1.  Multipliers 0.5, 0x3eaaaaab (~1/3), 0.25:
    # row 0: 0, 1.25, 2.4, 4.3 -> 0, 1, 2, 4 (+1);
    # row 1: -30 x 0x3eaaaaab = -10.0000003 -> binary32 -10 -> -9 -> -8;
    #        -20 x .. = -6.6666669 -> -7 -> -6; 6 x .. = 2.0000001 -> binary32
    #        2 -> 3; 9 x .. = 3.0000001 -> binary32 3 -> 4;
    # row 2: 3, 3.75, 4, 10 -> 3, 4, 4, 10 (+1) -> 4, 5, 5, 11 -> 7.
    x = np.array([[f32(v) for v in row] for row in
                  ((0, Fraction(5, 2), 4.8, 8.6), (-30, -20, 6, 9), (12, 15, 16, 40))], dtype=np.uint32)
    got = affine_quant_axis(x, BINARY32, INT4, 0, [HALF, THIRD, QUARTER], 1, NE)
    assert got.reshape(-1).tolist() == [1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7]
    # The same through UINT4: row 1's -9 and -6 saturate to 0 (ONNX lists
    # its uint4 expectation differently; the saturation rule decides here).
    got = affine_quant_axis(x, BINARY32, UINT4, 0, [HALF, THIRD, QUARTER], 1, NE)
    assert got.reshape(-1).tolist() == [1, 2, 3, 5, 0, 0, 3, 4, 4, 5, 5, 11]
    # ONNX's uint16 example: scale 2 (multiplier 0.5), zero point 32767.
    xs = [0.0, -128.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65536.0, -65534.0, 70000.0, -70000.0]
    assert affine_quant_many([f32(v) for v in xs], BINARY32, HALF, 32767, NE, UINT16) == [
        32767, 32703, 32769, 32765, 32768, 32766, 32769, 32765, 65535, 0, 65535, 0]
    # ONNX's int16 example: scale 2, zero point 256 (65023 / 2 = 32511.5
    # ties to 32512, + 256 saturates; -66047 / 2 = -33023.5 -> -33024 + 256).
    xs = [0.0, -514.0, 3.0, -3.0, 2.9, -2.9, 3.1, -3.1, 65022.0, -66046.0, 65023.0, -66047.0, 65024.0, -66048.0,
          70000.0, -70000.0]
    assert affine_quant_many([f32(v) for v in xs], BINARY32, HALF, 256, NE, INT16) == [
        256, -1, 258, 254, 257, 255, 258, 254, 32767, -32767, 32767, -32768, 32767, -32768, 32767, -32768]


# ---------------------------------------------------------------- dequant


def test_int32_difference_wraps():
    assert int32_difference(-2**31, 1) == 2**31 - 1
    assert int32_difference(2**31 - 1, -1) == -2**31
    assert int32_difference(2**32 - 1, 0) == -1
    assert int32_difference(0, 2**32 - 1) == 1
    assert int32_difference(2**31, 0) == -2**31
    assert int32_difference(5, 7) == -2


# (storage, q, scale bits, zero point, FP32 bits, BF16 bits), by hand.
DEQUANT_LITERALS = [
    (INT32, -2**31, ONE, 1, 0x4F000000, 0x4F00),            # 2^31 - 1 -> binary32 2^31
    (INT32, 2**31 - 1, ONE, -1, 0xCF000000, 0xCF00),        # wraps to -2^31
    (INT32, 16777217, ONE, 0, 0x4B800000, 0x4B80),          # nearest-even to 2^24
    (INT32, 16777219, ONE, 0, 0x4B800002, 0x4B80),          # to 2^24 + 4 (0x4b800002); BF16 2^24
    (UINT32, 2**32 - 1, ONE, 0, 0xBF800000, 0xBF80),        # difference -1
    (UINT32, 0, ONE, 2**32 - 1, ONE, 0x3F80),               # difference 1
    (UINT32, 2**31, HALF, 0, 0xCE800000, 0xCE80),           # -2^31 x 0.5
    (INT4, 3, 0xBF000000, 1, 0xBF800000, 0xBF80),           # 2 x -0.5 = -1
    (INT4, 1, 0xBF000000, 1, 0x80000000, 0x8000),           # +0 x -0.5 = -0
    (INT4, 1, HALF, 1, 0x00000000, 0x0000),                 # +0
    (INT2, -2, 0xC0400000, 1, 0x41100000, 0x4110),          # -3 x -3 = 9
    (UINT2, 3, 0x3E99999A, 0, 0x3F666667, 0x3F66),          # 3 x 0.3000000119 = 0.9000000358 (0x3f666667)
    (UINT4, 15, 0x7F7FFFFF, 0, 0x7F800000, 0x7F80),         # overflow to infinity
    (INT16, -32768, 0x7F7FFFFF, 32767, 0xFF800000, 0xFF80),
    (UINT8, 1, 0x00000001, 0, 0x00000001, 0x0000),          # 2^-149; BF16 rounds it to +0
    (UINT8, 0, 0x80000001, 255, 0x000000FF, 0x0000),        # -255 x -2^-149 = 255 x 2^-149
    (INT8, 127, 0x4037CED9, -123, 0x44338000, 0x4434),      # the specification's 718 -> BF16 720
    (UINT16, 65535, 0x3F800000, 0, 0x477FFF00, 0x4780),     # 65535 -> BF16 65536
]


@pytest.mark.parametrize("st, q, scale, zp, bits32, bits16", DEQUANT_LITERALS,
                         ids=[f"{c[0].name}-{c[1]}-{c[2]:#x}-zp{c[3]}" for c in DEQUANT_LITERALS])
def test_dequant_literals(st, q, scale, zp, bits32, bits16):
    assert affine_dequant_f32(q, st, scale, zp) == bits32
    assert affine_dequant_bf16(q, st, scale, zp) == bits16
    assert affine_dequant(q, st, scale, zp, "bfloat16") == bits16


def test_onnx_dequantize_int4_example():
    # ONNX's DequantizeLinear int4 example: x = 0, 1, 7, -4, -8, scale 2,
    # zero point 1: (x - 1) x 2 = -2, 0, 12, -10, -18.
    got = affine_dequant_many([0, 1, 7, -4, -8], INT4, f32(2), 1)
    assert got == [f32(-2), 0, f32(12), f32(-10), f32(-18)]


SCALES = (0x3E99999A, 0xBE000000, 0x00000001, 0x80400000, 0x7F7FFFFF, 0xC37F0000, 0x4037CED9)


@pytest.mark.parametrize("st", STORAGE_TYPES, ids=lambda t: t.name)
def test_dequant_equals_the_hurray_oracle(st):
    rng = random.Random(st.tag)
    if st.bits <= 8:
        values = list(st.values())
    else:
        values = [st.lo, st.hi, st.lo + 1, st.hi - 1, 0, 1] + [rng.randint(st.lo, st.hi) for _ in range(300)]
    zps = sorted({st.lo, st.hi, 0 if st.signed else 1, rng.randint(st.lo, st.hi)})
    for scale in SCALES:
        for zp in zps:
            got = affine_dequant_many(values, st, scale, zp)
            assert got == [hurray_dequant(q, scale, zp) for q in values], (st.name, hex(scale), zp)
            assert affine_dequant_many(values, st, scale, zp, "bfloat16") == [f32_to_bf16(b) for b in got]


def test_int8_dequant_equals_the_dequant_oracle():
    # Positive scale, zero point in [-128, 127]: the Dequant formula's
    # three roundings are exact where Hurray's one difference is.
    for scale in (0x3E99999A, 0x00000001, 0x7F7FFFFF, 0x4037CED9, 0x3D800000):
        for zp in (-128, -123, 0, 5, 127):
            table = affine_dequant_table(INT8, scale, zp)
            assert table.tolist() == list(dequant_f32_table(scale, zp))
            assert affine_dequant_table(INT8, scale, zp, "bfloat16").tolist() == list(dequant_bf16_table(scale, zp))


@pytest.mark.parametrize("st", [pytest.param(t, marks=pytest.mark.slow) if t is UINT16 else t
                                for t in STORAGE_TYPES if t.bits <= 16], ids=lambda t: t.name)
def test_dequant_table_is_indexed_by_pattern(st):
    table = affine_dequant_table(st, 0xBE000000, st.hi)
    assert table.size == 1 << st.bits and table.dtype == np.uint32
    for q in list(st.values())[:: max(1, (1 << st.bits) // 64)] + [st.lo, st.hi, -1 if st.signed else 1]:
        assert table[q % (1 << st.bits)] == affine_dequant_f32(q, st, 0xBE000000, st.hi)


def test_dequant_rejects_inadmissible_arguments():
    for scale in (0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000):
        with pytest.raises(ValueError):
            affine_dequant_f32(0, INT4, scale, 0)
    for st, zp in ((UINT4, 16), (INT2, -3), (UINT32, -1), (UINT32, 2**32), (INT32, 2**31), (UINT8, 256)):
        with pytest.raises(ValueError):
            affine_dequant_f32(0, st, ONE, zp)
    for st, q in ((INT4, 8), (UINT2, 4), (INT16, 32768), (UINT32, -1)):
        with pytest.raises(ValueError):
            affine_dequant_f32(q, st, ONE, 0)
    with pytest.raises(ValueError):
        affine_dequant_table(INT32, ONE, 0)
    with pytest.raises(ValueError):
        affine_dequant(0, INT4, ONE, 0, "float16")


# ------------------------------------------------- per-axis and blocked


def _random_shape(rng, max_rank=4):
    rank = int(rng.integers(1, max_rank + 1))
    return tuple(int(e) for e in rng.integers(1, 6, size=rank))


@pytest.mark.parametrize("st", [INT4, UINT2, UINT16, INT32, UINT32], ids=lambda t: t.name)
def test_dequant_axis_and_blocked_are_per_element(st):
    rng = np.random.default_rng(st.tag)
    scales = np.array(SCALES, dtype=np.uint32)
    for _ in range(12):
        shape = _random_shape(rng)
        axis = int(rng.integers(-len(shape), len(shape)))
        a = axis % len(shape)
        q = rng.integers(st.lo, st.hi + 1, size=shape, dtype=np.int64)
        s = scales[rng.integers(0, len(SCALES), size=shape[a])]
        z = rng.integers(st.lo, st.hi + 1, size=shape[a], dtype=np.int64)
        for output in ("float32", "bfloat16"):
            got = affine_dequant_axis(q, st, axis, s.tolist(), z.tolist(), output)
            for i in np.ndindex(shape):
                c = i[a]
                assert got[i] == affine_dequant(int(q[i]), st, int(s[c]), int(z[c]), output)
        block = int(rng.integers(1, 4))
        pshape = parameter_shape(shape, axis, block)
        s = scales[rng.integers(0, len(SCALES), size=pshape)]
        z = rng.integers(st.lo, st.hi + 1, size=pshape, dtype=np.int64)
        got = affine_dequant_blocked(q, st, axis, block, s, z, "float32")
        index = parameter_index_of(shape, axis, block)
        for i in np.ndindex(shape):
            j = tuple(int(ix[i]) for ix in index)
            assert j[a] == i[a] // block
            assert got[i] == affine_dequant_f32(int(q[i]), st, int(s[j]), int(z[j]))
        shared = affine_dequant_blocked(q, st, axis, block, s, int(st.hi), "float32")
        assert shared.shape == shape


@pytest.mark.parametrize("st", [INT4, UINT2, UINT8, INT16], ids=lambda t: t.name)
def test_quant_axis_and_blocked_are_per_element(st):
    rng = np.random.default_rng(st.tag + 1)
    multipliers = np.array([ONE, 0x3E99999A, 0x00400000, 0x3F808000, 0x4B800000], dtype=np.uint32)
    for fmt in (BINARY32, BFLOAT16, BINARY16):
        for _ in range(6):
            shape = _random_shape(rng)
            axis = int(rng.integers(-len(shape), len(shape)))
            a = axis % len(shape)
            x = rng.integers(0, 1 << fmt.width, size=shape, dtype=np.uint64).astype(
                np.uint32 if fmt is BINARY32 else np.uint16)
            mode = ROUNDING_MODES[int(rng.integers(0, 4))]
            m = multipliers[rng.integers(0, len(multipliers), size=shape[a])]
            z = rng.integers(st.lo, st.hi + 1, size=shape[a])
            got = affine_quant_axis(x, fmt, st, axis, m.tolist(), z.tolist(), mode)
            for i in np.ndindex(shape):
                assert got[i] == affine_quant(int(x[i]), fmt, int(m[i[a]]), int(z[i[a]]), mode, st)
            block = int(rng.integers(1, 4))
            pshape = parameter_shape(shape, axis, block)
            m = multipliers[rng.integers(0, len(multipliers), size=pshape)]
            z = rng.integers(st.lo, st.hi + 1, size=pshape)
            got = affine_quant_blocked(x, fmt, st, axis, block, m, z, mode)
            index = parameter_index_of(shape, axis, block)
            for i in np.ndindex(shape):
                j = tuple(int(ix[i]) for ix in index)
                assert got[i] == affine_quant(int(x[i]), fmt, int(m[j]), int(z[j]), mode, st)


def test_large_16bit_groups_use_tables_with_the_same_results():
    # More than 4,096 elements per parameter pair take the whole-format
    # table: the same values as the per-pattern evaluation.
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(2, -1)
    got = affine_quant_axis(x, BFLOAT16, UINT4, 0, [0x3E99999A, ONE], [3, 0], TN)
    assert np.array_equal(got[0], affine_quant_table(BFLOAT16, 0x3E99999A, 3, TN, UINT4)[x[0]])
    sample = np.random.default_rng(1).integers(0, x.shape[1], 200)
    assert got[1, sample].tolist() == affine_quant_many(x[1, sample].tolist(), BFLOAT16, ONE, 0, TN, UINT4)


def test_axis_and_blocked_reject_bad_parameters():
    q = np.zeros((2, 3), np.int64)
    with pytest.raises(ValueError):
        affine_dequant_axis(q, INT4, 1, [ONE, ONE], 0)                  # wrong length
    with pytest.raises(ValueError):
        affine_dequant_axis(q, INT4, 1, [ONE] * 3, [0, 8, 0])           # zero point outside int4
    with pytest.raises(ValueError):
        affine_quant_axis(q.astype(np.uint32), BINARY32, UINT2, 0, [ONE, ONE], [0, 4])
    with pytest.raises(ValueError):
        affine_quant_blocked(q.astype(np.uint32), BINARY32, UINT2, 1, 2, np.full((2, 1), ONE), 0)  # shape
    with pytest.raises(ValueError):
        affine_dequant_axis(np.array([8]), INT4, 0, [ONE], 0)            # value outside int4
