"""Hurray dequantization, ``x = scale * (q - zero_point)`` with the
difference in signed 32-bit arithmetic, for all ten storage types, bit for bit
against the oracle (tests/oracle/hurray.py):

* exhaustive over every INT8 / UINT8 / INT4 / UINT4 / INT2 / UINT2 value and
  every zero point of the type, and over all 65,536 INT16 / UINT16 values for
  the range ends, zero and a middle zero point;
* boundary and random INT32 / UINT32 values, differences that wrap included;
* hand-worked literals: packing order, wrap-around, signed zeros, overflow to
  infinity, subnormal products;
* sub-byte packing (element 0 in the low bits), odd counts whose last byte
  carries garbage in its unused bits, sizes around the 16-element blocks,
  misaligned input, every buffer type, ``out=`` and the argument errors.

Expected bits come from the oracle (via hurray_helpers tables) or from the
literals below, worked by hand: q - zero_point exactly (wrapped modulo 2^32
into the int32 range), rounded to binary32 nearest-even, times the scale
rounded nearest-even."""
import array

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.hurray_helpers import (
    ALL_STORAGE,
    INT32_MAX,
    INT32_MIN,
    SCALE_IDS,
    SCALES,
    SENTINEL,
    ST,
    SUB_BYTE,
    WIDE_RADIUS,
    H,
    bits_of,
    check,
    descriptor,
    expected,
    fail_if,
    guards_report,
    needed_bytes,
    pack,
    report,
    signed,
    sentinel_out,
    small_table,
    spec_range,
    unpack,
    wide_table,
    width,
    zero_points,
    zp_limits,
)
from oracle import hurray_dequant

ALL_BYTES = bytes(range(256))
EXHAUSTIVE_8 = (ST.INT8, ST.UINT8, ST.INT4, ST.UINT4, ST.INT2, ST.UINT2)
SIXTEEN = (ST.INT16, ST.UINT16)
# 16-bit sweeps: these scales by default, the others marked slow (each scale
# needs an oracle table of 131,071 differences).
SIXTEEN_DEFAULT = ("0x4037ced9", "-max", "subnormal")


def run(data, storage, scale_bits, zero_point, **kwargs) -> np.ndarray:
    return H.dequantize(data, descriptor(scale_bits, zero_point), storage, **kwargs)


def ids(storages):
    return [s.name for s in storages]


# ------------------------------------------------------------- the tables
@pytest.mark.parametrize("scale", SCALE_IDS)
def test_wide_table_is_the_oracle(scale):
    """The 16-bit table (oracle stages, shared conversions) equals
    ``hurray_dequant`` itself at the ends, around powers of two and at random
    differences."""
    bits = SCALES[scale]
    rng = np.random.default_rng(bits)
    probe = {0, 1, -1, WIDE_RADIUS, -WIDE_RADIUS, WIDE_RADIUS - 1, -WIDE_RADIUS + 1}
    for k in range(17):
        probe |= {(1 << k) - 1, 1 << k, (1 << k) + 1}
    probe = {d for p in probe for d in (p, -p) if abs(d) <= WIDE_RADIUS}
    probe |= set(rng.integers(-WIDE_RADIUS, WIDE_RADIUS + 1, 64).tolist())
    table = wide_table(bits) if scale in SIXTEEN_DEFAULT else None
    small = small_table(bits)
    bad = []
    for d in sorted(probe):
        want = hurray_dequant(d, bits, 0)
        if hurray_dequant(d - 32768, bits, -32768) != want:
            bad.append(f"oracle not a function of the difference at {d}")
        if table is not None and int(table[d + WIDE_RADIUS]) != want:
            bad.append(f"wide table at {d}: {int(table[d + WIDE_RADIUS]):#010x}, oracle {want:#010x}")
        if abs(d) <= 255 and int(small[d + 255]) != want:
            bad.append(f"small table at {d}: {int(small[d + 255]):#010x}, oracle {want:#010x}")
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------- exhaustive
@pytest.mark.parametrize("scale", SCALE_IDS)
@pytest.mark.parametrize("storage", EXHAUSTIVE_8, ids=ids(EXHAUSTIVE_8))
def test_every_value_and_zero_point_8_bit_and_sub_byte(storage, scale):
    """All 256 byte patterns (every value, in every position of a packed
    byte) for every zero point of the type."""
    bits = SCALES[scale]
    values = unpack(ALL_BYTES, storage)
    assert values.size == 256 * 8 // width(storage)
    lo, hi = spec_range(storage)
    reports = []
    for zp in range(lo, hi + 1):
        got = run(ALL_BYTES, storage, bits, zp)
        reports.append(report(bits_of(got), expected(values, storage, bits, zp), values,
                              f"{storage.name} scale {bits:#010x} zp {zp}"))
    fail_if(reports)


SIXTEEN_CASES = [
    pytest.param(storage, scale, marks=() if scale in SIXTEEN_DEFAULT else pytest.mark.slow,
                 id=f"{storage.name}-{scale}")
    for storage in SIXTEEN for scale in SCALE_IDS
]


@pytest.mark.parametrize("storage, scale", SIXTEEN_CASES)
def test_every_16_bit_value(storage, scale):
    bits = SCALES[scale]
    data = np.arange(1 << 16, dtype="<u2").tobytes()
    values = unpack(data, storage)
    assert values.size == 65536
    reports = []
    for zp in zero_points(storage):
        got = run(data, storage, bits, zp)
        reports.append(report(bits_of(got), expected(values, storage, bits, zp), values,
                              f"{storage.name} scale {bits:#010x} zp {zp}"))
    fail_if(reports)


# INT32 / UINT32 bit patterns around every boundary: the int32 ends, the 2^24
# limit of exact conversion (ties to even above it), rounding up to 2^31.
BOUNDARY_32 = (
    0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x0000007F, 0x00000080, 0x000000FF, 0x00000100,
    0x00007FFF, 0x00008000, 0x0000FFFF, 0x00010000, 0x00FFFFFF, 0x01000000, 0x01000001, 0x01000002,
    0x01000003, 0x01FFFFFF, 0x02000001, 0x02000002, 0x02000006, 0x075BCD15, 0x7FFFFF7F, 0x7FFFFF80,
    0x7FFFFFBF, 0x7FFFFFC0, 0x7FFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 0x80000040, 0x80000041,
    0xB2D05E00, 0xF8A432EB, 0xFEFFFFFF, 0xFF000000, 0xFF000001, 0xFFFFFF00, 0xFFFFFF7F, 0xFFFFFFFE,
    0xFFFFFFFF,
)
WIDE_ZPS = {
    ST.INT32: (INT32_MIN, INT32_MIN + 1, -123456789, -1, 0, 1, 16777217, INT32_MAX),
    ST.UINT32: (0, 1, 255, 16777217, 123456789, INT32_MAX - 1, INT32_MAX),
}


def wide_patterns(zero_point: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    near = [(zero_point + k) & 0xFFFFFFFF for k in (-2, -1, 0, 1, 2)]
    near += [(zero_point + k) & 0xFFFFFFFF for k in (1 << 31, (1 << 31) - 1, (1 << 31) + 1)]
    random = rng.integers(0, 1 << 32, 160, dtype=np.uint64).tolist()
    return np.array(list(BOUNDARY_32) + near + random, dtype=np.uint32)


@pytest.mark.parametrize("scale", SCALE_IDS)
@pytest.mark.parametrize("storage", [ST.INT32, ST.UINT32], ids=["INT32", "UINT32"])
def test_boundary_and_random_32_bit_values(storage, scale):
    bits = SCALES[scale]
    reports = []
    for zp in WIDE_ZPS[storage]:
        data = wide_patterns(zp, seed=bits ^ (zp & 0xFFFF)).astype("<u4").tobytes()
        values = unpack(data, storage)
        got = run(data, storage, bits, zp)
        reports.append(report(bits_of(got), expected(values, storage, bits, zp), values,
                              f"{storage.name} scale {bits:#010x} zp {zp}"))
    fail_if(reports)


# ------------------------------------------------------------ hand-worked
ONE, HALF, NEG_QUARTER = 0x3F800000, 0x3F000000, 0xBE800000
LITERALS = [
    # wrap-around of the int32 difference
    ("uint32-max-minus-0", ST.UINT32, ONE, 0, [0xFFFFFFFF], [0xBF800000]),              # -1
    ("uint32-max-minus-0-half", ST.UINT32, HALF, 0, [0xFFFFFFFF], [0xBF000000]),        # -0.5
    ("uint32-2^31", ST.UINT32, ONE, 0, [0x80000000], [0xCF000000]),                     # -2^31
    ("uint32-0-minus-max", ST.UINT32, ONE, INT32_MAX, [0], [0xCF000000]),               # -(2^31-1) -> -2^31
    ("int32-max-minus-minus-1", ST.INT32, ONE, -1, [INT32_MAX], [0xCF000000]),          # -2^31
    ("int32-max-minus-minus-1-half", ST.INT32, HALF, -1, [INT32_MAX], [0xCE800000]),    # -2^30
    ("int32-max-minus-minus-1-neg", ST.INT32, NEG_QUARTER, -1, [INT32_MAX], [0x4E000000]),  # +2^29
    ("int32-min-minus-1", ST.INT32, ONE, 1, [INT32_MIN], [0x4F000000]),                 # 2^31-1 -> 2^31
    ("int32-min-minus-max", ST.INT32, ONE, INT32_MAX, [INT32_MIN], [0x3F800000]),       # +1
    # binary32 conversion of the difference, ties to even
    ("int32-2^24+1", ST.INT32, ONE, 0, [16777217, 16777219, -16777217], [0x4B800000, 0x4B800002, 0xCB800000]),
    ("int32-2^24+1-minus-minus-1", ST.INT32, ONE, -1, [16777217], [0x4B800001]),
    # packing and sign extension
    ("int16", ST.INT16, ONE, 0, [0x1234, -1, -32768], [0x4591A000, 0xBF800000, 0xC7000000]),
    ("uint16", ST.UINT16, ONE, 0, [0x1234, 0xFFFF, 0x8000], [0x4591A000, 0x477FFF00, 0x47000000]),
    ("uint8-zp", ST.UINT8, HALF, 128, [0, 255], [0xC2800000, 0x427E0000]),             # -64, 63.5
    # signed zeros: q == zero point
    ("zero-positive", ST.INT16, 0x3E800000, 5, [5], [0x00000000]),
    ("zero-negative", ST.INT16, NEG_QUARTER, 5, [5], [0x80000000]),
    ("zero-negative-int8", ST.INT8, NEG_QUARTER, -7, [-7], [0x80000000]),
    ("zero-positive-int8", ST.INT8, 0x3E800000, -7, [-7], [0x00000000]),
    ("zero-negative-uint2", ST.UINT2, NEG_QUARTER, 3, [3], [0x80000000]),
    # overflow to infinity, underflow to subnormals
    ("max", ST.INT16, 0x7F7FFFFF, 0, [2, -1, 0, 1], [0x7F800000, 0xFF7FFFFF, 0x00000000, 0x7F7FFFFF]),
    ("neg-max", ST.INT16, 0xFF7FFFFF, 0, [2, -1, 0, 1], [0xFF800000, 0x7F7FFFFF, 0x80000000, 0xFF7FFFFF]),
    ("max-int8", ST.INT8, 0x7F7FFFFF, 0, [2, -1, 0, 1], [0x7F800000, 0xFF7FFFFF, 0x00000000, 0x7F7FFFFF]),
    ("max-uint4", ST.UINT4, 0x7F7FFFFF, 15, [0, 14, 15], [0xFF800000, 0xFF7FFFFF, 0x00000000]),
    ("min-subnormal", ST.INT16, 0x00000001, 0, [1, -3, 0], [0x00000001, 0x80000003, 0x00000000]),
    ("min-subnormal-neg", ST.INT2, 0x80000001, 0, [1, -2, 0], [0x80000001, 0x00000002, 0x80000000]),
    ("subnormal-to-normal", ST.INT16, 0x00400000, 0, [2, -4], [0x00800000, 0x81000000]),  # 2^-127 * 2, * -4
]


@pytest.mark.parametrize("name, storage, scale_bits, zp, values, want", LITERALS, ids=[c[0] for c in LITERALS])
def test_hand_worked_values(name, storage, scale_bits, zp, values, want):
    data = pack(values, storage)
    got = run(data, storage, scale_bits, zp, count=len(values))
    check(got, np.array(want, dtype=np.uint32), np.array(values, dtype=np.int64), name)
    # ... and the oracle agrees with the hand-worked literal
    assert [hurray_dequant(v, scale_bits, zp) for v in values] == want


PACKING = [
    # data, storage, values element by element (element 0 in the low bits), scale 1, zp 0
    (bytes([0x21, 0xF3, 0x87]), ST.INT4, [1, 2, 3, -1, 7, -8],
     [0x3F800000, 0x40000000, 0x40400000, 0xBF800000, 0x40E00000, 0xC1000000]),
    (bytes([0x21, 0xF3, 0x87]), ST.UINT4, [1, 2, 3, 15, 7, 8],
     [0x3F800000, 0x40000000, 0x40400000, 0x41700000, 0x40E00000, 0x41000000]),
    (bytes([0xE4, 0x1B]), ST.INT2, [0, 1, -2, -1, -1, -2, 1, 0],
     [0x00000000, 0x3F800000, 0xC0000000, 0xBF800000, 0xBF800000, 0xC0000000, 0x3F800000, 0x00000000]),
    (bytes([0xE4, 0x1B]), ST.UINT2, [0, 1, 2, 3, 3, 2, 1, 0],
     [0x00000000, 0x3F800000, 0x40000000, 0x40400000, 0x40400000, 0x40000000, 0x3F800000, 0x00000000]),
    (bytes([0x34, 0x12, 0x00, 0x80]), ST.INT16, [0x1234, -32768], [0x4591A000, 0xC7000000]),
    (bytes([0xFE, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]), ST.INT32, [-2, 1 << 24], [0xC0000000, 0x4B800000]),
]


@pytest.mark.parametrize("data, storage, values, want", PACKING, ids=[c[1].name for c in PACKING])
def test_packing_order_little_end_first(data, storage, values, want):
    assert unpack(data, storage).tolist() == values  # the helper reads the spec's layout
    got = run(data, storage, ONE, 0)
    check(got, np.array(want, dtype=np.uint32), np.array(values), f"{storage.name} {data.hex()}")


# ------------------------------------------------------------ partial bytes
@pytest.mark.parametrize("count", [1, 2, 3, 5, 6, 7, 9, 15, 17, 33])
@pytest.mark.parametrize("storage", SUB_BYTE, ids=ids(SUB_BYTE))
def test_odd_counts_ignore_the_unused_bits_of_the_last_byte(storage, count):
    rng = np.random.default_rng(count)
    lo, hi = spec_range(storage)
    values = rng.integers(lo, hi + 1, count).tolist()
    exact = pack(values, storage)
    assert len(exact) == needed_bytes(count, storage)
    used_bits = count * width(storage) - 8 * (len(exact) - 1)
    garbage_mask = (0xFF << used_bits) & 0xFF
    variants = {
        "zeros": exact,
        "ones": exact[:-1] + bytes([exact[-1] | garbage_mask]),
        "sign-bits": exact[:-1] + bytes([exact[-1] | (garbage_mask & 0xAA)]),
        "trailing-bytes": exact[:-1] + bytes([exact[-1] | garbage_mask]) + b"\xff\x80\x7f",
    }
    for zp in (0, spec_range(storage)[1]):
        want = expected(np.array(values), storage, 0xC037CED9, zp)
        reports = []
        for name, data in variants.items():
            got = run(data, storage, 0xC037CED9, zp, count=count)
            reports.append(report(bits_of(got), want, np.array(values), f"{storage.name} count {count} {name} zp {zp}"))
        fail_if(reports)


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
def test_count_smaller_than_the_data_reads_the_leading_elements(storage):
    data = np.random.default_rng(3).integers(0, 256, 64, dtype=np.uint8).tobytes()
    values = unpack(data, storage)
    for count in (0, 1, 3, values.size - 1, values.size):
        got = run(data, storage, 0x4037CED9, 0, count=count)
        assert got.shape == (count,)
        check(got, expected(values[:count], storage, 0x4037CED9, 0), values[:count], f"{storage.name} count {count}")


# ------------------------------------------------------------- block sizes
COUNTS = (1, 2, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129, 255, 256, 257)


def block_case(storage, scale_bits, zp):
    reports = []
    for count in COUNTS:
        rng = np.random.default_rng(count * 7 + width(storage))
        data = rng.integers(0, 256, needed_bytes(count, storage) + 3, dtype=np.uint8).tobytes()
        values = unpack(data, storage, count)
        whole, out = sentinel_out(count, before=4, after=7)
        result = run(data, storage, scale_bits, zp, count=count, out=out)
        what = f"{storage.name} count {count} scale {scale_bits:#010x} zp {zp}"
        if result is not out:
            reports.append(f"{what}: did not return out")
        reports.append(report(bits_of(out), expected(values, storage, scale_bits, zp), values, what))
        reports.append(guards_report(whole, 4, count, what))
    fail_if(reports)


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
@pytest.mark.parametrize("scale", ["0x4037ced9", "-0x4037ced9"])
def test_sizes_around_the_16_element_blocks(storage, scale):
    lo, hi = zp_limits(storage)
    block_case(storage, SCALES[scale], hi if storage.name.startswith("U") else lo)


@pytest.mark.parametrize("storage", [ST.INT16, ST.UINT16, ST.INT32, ST.UINT32, ST.INT8, ST.INT4],
                         ids=["INT16", "UINT16", "INT32", "UINT32", "INT8", "INT4"])
@pytest.mark.parametrize("offset", [1, 2, 3])
def test_misaligned_input(storage, offset):
    count = 37
    backing = np.random.default_rng(offset).integers(0, 256, needed_bytes(count, storage) + 8, dtype=np.uint8)
    data = backing[offset:offset + needed_bytes(count, storage)]
    values = unpack(data.tobytes(), storage)
    for scale_bits in (0x4037CED9, 0xBE800000):
        got = run(data, storage, scale_bits, 0)
        check(got, expected(values, storage, scale_bits, 0), values, f"{storage.name} offset {offset}")


# ------------------------------------------------------------ buffer types
def _buffers(storage, data: bytes):
    yield "bytes", data
    yield "bytearray", bytearray(data)
    yield "memoryview", memoryview(data)
    yield "ndarray-u8", np.frombuffer(data, np.uint8)
    yield "array-B", array.array("B", data)
    if width(storage) >= 8:   # the storage type's own elements (int16 for INT16)
        typed = f"<{'i' if signed(storage) else 'u'}{width(storage) // 8}"
        yield "ndarray-typed", np.frombuffer(data, typed).copy()
        yield "memoryview-typed", memoryview(np.frombuffer(data, typed).copy())


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
def test_any_buffer_type(storage):
    data = np.random.default_rng(11).integers(0, 256, 40, dtype=np.uint8).tobytes()
    values = unpack(data, storage)
    want = expected(values, storage, 0xBE800000, 0)
    reports = []
    for name, buf in _buffers(storage, data):
        got = run(buf, storage, 0xBE800000, 0)
        reports.append(report(bits_of(got), want, values, f"{storage.name} {name}"))
        if isinstance(buf, (bytearray, np.ndarray, array.array)) and bytes(buf) != data:
            reports.append(f"{storage.name} {name}: input modified")
    fail_if(reports)


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
def test_result_is_a_new_contiguous_float32_vector(storage):
    data = bytes(range(16))
    a = run(data, storage, ONE, 0)
    b = run(data, storage, ONE, 0)
    n = 16 * 8 // width(storage)
    assert a.dtype == np.float32 and a.shape == (n,) and a.flags.c_contiguous and a.flags.writeable
    assert a is not b and not np.shares_memory(a, b)


# ------------------------------------------------------------ counts, sizes
@pytest.mark.parametrize("storage, nbytes, count", [
    (ST.INT8, 4, 5), (ST.UINT8, 0, 1), (ST.INT16, 4, 3), (ST.UINT16, 5, 3), (ST.INT32, 8, 3),
    (ST.UINT32, 11, 3), (ST.INT4, 2, 5), (ST.UINT4, 3, 7), (ST.INT2, 1, 5), (ST.UINT2, 2, 9), (ST.INT4, 0, 1),
], ids=lambda v: getattr(v, "name", str(v)))
def test_count_larger_than_the_data_is_refused(storage, nbytes, count):
    with pytest.raises(ValueError):
        run(bytes(nbytes), storage, ONE, 0, count=count)


@pytest.mark.parametrize("storage, nbytes, count", [
    (ST.INT4, 3, 6), (ST.INT4, 3, 5), (ST.UINT2, 2, 8), (ST.UINT2, 2, 5), (ST.INT16, 5, 2), (ST.UINT32, 11, 2),
], ids=lambda v: getattr(v, "name", str(v)))
def test_count_that_just_fits_is_accepted(storage, nbytes, count):
    assert run(bytes(nbytes), storage, ONE, 0, count=count).shape == (count,)


@pytest.mark.parametrize("storage, nbytes", [
    (ST.INT16, 1), (ST.INT16, 3), (ST.UINT16, 5), (ST.INT32, 1), (ST.INT32, 2), (ST.UINT32, 3), (ST.UINT32, 6),
    (ST.INT32, 7),
], ids=lambda v: getattr(v, "name", str(v)))
def test_data_length_not_a_multiple_of_the_element_size_is_refused(storage, nbytes):
    with pytest.raises(ValueError):
        run(bytes(nbytes), storage, ONE, 0)


@pytest.mark.parametrize("count", [-1, 1.0, "2", True])
def test_count_must_be_a_nonnegative_int(count):
    with pytest.raises(ValueError):
        run(bytes(8), ST.INT8, ONE, 0, count=count)


@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
@pytest.mark.parametrize("scale", ["1.0", "-0.25"])
def test_empty_data_gives_an_empty_result(storage, scale):
    for data in (b"", bytearray(), np.zeros(0, np.uint8)):
        got = run(data, storage, SCALES[scale], 0)
        assert got.dtype == np.float32 and got.shape == (0,)
    assert run(bytes(8), storage, SCALES[scale], 0, count=0).shape == (0,)
    out = np.zeros(0, np.float32)
    assert run(b"", storage, SCALES[scale], 0, out=out) is out


# -------------------------------------------------------------------- out=
@pytest.mark.parametrize("storage", ALL_STORAGE, ids=ids(ALL_STORAGE))
@pytest.mark.parametrize("scale", ["0x4037ced9", "-0.25"])
def test_out_is_written_in_place_and_returned(storage, scale):
    bits = SCALES[scale]
    data = bytes(range(100, 132))
    values = unpack(data, storage)
    whole, out = sentinel_out(values.size)
    result = run(data, storage, bits, 0, out=out)
    assert result is out
    check(out, expected(values, storage, bits, 0), values, f"{storage.name} out=")
    fail_if([guards_report(whole, 3, values.size, f"{storage.name} out=")])


def _wrong_outs(n):
    yield "float64", np.zeros(n, np.float64)
    yield "float16", np.zeros(n, np.float16)
    yield "uint32", np.zeros(n, np.uint32)
    yield "longer", np.zeros(n + 1, np.float32)
    yield "shorter", np.zeros(n - 1, np.float32)
    yield "2-d", np.zeros((1, n), np.float32)
    yield "column", np.zeros((n, 1), np.float32)
    yield "strided", np.zeros(2 * n, np.float32)[::2]
    ro = np.zeros(n, np.float32)
    ro.flags.writeable = False
    yield "read-only", ro
    yield "list", [0.0] * n


@pytest.mark.parametrize("storage", [ST.INT8, ST.UINT8, ST.INT16, ST.UINT32, ST.INT4, ST.UINT2],
                         ids=["INT8", "UINT8", "INT16", "UINT32", "INT4", "UINT2"])
@pytest.mark.parametrize("scale", ["1.0", "-0.25"])
def test_wrong_out_is_refused_and_left_alone(storage, scale):
    data = bytes(range(16))
    n = 16 * 8 // width(storage)
    problems = []
    for name, out in _wrong_outs(n):
        before = np.array(out, copy=True) if isinstance(out, np.ndarray) else list(out)
        try:
            run(data, storage, SCALES[scale], 0, out=out)
            problems.append(f"{storage.name} {name}: accepted")
        except ValueError:
            pass
        unchanged = np.array_equal(out, before) if isinstance(out, np.ndarray) else out == before
        if not unchanged:
            problems.append(f"{storage.name} {name}: written although refused")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------- descriptor checks
INVALID_DESCRIPTORS = [
    ("zero-scale", ST.INT16, 0.0, 0),
    ("negative-zero-scale", ST.INT8, -0.0, 0),
    ("nan-scale", ST.UINT8, float("nan"), 0),
    ("inf-scale", ST.INT8, float("inf"), 0),
    ("-inf-scale", ST.INT4, float("-inf"), 0),
    ("int8-zp-128", ST.INT8, 1.0, 128),
    ("uint8-zp--1", ST.UINT8, 1.0, -1),
    ("int4-zp-8", ST.INT4, 1.0, 8),
    ("uint2-zp-4", ST.UINT2, 1.0, 4),
    ("uint16-zp-65536", ST.UINT16, -1.0, 65536),
    ("uint32-zp--1", ST.UINT32, 1.0, -1),
    ("int32-zp-2^31", ST.INT32, 1.0, INT32_MAX + 1),
    # a UINT32 value, but not an int32: the descriptor field cannot hold it
    ("uint32-zp-2^31", ST.UINT32, 1.0, INT32_MAX + 1),
    ("uint32-zp-2^32-1", ST.UINT32, 1.0, 0xFFFFFFFF),
]


@pytest.mark.parametrize("name, storage, scale, zp", INVALID_DESCRIPTORS, ids=[c[0] for c in INVALID_DESCRIPTORS])
def test_dequantize_refuses_an_invalid_descriptor(name, storage, scale, zp):
    out = np.full(8 * 8 // width(storage), SENTINEL, np.uint32).view(np.float32)
    with pytest.raises(H.HurrayFormatError):
        H.dequantize(bytes(8), H.PerTensorAffine(scale, zp), storage, out=out)
    assert np.all(bits_of(out) == SENTINEL), "output written although refused"


@pytest.mark.parametrize("storage", [0x00, 0x16, 0x47, 0x4C, 0xFF, "INT8", None])
def test_dequantize_refuses_a_storage_type_not_in_the_list(storage):
    with pytest.raises(H.HurrayFormatError, match="storage type"):
        H.dequantize(bytes(8), descriptor(ONE, 0), storage)


def test_dequantize_takes_the_storage_type_as_its_integer_tag():
    got = H.dequantize(bytes([0x21]), descriptor(ONE, 0), 0x48)
    assert bits_of(got).tolist() == [0x3F800000, 0x40000000]


# ---------------------------------------------------------------- property
@st.composite
def cases(draw):
    storage = draw(st.sampled_from(ALL_STORAGE))
    scale_bits = draw(st.one_of(st.sampled_from(list(SCALES.values())), st.integers(0, 0xFFFFFFFF)).filter(
        lambda b: (b >> 23) & 0xFF != 0xFF and b & 0x7FFFFFFF))
    lo, hi = zp_limits(storage)
    zp = draw(st.one_of(st.sampled_from([lo, hi, 0] if lo <= 0 else [lo, hi]), st.integers(lo, hi)))
    data = draw(st.binary(max_size=48))
    if width(storage) >= 16:
        data = data[: len(data) - len(data) % (width(storage) // 8)]
    capacity = len(data) * 8 // width(storage)
    count = draw(st.one_of(st.none(), st.integers(0, capacity)))
    return storage, scale_bits, zp, data, count


@given(case=cases())
def test_random_descriptors_and_data_match_the_oracle(case):
    storage, scale_bits, zp, data, count = case
    values = unpack(data, storage, count)
    got = run(data, storage, scale_bits, zp, count=count)
    want = np.array([hurray_dequant(int(q), scale_bits, zp) for q in values.tolist()], dtype=np.uint32)
    check(got, want, values, f"{storage.name} scale {scale_bits:#010x} zp {zp} data {data.hex()} count {count}")
