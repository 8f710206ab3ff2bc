"""``sk.choose_qparams`` (the rule in docs/qparams.md).  Every result equals the oracle's rule
(tests/oracle/qparams.py) field for field, channel by channel; every
guarantee is checked on the parameters it returns by arithmetic written
here from the definitions (NumPy binary32 products in the default FP state,
exact rationals), and by running the library's own quantize and dequantize
on the data.  Every storage type's levels besides INT8 (``dtype=``): the
same comparison with the oracle, and the guarantees checked in exact
arithmetic (the oracle's Quant order before saturation, Hurray's
dequantization formula), since their quantize kernels are not here."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32, int32_to_binary32, multiply_binary32, value_of
from oracle import qparams as oracle
from support import oracle_store
from support.helpers import fp_or_skip

E = sk.ErrorCode
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
ORACLE_FORMATS = {np.dtype(np.float32): BINARY32, np.dtype(ml_dtypes.bfloat16): BFLOAT16,
                  np.dtype(np.float16): BINARY16}
MODES = ["nearest_even", "toward_zero", "toward_positive", "toward_negative"]


def datasets():
    rng = np.random.default_rng(20261202)
    yield "normal", rng.standard_normal((6, 33)) * 3
    yield "positive", rng.random((5, 17)) * 40 + 1
    yield "negative", -rng.random((4, 9)) * 0.002 - 1e-4
    yield "lopsided", np.concatenate([rng.standard_normal((3, 20)) * 0.01, np.full((3, 1), 500.0)], axis=1)
    yield "zeros", np.zeros((3, 4))
    yield "constant", np.full((2, 7), -2.5)
    yield "specials", np.array([[np.nan, 1.5, -np.inf, 0.25], [np.inf, np.nan, -3.0, 7.0]])
    yield "tiny", np.array([[1e-40, -3e-39, 2e-45, 0.0], [5e-42, 1e-44, -1e-45, 1e-38]])
    yield "huge", np.array([[3.0e38, -3.3e38, 1.0], [-1e38, 2e38, 0.0]])


CASES = [(name, key) for name, _ in datasets() for key in DTYPES]


def data(name, key):
    values = dict(datasets())[name]
    with np.errstate(over="ignore"):
        return values.astype(DTYPES[key])


def finite_range(row):
    """(lo, hi) as float64, 0 included, NaN and infinities left out."""
    values = row.astype(np.float64)
    values = values[np.isfinite(values)]
    return min(0.0, values.min(initial=0.0)), max(0.0, values.max(initial=0.0))


def channels(x, qp):
    """(row of x, scale, zero point, multiplier) per channel of qp."""
    if qp.axis is None:
        yield x.reshape(-1), qp.scale, qp.zero_point, qp.multiplier
        return
    rows = np.moveaxis(x, qp.axis, 0)
    for c in range(rows.shape[0]):
        yield rows[c].reshape(-1), qp.scale[c], int(qp.zero_point[c]), qp.multiplier[c]


def nearest_binary32(value: Fraction) -> np.float32:
    """The binary32 nearest to an exact value among a NumPy guess and its
    neighbours (ties to the even significand)."""
    guess = np.float32(float(value))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    def distance(c):
        return abs(Fraction(float(c)) - value), int(np.array(c).view(np.uint32)) & 1
    return min((c for c in candidates if np.isfinite(c)), key=distance)


def bits_of(value) -> int:
    return int(np.asarray(value, np.float32).view(np.uint32))


def assert_oracle(x, qp, symmetric, storage="int8"):
    """Each channel's (scale bits, zero point, multiplier bits) is the
    oracle's rule on that channel's exact finite range, for the levels of
    ``storage``."""
    fmt = ORACLE_FORMATS[x.dtype]
    unsigned = np.uint32 if x.dtype.itemsize == 4 else np.uint16
    for index, (row, scale, zp, multiplier) in enumerate(channels(x, qp)):
        e_scale, e_zero_point, e_multiplier = oracle_choice(fmt, np.ascontiguousarray(row).view(unsigned), symmetric,
                                                            storage)
        got = (bits_of(scale), int(zp), bits_of(multiplier))
        assert got == (e_scale, e_zero_point, e_multiplier), (
            f"channel {index}: got {got[0]:#010x} {got[1]} {got[2]:#010x}, oracle {e_scale:#010x} {e_zero_point} "
            f"{e_multiplier:#010x}")


def oracle_choice(fmt, patterns: np.ndarray, symmetric: bool, storage: str = "int8"):
    """(scale bits, zero point, multiplier bits): the oracle's rule on the
    exact finite range of ``patterns``; large inputs memoised on disk
    (support/oracle_store)."""
    levels = oracle.storage_levels(storage)

    def compute() -> np.ndarray:
        e = oracle.choose(*oracle.finite_range(fmt, patterns.tolist()), symmetric, levels)
        return np.array([e.scale, e.zero_point, e.multiplier], np.int64)

    if patterns.size < 4096:
        return tuple(int(v) for v in compute())
    what = f"choose {fmt.name} {symmetric} {patterns.dtype.str} {oracle_store.digest(patterns)}"
    if storage != "int8":
        what += f" levels {levels}"
    return tuple(int(v) for v in oracle_store.stored(what, np.int64, 3, compute))


@pytest.mark.parametrize("symmetric", [False, True], ids=["asymmetric", "symmetric"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("name,key", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_guarantees(name, key, axis, symmetric):
    x = data(name, key)
    qp = sk.choose_qparams(x, symmetric=symmetric, axis=axis)
    expected_count = None if axis is None else x.shape[axis]
    if expected_count is not None:
        assert qp.axis == axis % x.ndim and qp.scale.shape == qp.zero_point.shape == (expected_count,)
    assert_oracle(x, qp, symmetric)
    for row, scale, zp, multiplier in channels(x, qp):
        assert np.isfinite(scale) and scale > 0 and np.isfinite(multiplier) and multiplier > 0, (scale, multiplier)
        assert multiplier == nearest_binary32(1 / Fraction(float(scale))), "multiplier is not fl32(1/scale)"
        assert (zp == 0) if symmetric else (-128 <= zp <= 127), zp
        assert sk.dequantize(np.int8([zp]), scale, zp)[0] == 0, "dequantize(zero_point) is not 0"
        lo, hi = finite_range(row)
        low_levels = -127 if symmetric else -128
        for end in (lo, hi):  # the unclamped integer of the most extreme modes
            product = np.float32(end) * multiplier
            assert low_levels <= np.floor(product) + zp and np.ceil(product) + zp <= 127, (end, product, zp)
        finite = row[np.isfinite(row.astype(np.float64))]
        q = sk.quantize(finite, multiplier, zp)
        back = sk.dequantize(q, scale, zp).astype(np.float64)
        error = np.abs(back - finite.astype(np.float64))
        bound = 0.5 * float(scale) * (1 + 2.0 ** -10) + 2.0 ** -23 * np.abs(finite.astype(np.float64))
        assert np.all(error <= bound), f"{name}: round trip error {error.max()} beyond half a step {scale}"
        if hi > lo and not symmetric and scale >= np.finfo(np.float32).tiny:
            # the range spans 254 steps (a subnormal scale may be the floor
            # below which the multiplier would be infinite)
            ends = sk.quantize(np.array([lo, hi], np.float32), multiplier, zp)
            assert int(ends[1]) - int(ends[0]) >= 253, ends


@pytest.mark.parametrize("mode", MODES)
def test_no_end_saturates_in_any_mode(mode):
    """The ends of a range quantize to in-range levels (not clamped) in every
    mode: checked against the exact product's integer bounds."""
    x = np.float32([-0.7, 0.0, 0.3, 2.9, -0.01])
    for symmetric in (False, True):
        qp = sk.choose_qparams(x, symmetric=symmetric)
        q = sk.quantize(np.float32([-0.7, 2.9]), qp.multiplier, qp.zero_point, rounding=mode)
        product = np.float32([-0.7, 2.9]) * qp.multiplier
        unclamped = {"nearest_even": np.rint, "toward_zero": np.trunc, "toward_positive": np.ceil,
                     "toward_negative": np.floor}[mode](product) + qp.zero_point
        assert np.array_equal(q, unclamped.astype(np.int8)), (mode, q, unclamped)


def test_every_finite_fp16_and_bf16_value():
    """The whole finite range of each 16-bit format as one tensor."""
    for dtype, bits in ((np.float16, np.arange(1 << 16, dtype=np.uint16)),
                        (ml_dtypes.bfloat16, np.arange(1 << 16, dtype=np.uint16))):
        x = bits.view(dtype)
        with np.errstate(invalid="ignore"):  # signalling NaN patterns among the 65,536
            finite = x[np.isfinite(x.astype(np.float32))]
        for symmetric in (False, True):
            qp = sk.choose_qparams(x, symmetric=symmetric)
            assert_oracle(x, qp, symmetric)
            lo, hi = finite_range(finite)
            q = sk.quantize(finite, qp.multiplier, qp.zero_point)
            back = sk.dequantize(q, qp.scale, qp.zero_point).astype(np.float64)
            assert np.all(np.abs(back - finite.astype(np.float64)) <= 0.5 * float(qp.scale) * (1 + 2.0 ** -10)
                          + 2.0 ** -23 * np.abs(finite.astype(np.float64)))
            assert lo < 0 < hi


def test_empty_and_non_finite_ranges_give_valid_pairs():
    for x in (np.zeros(0, np.float32), np.float32([np.nan, np.inf, -np.inf]), np.zeros((2, 3), np.float16)):
        qp = sk.choose_qparams(x)
        assert (float(qp.scale), qp.zero_point, float(qp.multiplier)) == (1.0, -128, 1.0), qp
        qs = sk.choose_qparams(x, symmetric=True)
        assert (float(qs.scale), qs.zero_point, float(qs.multiplier)) == (1.0, 0, 1.0), qs
        assert_oracle(x, qp, False)
        assert_oracle(x, qs, True)
    per_axis = sk.choose_qparams(np.zeros((0, 3), np.float32), axis=0)
    assert per_axis.scale.shape == (0,) and per_axis.zero_point.dtype == np.int32


def test_the_documented_example():
    """docs/qparams.md: [-1, 0.5, 2] -> scale fl32(3/254), multiplier
    fl32(254/3) (fl32 of the reciprocal of that scale), zero point
    -128 - floor(-1 * multiplier) = -43."""
    qp = sk.choose_qparams(np.float32([-1.0, 0.5, 2.0]))
    assert qp.scale == np.float32(3 / 254) and qp.multiplier == np.float32(254 / 3) and qp.zero_point == -43
    assert_oracle(np.float32([-1.0, 0.5, 2.0]), qp, False)


@pytest.mark.parametrize("state", [dict(flush_to_zero=True, denormals_are_zero=True), dict(rounding="UPWARD"),
                                   dict(traps=("INEXACT", "UNDERFLOW"))], ids=["ftz-daz", "upward", "traps"])
def test_the_callers_fp_state_changes_nothing(state):
    x = data("tiny", "f32")
    expected = sk.choose_qparams(x, axis=1)
    state = {k: (getattr(sk.fenv.Rounding, v) if k == "rounding" else
                 tuple(getattr(sk.fenv.Trap, t) for t in v) if k == "traps" else v) for k, v in state.items()}
    with fp_or_skip(**state):
        got = sk.choose_qparams(x, axis=1)
    for field in ("scale", "zero_point", "multiplier"):
        assert np.array_equal(np.asarray(getattr(got, field)).view(np.uint32 if field != "zero_point" else np.int32),
                              np.asarray(getattr(expected, field)).view(np.uint32 if field != "zero_point"
                                                                       else np.int32)), field


@pytest.mark.parametrize("x,kwargs,code,words", [
    (np.float64([1.0]), {}, E.UNSUPPORTED_DTYPE, ["float64"]),
    (np.int8([1]), {}, E.UNSUPPORTED_DTYPE, ["int8"]),
    (np.float32([[1.0]]), {"axis": 2}, E.INVALID_PARAMS, ["axis 2", "rank 2"]),
    (np.float32([[1.0]]), {"axis": -3}, E.INVALID_PARAMS, ["axis -3"]),
    (np.float32([1.0]), {"axis": "0"}, E.INVALID_PARAMS, ["axis '0'"]),
    (np.float32([1.0]), {"symmetric": 1}, E.INVALID_PARAMS, ["symmetric"]),
    (np.ma.masked_array(np.float32([1.0, 2.0]), [0, 1]), {}, E.INVALID_BINDING, ["MaskedArray"]),
])
def test_refusals(x, kwargs, code, words):
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(x, **kwargs)
    assert info.value.code == code and all(w in str(info.value) for w in words), str(info.value)


# ---------------------------------------------------- every storage type

# (storage type, symmetric): symmetric for the signed types only.
STORAGE_CASES = [(name, symmetric) for name in oracle.STORAGE for symmetric in (False, True)
                 if not symmetric or oracle.STORAGE[name][1]]
STORAGE_IDS = [f"{name}-{'symmetric' if symmetric else 'asymmetric'}" for name, symmetric in STORAGE_CASES]


def recorded(name):
    """What QParams.dtype holds for a storage type: its sk.DType (the
    sub-byte names themselves while sk.DType lacks them)."""
    return getattr(sk.DType, name.upper(), name)


def dequantized(q: int, zero_point: int, scale_bits: int):
    """Hurray's formula (the affine dequantization of every storage type):
    fl32(fl32(q - zero_point) * scale), exact; None when it overflows."""
    bits = multiply_binary32(int32_to_binary32(q - zero_point), scale_bits)
    return value_of(BINARY32, bits) if bits & 0x7FFFFFFF < 0x7F800000 else None


def assert_guarantees(x, qp, storage, symmetric):
    """docs/qparams.md's guarantees for the levels of ``storage``, channel by
    channel, in exact arithmetic: valid parameters, zero exact, no end
    saturating in any mode (every value's level in range before any clamp),
    half a step back with nearest-even, and the asymmetric range spanning
    all steps but one or two."""
    fmt = ORACLE_FORMATS[x.dtype]
    unsigned = np.uint32 if x.dtype.itemsize == 4 else np.uint16
    low, high = oracle.storage_levels(storage)
    lowest = -high if symmetric else low
    for row, scale, zp, multiplier in channels(x, qp):
        assert np.isfinite(scale) and scale > 0 and np.isfinite(multiplier) and multiplier > 0, (scale, multiplier)
        assert multiplier == nearest_binary32(1 / Fraction(float(scale))), "multiplier is not fl32(1/scale)"
        assert (zp == 0) if symmetric else (low <= zp <= high), (storage, zp)
        s_bits, m_bits = bits_of(scale), bits_of(multiplier)
        assert oracle.quantized(Fraction(0), m_bits, zp) == zp and dequantized(zp, zp, s_bits) == 0, "zero is not exact"
        patterns = np.ascontiguousarray(row).view(unsigned).tolist()
        lo, hi = oracle.finite_range(fmt, patterns)
        for mode in MODES:
            a, b = oracle.quantized(lo, m_bits, zp, mode), oracle.quantized(hi, m_bits, zp, mode)
            assert lowest <= a and b <= high, (storage, mode, a, b)
        values = [value_of(fmt, p) for p in patterns if _finite(fmt, p)]
        half = Fraction(float(scale)) / 2 * (1 + Fraction(1, 1 << 10))
        for v in values:
            q = oracle.quantized(v, m_bits, zp)
            assert lowest <= q <= high, (storage, v, q)
            back = dequantized(q, zp, s_bits)
            if back is None:  # a level beyond the largest binary32: an end within half a step of it
                assert abs((q - zp) * Fraction(float(scale))) > value_of(BINARY32, 0x7F7FFFFF), (storage, v, q)
                assert abs((q - zp) * Fraction(float(scale)) - v) <= half + abs(v) / (1 << 23), (storage, v, q)
                continue
            assert abs(back - v) <= half + abs(v) / (1 << 23), (storage, v, q, scale)
        if hi > lo and not symmetric and scale >= np.finfo(np.float32).tiny:
            span = oracle.quantized(hi, m_bits, zp) - oracle.quantized(lo, m_bits, zp)
            assert span >= high - low - 2, (storage, span)


def _finite(fmt, pattern: int) -> bool:
    return (pattern >> fmt.fraction_bits) & ((1 << fmt.exponent_bits) - 1) != (1 << fmt.exponent_bits) - 1


def check_storage_case(name, key, axis, storage, symmetric):
    x = data(name, key)
    qp = sk.choose_qparams(x, dtype=storage, symmetric=symmetric, axis=axis)
    assert qp.dtype == recorded(storage) and qp.symmetric is symmetric
    assert qp.axis == (None if axis is None else axis % x.ndim)
    assert_oracle(x, qp, symmetric, storage)
    assert_guarantees(x, qp, storage, symmetric)


@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_guarantees_for_every_storage_type(storage, symmetric):
    """Every dataset, in one of the input formats and per tensor or per
    channel of axis 0 (in turn, so that over the types every pairing
    comes up): the oracle's fields and the guarantees on the type's
    levels."""
    turn = STORAGE_CASES.index((storage, symmetric))
    keys = list(DTYPES)
    for i, (name, _) in enumerate(datasets()):
        check_storage_case(name, keys[(i + turn) % 3], (None, 0)[(i + turn) % 2], storage, symmetric)


@pytest.mark.slow
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name,key", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_guarantees_for_every_storage_type_everywhere(name, key, axis):
    for storage, symmetric in STORAGE_CASES:
        check_storage_case(name, key, axis, storage, symmetric)


@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_blocked_parameters_for_every_storage_type(storage, symmetric):
    """With block_size, each entry is the per-tensor rule on its block."""
    x = (np.random.default_rng(9).standard_normal((3, 11)) * [[1e-3], [1.0], [1e30]]).astype(np.float32)
    qp = sk.choose_qparams(x, dtype=storage, symmetric=symmetric, axis=1, block_size=4)
    assert qp.scale.shape == (3, 3) and qp.block_size == 4 and qp.dtype == recorded(storage)
    for r in range(3):
        for j in range(3):
            one = sk.choose_qparams(x[r, 4 * j:4 * j + 4], dtype=storage, symmetric=symmetric)
            assert (bits_of(qp.scale[r, j]), int(qp.zero_point[r, j]), bits_of(qp.multiplier[r, j])) == (
                bits_of(one.scale), one.zero_point, bits_of(one.multiplier)), (r, j)


def test_every_finite_16_bit_value_for_every_storage_type():
    """The whole finite range of BF16 and FP16 as one tensor, every type."""
    for dtype in (np.float16, ml_dtypes.bfloat16):
        x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
        fmt = ORACLE_FORMATS[np.dtype(dtype)]
        hi = value_of(fmt, ((1 << fmt.exponent_bits) - 1 << fmt.fraction_bits) - 1)  # the greatest finite
        lo = -hi
        for storage, symmetric in STORAGE_CASES:
            qp = sk.choose_qparams(x, dtype=storage, symmetric=symmetric)
            e = oracle.choose(lo, hi, symmetric, oracle.storage_levels(storage))
            assert (bits_of(qp.scale), qp.zero_point, bits_of(qp.multiplier)) == (e.scale, e.zero_point,
                                                                                    e.multiplier), storage


def test_dtype_spellings():
    """An sk.DType, its name in any case, a NumPy or ml_dtypes dtype or
    scalar type: the same parameters, and QParams.dtype records the type."""
    x = np.float32([-0.75, 0.5, 3.0])
    spellings = {
        "uint8": ["uint8", "UINT8", np.uint8, np.dtype(np.uint8), sk.DType.UINT8],
        "int16": ["int16", "Int16", np.int16, np.dtype("int16"), sk.DType.INT16],
        "uint16": ["uint16", np.uint16, sk.DType.UINT16],
        "int8": ["int8", np.int8, sk.DType.INT8, "INT8"],
        "int4": ["int4", "INT4", ml_dtypes.int4, np.dtype(ml_dtypes.int4)],
        "uint4": ["uint4", ml_dtypes.uint4, np.dtype(ml_dtypes.uint4)],
        "int2": ["int2", ml_dtypes.int2],
        "uint2": ["uint2", "UINT2", ml_dtypes.uint2],
    }
    for name, ways in spellings.items():
        expected = oracle.choose(Fraction(-3, 4), Fraction(3), False, oracle.storage_levels(name))
        for way in ways:
            qp = sk.choose_qparams(x, dtype=way)
            assert qp.dtype == recorded(name), (way, qp.dtype)
            assert (bits_of(qp.scale), qp.zero_point, bits_of(qp.multiplier)) == (
                expected.scale, expected.zero_point, expected.multiplier), way
    assert sk.choose_qparams(x).dtype is sk.DType.INT8


@pytest.mark.parametrize("dtype,words", [
    ("int32", ["dtype='int32'", "32-bit"]), (sk.DType.UINT32, ["dtype=DType.UINT32", "32-bit"]),
    (np.int32, ["dtype=", "int32", "32-bit"]), ("float32", ["dtype='float32'", "not an integer"]),
    (ml_dtypes.bfloat16, ["dtype=", "bfloat16", "not an integer"]), (sk.DType.FLOAT16, ["not an integer"]),
    ("int3", ["dtype='int3'", "no simakernels dtype"]), (None, ["dtype=None"]), (3.5, ["dtype=3.5"]),
    (np.int64, ["dtype=", "int64", "no simakernels dtype"]),
])
def test_dtype_refusals(dtype, words):
    """UNSUPPORTED_DTYPE naming dtype= and the value, listing the types taken."""
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.float32([1.0]), dtype=dtype)
    message = str(info.value)
    assert info.value.code is E.UNSUPPORTED_DTYPE and all(w in message for w in words), message
    assert "int8, uint8, int16, uint16, int4, uint4, int2 or uint2" in message


@pytest.mark.parametrize("dtype", ["uint8", sk.DType.UINT16, ml_dtypes.uint4, "uint2"])
def test_symmetric_unsigned_is_refused(dtype):
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.float32([-1.0, 1.0]), dtype=dtype, symmetric=True)
    message = str(info.value)
    assert info.value.code is E.INVALID_PARAMS and "symmetric=True" in message and "unsigned" in message, message
    # the same dtype asymmetric is fine; x's dtype is checked first, then symmetric's type
    sk.choose_qparams(np.float32([-1.0, 1.0]), dtype=dtype)
    with pytest.raises(sk.KernelError) as first:
        sk.choose_qparams(np.float64([1.0]), dtype=dtype, symmetric=True)
    assert first.value.code is E.UNSUPPORTED_DTYPE and "x: dtype float64" in str(first.value)
    with pytest.raises(sk.KernelError) as second:
        sk.choose_qparams(np.float32([1.0]), dtype=dtype, symmetric=1)
    assert second.value.code is E.INVALID_PARAMS and "symmetric must be a bool" in str(second.value)


def test_the_documented_examples_of_other_types():
    """docs/qparams.md, "Other storage types"."""
    x = np.float32([-1.0, 0.5, 2.0])
    qu = sk.choose_qparams(x, dtype="uint8")
    assert qu.scale == np.float32(3 / 254) and qu.zero_point == 85 and qu.dtype is sk.DType.UINT8
    q4 = sk.choose_qparams(x, dtype="int4")
    assert q4.scale == np.float32(3 / 14) and q4.multiplier == np.float32(14 / 3) and q4.zero_point == -3
    s4 = sk.choose_qparams(x, dtype="int4", symmetric=True)
    assert s4.scale == np.float32(2 / 7) and s4.zero_point == 0


def test_qparams_dtype_field():
    """The last field, INT8 by default: positional construction as before,
    and the repr names another type only."""
    qp = sk.QParams(1.0, 0, 1.0)
    assert qp.dtype is sk.DType.INT8 and "dtype" not in repr(qp)
    assert sk.QParams(1.0, 0, 1.0, None, False, None, sk.DType.UINT8).dtype is sk.DType.UINT8
    assert "dtype=DType.UINT8" in repr(sk.choose_qparams(np.float32([1.0]), dtype="uint8"))
    _, dynamic = sk.quantize_dynamic(np.float32([1.0, -2.0]))
    assert dynamic.dtype is sk.DType.INT8 and dynamic == sk.choose_qparams(np.float32([1.0, -2.0]))
    _, blocked = sk.quantize_dynamic(np.float32([[1.0, -2.0]]), axis=1, block_size=1)
    assert blocked.dtype is sk.DType.INT8
