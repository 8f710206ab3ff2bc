"""``sk.choose_qparams(x, axis=a, block_size=B)``: one parameter set per block.

API.md, "Blocked parameters": the parameter arrays have ``x``'s rank and
shape except ``ceil(x.shape[a] / B)`` along ``a``; element ``i`` belongs to
the entry at ``i`` with ``i[a] // B``; "the per-tensor guarantees hold for
every block".  So each entry must be, field for field, the oracle's rule
(tests/oracle/qparams.py, exact rationals) on the finite range of the
elements that belong to it.  The grouping of elements into entries is the
oracle's index arithmetic (tests/oracle/blocked.py, written from API.md),
never the library's; the ranges are the definition's (least and greatest
finite value, 0 included) taken with NumPy on exactly converted values.
Every route runs the range pass (SIMAKERNELS_FORCE_ROUTE)."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32
from oracle import qparams as oracle
from oracle.blocked import parameter_index_of, parameter_shape
from support.helpers import ROUTES
from support.range_helpers import forced

E = sk.ErrorCode
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
FORMATS = {np.dtype(np.float32): BINARY32, np.dtype(ml_dtypes.bfloat16): BFLOAT16, np.dtype(np.float16): BINARY16}
BLOCKS = (1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129)


@lru_cache(maxsize=None)
def _rule(lo: float, hi: float, symmetric: bool) -> oracle.Chosen:
    return oracle.choose(Fraction(lo), Fraction(hi), symmetric)


def expected(x: np.ndarray, axis: int, block: int, symmetric: bool):
    """(scale bits, zero points, multiplier bits) of the parameter shape: the
    oracle's rule per entry on the finite range of the entry's elements."""
    shape = parameter_shape(x.shape, axis, block)
    count = int(np.prod(shape))
    lo, hi = np.zeros(count), np.zeros(count)
    if x.size:
        entry = np.ravel_multi_index(parameter_index_of(x.shape, axis, block), shape).ravel()
        values = np.asarray(x, np.float64).ravel()  # exact: every input format is a subset of binary64
        values = np.where(np.isfinite(values), values, 0.0)
        np.minimum.at(lo, entry, values)
        np.maximum.at(hi, entry, values)
    chosen = [_rule(float(a), float(b), symmetric) for a, b in zip(lo, hi)]
    as_array = lambda field, dtype: np.array([getattr(c, field) for c in chosen], dtype).reshape(shape)  # noqa: E731
    return as_array("scale", np.uint32), as_array("zero_point", np.int32), as_array("multiplier", np.uint32)


def check(x: np.ndarray, axis: int, block: int, symmetric: bool = False, qp=None) -> None:
    if qp is None:
        qp = sk.choose_qparams(x, axis=axis, block_size=block, symmetric=symmetric)
    scale, zero_point, multiplier = expected(x, axis % x.ndim, block, symmetric)
    where = f"shape {x.shape} strides {x.strides} {x.dtype} axis {axis} block {block} symmetric {symmetric}"
    assert qp.axis == axis % x.ndim and qp.block_size == block and qp.symmetric is symmetric, where
    assert qp.scale.dtype == np.float32 and qp.multiplier.dtype == np.float32 and qp.zero_point.dtype == np.int32
    assert qp.scale.shape == qp.zero_point.shape == qp.multiplier.shape == scale.shape, where
    np.testing.assert_array_equal(qp.scale.view(np.uint32), scale, err_msg=where)
    np.testing.assert_array_equal(qp.zero_point, zero_point, err_msg=where)
    np.testing.assert_array_equal(qp.multiplier.view(np.uint32), multiplier, err_msg=where)


def data(shape, dtype, seed, specials=True):
    """Values of several magnitudes per block, with NaN, infinities, signed
    zeros and subnormals sprinkled in."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, size=shape))
    if specials:
        flat = values.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 23), replace=False)
        pool = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-41, -3e-39, 6e-8, 60000.0])
        flat[picks] = pool[rng.integers(0, pool.size, size=picks.size)]
    with np.errstate(over="ignore"):
        return values.astype(dtype)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("key", sorted(DTYPES))
def test_every_block_size_along_the_inner_axis(key, block):
    x = data((3, 300), DTYPES[key], block)  # 300: whole blocks and a partial last one for most sizes
    check(x, 1, block)
    check(x, -1, block, symmetric=True)


@pytest.mark.parametrize("block", BLOCKS)
def test_every_block_size_along_the_outer_axis(block):
    x = data((260, 5), np.float32, 1000 + block)
    check(x, 0, block)
    check(x, 0, block, symmetric=True)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(DTYPES))
def test_every_route_axis_and_layout(route, key):
    """Every axis of 1-D to 3-D tensors; dense, transposed, every other
    element, padded and Fortran layouts; blocks around the leaves' widths."""
    dtype = DTYPES[key]
    base = data((4, 6, 150), dtype, 7)
    views = {
        "dense": base,
        "transposed": base.transpose(2, 0, 1),
        "every other": base[..., ::2],
        "padded": base[:, 1:5, 3:140],
        "fortran": np.asfortranarray(base),
        "1-D": base[1, 2],
        "2-D strided": base[:, 3, ::3],
    }
    with forced(route):
        for x in views.values():
            for axis in range(x.ndim):
                for block in (1, 2, 16, 17, 33, 64, 129):
                    check(x, axis, block, symmetric=block % 2 == 1)


@pytest.mark.parametrize("route", ROUTES)
def test_nan_and_infinities_are_left_out_of_each_block(route):
    """A block of NaN and infinities only is an empty range (scale 1.0, zero
    point -128, or 0 symmetric); one with a finite value takes its range."""
    x = np.array([[np.nan, np.inf, -np.inf, np.nan, 2.0, np.nan, -np.inf, 0.5, 0.0, -0.0, 0.0, -0.0]], np.float32)
    with forced(route):
        qp = sk.choose_qparams(x, axis=1, block_size=4)
        check(x, 1, 4, qp=qp)
        assert qp.scale[0, 0] == 1.0 and qp.zero_point[0, 0] == -128
        assert qp.scale[0, 2] == 1.0  # all zeros: empty too
        assert qp.scale[0, 1] == np.float32(2) / np.float32(254)
        symmetric = sk.choose_qparams(x, axis=1, block_size=4, symmetric=True)
        check(x, 1, 4, True, qp=symmetric)
        assert symmetric.zero_point.tolist() == [[0, 0, 0]]


ROUNDINGS = {"nearest_even": np.rint, "toward_zero": np.trunc, "toward_positive": np.ceil,
             "toward_negative": np.floor}


@pytest.mark.parametrize("symmetric", [False, True])
def test_guarantees_hold_per_block(symmetric):
    """Per block: neither end of the range saturates in any mode (the
    integer before saturation, from the binary32 product, is a level);
    every finite value comes back within half a step plus the binary32
    roundings; dequantize(zero point) is 0."""
    x = data((6, 130), np.float32, 3, specials=False)
    x[0, :17] = np.linspace(-3, 5, 17, dtype=np.float32)  # ends on exact multiples and ties
    qp = sk.choose_qparams(x, axis=1, block_size=17, symmetric=symmetric)
    entry = np.arange(130) // 17
    multiplier, zero_point = qp.multiplier[:, entry], qp.zero_point[:, entry].astype(np.int64)
    products = (x * multiplier).astype(np.float64)  # binary32 products, nearest-even (the default state)
    low = -127 if symmetric else -128
    for rounding in ROUNDINGS.values():
        levels = rounding(products) + zero_point  # before saturation
        assert levels.min() >= low and levels.max() <= 127
    back = sk.dequantize(sk.quantize(x, qp), qp).astype(np.float64)
    step = qp.scale[:, entry].astype(np.float64)
    assert np.all(np.abs(back - x) <= step * (0.5 + 2.0 ** -20) + np.abs(x) * 2.0 ** -22)
    assert np.all(sk.dequantize(zero_point.astype(np.int8), qp) == 0)


def test_one_block_is_per_axis_of_the_other_axes():
    """block_size >= the axis's extent: one entry along it (length 1)."""
    x = data((5, 40), np.float32, 5)
    qp = sk.choose_qparams(x, axis=1, block_size=40)
    wide = sk.choose_qparams(x, axis=1, block_size=1000)
    rows = sk.choose_qparams(x, axis=0)
    assert qp.scale.shape == wide.scale.shape == (5, 1)
    np.testing.assert_array_equal(qp.scale[:, 0], rows.scale)
    np.testing.assert_array_equal(wide.zero_point[:, 0], rows.zero_point)


def test_block_one_is_per_element():
    x = data((3, 9), np.float32, 8)
    qp = sk.choose_qparams(x, axis=0, block_size=1)
    for i in np.ndindex(x.shape):
        one = sk.choose_qparams(x[i])
        assert (qp.scale[i], qp.zero_point[i], qp.multiplier[i]) == (one.scale, one.zero_point, one.multiplier)


@pytest.mark.parametrize("shape, axis, block, params", [((0, 5), 1, 2, (0, 3)), ((4, 0), 1, 3, (4, 0)),
                                                       ((4, 0), 0, 3, (2, 0)), ((0,), 0, 1, (0,))])
def test_empty_tensors(shape, axis, block, params):
    qp = sk.choose_qparams(np.zeros(shape, np.float32), axis=axis, block_size=block)
    assert qp.scale.shape == qp.zero_point.shape == qp.multiplier.shape == params


def test_native_keys_are_in_the_callers_order():
    """The range pass alone (qparams._keys, which the Dask layer runs per
    chunk): flat keys in C order of the parameter shape, for layouts whose
    walk orders its table otherwise."""
    from simakernels import qparams
    x = data((6, 70), np.float32, 9, specials=False)
    for view, axis in ((x.T, 0), (x.T, 1), (np.asfortranarray(x), 1), (x[:, ::2], 0)):
        least, greatest = qparams._keys(view, axis, 16)
        shape = parameter_shape(view.shape, axis, 16)
        for at, entry in enumerate(np.ndindex(shape)):
            index = tuple(slice(e * 16, e * 16 + 16) if d == axis else e for d, e in enumerate(entry))
            block = view[index].astype(np.float64)
            assert greatest[at] == int(np.float32(block.max(initial=0)).view(np.uint32))
            assert least[at] == -int(np.float32(abs(block.min(initial=0))).view(np.uint32))


@pytest.mark.parametrize("block_size, message", [
    (0, "must be a positive integer"), (-3, "must be a positive integer"), (2.0, "must be a positive integer"),
    (True, "must be a positive integer"), ("32", "must be a positive integer"),
])
def test_bad_block_size(block_size, message):
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.zeros((4, 8), np.float32), axis=1, block_size=block_size)
    assert info.value.code is E.INVALID_PARAMS
    assert message in str(info.value) and "axis 1" in str(info.value) and "(4, 8)" in str(info.value)


def test_block_size_needs_an_axis():
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.zeros((4, 8), np.float32), block_size=32)
    assert info.value.code is E.INVALID_PARAMS and "needs an axis" in str(info.value)


def test_other_errors_come_first():
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.zeros(4, np.float64), axis=0, block_size=0)
    assert info.value.code is E.UNSUPPORTED_DTYPE
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.zeros(4, np.float32), axis=1, block_size=2)
    assert info.value.code is E.INVALID_PARAMS and "outside the rank" in str(info.value)
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.zeros(4, np.float32), axis=0, block_size=2, symmetric=1)
    assert info.value.code is E.INVALID_PARAMS and "symmetric" in str(info.value)


def test_negative_strides_are_read_from_a_copy():
    x = data((4, 50), np.float32, 12)
    check(x[::-1, ::-1], 1, 16)
    check(x[::-1], 0, 3)


def test_quantize_takes_the_blocked_qparams():
    x = data((4, 50), np.float32, 13)
    qp = sk.choose_qparams(x, axis=1, block_size=16)
    q = sk.quantize(x, qp)
    for b in range(4):
        part = sk.quantize(x[:, 16 * b:16 * b + 16], qp.multiplier[:, b], qp.zero_point[:, b], axis=0)
        np.testing.assert_array_equal(q[:, 16 * b:16 * b + 16], part)


@pytest.mark.parametrize("chunks", [(2, 32), (3, 20), (4, 50), (1, 7)])
def test_dask_matches_in_memory(chunks):
    da = pytest.importorskip("dask.array")
    import dask
    import simakernels.dask as skd
    x = data((4, 100), np.float32, 14)
    with dask.config.set(scheduler="synchronous"):
        for axis, block in ((1, 16), (0, 3), (1, 33), (1, 128)):
            got = skd.choose_qparams(da.from_array(x, chunks=chunks), axis=axis, block_size=block, symmetric=True)
            want = sk.choose_qparams(x, axis=axis, block_size=block, symmetric=True)
            assert got.block_size == block and got.axis == axis
            np.testing.assert_array_equal(got.scale.view(np.uint32), want.scale.view(np.uint32))
            np.testing.assert_array_equal(got.zero_point, want.zero_point)
            np.testing.assert_array_equal(got.multiplier.view(np.uint32), want.multiplier.view(np.uint32))
        empty = skd.choose_qparams(da.from_array(np.zeros((0, 9), np.float32)), axis=1, block_size=4)
        assert empty.scale.shape == (0, 3)
        with pytest.raises(sk.KernelError):
            skd.choose_qparams(da.from_array(x, chunks=chunks), block_size=4)
