"""Blocked parameters through the array layer (``sk.dequantize`` /
``sk.quantize`` with ``axis=`` and ``block_size=``): every axis either way,
shared and per-block zero points, strided inputs and ``out=`` views with
gaps, a ``QParams`` holding the block size, ``workers=N`` (slabs along
axis 0 start at a block when it is the block axis, and take their rows of
the parameters otherwise), the plan cache (the same parameter arrays under
another block size are another plan), plans that own their parameters and
pickle, and refusals naming the fault.  Expected bits come from the oracle
(tests/oracle/blocked.py)."""
import pickle

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from simakernels import _split
from support.axis_helpers import draw
from support.blocked_helpers import block_entries, expected, parameter_shape
from support.helpers import BF16, F16, F32, I8, ROUTES, split_freely
from support.op_cases import raises_kernel_error

E = sk.ErrorCode
SHAPE = (6, 37, 5)
AXES = (0, 1, 2, -1, -2, -3)
BLOCKS = {6: (1, 4, 6), 37: (16, 17, 40), 5: (2, 5)}
NUMPY = {F32: np.float32, BF16: ml_dtypes.bfloat16, F16: np.float16, I8: np.int8}
WORD = {F32: np.uint32, BF16: np.uint16, F16: np.uint16, I8: np.uint8}


def floats(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def words(a, dtype):
    return np.ascontiguousarray(a).view(WORD[dtype])


def cases():
    """(axis, block, k) for every axis either way and its block sizes."""
    k = 0
    for axis in AXES:
        for block in BLOCKS[SHAPE[axis]]:
            yield axis, block, k
            k += 1


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("dst", [F32, BF16], ids=lambda d: d.name)
def test_dequantize_every_axis(dst, workers):
    x = draw(I8, SHAPE, np.random.default_rng(5)).view(np.int8)
    problems = []
    with split_freely():
        for axis, block, k in cases():
            bits, zps = block_entries(I8, parameter_shape(SHAPE, axis, block), k)
            zp = -70000 if k % 2 else zps
            want = expected(I8, dst, x.view(np.uint8), axis, block, bits, zp)
            padded = np.zeros(SHAPE[:-1] + (SHAPE[-1] + 3,), np.int8)
            padded[..., :SHAPE[-1]] = x
            for view in (x, padded[..., :SHAPE[-1]], np.asfortranarray(x)):
                got = sk.dequantize(view, floats(bits), zp, axis=axis, block_size=block, dtype=NUMPY[dst],
                                    workers=workers)
                if not np.array_equal(words(got, dst), want):
                    problems.append(f"axis {axis} block {block} view {view.strides}")
            big = np.zeros(SHAPE[:-1] + (2 * SHAPE[-1],), NUMPY[dst])
            out = big[..., ::2]
            sk.dequantize(x, floats(bits), zp, axis=axis, block_size=block, out=out, workers=workers)
            if not np.array_equal(words(out, dst), want) or words(big[..., 1::2], dst).any():
                problems.append(f"axis {axis} block {block} out= every other element")
    assert not problems, problems


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("src", [F32, BF16, F16], ids=lambda d: d.name)
def test_quantize_every_axis(src, workers):
    values = draw(src, SHAPE, np.random.default_rng(6))
    x = values.view(NUMPY[src])
    problems = []
    with split_freely():
        for axis, block, k in cases():
            bits, zps = block_entries(src, parameter_shape(SHAPE, axis, block), k)
            zp = 17 if k % 2 else zps
            mode = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")[k % 4]
            want = expected(src, I8, values, axis, block, bits, zp, mode)
            for view in (x, np.asfortranarray(x)):
                got = sk.quantize(view, floats(bits), zp, axis=axis, block_size=block, rounding=mode, workers=workers)
                if not np.array_equal(words(got, I8), want):
                    problems.append(f"axis {axis} block {block} {mode} view {view.strides}")
            big = np.full(SHAPE[:-1] + (3 * SHAPE[-1],), 0x5A, np.int8)
            out = big[..., 1::3]
            sk.quantize(x, floats(bits).tolist() if k % 3 == 0 else floats(bits), zp, axis=axis, block_size=block,
                        rounding=mode, out=out, workers=workers)
            gaps = np.concatenate([big[..., 0::3], big[..., 2::3]])
            if not np.array_equal(words(out, I8), want) or (gaps != 0x5A).any():
                problems.append(f"axis {axis} block {block} out= with gaps")
    assert not problems, problems


def test_workers_split_at_block_boundaries():
    """A tensor large enough for two threads, blocks of 7 rows along axis
    0 (slabs must start at a block: the split keeps whole blocks) and
    blocks along axis 1 (each slab takes its rows of the parameters)."""
    assert _split.slabs(300, 2, 7) == [(0, 147), (147, 300)]
    assert _split.slabs(10, 4, 4) == [(0, 4), (4, 8), (8, 10)]
    assert all(start % 7 == 0 for start, _ in _split.slabs(1000, 9, 7))
    values = draw(F32, (300, 1000), np.random.default_rng(8))
    x = values.view(np.float32)
    for axis, block in ((0, 7), (1, 32), (0, 300), (0, 1)):
        bits, zps = block_entries(F32, parameter_shape(x.shape, axis, block), axis + block)
        want = expected(F32, I8, values, axis, block, bits, zps, "nearest_even")
        got = sk.quantize(x, floats(bits), zps, axis=axis, block_size=block, workers=4)
        assert np.array_equal(words(got, I8), want), (axis, block)
    with split_freely():  # 13 slabs of one row each where the rows are not the block axis, of 2 blocks otherwise
        q = values[:26, :64].copy().view(np.uint32) & np.uint32(0xFF)
        q8 = q.astype(np.uint8).view(np.int8)
        for axis, block in ((0, 2), (1, 8), (0, 3)):
            bits, zps = block_entries(I8, parameter_shape(q8.shape, axis, block), block)
            want = expected(I8, F32, q8.view(np.uint8), axis, block, bits, zps)
            got = sk.dequantize(q8, floats(bits), zps, axis=axis, block_size=block, workers=13)
            assert np.array_equal(words(got, F32), want), (axis, block)


def test_qparams_carry_axis_and_block_size():
    """``sk.quantize(x, qp)`` takes the axis and block size from a QParams
    (as given by choose_qparams); giving them again is refused."""
    x = draw(F32, (4, 10), np.random.default_rng(9)).view(np.float32)
    bits, zps = block_entries(F32, (4, 3), 1)
    scales = np.full((4, 3), 0.5, np.float32)
    qp = sk.QParams(scales, zps.astype(np.int32), floats(bits), 1, block_size=4)
    assert qp.block_size == 4 and "block_size=4" in repr(qp)
    want = expected(F32, I8, x.view(np.uint32), 1, 4, bits, zps, "nearest_even")
    assert np.array_equal(words(sk.quantize(x, qp), I8), want)
    q = sk.quantize(x, qp).view(np.int8)
    dwant = expected(I8, F32, q.view(np.uint8), 1, 4, scales.view(np.uint32), zps)
    assert np.array_equal(words(sk.dequantize(q, qp), F32), dwant)
    for kwargs, name in (({"zero_point": 3}, "zero_point"), ({"axis": 1}, "axis"), ({"block_size": 4}, "block_size")):
        for fn, data in ((sk.quantize, x), (sk.dequantize, q)):
            err = raises_kernel_error(E.INVALID_PARAMS, fn, data, qp, **kwargs)
            assert f"{name}=" in err.error.message and "QParams" in err.error.message
    assert sk.QParams(1.0, 0, 1.0).block_size is None


def test_the_same_arrays_under_another_block_size_are_another_plan():
    """(4, 12) in blocks of 4 or of 5 along axis 1: the parameters have
    shape (4, 3) either way; the cache must not serve one for the other."""
    x = draw(F32, (4, 12), np.random.default_rng(10)).view(np.float32)
    bits, zps = block_entries(F32, (4, 3), 0)
    for block in (4, 5, 4):
        want = expected(F32, I8, x.view(np.uint32), 1, block, bits, zps, "nearest_even")
        assert np.array_equal(words(sk.quantize(x, floats(bits), zps, axis=1, block_size=block), I8), want), block
    changed = floats(bits).copy()   # the same array changed in place: a new plan
    got = sk.quantize(x, changed, zps, axis=1, block_size=4)
    changed[:] = np.float32(1.0)
    want = expected(F32, I8, x.view(np.uint32), 1, 4, changed.view(np.uint32), zps, "nearest_even")
    assert np.array_equal(words(sk.quantize(x, changed, zps, axis=1, block_size=4), I8), want)
    assert not np.array_equal(got, sk.quantize(x, changed, zps, axis=1, block_size=4))


@pytest.mark.parametrize("call", ["quantize", "dequantize"])
def test_refusals(call):
    x = np.zeros((4, 10), np.float32 if call == "quantize" else np.int8)
    fn = getattr(sk, call)
    ok = np.full((4, 3), 0.5, np.float32)
    err = raises_kernel_error(E.INVALID_PARAMS, fn, x, ok, block_size=4)
    assert "block_size=4" in err.error.message and "axis=" in err.error.message
    for bad in (0, -1, 2.5, True):
        err = raises_kernel_error(E.INVALID_PARAMS, fn, x, ok, axis=1, block_size=bad)
        assert f"block_size {bad!r}" in err.error.message and "positive integer" in err.error.message
    err = raises_kernel_error(E.INVALID_PARAMS, fn, x, np.full((4, 2), 0.5), axis=1, block_size=4)
    assert "shape (4, 2)" in err.error.message and "expected (4, 3)" in err.error.message
    assert "blocks of 4" in err.error.message and "axis 1" in err.error.message
    bad = ok.copy()
    bad[2, 1] = np.nan
    err = raises_kernel_error(E.INVALID_PARAMS, fn, x, bad, axis=-1, block_size=4)
    assert "[2, 1] nan" in err.error.message
    zps = np.zeros((4, 3), np.int64)
    zps[3, 2] = 1000 if call == "quantize" else 2**31
    err = raises_kernel_error(E.INVALID_PARAMS, fn, x, ok, zps, axis=1, block_size=4)
    assert f"zero_points[3, 2] {zps[3, 2]}" in err.error.message


def test_plans_own_their_parameters_and_pickle():
    """A plan keeps its own copy (the caller's arrays changed afterwards
    change nothing); a pickled plan loads on the same route and gives the
    same bits."""
    shape = (5, 40)
    values = draw(BF16, shape, np.random.default_rng(11))
    for route in ROUTES:
        bits, zps = block_entries(BF16, parameter_shape(shape, 1, 16), 2)
        mults, zp_array = floats(bits).copy(), zps.copy()
        request = sk.ops.quant.Request([sk.TensorSpec(shape, sk.DType.BFLOAT16)], [sk.TensorSpec(shape, sk.DType.INT8)],
                                       sk.ops.quant.BlockParams(1, 16, mults, zp_array, "toward_positive"))
        plan = sk.a65.quant.check_inference(request, route=route)
        mults[:] = np.float32(1.0)
        zp_array[:] = 0
        want = expected(BF16, I8, values, 1, 16, bits, zps, "toward_positive")
        loaded = pickle.loads(pickle.dumps(plan))
        assert loaded.route == route and loaded.shared.params.block_size == 16
        for p in (plan, loaded):
            out = np.full(shape, 0x5A, np.int8)
            assert sk.a65.quant.execute(p, [values.copy()], [out]) is None
            assert np.array_equal(words(out, I8), want), route
