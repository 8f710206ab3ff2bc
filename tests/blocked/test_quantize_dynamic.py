"""``sk.quantize_dynamic``: bit for bit ``choose_qparams`` then ``quantize``.

API.md: "the range and the quantization in one call, bit-identical to
choose_qparams followed by quantize".  Both halves are tested against the
oracle elsewhere (test_blocked_qparams.py and tests/arrays for the
parameters, tests/axis and the blocked quantize tests for Quant), so every
case here compares the one call with the two, field for field and byte for
byte, on every route, per tensor, per axis and blocked, in every rounding
mode, and on the layouts the walk treats differently; then its errors and
its output binding."""
from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES, fp_or_skip
from support.range_helpers import forced

E = sk.ErrorCode
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")
# (axis, block_size): per tensor, per axis, blocked inner and outer
KINDS = ((None, None), (0, None), (-1, None), (-1, 16), (-1, 33), (0, 3), (-1, 1))


def data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * np.exp2(rng.integers(-5, 6, size=shape))
    flat = values.reshape(-1)
    picks = rng.choice(flat.size, size=max(1, flat.size // 31), replace=False)
    pool = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-41, 3e-39])
    flat[picks] = pool[rng.integers(0, pool.size, size=picks.size)]
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def same(x, axis=None, block_size=None, symmetric=False, rounding="nearest_even", out=None):
    """Runs both paths and compares them; returns the one call's result."""
    got_q, got = sk.quantize_dynamic(x, axis=axis, block_size=block_size, symmetric=symmetric, rounding=rounding,
                                     out=out)
    want = sk.choose_qparams(x, axis=axis, block_size=block_size, symmetric=symmetric)
    want_q = sk.quantize(x, want, rounding=rounding)
    where = f"shape {x.shape} strides {x.strides} {x.dtype} axis {axis} block {block_size} {rounding} {symmetric}"
    np.testing.assert_array_equal(got_q, want_q, err_msg=where)
    assert got_q.dtype == np.int8 and got_q.shape == x.shape
    assert set(vars(got)) == {f.name for f in dataclasses.fields(sk.QParams)}  # every field, and only those
    assert (got.axis, got.block_size, got.symmetric) == (want.axis, want.block_size, want.symmetric), where
    for name in ("scale", "multiplier"):
        a, b = np.asarray(getattr(got, name)), np.asarray(getattr(want, name))
        assert type(getattr(got, name)) is type(getattr(want, name)) and a.dtype == b.dtype == np.float32, where
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32), err_msg=where)
    assert type(got.zero_point) is type(want.zero_point), where
    np.testing.assert_array_equal(got.zero_point, want.zero_point, err_msg=where)
    return got_q, got


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("key", sorted(DTYPES))
def test_every_route_mode_and_kind(route, key):
    x = data((5, 70), DTYPES[key], 1)
    with forced(route):
        for axis, block in KINDS:
            for mode in MODES:
                same(x, axis, block, symmetric=mode == "toward_zero", rounding=mode)


@pytest.mark.parametrize("route", ROUTES)
def test_layouts(route):
    """Transposed, every other element, padded, Fortran, 1-D and 3-D views;
    the block axis inner and outer; a strided out with sentinel gaps."""
    base = data((4, 6, 90), np.float32, 2)
    views = [base.transpose(2, 0, 1), base[..., ::2], base[:, 1:5, 3:80], np.asfortranarray(base), base[2, 3],
             base[:, 2, ::3], base]
    with forced(route):
        for x in views:
            for axis in [None] + list(range(x.ndim)):
                for block in (None, 1, 17, 64) if axis is not None else (None,):
                    same(x, axis, block, rounding="toward_negative" if block == 17 else "nearest_even")
        x = base[:, :, :40]
        canvas = np.full((4, 6, 81), 0x5A, np.int8)
        out = canvas[:, :, 1::2]
        q, _ = same(x, -1, 16, out=out)
        assert q is out
        assert np.all(canvas[:, :, 0::2] == 0x5A)  # the gaps are untouched


@pytest.mark.parametrize("block", (15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129))
def test_block_sizes(block):
    x = data((3, 400), np.float32, block)
    same(x, 1, block)
    same(x.T, 0, block, symmetric=True)


def test_larger_tensors():
    """Runs beyond the staging chunk and the leaves' blocks, several rows."""
    x = data((16, 4096), np.float32, 3)
    for axis, block in KINDS:
        same(x, axis, block)


@pytest.mark.parametrize("shape, axis, block", [((0,), None, None), ((3, 0), 0, None), ((0, 5), 1, 2),
                                                ((4, 0), 1, 3), ((), None, None)])
def test_empty_and_scalar(shape, axis, block):
    same(np.zeros(shape, np.float32), axis, block)


def test_repeated_calls_and_other_options_share_no_plan():
    x = data((4, 40), np.float32, 4)
    for _ in range(3):
        same(x, 1, 8, symmetric=True)
        same(x, 1, 8)
        same(x, 0)
        same(x)
    with pytest.raises(sk.KernelError) as info:  # 1 is not True, even after True was cached
        sk.quantize_dynamic(x, axis=1, block_size=8, symmetric=1)
    assert info.value.code is E.INVALID_PARAMS


def test_inputs_from_sequences():
    q, qp = sk.quantize_dynamic(np.float32([-1.0, 0.5, 2.0]))
    assert q.tolist() == [-128, -1, 126] and qp.zero_point == -43
    with pytest.raises(sk.KernelError) as info:  # Python floats become float64, as quantize says
        sk.quantize_dynamic([-1.0, 0.5, 2.0])
    assert info.value.code is E.UNSUPPORTED_DTYPE


@pytest.mark.slow  # importing torch
def test_dlpack_input_and_out():
    torch = pytest.importorskip("torch")
    t = torch.tensor([[0.5, -0.25, 1.0, 2.0], [-4.0, 0.0, 1.0, 8.0]])
    out = torch.empty((2, 4), dtype=torch.int8)
    got, qp = sk.quantize_dynamic(t, axis=1, block_size=2, symmetric=True, out=out)
    assert got is out and out.tolist() == [[127, -64, 64, 127], [-127, 0, 16, 127]]


def test_choose_errors_come_first():
    x = np.zeros((4, 8), np.float32)
    cases = [
        (dict(x=np.zeros(3, np.float64), rounding="bad"), E.UNSUPPORTED_DTYPE, "FLOAT32"),
        (dict(x=x, symmetric="yes", rounding="bad"), E.INVALID_PARAMS, "symmetric"),
        (dict(x=x, axis=2, rounding="bad"), E.INVALID_PARAMS, "outside the rank"),
        (dict(x=x, block_size=4, rounding="bad"), E.INVALID_PARAMS, "needs an axis"),
        (dict(x=x, axis=1, block_size=0, rounding="bad"), E.INVALID_PARAMS, "positive integer"),
        (dict(x=x, axis=1, block_size=4, rounding="bad"), E.INVALID_PARAMS, "bad"),
        (dict(x=x, out=np.zeros((4, 8), np.uint8)), E.UNSUPPORTED_DTYPE, "int8"),
        (dict(x=x, out=np.zeros((4, 9), np.int8)), E.INVALID_SHAPE, ""),
        (dict(x=x[::-1]), E.UNSUPPORTED_LAYOUT, ""),
        (dict(x=np.ma.masked_array(x)), E.INVALID_BINDING, "MaskedArray"),
    ]
    for kwargs, code, text in cases:
        with pytest.raises(sk.KernelError) as info:
            sk.quantize_dynamic(**kwargs)
        assert info.value.code is code and text in str(info.value), (kwargs.keys(), str(info.value))


def test_out_binding():
    x = data((4, 8), np.float32, 5)
    out = np.zeros((4, 8), np.int8)
    out.flags.writeable = False
    for _ in range(2):  # the plan's first call and a cached one
        with pytest.raises(sk.KernelError) as info:
            sk.quantize_dynamic(x, axis=0, out=out)
        assert info.value.code is E.INVALID_BINDING and "read-only" in str(info.value)
    raw = np.zeros(64, np.float32)
    with pytest.raises(sk.KernelError) as info:  # the output overlaps the input
        sk.quantize_dynamic(raw, out=raw.view(np.int8)[:64])
    assert info.value.code is E.INVALID_BINDING


def test_fp_environment():
    """Quant's policy: flush modes are fine (its repair path is exact),
    another rounding mode or a trap is refused before any output byte."""
    x = data((4, 40), np.float32, 6)
    x[0, :4] = [1e-39, -2e-40, 3e-38, 1e-45]
    want_q, want = sk.quantize_dynamic(x, axis=1, block_size=8)
    with fp_or_skip(flush_to_zero=True, denormals_are_zero=True):
        got_q, got = sk.quantize_dynamic(x, axis=1, block_size=8)
    np.testing.assert_array_equal(got_q, want_q)
    np.testing.assert_array_equal(got.scale, want.scale)
    out = np.full(x.shape, 7, np.int8)
    with pytest.raises(sk.KernelError) as info:
        with fp_or_skip(rounding=sk.fenv.Rounding.TOWARD_ZERO):
            sk.quantize_dynamic(x, out=out)
    assert info.value.code is E.UNSUPPORTED_ENVIRONMENT and "quantize_dynamic" in str(info.value)
    assert np.all(out == 7)
    with pytest.raises(sk.KernelError) as info:
        with fp_or_skip(traps={sk.fenv.Trap.INEXACT}):
            sk.quantize_dynamic(x, axis=0, out=out)
    assert info.value.code is E.UNSUPPORTED_ENVIRONMENT
    assert np.all(out == 7)


def test_the_native_entry_refuses_a_plan_of_other_parameters():
    from simakernels import qparams
    from simakernels._ffi import ffi, lib
    x = data((4, 32), np.float32, 7)
    sk.quantize_dynamic(x, axis=1, block_size=8)
    key = [k for k in qparams._PLANS if k[0] == "quant-dynamic" and k[1] == x.shape][-1]
    plan, layout, axis, block, shape, need = qparams._PLANS[key]
    fields = [np.empty(shape, d) for d in (np.uint32, np.int32, np.uint32)]
    out = np.empty(x.shape, np.int8)
    space = np.empty(max(need, 1), np.uint8)
    args = (ffi.from_buffer(x), x.nbytes, ffi.from_buffer(out, require_writable=True), out.nbytes,
            ffi.from_buffer(space, require_writable=True))
    params = [ffi.from_buffer(f, require_writable=True) for f in fields]
    assert lib.sk_quant_dynamic(plan._native, 0, layout, 1, 8, *args, need, *params) == lib.SK_OK
    assert lib.sk_quant_dynamic(plan._native, 0, layout, 1, 4, *args, need, *params) == lib.SK_INVALID_OPERATION
    assert lib.sk_quant_dynamic(plan._native, 0, layout, -1, 0, *args, need, *params) == lib.SK_INVALID_OPERATION
    if need:
        assert lib.sk_quant_dynamic(plan._native, 0, layout, 1, 8, *args, need - 1, *params) == \
            lib.SK_INVALID_OPERATION
