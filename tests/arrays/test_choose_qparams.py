"""``sk.choose_qparams`` (the rule in docs/qparams.md).  Every result equals the oracle's rule
(tests/oracle/qparams.py) field for field, channel by channel; every
guarantee is checked on the parameters it returns by arithmetic written
here from the definitions (NumPy binary32 products in the default FP state,
exact rationals), and by running the library's own quantize and dequantize
on the data."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32
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


def assert_oracle(x, qp, symmetric):
    """Each channel's (scale bits, zero point, multiplier bits) is the
    oracle's rule on that channel's exact finite range."""
    fmt = ORACLE_FORMATS[x.dtype]
    unsigned = np.uint32 if x.dtype.itemsize == 4 else np.uint16
    for index, (row, scale, zp, multiplier) in enumerate(channels(x, qp)):
        e_scale, e_zero_point, e_multiplier = oracle_choice(fmt, np.ascontiguousarray(row).view(unsigned), symmetric)
        got = (bits_of(scale), int(zp), bits_of(multiplier))
        assert got == (e_scale, e_zero_point, e_multiplier), (
            f"channel {index}: got {got[0]:#010x} {got[1]} {got[2]:#010x}, oracle {e_scale:#010x} {e_zero_point} "
            f"{e_multiplier:#010x}")


def oracle_choice(fmt, patterns: np.ndarray, symmetric: bool):
    """(scale bits, zero point, multiplier bits): the oracle's rule on the
    exact finite range of ``patterns``; large inputs memoised on disk
    (support/oracle_store)."""
    def compute() -> np.ndarray:
        e = oracle.choose(*oracle.finite_range(fmt, patterns.tolist()), symmetric)
        return np.array([e.scale, e.zero_point, e.multiplier], np.int64)

    if patterns.size < 4096:
        return tuple(int(v) for v in compute())
    what = f"choose {fmt.name} {symmetric} {patterns.dtype.str} {oracle_store.digest(patterns)}"
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
