"""The array layer ``sk.dequantize``: NumPy views executed in place (no
hidden copy), ``out=``, dtype spellings, scalars and empty arrays, and
KernelError codes.  Every numerical test runs on every route (forced through
SIMAKERNELS_FORCE_ROUTE); one subprocess checks that the variable is honoured
in a fresh interpreter."""
import os
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES, assert_bits_equal, fp_or_skip, oracle_dequant, random_int8, scale_bits_of
from support.op_cases import raises_kernel_error as raises

E = sk.ErrorCode
BF = np.dtype(ml_dtypes.bfloat16)
F4 = np.dtype(np.float32)
F32, BF16 = sk.DType.FLOAT32, sk.DType.BFLOAT16


@pytest.fixture(params=ROUTES)
def route(request, monkeypatch):
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", request.param)
    return request.param


def int8_matrix(shape=(6, 9), seed=0):
    return random_int8(int(np.prod(shape)), seed).view(np.int8).reshape(shape)


def check(result, x, scale, zero_point=0, dst=F32, what="sk.dequantize"):
    """``result`` is the oracle's dequantization of ``x`` (row-major bits)."""
    assert result.shape == x.shape, (result.shape, x.shape)
    assert result.dtype == (F4 if dst is F32 else BF)
    q = np.array(x, copy=True, order="C").view(np.uint8).reshape(-1)
    got = np.array(result, copy=True, order="C").view(np.uint32 if dst is F32 else np.uint16).reshape(-1)
    expected = oracle_dequant(q, dst, scale_bits_of(scale), zero_point)
    assert_bits_equal(got, expected, q, what, shape=x.shape)


# ------------------------------------------------------------------ numerics

# (scale, zero point): narrow, narrow_pow2, wide_pow2, wide_unit, wide
PARAMS = [(0.1, -123), (0.125, 7), (4.0, 16777088), (1.0, 16777217), (np.float32(1.7), -(2**31))]


@pytest.mark.parametrize("scale, zero_point", PARAMS, ids=repr)
def test_exhaustive_both_outputs(route, scale, zero_point):
    x = np.arange(-128, 128, dtype=np.int8)
    check(sk.dequantize(x, scale, zero_point), x, scale, zero_point)
    check(sk.dequantize(x, scale, zero_point, dtype=ml_dtypes.bfloat16), x, scale, zero_point, BF16)


def test_specification_examples(route):
    y = sk.dequantize(np.array([127], np.int8), np.uint32(0x4037CED9).view(np.float32), -123)
    assert y.view(np.uint32).tolist() == [0x44338000]          # 718.0
    y = sk.dequantize(np.array([127], np.int8), np.uint32(0x4037CED9).view(np.float32), -123, dtype="bfloat16")
    assert y.view(np.uint16).tolist() == [0x4434]              # 720, not 0x4433
    y = sk.dequantize(np.array([1], np.int8), 1.0, 16777217)
    assert y.view(np.uint32).tolist() == [0xCB7FFFFF]          # -16777215.0


def test_default_zero_point_and_output(route):
    x = int8_matrix((3, 5))
    y = sk.dequantize(x, 0.5)
    check(y, x, 0.5, 0)


@pytest.mark.parametrize(
    "dtype", [sk.DType.BFLOAT16, ml_dtypes.bfloat16, BF, "bfloat16", "BFLOAT16"], ids=repr)
def test_bf16_spellings(route, dtype):
    x = int8_matrix((4, 5))
    check(sk.dequantize(x, 0.3, -3, dtype=dtype), x, 0.3, -3, BF16)


@pytest.mark.parametrize("dtype", [sk.DType.FLOAT32, np.float32, F4, "float32", "FLOAT32"], ids=repr)
def test_f32_spellings(route, dtype):
    x = int8_matrix((4, 5))
    check(sk.dequantize(x, 0.3, -3, dtype=dtype), x, 0.3, -3, F32)


VIEWS = {
    "transposed": lambda a: a.T,
    "rows-stepped": lambda a: a[::2],
    "cols-stepped": lambda a: a[:, ::3],
    "both-stepped": lambda a: a[1:5:2, 2::3],
    "sliced": lambda a: a[1:5, 2:8],
    "transposed-stepped": lambda a: a.T[::2],
    "column": lambda a: a[:, 4],
    "singleton-axis": lambda a: a[:, None, :],
    "3d-moveaxis": lambda a: np.moveaxis(a.reshape(2, 3, 9), 0, 2),
    "0-d": lambda a: a[2, 3, ...],
    "empty-rows": lambda a: a[:0],
    "empty-cols": lambda a: a[:, 3:3],
    "contiguous": lambda a: a,
}


@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
@pytest.mark.parametrize("output", ["f32", "bf16"])
def test_numpy_views(route, output, view):
    dst = F32 if output == "f32" else BF16
    base = int8_matrix()
    before = base.copy()
    x = VIEWS[view](base)
    y = sk.dequantize(x, 0.1, 16777089, dtype=dst)
    check(y, x, 0.1, 16777089, dst, f"{route} {view}")
    assert np.array_equal(base, before), "input modified"


def test_record_field_view(route):
    """An INT8 field of 5-byte records: stride 5, executed in place."""
    rec = np.zeros(23, dtype=[("q", np.int8), ("pad", np.float32)])
    rec["q"] = int8_matrix((23,), seed=4)
    x = rec["q"]
    assert x.strides == (5,)
    check(sk.dequantize(x, 0.25, 100), x, 0.25, 100)
    check(sk.dequantize(x, 0.25, 100, dtype=BF), x, 0.25, 100, BF16)


def test_scalar_and_empty_inputs(route):
    for x in (np.array(127, np.int8), np.int8(127)):
        y = sk.dequantize(x, np.uint32(0x4037CED9).view(np.float32), -123, dtype="bfloat16")
        assert y.shape == () and int(y.view(np.uint16)) == 0x4434
    y = sk.dequantize(np.int8(-3), 0.25, -3)
    assert y.shape == () and int(y.view(np.uint32)) == 0x00000000  # +0, never -0
    for shape in ((0,), (2, 0, 3)):
        for dst in (F32, BF16):
            y = sk.dequantize(np.zeros(shape, np.int8), 0.5, 1, dtype=dst)
            assert y.shape == shape and y.dtype == (F4 if dst is F32 else BF)


# ------------------------------------------------------------------ out=

OUT_VIEWS = {
    "window-stepped": lambda big: big[1:7, 2:20:2],
    "transposed": lambda big: big[2:11, 1:7].T,
    "stepped-both": lambda big: big[::2, ::2][:6, 1:10],
    "window": lambda big: big[3:9, 11:20],
}


@pytest.mark.parametrize("out_view", OUT_VIEWS, ids=list(OUT_VIEWS))
@pytest.mark.parametrize("output", ["f32", "bf16"])
def test_out_writes_in_place_no_hidden_copy(route, output, out_view):
    """The result is the very ``out`` object and every element of the larger
    sentinel array outside the view keeps the sentinel."""
    dst = F32 if output == "f32" else BF16
    word, word_dtype, out_dtype = (0xA5A5A5A5, np.uint32, F4) if dst is F32 else (0xA5A5, np.uint16, BF)
    x = int8_matrix()
    big_bits = np.full((12, 21), word, dtype=word_dtype)
    out = OUT_VIEWS[out_view](big_bits.view(out_dtype))
    assert out.shape == x.shape and np.shares_memory(out, big_bits)
    mask = np.zeros(big_bits.shape, dtype=bool)
    OUT_VIEWS[out_view](mask.view())[...] = True
    y = sk.dequantize(x, 0.1, -5, dtype=dst, out=out)
    assert y is out
    check(out, x, 0.1, -5, dst, f"{route} out=")
    outside = big_bits[~mask]
    changed = np.flatnonzero(outside != word)
    assert changed.size == 0, f"{changed.size} elements outside out= changed: {[hex(v) for v in outside[changed[:8]]]}"


def test_out_zero_d_and_empty(route):
    big = np.full(5, 0xA5A5A5A5, np.uint32)
    out = big.view(F4)[2, ...]
    assert sk.dequantize(np.int8(1), 1.0, 16777217, out=out) is out
    assert big.tolist() == [0xA5A5A5A5, 0xA5A5A5A5, 0xCB7FFFFF, 0xA5A5A5A5, 0xA5A5A5A5]
    empty_out = np.full((0, 3), 0xA5A5, np.uint16).view(BF)
    assert sk.dequantize(np.zeros((0, 3), np.int8), 0.5, dtype=BF, out=empty_out) is empty_out


def test_out_dtype_decides_when_dtype_matches(route):
    out = np.empty((4,), BF)
    x = int8_matrix((4,))
    assert sk.dequantize(x, 0.5, 1, dtype="bfloat16", out=out) is out
    check(out, x, 0.5, 1, BF16)


# ------------------------------------------------------------------ errors


def sentinel_out(shape, dst=F32):
    if dst is F32:
        return np.full(shape, 0xA5A5A5A5, np.uint32).view(F4)
    return np.full(shape, 0xA5A5, np.uint16).view(BF)


def assert_sentinel(out):
    bits = out.view(np.uint32 if out.dtype == F4 else np.uint16)
    assert np.all(bits == (0xA5A5A5A5 if out.dtype == F4 else 0xA5A5)), "out written despite the error"


@pytest.mark.parametrize("scale", [0.0, -0.0, -1.0, float("inf"), float("nan"), 1e40, 1e-46], ids=repr)
def test_invalid_scale_raises(route, scale):
    out = sentinel_out((3,))
    raises(E.INVALID_PARAMS, sk.dequantize, np.zeros(3, np.int8), scale, 0, out=out)
    assert_sentinel(out)


@pytest.mark.parametrize("zero_point", [2**31, -(2**31) - 1, 1.5, True, None], ids=repr)
def test_invalid_zero_point_raises(route, zero_point):
    out = sentinel_out((3,))
    raises(E.INVALID_PARAMS, sk.dequantize, np.zeros(3, np.int8), 0.5, zero_point, out=out)
    assert_sentinel(out)


def test_rejected_zero_point_stays_rejected_after_a_valid_call(route):
    """Plans are cached: zero points True and 1.0 are INVALID_PARAMS even
    after a valid call with the equal-comparing zero point 1 (same specs)."""
    x = np.arange(-4, 4, dtype=np.int8)
    check(sk.dequantize(x, 1.0, 1), x, 1.0, 1)
    raises(E.INVALID_PARAMS, sk.dequantize, x, 1.0, True)
    raises(E.INVALID_PARAMS, sk.dequantize, x, 1.0, 1.0)


def test_valid_zero_point_stays_valid_after_a_rejected_call(route):
    """... and zero point 1 is valid even after True was rejected (same specs)."""
    x = np.arange(-5, 5, dtype=np.int8)
    raises(E.INVALID_PARAMS, sk.dequantize, x, 1.0, True)
    check(sk.dequantize(x, 1.0, 1), x, 1.0, 1)


def test_numpy_integer_zero_point(route):
    x = int8_matrix((7,))
    check(sk.dequantize(x, 0.5, np.int64(16777217)), x, 0.5, 16777217)
    check(sk.dequantize(x, 0.5, np.int8(-128), dtype=BF), x, 0.5, -128, BF16)


@pytest.mark.parametrize(
    "x, dtype",
    [
        (np.zeros(4, np.uint16), np.float16),  # the storage types (docs/formats.md) to FLOAT32 / BFLOAT16 only
        (np.zeros(4, np.int32), "int8"),
        (np.zeros(4, np.uint64), F32),
        (np.zeros(4, np.float32), F32),
        (np.zeros(4, BF), BF16),
        (np.zeros(4, np.int64), F32),      # also what np.asarray makes of a Python int list
        (np.zeros(4, np.int8), np.float16),
        (np.zeros(4, np.int8), "int32"),
        (np.zeros(4, np.int8), "nonsense"),
    ],
    ids=["uint16-to-f16", "int32-to-int8", "uint64", "float32", "bf16", "int64", "to-f16", "to-int32",
         "unknown-name"],
)
def test_unsupported_dtypes(route, x, dtype):
    raises(E.UNSUPPORTED_DTYPE, sk.dequantize, x, 0.5, 0, dtype=dtype)


def test_out_errors(route):
    x = int8_matrix((3, 4))
    wrong_dtype = np.zeros((3, 4), np.float16)
    raises(E.UNSUPPORTED_DTYPE, sk.dequantize, x, 0.5, out=wrong_dtype)
    raises(E.UNSUPPORTED_DTYPE, sk.dequantize, x, 0.5, dtype=BF16, out=sentinel_out((3, 4), F32))
    assert not wrong_dtype.any()
    for shape in ((4, 3), (12,), (3, 4, 1), ()):
        out = sentinel_out(shape)
        raises(E.INVALID_SHAPE, sk.dequantize, x, 0.5, out=out)
        assert_sentinel(out)
    out = sentinel_out((3, 4))
    out.flags.writeable = False
    raises(E.INVALID_BINDING, sk.dequantize, x, 0.5, out=out)
    assert_sentinel(out)


def test_out_overlapping_input(route):
    raw = np.zeros(64, np.uint8)
    raw[:16] = random_int8(16, 3)
    x = raw[:16].view(np.int8)
    out = raw[:64].view(F4)[:16]
    before = raw.copy()
    raises(E.INVALID_BINDING, sk.dequantize, x, 0.5, out=out)
    assert np.array_equal(raw, before)


@pytest.mark.parametrize(
    "make", [lambda a: a[::-1], lambda a: a[:, ::-1], lambda a: a.T[::-1]],
    ids=["rows-reversed", "cols-reversed", "transposed-reversed"])
def test_negative_strides(route, make):
    raises(E.UNSUPPORTED_LAYOUT, sk.dequantize, make(int8_matrix()), 0.5)
    big = sentinel_out((6, 9))
    raises(E.UNSUPPORTED_LAYOUT, sk.dequantize, np.ascontiguousarray(make(int8_matrix())), 0.5, out=make(big))
    assert_sentinel(big)


def test_broadcast_and_rank_seven(route):
    raises(E.UNSUPPORTED_LAYOUT, sk.dequantize, np.broadcast_to(np.int8(3), (3, 4)), 0.5)
    raises(E.INVALID_SHAPE, sk.dequantize, np.zeros((1,) * 7, np.int8), 0.5)


def test_misaligned_out(route):
    raw = np.full(80, 0xA5, np.uint8)
    start = (-raw.ctypes.data) % 4 + 2
    out = raw[start:start + 32].view(F4)
    assert out.ctypes.data % 4 == 2
    raises(E.INVALID_BINDING, sk.dequantize, int8_matrix((8,)), 0.5, out=out)
    assert (raw == 0xA5).all()


def test_unsupported_environment(route):
    x = int8_matrix((40,))
    out = sentinel_out((40,))
    with fp_or_skip(rounding=sk.fenv.Rounding.UPWARD):
        with pytest.raises(sk.KernelError) as info:
            sk.dequantize(x, 0.5, 16777217, out=out)
    assert info.value.code == E.UNSUPPORTED_ENVIRONMENT, info.value
    assert_sentinel(out)
    with fp_or_skip(flush_to_zero=True, denormals_are_zero=True):
        with pytest.raises(sk.KernelError) as info:
            sk.dequantize(x, 0.5, out=out)
    assert info.value.code == E.UNSUPPORTED_ENVIRONMENT, info.value
    assert_sentinel(out)
    with fp_or_skip(rounding=sk.fenv.Rounding.DOWNWARD):
        empty = sk.dequantize(np.zeros((0, 2), np.int8), 0.5)  # empty calls perform no arithmetic
    assert empty.shape == (0, 2)


# ------------------------------------------------------------------ forced route

PACKAGE_ROOT = str(pathlib.Path(sk.__file__).resolve().parent.parent)
PROBE = """
import os, numpy as np, simakernels as sk
x = np.arange(-128, 128, dtype=np.int8)
y = sk.dequantize(x, 0.1, 16777217)
req = sk.ops.dequant.Request([sk.TensorSpec(x.shape, sk.DType.INT8)], [sk.TensorSpec(x.shape, sk.DType.FLOAT32)],
                             sk.ops.dequant.Params(0.1, 16777217))
print("ROUTE", sk.a65.dequant.check_inference(req).route)
print("BITS", y.view(np.uint32).tobytes().hex())
os.environ["SIMAKERNELS_FORCE_ROUTE"] = "bogus"
try:
    sk.dequantize(x, 0.1, 16777217)
    print("BOGUS accepted")
except sk.KernelError as e:
    print("BOGUS", e.code.name, "bogus" in str(e))
"""


def test_force_route_in_a_fresh_interpreter(tmp_path):
    env = dict(os.environ, SIMAKERNELS_FORCE_ROUTE="scalar")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                            cwd=str(tmp_path), timeout=900)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "ROUTE scalar", result.stdout
    got = np.frombuffer(bytes.fromhex(lines[1].split()[1]), dtype=np.uint32)
    q = np.arange(-128, 128, dtype=np.int8).view(np.uint8)
    assert_bits_equal(got, oracle_dequant(q, F32, scale_bits_of(0.1), 16777217), q, "forced scalar")
    assert lines[2] == "BOGUS UNSUPPORTED_ENVIRONMENT True", result.stdout
