"""Per-axis parameters through the array layer (``sk.dequantize`` /
``sk.quantize`` with ``axis=``): every axis either way, one shared or
per-channel zero points, strided inputs and ``out=`` views, ``workers=N``
(slabs along axis 0 take their slice of the parameters), the plan cache
(new parameter values, or the same array changed in place, are never
served an old plan), and refusals naming the entry."""
import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.axis_helpers import DEQUANT_SETS, QUANT_SETS, channels, draw, expected
from support.helpers import BF16, F16, F32, I8, split_freely
from support.op_cases import raises_kernel_error

SHAPE = (6, 5, 7)
AXES = (0, 1, 2, -1, -2, -3)
NUMPY = {F32: np.float32, BF16: ml_dtypes.bfloat16, F16: np.float16}
WORD = {F32: np.uint32, BF16: np.uint16, F16: np.uint16}


def as_floats(bits):
    return np.array(bits, np.uint32).view(np.float32)


def bits_of(a, dtype):
    return np.ascontiguousarray(a).view(WORD[dtype])


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("dst", [F32, BF16], ids=lambda d: d.name)
def test_dequantize_every_axis(dst, workers):
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=SHAPE, dtype=np.int16).astype(np.int8)
    problems = []
    with split_freely():
        for k, axis in enumerate(AXES):
            params = channels(DEQUANT_SETS["forms"][k:] + DEQUANT_SETS["extremes"], SHAPE[axis])
            scales = as_floats([s for s, _ in params])
            zps = [z for _, z in params]
            shared = k % 2 == 1
            if shared:
                params = tuple((s, -70000) for s, _ in params)
            want = expected(I8, dst, x.view(np.uint8), axis, params)
            padded = np.zeros(SHAPE[:-1] + (SHAPE[-1] + 3,), np.int8)
            padded[..., :SHAPE[-1]] = x
            for view in (x, padded[..., :SHAPE[-1]]):
                got = sk.dequantize(view, scales, -70000 if shared else zps, axis=axis, dtype=NUMPY[dst],
                                    workers=workers)
                if not np.array_equal(bits_of(got, dst), want):
                    problems.append(f"axis {axis} shared={shared}")
            big = np.zeros(SHAPE[:-1] + (2 * SHAPE[-1],), NUMPY[dst])
            out = big[..., ::2]
            sk.dequantize(x, scales, -70000 if shared else zps, axis=axis, dtype=NUMPY[dst], out=out, workers=workers)
            if not np.array_equal(bits_of(out, dst), want) or bits_of(big[..., 1::2], dst).any():
                problems.append(f"axis {axis} out= every other element")
    assert not problems, problems


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("src", [F32, BF16, F16], ids=lambda d: d.name)
def test_quantize_every_axis(src, workers):
    rng = np.random.default_rng(6)
    bits = draw(src, SHAPE, rng)
    x = bits.view(NUMPY[src])
    problems = []
    with split_freely():
        for k, axis in enumerate(AXES):
            params = channels(QUANT_SETS["ties"][k % 3:] + QUANT_SETS["tiny"], SHAPE[axis])
            mode = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")[k % 4]
            ms = as_floats([m for m, _ in params])
            zps = np.array([z for _, z in params], np.int8)
            want = expected(src, I8, bits, axis, params, mode).view(np.int8)
            got = sk.quantize(x, ms, zps, axis=axis, rounding=mode, workers=workers)
            if not np.array_equal(got, want):
                problems.append(f"axis {axis} {mode}")
            transposed = np.ascontiguousarray(x.transpose(2, 0, 1)).transpose(1, 2, 0)   # same values, F-like
            got = sk.quantize(transposed, list(ms), zps.tolist(), axis=axis, rounding=mode, workers=workers)
            if not np.array_equal(got, want):
                problems.append(f"axis {axis} {mode} transposed input")
    assert not problems, problems


def test_plan_cache_follows_parameter_values():
    """The same call with other values, or with the same array changed in
    place, gives the new values' results."""
    x = np.arange(-60, 60, dtype=np.int8).reshape(4, 30)
    scales = np.array([0.5, 0.25, 2.0, 4.0], np.float32)
    zps = np.array([0, 1, 2, 3])
    first = sk.dequantize(x, scales, zps, axis=0)
    want = lambda s, z: expected(I8, F32, x.view(np.uint8), 0, tuple(zip(  # noqa: E731
        s.view(np.uint32).tolist(), z.tolist()))).view(np.float32)
    assert np.array_equal(first.view(np.uint32), want(scales, zps).view(np.uint32))
    scales[2] = 0.125
    zps[3] = -7
    second = sk.dequantize(x, scales, zps, axis=0)
    assert np.array_equal(second.view(np.uint32), want(scales, zps).view(np.uint32))
    third = sk.dequantize(x, [0.5, 0.25, 2.0, 4.0], [0, 1, 2, 3], axis=0)
    assert np.array_equal(third.view(np.uint32), first.view(np.uint32))
    fourth = sk.dequantize(x, scales, zps, axis=-2)
    assert np.array_equal(fourth.view(np.uint32), second.view(np.uint32))

    m = np.array([1.0, 0.5, 0.3, 2.0], np.float32)
    y = np.linspace(-200, 200, 120, dtype=np.float32).reshape(4, 30)
    a = sk.quantize(y, m, 0, axis=0)
    m[1] = 0.25
    b = sk.quantize(y, m, 0, axis=0)
    want_b = expected(F32, I8, y.view(np.uint32), 0, tuple((int(v), 0) for v in m.view(np.uint32)), "nearest_even")
    assert np.array_equal(b, want_b.view(np.int8)) and not np.array_equal(a, b)


def test_refusals_name_the_entry():
    x = np.zeros((3, 4), np.int8)
    err = raises_kernel_error(sk.ErrorCode.INVALID_PARAMS, sk.dequantize, x, [1.0, 2.0, 0.0, 1.0], axis=1)
    assert "scales[2]" in err.error.message
    err = raises_kernel_error(sk.ErrorCode.INVALID_PARAMS, sk.dequantize, x, [1.0, 2.0], axis=1)
    assert "has 2 entries" in err.error.message and "has 4" in err.error.message
    err = raises_kernel_error(sk.ErrorCode.INVALID_PARAMS, sk.dequantize, x, [1.0] * 3, axis=2)
    assert "axis 2" in err.error.message and "rank 2" in err.error.message
    y = np.zeros((3, 4), np.float32)
    err = raises_kernel_error(sk.ErrorCode.INVALID_PARAMS, sk.quantize, y, [1.0] * 3, [0, 200, 0], axis=0)
    assert "zero_points[1] 200" in err.error.message
    err = raises_kernel_error(sk.ErrorCode.INVALID_PARAMS, sk.quantize, y, [1.0, float("nan"), 1.0, 1.0], axis=-1)
    assert "multipliers[1]" in err.error.message
