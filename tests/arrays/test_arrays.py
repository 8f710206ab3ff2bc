"""The array layer ``sk.cast``: NumPy views executed in place (no hidden
copy), ``out=``, dtype spellings and KernelError codes.  Every numerical test
runs on every route (forced through SIMAKERNELS_FORCE_ROUTE)."""
import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES, assert_bits_equal, bf16_table, f32_pool, oracle_f32_to_bf16

E = sk.ErrorCode
BF = np.dtype(ml_dtypes.bfloat16)
F4 = np.dtype(np.float32)


@pytest.fixture(params=ROUTES)
def route(request, monkeypatch):
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", request.param)
    return request.param


def bits_of(a):
    """Row-major bit patterns of an array (independent of sk)."""
    c = np.array(a, copy=True, order="C")
    return c.view(np.uint32 if c.dtype.itemsize == 4 else np.uint16).reshape(-1)


def expected_for(x):
    bits = bits_of(x)
    if x.dtype == F4:
        return oracle_f32_to_bf16(bits)
    return bf16_table()[bits]


def check(result, x, what=""):
    assert result.shape == x.shape, (result.shape, x.shape)
    assert result.dtype == (BF if x.dtype == F4 else F4)
    assert_bits_equal(bits_of(result), expected_for(x), bits_of(x), what or "sk.cast", shape=x.shape)


def f32_matrix(shape=(6, 9), seed=0):
    inputs, _ = f32_pool()
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    bits = inputs[rng.permutation(len(inputs))[:n]] if n <= len(inputs) else rng.choice(inputs, n)
    return bits.reshape(shape).view(np.float32)


def bf16_matrix(shape=(6, 9), seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 16, size=shape, dtype=np.uint16).view(BF)


# ------------------------------------------------------------------ numerics


def test_exhaustive_bf16_to_f32(route):
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF)
    y = sk.cast(x, np.float32)
    assert_bits_equal(y.view(np.uint32), bf16_table(), x.view(np.uint16), f"sk.cast {route}")


def test_f32_pool_to_bf16(route):
    inputs, expected = f32_pool()
    y = sk.cast(inputs.view(np.float32), ml_dtypes.bfloat16)
    assert y.dtype == BF
    assert_bits_equal(y.view(np.uint16), expected, inputs, f"sk.cast {route}")


def test_specification_examples(route):
    x = np.array([0x7F800001, 0xFFFFFFFF], dtype=np.uint32).view(np.float32)
    assert sk.cast(x, "bfloat16").view(np.uint16).tolist() == [0x7F80, 0x0000]


@pytest.mark.parametrize(
    "dtype", [sk.DType.BFLOAT16, ml_dtypes.bfloat16, BF, "bfloat16", "BFLOAT16"], ids=repr)
def test_bf16_target_spellings(route, dtype):
    x = f32_matrix((4, 5))
    check(sk.cast(x, dtype), x)


@pytest.mark.parametrize("dtype", [sk.DType.FLOAT32, np.float32, F4, "float32", "FLOAT32"], ids=repr)
def test_f32_target_spellings(route, dtype):
    x = bf16_matrix((4, 5))
    check(sk.cast(x, dtype), x)


VIEWS = {
    "transposed": lambda a: a.T,
    "rows-stepped": lambda a: a[::2],
    "cols-stepped": lambda a: a[:, ::3],
    "both-stepped": lambda a: a[1:5:2, 2::3],
    "transposed-stepped": lambda a: a.T[::2],
    "column": lambda a: a[:, 4],
    "singleton-axis": lambda a: a[:, None, :],
    "singleton-transposed": lambda a: a.T[None, :, None, ::2],
    "3d-moveaxis": lambda a: np.moveaxis(a.reshape(2, 3, 9), 0, 2),
    "0-d": lambda a: a[2, 3, ...],
    "empty-rows": lambda a: a[:0],
    "empty-cols": lambda a: a[:, 3:3],
    "contiguous": lambda a: a,
}


@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
@pytest.mark.parametrize("direction", ["f32_to_bf16", "bf16_to_f32"])
def test_numpy_views(route, direction, view):
    base = f32_matrix() if direction == "f32_to_bf16" else bf16_matrix()
    x = VIEWS[view](base)
    before = base.copy()
    target = ml_dtypes.bfloat16 if direction == "f32_to_bf16" else np.float32
    y = sk.cast(x, target)
    assert y is not x
    check(y, x, f"{route} {view}")
    assert np.array_equal(bits_of(base), bits_of(before)), "input modified"


def test_record_field_view_in_place(route):
    """A field of a record array is a stride-8 view: executed in place."""
    rec = np.zeros(7, dtype=[("a", np.float32), ("b", np.float32)])
    rec["a"] = f32_matrix((7,))
    rec["b"] = f32_matrix((7,), seed=1)
    x = rec["a"]
    assert x.strides == (8,)
    check(sk.cast(x, ml_dtypes.bfloat16), x)


def test_scalar_inputs(route):
    x = np.array(np.uint32(0x3F808000)).view(np.float32)  # 0-d, a tie
    y = sk.cast(x, ml_dtypes.bfloat16)
    assert y.shape == () and y.view(np.uint16) == 0x3F80
    y = sk.cast(np.float32(1.0), "bfloat16")
    assert y.shape == () and int(y.view(np.uint16)) == 0x3F80


# ------------------------------------------------------------------ out=


@pytest.mark.parametrize("direction", ["f32_to_bf16", "bf16_to_f32"])
@pytest.mark.parametrize(
    "out_view",
    [
        lambda big: big[1:7, 2:20:2],          # rows and stepped columns of a larger array
        lambda big: big[2:11, 1:7].T,          # transposed
        lambda big: big[::2, ::2][:6, 1:10],   # stepped both ways
        lambda big: big[3:9, 11:20],           # plain window
    ],
    ids=["window-stepped", "transposed", "stepped-both", "window"],
)
def test_out_writes_in_place_no_hidden_copy(route, direction, out_view):
    """Writing through a view of a sentinel-filled array: the result is the
    very ``out`` object and every element outside the view keeps the sentinel."""
    if direction == "f32_to_bf16":
        x, sentinel_word, big_dtype, out_dtype = f32_matrix(), 0xA5A5, np.uint16, BF
    else:
        x, sentinel_word, big_dtype, out_dtype = bf16_matrix(), 0xA5A5A5A5, np.uint32, F4
    big_bits = np.full((12, 21), sentinel_word, dtype=big_dtype)
    big = big_bits.view(out_dtype)
    out = out_view(big)
    assert out.shape == x.shape and np.shares_memory(out, big)
    mask = np.zeros(big.shape, dtype=bool)
    out_view(mask.view())[...] = True
    y = sk.cast(x, out_dtype, out=out)
    assert y is out
    check(out, x, f"{route} out=")
    outside = big_bits[~mask]
    changed = np.flatnonzero(outside != sentinel_word)
    assert changed.size == 0, f"{changed.size} elements outside out= changed: {outside[changed[:8]]}"


def test_out_zero_d_and_empty(route):
    x = np.array(np.uint32(0x7F7FFFFF)).view(np.float32)
    big = np.full(5, 0xA5A5, np.uint16).view(BF)
    out = big[2, ...]
    assert sk.cast(x, "bfloat16", out=out) is out
    assert big.view(np.uint16).tolist() == [0xA5A5, 0xA5A5, 0x7F80, 0xA5A5, 0xA5A5]
    empty_out = np.full((0, 3), 0xA5A5, np.uint16).view(BF)
    assert sk.cast(np.zeros((0, 3), np.float32), BF, out=empty_out) is empty_out
    assert sk.cast(np.zeros((0, 3), np.float32), BF).shape == (0, 3)
    assert sk.cast(np.zeros((2, 0, 4), BF), np.float32).shape == (2, 0, 4)


# ------------------------------------------------------------------ errors


def raises(code, fn, *args, **kwargs):
    with pytest.raises(sk.KernelError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, f"expected {code.name}, got {info.value}"
    assert isinstance(info.value.error, sk.Error) and info.value.error.code == code
    assert isinstance(info.value, Exception)
    return info.value


def sentinel_out(shape, dtype):
    word = 0xA5A5 if np.dtype(dtype).itemsize == 2 else 0xA5A5A5A5
    return np.full(shape, word, np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32).view(dtype), word


@pytest.mark.parametrize("wrong", [np.float32, np.float16, np.int16, np.uint16, np.float64], ids=repr)
def test_out_wrong_dtype(route, wrong):
    x = f32_matrix((3, 4))
    out = np.zeros((3, 4), wrong)
    raises(E.UNSUPPORTED_DTYPE, sk.cast, x, ml_dtypes.bfloat16, out=out)
    assert not out.any(), "out written despite the error"


@pytest.mark.parametrize("shape", [(4, 3), (12,), (3, 4, 1), (1, 3, 4), (3, 5), ()])
def test_out_wrong_shape(route, shape):
    x = f32_matrix((3, 4))
    out, word = sentinel_out(shape, BF)
    raises(E.INVALID_SHAPE, sk.cast, x, ml_dtypes.bfloat16, out=out)
    assert np.all(out.view(np.uint16) == word)


def test_out_read_only(route):
    x = f32_matrix((3, 4))
    out, word = sentinel_out((3, 4), BF)
    out.flags.writeable = False
    raises(E.INVALID_BINDING, sk.cast, x, ml_dtypes.bfloat16, out=out)
    assert np.all(out.view(np.uint16) == word)


def test_out_overlapping_input(route):
    x = f32_matrix((8,))
    before = bits_of(x).copy()
    out = x.view(np.uint16)[:8].view(BF)  # the first half of x's own bytes
    raises(E.INVALID_BINDING, sk.cast, x, ml_dtypes.bfloat16, out=out)
    assert np.array_equal(bits_of(x), before)


@pytest.mark.parametrize(
    "make",
    [lambda a: a[::-1], lambda a: a[:, ::-1], lambda a: a[::-1, ::2], lambda a: a.T[::-1]],
    ids=["rows-reversed", "cols-reversed", "reversed-stepped", "transposed-reversed"],
)
def test_negative_strides(route, make):
    x = make(f32_matrix())
    raises(E.UNSUPPORTED_LAYOUT, sk.cast, x, ml_dtypes.bfloat16)
    good = f32_matrix()
    big, word = sentinel_out((6, 9), BF)
    out = make(big)
    raises(E.UNSUPPORTED_LAYOUT, sk.cast, make(good), ml_dtypes.bfloat16, out=out)
    raises(E.UNSUPPORTED_LAYOUT, sk.cast, np.ascontiguousarray(make(good)), ml_dtypes.bfloat16, out=out)
    assert np.all(big.view(np.uint16) == word), "reversed out= written"


def test_broadcast_input(route):
    x = np.broadcast_to(np.float32(1.5), (3, 4))
    raises(E.UNSUPPORTED_LAYOUT, sk.cast, x, ml_dtypes.bfloat16)


def test_misaligned_stride_field(route):
    rec = np.zeros(5, dtype=[("a", np.float32), ("b", np.int16)])  # 6-byte records
    raises(E.UNSUPPORTED_LAYOUT, sk.cast, rec["a"], ml_dtypes.bfloat16)


def test_misaligned_array(route):
    raw = np.zeros(64, np.uint8)
    start = (-raw.ctypes.data) % 4 + 2
    x = raw[start:start + 32].view(np.float32)
    assert x.ctypes.data % 4 == 2
    raises(E.INVALID_BINDING, sk.cast, x, ml_dtypes.bfloat16)


@pytest.mark.parametrize(
    "x, dtype",
    [
        (np.zeros(4, np.float64), ml_dtypes.bfloat16),
        (np.zeros(4, np.float16), np.float32),
        (np.zeros(4, np.int8), ml_dtypes.bfloat16),
        (np.zeros(4, np.float32), np.float32),
        (np.zeros(4, BF), ml_dtypes.bfloat16),
        (np.zeros(4, np.float32), "int8"),
        (np.zeros(4, np.float32), np.float16),
        (np.zeros(4, np.float32), "nonsense"),
        (np.zeros(4, np.float32), np.complex64),
    ],
    ids=["f64-in", "f16-in", "i8-in", "f32-f32", "bf16-bf16", "to-int8", "to-f16", "unknown-name", "to-complex"],
)
def test_unsupported_dtypes(route, x, dtype):
    raises(E.UNSUPPORTED_DTYPE, sk.cast, x, dtype)


def test_rank_seven_array(route):
    raises(E.INVALID_SHAPE, sk.cast, np.zeros((1,) * 7, np.float32), ml_dtypes.bfloat16)


def test_unknown_forced_route(monkeypatch):
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", "bogus")
    err = raises(E.UNSUPPORTED_ENVIRONMENT, sk.cast, np.zeros(3, np.float32), ml_dtypes.bfloat16)
    assert "bogus" in str(err)
