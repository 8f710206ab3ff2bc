"""The array layer's plan cache: a cache hit skips re-admission, so every
check that admission made must still hold on the hit.  Each test first warms
the cache with a valid call, then changes one thing a hit must not hide."""
import ml_dtypes
import numpy as np
import pytest

import simakernels as sk

E = sk.ErrorCode
BF = np.dtype(ml_dtypes.bfloat16)


def raises(code, fn, *args, **kwargs):
    with pytest.raises(sk.KernelError) as info:
        fn(*args, **kwargs)
    assert info.value.error.code == code, info.value.error


@pytest.fixture(autouse=True)
def fresh_cache():
    sk.arrays.clear_plans()
    yield
    sk.arrays.clear_plans()


def test_requested_dtype_is_part_of_the_key():
    q = np.arange(-8, 8, dtype=np.int8)
    out = np.full(16, 7.0, np.float32)
    sk.dequantize(q, 0.5, 1, out=out)  # warm: FLOAT32 requested, FLOAT32 out
    out[:] = 7.0
    raises(E.UNSUPPORTED_DTYPE, sk.dequantize, q, 0.5, 1, out=out, dtype=sk.DType.BFLOAT16)
    assert np.all(out == 7.0), "out written despite the dtype mismatch"
    f = np.ones(16, np.float32)
    bf = np.zeros(16, BF)
    sk.cast(f, BF, out=bf)
    raises(E.UNSUPPORTED_DTYPE, sk.cast, f, np.float32, out=np.zeros(16, np.float32))


def test_read_only_out_after_a_hit():
    q = np.arange(16, dtype=np.int8)
    out = np.zeros(16, np.float32)
    sk.dequantize(q, 0.25, out=out)
    out[:] = -1.0
    out.flags.writeable = False
    raises(E.INVALID_BINDING, sk.dequantize, q, 0.25, out=out)
    assert np.all(out == -1.0)
    with pytest.raises(sk.KernelError, match="output 0.*read-only"):
        sk.dequantize(q, 0.25, out=out)


def test_out_subclass_with_another_shape_after_a_hit():
    class Tagged(np.ndarray):
        pass

    x = np.linspace(-4, 4, 12, dtype=np.float32)
    sk.quantize(x, 8.0, out=np.zeros(12, np.int8).view(Tagged))
    wrong = np.full((3, 4), 5, np.int8).view(Tagged)  # same bytes, other shape
    raises(E.INVALID_SHAPE, sk.quantize, x, 8.0, out=wrong)
    assert np.all(wrong == 5)


def test_bool_zero_point_is_not_the_int_one():
    q = np.arange(4, dtype=np.int8)
    sk.dequantize(q, 1.0, 1)
    raises(E.INVALID_PARAMS, sk.dequantize, q, 1.0, True)


def test_enum_and_name_spellings_share_nothing_wrong():
    x = np.array([0.5, 1.5, -0.5, -1.5, 2.5], np.float32)
    expected = {
        "nearest_even": [0, 2, 0, -2, 2],
        "toward_zero": [0, 1, 0, -1, 2],
        "toward_positive": [1, 2, 0, -1, 3],
        "toward_negative": [0, 1, -1, -2, 2],
    }
    for mode in sk.ops.quant.Rounding:
        by_enum = sk.quantize(x, 1.0, rounding=mode)
        by_name = sk.quantize(x, 1.0, rounding=mode.name.lower())
        assert by_enum.tolist() == expected[mode.name.lower()], mode
        assert by_name.tolist() == expected[mode.name.lower()], mode


@pytest.mark.parametrize("spelling", [1.0, np.float32(1), np.int64(1), True], ids=repr)
def test_equal_comparing_zero_points_are_keyed_by_type(spelling):
    """1 == 1.0 == True with equal hashes, but only integers are zero points:
    a key by value would let a float ride on the int's cached plan."""
    q = np.arange(4, dtype=np.int8)
    x = np.ones(4, np.float32)
    assert sk.dequantize(q, 1.0, 1).tolist() == [-1.0, 0.0, 1.0, 2.0]
    assert sk.quantize(x, 1.0, 1).tolist() == [2] * 4
    if isinstance(spelling, (np.integer,)):
        assert sk.dequantize(q, 1.0, spelling).tolist() == [-1.0, 0.0, 1.0, 2.0]
        assert sk.quantize(x, 1.0, spelling).tolist() == [2] * 4
    else:
        raises(E.INVALID_PARAMS, sk.dequantize, q, 1.0, spelling)
        raises(E.INVALID_PARAMS, sk.quantize, x, 1.0, spelling)
