"""What a new user ran into: a QParams as one argument, messages that stay
short whatever the parameter arrays hold, the output dtype taken from
``out=``, the refusals that named the wrong fault, and the public names of
``sk.formats.hurray``.  Expected bits come from tests/oracle."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import formats as of
from oracle.dequant import dequant_f32 as oracle_dequant
from oracle.quant import quant_many

E = sk.ErrorCode
H = sk.formats.hurray
RNG = np.random.default_rng(7)
W = (RNG.standard_normal((24, 40)) * [[10.0 ** (k % 5 - 2)] for k in range(24)]).astype(np.float32)


def bits32(value):
    return int(np.array(np.float32(value)).view(np.uint32))


def per_element(x, values, zero_points, axis, dtype, one):
    """``one(element, value, zero point)`` per element, with its channel's
    parameters (``axis`` None: one pair for the tensor)."""
    out = np.empty(x.shape, dtype)
    for index in np.ndindex(*x.shape):
        c = None if axis is None else index[axis]
        out[index] = one(x[index], values if c is None else values[c], zero_points if c is None else zero_points[c])
    return out


def oracle_quantize(x, multipliers, zero_points, axis):
    return per_element(x, multipliers, zero_points, axis, np.int8,
                       lambda v, m, z: quant_many([bits32(v)], of.BINARY32, bits32(m), int(z))[0])


def oracle_dequantize(q, scales, zero_points, axis):
    return per_element(q, scales, zero_points, axis, np.float32,
                       lambda v, s, z: np.uint32(oracle_dequant(int(v), bits32(s), int(z))).view(np.float32))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_a_qparams_is_one_argument(axis):
    qp = sk.choose_qparams(W, axis=axis)
    q = sk.quantize(W, qp)
    assert np.array_equal(q, oracle_quantize(W, qp.multiplier, qp.zero_point, qp.axis))
    y = sk.dequantize(q, qp)
    assert np.array_equal(y.view(np.uint32), oracle_dequantize(q, qp.scale, qp.zero_point, qp.axis).view(np.uint32))


@pytest.mark.parametrize("given", [dict(zero_point=3), dict(axis=0), dict(zero_point=[1] * 24, axis=0)])
def test_giving_what_a_qparams_holds_again_is_refused(given):
    qp = sk.choose_qparams(W, axis=0)
    out = np.full(W.shape, 0x5A, np.int8)
    name = next(iter(given))
    for call in (lambda: sk.quantize(W, qp, out=out, **given), lambda: sk.dequantize(out, qp, **given)):
        with pytest.raises(sk.KernelError) as info:
            call()
        assert info.value.error.code is E.INVALID_PARAMS and f"{name}=" in str(info.value)
        assert "QParams" in str(info.value)
    assert (out == 0x5A).all()


LONG = 4096


@pytest.mark.parametrize("call", [
    lambda: sk.quantize(np.ones((LONG, 2), np.float32), np.ones(LONG, np.float32)),          # axis= forgotten
    lambda: sk.quantize(np.ones((LONG, 2), np.float32), np.ones(LONG - 1), axis=0),          # a wrong length
    lambda: sk.quantize(np.ones((LONG, 2), np.float32), np.r_[np.ones(LONG - 1), -2.0], axis=0),  # a bad entry
    lambda: sk.dequantize(np.ones((LONG, 2), np.int8), list(range(1, LONG + 1)), zero_point=np.arange(LONG) * 10 ** 6,
                          axis=0),
    lambda: sk.quantize(np.ones((LONG, 2), np.float32), sk.choose_qparams(np.ones((LONG, 2), np.float32), axis=0),
                        rounding=list(range(LONG))),
    lambda: sk.quantize(np.ones(3, np.float32), ["x"] * LONG, axis=0),
], ids=["no axis", "length", "entry", "zero points", "rounding", "strings"])
def test_no_message_grows_with_a_parameter_array(call):
    with pytest.raises(sk.KernelError) as info:
        call()
    assert len(str(info.value)) < 400, str(info.value)


def test_a_bad_entry_is_named_by_index_and_value():
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(np.ones((LONG, 2), np.float32), np.r_[np.ones(LONG - 1), -2.0], axis=0)
    assert f"multipliers[{LONG - 1}] -2.0" in str(info.value)


def test_a_bool_parameter_array_is_named_by_its_dtype():
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(np.ones((3, 4), np.float32), np.ones(3, bool), axis=0)
    assert info.value.error.code is E.INVALID_PARAMS
    assert "dtype bool" in str(info.value) and "1-D" not in str(info.value)


def test_the_output_dtype_comes_from_out():
    q = np.int8([[-128, -1], [0, 127]])
    out = np.zeros(q.shape, ml_dtypes.bfloat16)
    assert sk.dequantize(q, 0.25, 3, out=out) is out
    assert np.array_equal(out.astype(np.float32), oracle_dequantize(q, 0.25, 3, None).astype(ml_dtypes.bfloat16)
                          .astype(np.float32))
    x = np.float32([1.0, 717.0, 718.0])
    bf = np.zeros(3, ml_dtypes.bfloat16)
    assert sk.cast(x, out=bf) is bf and bf.view(np.uint16).tolist() == [0x3F80, 0x4433, 0x4434]
    f = np.zeros(3, np.float32)
    assert sk.cast(bf, out=f) is f and f.tolist() == [1.0, 716.0, 720.0]
    with pytest.raises(sk.KernelError) as info:
        sk.cast(x)
    assert info.value.error.code is E.UNSUPPORTED_DTYPE and "dtype=" in str(info.value)
    with pytest.raises(sk.KernelError) as info:  # a dtype given and an out of another: refused, as before
        sk.dequantize(q, 0.25, out=out, dtype="float32")
    assert info.value.error.code is E.UNSUPPORTED_DTYPE


def test_choose_qparams_refuses_the_rank_quantize_refuses():
    x = np.ones((1,) * 7, np.float32)
    for call in (lambda: sk.choose_qparams(x), lambda: sk.quantize(x, 1.0)):
        with pytest.raises(sk.KernelError) as info:
            call()
        assert info.value.error.code is E.INVALID_SHAPE and "rank 7" in str(info.value)


def test_hurray_count_takes_any_integer():
    got = H.dequantize(np.uint8([1, 2, 3, 4]), H.PerTensorAffine(0.5), H.StorageType.UINT8, count=np.int64(3))
    assert got.tolist() == [0.5, 1.0, 1.5]
    with pytest.raises(ValueError):
        H.dequantize(np.uint8([1, 2]), H.PerTensorAffine(0.5), H.StorageType.UINT8, count=2.0)


@pytest.mark.parametrize("storage", [H.StorageType.INT8, H.StorageType.UINT8, H.StorageType.INT16,
                                     H.StorageType.INT4])
def test_the_hurray_overlap_is_named_on_every_storage_type(storage):
    buf = np.full(80, 0x5A, np.uint8)
    data = buf[8:16]
    n = 8 * 8 // storage.bits
    with pytest.raises(sk.KernelError) as info:
        H.dequantize(data, H.PerTensorAffine(0.5), storage, out=buf[8:8 + 4 * n].view(np.float32))
    assert info.value.error.code is E.INVALID_BINDING and "overlap" in str(info.value), str(info.value)
    assert (buf == 0x5A).all()


def test_hurray_lists_its_public_names_only():
    names = set(dir(H))
    assert {"PerTensorAffine", "StorageType", "dequantize", "HurrayFormatError"} <= names
    assert not names & {"np", "ffi", "lib", "struct", "builtins", "enum"}
    assert set(H.__all__) == names
