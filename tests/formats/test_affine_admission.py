"""Admission of affine_quant and affine_dequant (pure Python over the C
core's rules: tests/conftest.py HOST_ONLY): the dtype pairs each operation
takes and refuses, the specification's quant and dequant still refusing
every new type, parameter rules per storage type (multiplier finite and
> 0, scale finite and nonzero with negative allowed, zero points in the
type's range, per axis and blocked entry by entry) with messages naming the
field, and the ports' requirements (packed: ceil(n * bits / 8) bytes,
alignment 1; one element per byte: its span)."""
from __future__ import annotations

import numpy as np
import pytest

import simakernels as sk
from support.formats_helpers import F16, F32, BF16, QUANT_OUT, STORAGE_DTYPES, SUB_BYTE, ids, storage

D = sk.DType
E = sk.ErrorCode
AQ, AD = sk.ops.affine_quant, sk.ops.affine_dequant
FLOATS = (F32, BF16, F16)


def spec(shape, dtype, strides=None):
    return sk.TensorSpec(tuple(shape), dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def quant_admit(src, dst, params=None, shape=(4,), dst_strides=None):
    return AQ.check_inference(AQ.Request([spec(shape, src)], [spec(shape, dst, dst_strides)],
                                         params or AQ.Params(1.0, 0)))


def dequant_admit(src, dst, params=None, shape=(4,), src_strides=None):
    return AD.check_inference(AD.Request([spec(shape, src, src_strides)], [spec(shape, dst)],
                                         params or AD.Params(1.0, 0)))


def assert_error(result, code, *tokens):
    assert isinstance(result, sk.Error), f"admitted: {result}"
    assert result.code is code, result
    for token in tokens:
        assert str(token) in result.message, (token, result.message)


def test_dtype_bits():
    assert {d: d.bits for d in STORAGE_DTYPES + FLOATS} == {
        D.INT8: 8, D.UINT8: 8, D.INT16: 16, D.UINT16: 16, D.INT32: 32, D.UINT32: 32, D.INT4: 4, D.UINT4: 4,
        D.INT2: 2, D.UINT2: 2, F32: 32, BF16: 16, F16: 16}
    assert all(d.itemsize == 1 for d in SUB_BYTE)


def test_dtype_pairs():
    every = tuple(D)
    for src in every:
        for dst in every:
            q = quant_admit(src, dst)
            if src in FLOATS and dst in QUANT_OUT:
                assert not isinstance(q, sk.Error), (src, dst, q)
            else:
                assert_error(q, E.UNSUPPORTED_DTYPE)
            d = dequant_admit(src, dst)
            if src in STORAGE_DTYPES and dst in (F32, BF16):
                assert not isinstance(d, sk.Error), (src, dst, d)
            else:
                assert_error(d, E.UNSUPPORTED_DTYPE)


def test_the_specification_operations_still_refuse_the_new_types():
    for dtype in STORAGE_DTYPES:
        if dtype is D.INT8:
            continue
        q = sk.ops.quant.check_inference(sk.ops.quant.Request([spec((4,), F32)], [spec((4,), dtype)],
                                                              sk.ops.quant.Params(1.0)))
        assert_error(q, E.UNSUPPORTED_DTYPE, dtype.name)
        d = sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((4,), dtype)], [spec((4,), F32)],
                                                                  sk.ops.dequant.Params(1.0)))
        assert_error(d, E.UNSUPPORTED_DTYPE, dtype.name)


@pytest.mark.parametrize("dtype", QUANT_OUT, ids=ids(QUANT_OUT))
def test_quant_zero_points(dtype):
    st = storage(dtype)
    for zp in (st.lo, st.hi, 0 if st.signed else 1):
        assert not isinstance(quant_admit(F32, dtype, AQ.Params(1.0, zp)), sk.Error)
    for zp in (st.lo - 1, st.hi + 1):
        assert_error(quant_admit(F32, dtype, AQ.Params(1.0, zp)), E.INVALID_PARAMS, "zero_point", zp,
                     f"[{st.lo}, {st.hi}]")
    shape = (2, 3)
    bad = [st.lo, st.hi + 1, st.lo]
    assert_error(quant_admit(F32, dtype, AQ.AxisParams(1, [1.0] * 3, bad), shape), E.INVALID_PARAMS, st.hi + 1)
    assert_error(quant_admit(F32, dtype, AQ.BlockParams(1, 2, np.ones((2, 2), np.float32),
                                                        np.array([[st.lo, st.lo], [st.lo - 1, st.hi]])), shape),
                 E.INVALID_PARAMS, st.lo - 1)


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
def test_dequant_zero_points(dtype):
    st = storage(dtype)
    for zp in (st.lo, st.hi):
        assert not isinstance(dequant_admit(dtype, F32, AD.Params(1.0, zp)), sk.Error), (dtype, zp)
    for zp in (st.lo - 1, st.hi + 1):
        assert_error(dequant_admit(dtype, F32, AD.Params(1.0, zp)), E.INVALID_PARAMS, "zero_point", zp)
    assert_error(dequant_admit(dtype, F32, AD.AxisParams(0, [1.0] * 4, [st.lo, st.hi, st.hi + 1, st.lo])),
                 E.INVALID_PARAMS, st.hi + 1)


def test_multiplier_and_scale_rules():
    for bad in (0.0, -1.0, float("inf"), float("nan"), -1e-45):
        assert_error(quant_admit(F32, D.UINT4, AQ.Params(bad, 0)), E.INVALID_PARAMS, "multiplier", "finite and > 0")
    assert not isinstance(quant_admit(F32, D.UINT4, AQ.Params(1e-45, 0)), sk.Error)       # subnormal
    for bad in (0.0, -0.0, float("inf"), float("-inf"), float("nan")):
        assert_error(dequant_admit(D.UINT4, F32, AD.Params(bad, 0)), E.INVALID_PARAMS, "scale", "nonzero")
    for good in (-1.0, -1e-45, 1e-45, -3.4e38):
        assert not isinstance(dequant_admit(D.UINT4, F32, AD.Params(good, 0)), sk.Error), good
    assert_error(dequant_admit(D.INT16, BF16, AD.AxisParams(0, [1.0, -2.0, 0.0, 3.0], 0)), E.INVALID_PARAMS,
                 "scales[2]")
    # The specification's Dequant keeps its own rule: scale > 0.
    refused = sk.ops.dequant.check_inference(sk.ops.dequant.Request([spec((4,), D.INT8)], [spec((4,), F32)],
                                                                    sk.ops.dequant.Params(-1.0)))
    assert_error(refused, E.INVALID_PARAMS, "finite and > 0")


def test_uint32_zero_points_span_the_unsigned_range():
    for zp in (0, 2**31, 2**32 - 1):
        assert not isinstance(dequant_admit(D.UINT32, F32, AD.Params(1.0, zp)), sk.Error), zp
    for zp in (-1, 2**32):
        assert_error(dequant_admit(D.UINT32, F32, AD.Params(1.0, zp)), E.INVALID_PARAMS, zp)
    for zp in (-2**31, 2**31 - 1):
        assert not isinstance(dequant_admit(D.INT32, F32, AD.Params(1.0, zp)), sk.Error), zp
    assert_error(dequant_admit(D.INT32, F32, AD.Params(1.0, 2**31)), E.INVALID_PARAMS, 2**31)


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_sub_byte_port_requirements(dtype):
    """Contiguous(): packed, ceil(n * bits / 8) bytes, alignment 1; a
    Strided layout: one byte per element, its span."""
    for shape in ((0,), (1,), (3,), (2, 5), (7, 3, 1)):
        n = int(np.prod(shape))
        need = -(-n * dtype.bits // 8)
        plan = sk.a65.affine_quant.check_inference(AQ.Request([spec(shape, BF16)], [spec(shape, dtype)],
                                                              AQ.Params(1.0, 0)))
        assert plan.output_requirements() == (sk.Requirement(need, 1),), (shape, plan.output_requirements())
        plan = sk.a65.affine_dequant.check_inference(AD.Request([spec(shape, dtype)], [spec(shape, F32)],
                                                                AD.Params(1.0, 0)))
        assert plan.input_requirements() == (sk.Requirement(need, 1),)
    strided = sk.a65.affine_quant.check_inference(AQ.Request([spec((2, 5), F32)], [spec((2, 5), dtype, (10, 2))],
                                                             AQ.Params(1.0, 0)))
    assert strided.output_requirements() == (sk.Requirement(10 + 4 * 2 + 1, 1),)


def test_wide_port_requirements():
    for dtype in (D.UINT8, D.INT16, D.UINT16, D.INT32, D.UINT32):
        plan = sk.a65.affine_dequant.check_inference(AD.Request([spec((3, 4), dtype)], [spec((3, 4), F32)],
                                                                AD.Params(1.0, 0)))
        assert plan.input_requirements() == (sk.Requirement(12 * dtype.itemsize, dtype.itemsize),)
