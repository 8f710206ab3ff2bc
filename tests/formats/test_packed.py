"""Packed sub-byte tensors: the helpers' NumPy packing against the oracle's
(tests/oracle/storage.py); ``sk.Packed``, ``sk.pack`` and ``Packed.unpack``
round trips at every length around the byte and chunk boundaries and for
non-contiguous ml_dtypes arrays; ``sk.quantize(..., packed=True)`` and
``out=`` a Packed (the last byte's spare bits keep their value);
``sk.dequantize`` of a Packed equal to that of the unpacked array; packed
bindings of the wrong length refused before anything is written."""
from __future__ import annotations

import random

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import storage as ost
from support.formats_helpers import (F32, NUMPY, QUANT_PARAMS, SUB_BYTE, IntPort, dequant_expected, ids,
                                     pack_image, quant_expected, storage, unpack_image)

E = sk.ErrorCode
LENGTHS = tuple(range(0, 35)) + (63, 64, 65, 1023, 1024, 1025, 2049)


def random_values(dtype, n, seed=0):
    st = storage(dtype)
    return np.random.default_rng(seed + n).integers(st.lo, st.hi + 1, n, dtype=np.int64)


def f32(values) -> np.ndarray:
    return np.asarray(values, np.float32)


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_helper_packing_is_the_oracle_packing(dtype):
    st = storage(dtype)
    rng = random.Random(st.tag)
    for n in LENGTHS[:40] + (255, 257):
        values = [rng.randint(st.lo, st.hi) for _ in range(n)]
        previous = rng.randrange(256)
        expected = ost.pack(values, st, previous)
        assert pack_image(values, dtype, previous).tobytes() == expected, (n, previous)
        assert unpack_image(np.frombuffer(expected, np.uint8), n, dtype).tolist() == ost.unpack(expected, n, st)


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_pack_and_unpack_round_trip(dtype):
    st = storage(dtype)
    for n in LENGTHS:
        values = random_values(dtype, n)
        a = values.astype(NUMPY[dtype])
        p = sk.pack(a)
        assert isinstance(p, sk.Packed) and p.dtype is dtype and p.shape == (n,)
        assert p.data.dtype == np.uint8 and p.data.flags.c_contiguous
        assert p.data.tobytes() == ost.pack(values.tolist(), st, 0), n      # spare bits of a new tensor: zero
        back = p.unpack()
        assert back.dtype == NUMPY[dtype] and back.shape == (n,)
        assert back.view(np.uint8).tolist() == list(ost.unpacked_image(values.tolist(), st))   # high bits zero


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_pack_reads_any_layout_in_c_order(dtype):
    values = random_values(dtype, 60, seed=3).reshape(6, 10)
    a = values.astype(NUMPY[dtype])
    for view in (a.T, a[:, ::2], a[::2, ::3], a[1:5, 3:9]):
        p = sk.pack(view)
        assert p.shape == view.shape
        expected = view.astype(np.int64).reshape(-1)
        assert p.data.tobytes() == pack_image(expected, dtype).tobytes()
        assert np.array_equal(p.unpack().astype(np.int64), view.astype(np.int64))


def test_packed_construction():
    data = np.array([0xF1, 0x07], np.uint8)
    p = sk.Packed(data, sk.DType.INT4, (3,))
    assert p.data is data and p.shape == (3,) and p.dtype is sk.DType.INT4
    assert p.unpack().astype(int).tolist() == [1, -1, 7]
    assert sk.Packed(data, "uint4", (2, 2)).unpack().astype(int).tolist() == [[1, 15], [7, 0]]
    assert sk.Packed(np.array([0xE4, 0xFD], np.uint8), sk.DType.UINT2, 5).unpack().astype(int).tolist() == [
        0, 1, 2, 3, 1]
    for bad, code in (((np.zeros(3, np.uint8), "int4", (3,)), E.INVALID_BINDING),      # 2 bytes expected
                      ((np.zeros(2, np.int8), "int4", (3,)), E.INVALID_BINDING),       # not uint8
                      ((np.zeros(4, np.uint8)[::2], "int4", (3,)), E.INVALID_BINDING),  # not contiguous
                      ((np.zeros(2, np.uint8), "int8", (2,)), E.UNSUPPORTED_DTYPE),
                      ((np.zeros(0, np.uint8), "int4", (-1,)), E.INVALID_SHAPE)):
        with pytest.raises(sk.KernelError) as info:
            sk.Packed(*bad)
        assert info.value.error.code is code, (bad, info.value.error)
    with pytest.raises(sk.KernelError) as info:
        sk.pack(np.zeros(3, np.int8))
    assert info.value.error.code is E.UNSUPPORTED_DTYPE


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_quantize_packed_is_pack_of_unpacked(dtype):
    m, zp = QUANT_PARAMS[dtype]
    mv = np.array(m, np.uint32).view(np.float32)[()]
    rng = np.random.default_rng(dtype.bits)
    for n in (0, 1, 2, 3, 5, 17, 1023, 1025):
        x = (rng.uniform(-20, 20, n) / mv).astype(np.float32)
        expected = quant_expected(F32, x.view(np.uint32), m, zp, "toward_negative", dtype)
        p = sk.quantize(x, mv, zp, dtype=dtype.name.lower(), packed=True, rounding="toward_negative")
        u = sk.quantize(x, mv, zp, dtype=dtype, rounding="toward_negative")
        assert isinstance(p, sk.Packed) and p.shape == (n,) and p.dtype is dtype
        assert u.dtype == NUMPY[dtype] and u.shape == (n,)
        assert p.data.tobytes() == pack_image(expected, dtype).tobytes(), n
        assert np.array_equal(u.astype(np.int64), expected)
        assert sk.pack(u).data.tobytes() == p.data.tobytes()


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_quantize_into_a_packed_out_keeps_the_spare_bits(dtype):
    m, zp = QUANT_PARAMS[dtype]
    mv = np.array(m, np.uint32).view(np.float32)[()]
    for n in (1, 2, 3, 5, 7, 9, 33, 1025):
        x = (np.linspace(-9, 9, n) / mv).astype(np.float32).reshape(1, n)
        for fill in (0xFF, 0x00, 0xA5):
            out = sk.Packed(np.full(-(-n * dtype.bits // 8), fill, np.uint8), dtype, (1, n))
            got = sk.quantize(x, mv, zp, dtype=dtype, out=out)
            assert got is out
            expected = quant_expected(F32, x.view(np.uint32), m, zp, "nearest_even", dtype)
            assert out.data.tobytes() == pack_image(expected, dtype, previous=fill).tobytes(), (n, fill)
            # The output's dtype from the Packed itself (dtype left at its default).
            again = sk.Packed(np.full(out.data.size, fill, np.uint8), dtype, (1, n))
            sk.quantize(x, mv, zp, out=again)
            assert again.data.tobytes() == out.data.tobytes()


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_dequantize_packed_equals_unpacked(dtype):
    st = storage(dtype)
    for n in (0, 1, 3, 8, 31, 1025):
        values = random_values(dtype, n, seed=9)
        p = sk.pack(values.astype(NUMPY[dtype]))
        for scale_bits, zp in ((0xBE000000, st.hi), (0x3DCCCCCD, st.lo)):
            scale = np.array(scale_bits, np.uint32).view(np.float32)[()]
            for out in ("float32", "bfloat16"):
                a = sk.dequantize(p, scale, zp, dtype=out)
                b = sk.dequantize(values.astype(NUMPY[dtype]), scale, zp, dtype=out)
                word = np.uint32 if out == "float32" else np.uint16
                expected = dequant_expected(dtype, values, scale_bits, zp, out)
                assert a.shape == (n,) and np.array_equal(a.view(word), expected)
                assert np.array_equal(b.view(word), expected)


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=ids(SUB_BYTE))
def test_contract_layer_refuses_short_packed_bindings(dtype):
    """A packed port's requirement is ceil(n * bits / 8) bytes, alignment
    1; a binding one byte short is INVALID_BINDING and nothing is written."""
    n = 13
    need = -(-n * dtype.bits // 8)
    q = IntPort.make(dtype, (n,))
    request = sk.ops.affine_quant.Request([sk.TensorSpec((n,), F32)], [q.spec()],
                                          sk.ops.affine_quant.Params(1.0, 0))
    plan = sk.a65.affine_quant.check_inference(request)
    assert plan.output_requirements() == (sk.Requirement(need, 1),)
    out = np.full(need - 1, 0xA5, np.uint8)
    status = sk.a65.affine_quant.execute(plan, [np.zeros(n, np.float32)], [out])
    assert isinstance(status, sk.Error) and status.code is E.INVALID_BINDING
    assert (out == 0xA5).all()
    request = sk.ops.affine_dequant.Request([q.spec()], [sk.TensorSpec((n,), F32)],
                                            sk.ops.affine_dequant.Params(1.0, 0))
    plan = sk.a65.affine_dequant.check_inference(request)
    assert plan.input_requirements() == (sk.Requirement(need, 1),)
    y = np.full(n, 7, np.float32)
    status = sk.a65.affine_dequant.execute(plan, [np.zeros(need - 1, np.uint8)], [y])
    assert isinstance(status, sk.Error) and status.code is E.INVALID_BINDING
    assert (y == 7).all()


def test_ml_dtypes_images_are_the_unpacked_layout():
    """One element per byte: int4 -8 is 0x08 and -1 is 0x0f (ml_dtypes'
    own representation, which the one-per-byte ports read and write)."""
    got = sk.quantize(f32([-8, -1, 7, 100, -100]), 1.0, dtype="int4")
    assert got.dtype == ml_dtypes.int4
    assert got.view(np.uint8).tolist() == [0x08, 0x0F, 0x07, 0x07, 0x08]
    got = sk.quantize(f32([-2, -1, 1, 5]), 1.0, dtype="int2")
    assert got.view(np.uint8).tolist() == [0x02, 0x03, 0x01, 0x01]
