"""The array layer ``sk.quantize``: FP32, BF16 (ml_dtypes) and FP16 arrays,
NumPy views executed in place, ``out=``, rounding as enum or lower-case
name, scalars and empty arrays, and KernelError codes (nothing written on
an error).  Every numerical test runs on every route, forced through
SIMAKERNELS_FORCE_ROUTE; expected values from the oracle."""
import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES, assert_bits_equal, fp_or_skip
from support.op_cases import raises_kernel_error as raises
from support.quant_helpers import (
    BF16,
    F16,
    F32,
    MODES,
    NUMPY_FLOAT,
    PROFILES,
    QUICK16,
    Rounding,
    oracle,
    table16,
    useful_values,
)

E = sk.ErrorCode
BF = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"f32": F32, "bf16": BF16, "f16": F16}
UINT = {F32: np.uint32, BF16: np.uint16, F16: np.uint16}


@pytest.fixture(params=ROUTES)
def route(request, monkeypatch):
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", request.param)
    return request.param


def m_of(bits):
    """The binary32 multiplier with these bits, as a NumPy scalar."""
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]


def as_array(dtype, patterns, shape=None):
    a = np.asarray(patterns, dtype=UINT[dtype]).view(NUMPY_FLOAT[dtype])
    return a if shape is None else a.reshape(shape)


def check(result, x, dtype, m_bits, zp=0, mode="nearest_even", what="sk.quantize"):
    """``result`` is the oracle's quantization of ``x`` (row-major bits)."""
    assert result.shape == x.shape, (result.shape, x.shape)
    assert result.dtype == np.int8, result.dtype
    bits = np.array(x, copy=True, order="C").view(UINT[dtype]).reshape(-1)
    got = np.array(result, copy=True, order="C").view(np.uint8).reshape(-1)
    expected = oracle(dtype, bits, m_bits, zp, mode).view(np.uint8)
    assert_bits_equal(got, expected, bits, what, shape=x.shape or None)


def values(dtype, shape, seed=0, m_bits=0x3E99999A):
    n = int(np.prod(shape))
    return as_array(dtype, useful_values(dtype, n, seed, m_bits), shape)


# ------------------------------------------------------------------ numerics


@pytest.mark.parametrize("profile", ["0x3e99999a", "257/256", "sub-2^-127", "2^-126"])
def test_every_16bit_pattern(route, profile):
    """All 65,536 patterns of the profile's slice format through
    sk.quantize, each rounding mode given as enum and as name alternately
    (oracle tables shared with test_quant_numerics)."""
    dtype, zp = QUICK16[profile]
    m = PROFILES[profile]
    x = as_array(dtype, np.arange(1 << 16, dtype=np.uint32))
    for k, mode in enumerate(MODES):
        rounding = Rounding[mode.upper()] if k % 2 else mode
        y = sk.quantize(x, m_of(m), zp, rounding=rounding)
        expected = table16(dtype, m, zp, mode).view(np.uint8)
        assert_bits_equal(y.view(np.uint8), expected, x.view(np.uint16), f"{route} {profile} {mode}")


def test_specification_examples(route):
    x = np.array([15.0], np.float32)
    assert sk.quantize(x, m_of(0x3E99999A)).tolist() == [4]
    assert sk.quantize(x, m_of(0x3E99999A), rounding="toward_positive").tolist() == [5]
    assert sk.quantize(x, m_of(0x3E99999A), rounding=Rounding.TOWARD_POSITIVE).tolist() == [5]
    y = sk.quantize(np.float32(200.0), 1.0, -100)
    assert y.shape == () and y.dtype == np.int8 and int(y) == 100


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", DTYPES)
def test_modes_and_dtypes(route, input, mode):
    dtype = DTYPES[input]
    x = values(dtype, (7, 45), seed=3)
    for zp in (-128, -7, 127):
        check(sk.quantize(x, m_of(0x3E99999A), zp, rounding=mode), x, dtype, 0x3E99999A, zp, mode)
        check(sk.quantize(x, m_of(0x3E99999A), zp, rounding=Rounding[mode.upper()]), x, dtype, 0x3E99999A, zp,
              mode)


def test_default_rounding_and_zero_point(route):
    x = values(F16, (50,), seed=8)
    check(sk.quantize(x, 0.3), x, F16, 0x3E99999A)


def test_plans_are_cached_per_parameters(route):
    """Same specs, different rounding / zero point / multiplier: each call
    uses its own parameters (a cached plan is never reused wrongly)."""
    x = as_array(F32, [0x3F000000, 0xBF000000, 0x40200000, 0xC0200000] * 5)   # +-0.5, +-2.5
    for mode in MODES + tuple(reversed(MODES)):
        for zp in (0, 1, -1):
            check(sk.quantize(x, 1.0, zp, rounding=mode), x, F32, 0x3F800000, zp, mode)
    check(sk.quantize(x, 2.0, 1), x, F32, 0x40000000, 1)
    check(sk.quantize(x, m_of(0x00000001), 1, rounding="toward_negative"), x, F32, 0x00000001, 1, "toward_negative")


# ------------------------------------------------------------------ views

VIEWS = {
    "transposed": lambda a: a.T,
    "row-slice": lambda a: a[1:5],
    "col-stepped": lambda a: a[:, ::3],
    "both-stepped": lambda a: a[::2, 1::4],
    "transposed-stepped": lambda a: a[::2, ::3].T,
    "column": lambda a: a[:, 5],
    "0-d": lambda a: a[2, 3, ...],
    "empty-rows": lambda a: a[:0],
    "empty-cols": lambda a: a[:, 3:3],
    "rank3-swapped": lambda a: a.reshape(3, 4, 40).transpose(2, 0, 1)[::3],
    "contiguous": lambda a: a,
}


@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
@pytest.mark.parametrize("input", DTYPES)
def test_numpy_views(route, input, view):
    dtype = DTYPES[input]
    base = values(dtype, (12, 40), seed=11)
    before = base.copy()
    x = VIEWS[view](base)
    for mode in MODES:
        y = sk.quantize(x, m_of(0x3E99999A), -100, rounding=mode)
        check(y, x, dtype, 0x3E99999A, -100, mode, f"{route} {view} {mode}")
    assert np.array_equal(base.view(UINT[dtype]), before.view(UINT[dtype])), "input modified"


def test_record_field_view(route):
    """FP32 and FP16 fields of 12-byte records: stride 12, executed in place."""
    rec = np.zeros(37, dtype=[("pad", np.int32), ("x", np.float32), ("h", np.float16), ("pad2", np.int16)])
    rec["x"] = values(F32, (37,), seed=4)
    rec["h"] = values(F16, (37,), seed=5)
    for field, dtype in (("x", F32), ("h", F16)):
        x = rec[field]
        assert x.strides == (12,)
        check(sk.quantize(x, 0.3, 5, rounding="toward_zero"), x, dtype, 0x3E99999A, 5, "toward_zero")


def test_scalar_and_empty_inputs(route):
    for x in (np.array(2.5, np.float32), np.float32(2.5), np.float16(2.5), np.array(2.5, BF)):
        y = sk.quantize(x, 1.0, rounding="toward_positive")
        assert y.shape == () and y.dtype == np.int8 and int(y) == 3, (x, y)
    assert int(sk.quantize(np.float16(-2.5), 1.0)) == -2
    for shape in ((0,), (2, 0, 3)):
        for dtype in (F32, BF16, F16):
            y = sk.quantize(np.zeros(shape, NUMPY_FLOAT[dtype]), 0.5, 1)
            assert y.shape == shape and y.dtype == np.int8


# ------------------------------------------------------------------ out=

OUT_VIEWS = {
    "window-stepped": lambda big: big[1:7, 2:20:2],
    "transposed": lambda big: big[2:11, 1:7].T,
    "stepped-both": lambda big: big[::2, ::2][:6, 1:10],
    "window": lambda big: big[3:9, 11:20],
}


@pytest.mark.parametrize("out_view", OUT_VIEWS, ids=list(OUT_VIEWS))
@pytest.mark.parametrize("input", DTYPES)
def test_out_writes_in_place(route, input, out_view):
    """The result is the very ``out`` object and every byte of the larger
    sentinel array outside the view keeps the sentinel."""
    dtype = DTYPES[input]
    x = values(dtype, (6, 9), seed=21)
    big = np.full((12, 21), 0xA5, np.uint8)
    out = OUT_VIEWS[out_view](big.view(np.int8))
    assert out.shape == x.shape and np.shares_memory(out, big)
    mask = np.zeros(big.shape, dtype=bool)
    OUT_VIEWS[out_view](mask.view())[...] = True
    for mode in MODES:
        y = sk.quantize(x, m_of(0x3E99999A), 7, rounding=Rounding[mode.upper()], out=out)
        assert y is out
        check(out, x, dtype, 0x3E99999A, 7, mode, what=f"{route} out= {mode}")
        changed = np.flatnonzero(big[~mask] != 0xA5)
        assert changed.size == 0, f"{changed.size} bytes outside out= changed"


def test_out_zero_d_and_empty(route):
    big = np.full(5, 0xA5, np.uint8)
    out = big.view(np.int8)[2, ...]
    assert sk.quantize(np.float32(200.0), 1.0, -100, out=out) is out
    assert big.tolist() == [0xA5, 0xA5, 100, 0xA5, 0xA5]
    empty_out = np.full((0, 3), 0xA5, np.uint8).view(np.int8)
    assert sk.quantize(np.zeros((0, 3), np.float16), 0.5, out=empty_out) is empty_out


# ------------------------------------------------------------------ errors


def sentinel_out(shape):
    return np.full(shape, 0xA5, np.uint8).view(np.int8)


def assert_sentinel(out):
    assert np.all(out.view(np.uint8) == 0xA5), "out written despite the error"


@pytest.mark.parametrize("multiplier", [0.0, -0.0, -1.0, float("inf"), float("nan"), 1e40, 1e-46, -1e-45],
                         ids=repr)
def test_invalid_multiplier_raises(route, multiplier):
    out = sentinel_out((3,))
    raises(E.INVALID_PARAMS, sk.quantize, np.ones(3, np.float32), multiplier, 0, out=out)
    assert_sentinel(out)


def test_subnormal_multiplier_accepted(route):
    x = values(BF16, (40,), seed=2, m_bits=0x00000001)
    check(sk.quantize(x, m_of(0x00000001), rounding="toward_positive"), x, BF16, 0x00000001, 0, "toward_positive")


@pytest.mark.parametrize("zero_point", [128, -129, 1.5, 1.0, True, None, np.float32(0)], ids=repr)
def test_invalid_zero_point_raises(route, zero_point):
    out = sentinel_out((3,))
    raises(E.INVALID_PARAMS, sk.quantize, np.ones(3, np.float16), 0.5, zero_point, out=out)
    assert_sentinel(out)


@pytest.mark.parametrize("rounding", ["bogus", "nearest", None, 0, sk.fenv.Rounding.NEAREST], ids=repr)
def test_invalid_rounding_raises(route, rounding):
    out = sentinel_out((3,))
    error = raises(E.INVALID_PARAMS, sk.quantize, np.ones(3, np.float32), 0.5, out=out, rounding=rounding)
    assert "rounding" in error.error.message
    assert_sentinel(out)


def test_rejected_zero_point_stays_rejected_after_a_valid_call(route):
    """Plans are cached: True and 1.0 are INVALID_PARAMS even after a valid
    call with the equal-comparing zero point 1 (same specs), and 1 stays
    valid after them."""
    x = values(F32, (9,), seed=6)
    check(sk.quantize(x, 0.3, 1), x, F32, 0x3E99999A, 1)
    raises(E.INVALID_PARAMS, sk.quantize, x, 0.3, True)
    raises(E.INVALID_PARAMS, sk.quantize, x, 0.3, 1.0)
    check(sk.quantize(x, 0.3, 1), x, F32, 0x3E99999A, 1)


def test_numpy_integer_zero_point(route):
    x = values(F16, (7,), seed=1)
    check(sk.quantize(x, 0.3, np.int64(-128)), x, F16, 0x3E99999A, -128)
    check(sk.quantize(x, 0.3, np.uint8(127), rounding="toward_zero"), x, F16, 0x3E99999A, 127, "toward_zero")


@pytest.mark.parametrize(
    "x",
    [np.zeros(4, np.float64), np.zeros(4, np.int8), np.zeros(4, np.int32), np.zeros(4, np.uint16),
     np.zeros(4, np.int64), np.zeros(4, np.complex64), [1.5, 2.5]],
    ids=["float64", "int8", "int32", "uint16", "int64", "complex64", "python-list"])
def test_unsupported_input_dtypes(route, x):
    raises(E.UNSUPPORTED_DTYPE, sk.quantize, x, 0.5)


def test_out_errors(route):
    x = values(BF16, (3, 4), seed=9)
    for wrong in (np.zeros((3, 4), np.uint8), np.zeros((3, 4), np.int16), np.zeros((3, 4), np.float32)):
        raises(E.UNSUPPORTED_DTYPE, sk.quantize, x, 0.5, out=wrong)
        assert not wrong.any()
    for shape in ((4, 3), (12,), (3, 4, 1), ()):
        out = sentinel_out(shape)
        raises(E.INVALID_SHAPE, sk.quantize, x, 0.5, out=out)
        assert_sentinel(out)
    out = sentinel_out((3, 4))
    out.flags.writeable = False
    raises(E.INVALID_BINDING, sk.quantize, x, 0.5, out=out)
    assert_sentinel(out)
    with pytest.raises(TypeError):
        sk.quantize(x, 0.5, out=bytearray(12))


def test_out_overlapping_input(route):
    raw = np.zeros(64, np.uint8)
    raw[:32] = values(F16, (16,), seed=3).view(np.uint8)
    x = raw[:32].view(np.float16)
    out = raw[16:32].view(np.int8)
    before = raw.copy()
    raises(E.INVALID_BINDING, sk.quantize, x, 0.5, out=out)
    assert np.array_equal(raw, before)


@pytest.mark.parametrize(
    "make", [lambda a: a[::-1], lambda a: a[:, ::-1], lambda a: a.T[::-1]],
    ids=["rows-reversed", "cols-reversed", "transposed-reversed"])
def test_negative_strides(route, make):
    x = values(F32, (6, 9), seed=4)
    raises(E.UNSUPPORTED_LAYOUT, sk.quantize, make(x), 0.5)
    big = sentinel_out((6, 9))
    raises(E.UNSUPPORTED_LAYOUT, sk.quantize, np.ascontiguousarray(make(x)), 0.5, out=make(big))
    assert_sentinel(big)


def test_broadcast_and_rank_seven(route):
    raises(E.UNSUPPORTED_LAYOUT, sk.quantize, np.broadcast_to(np.float16(3), (3, 4)), 0.5)
    raises(E.INVALID_SHAPE, sk.quantize, np.zeros((1,) * 7, np.float32), 0.5)


def test_environment(route):
    """Non-nearest rounding: UNSUPPORTED_ENVIRONMENT, nothing written;
    flush-to-zero / denormals-are-zero: bit-exact; empty calls under any
    state: fine."""
    x = as_array(F32, [0x00800000, 0x80800000, 0x00000001, 0x41700000] * 10)   # tiny products, 15.0
    out = sentinel_out((40,))
    with fp_or_skip(rounding=sk.fenv.Rounding.UPWARD):
        with pytest.raises(sk.KernelError) as info:
            sk.quantize(x, m_of(0x3E99999A), out=out)
    assert info.value.code == E.UNSUPPORTED_ENVIRONMENT, info.value
    assert_sentinel(out)
    with fp_or_skip(flush_to_zero=True, denormals_are_zero=True):
        y = sk.quantize(x, m_of(0x3E99999A), rounding="toward_positive", out=out)
    check(y, x, F32, 0x3E99999A, 0, "toward_positive", "under FTZ/DAZ")
    with fp_or_skip(rounding=sk.fenv.Rounding.DOWNWARD):
        empty = sk.quantize(np.zeros((0, 2), BF), 0.5)
    assert empty.shape == (0, 2)
