"""The array layer over the storage types: ``sk.quantize(..., dtype=)`` for
every output type and input format (results as NumPy / ml_dtypes arrays,
``out=`` strided views), ``sk.dequantize`` of uint8 / int16 / uint16 /
int32 / uint32 and ml_dtypes sub-byte arrays (negative scales; an int8 array
stays the specification's Dequant), per axis and blocked, ``QParams``
from ``choose_qparams(dtype=)`` and its guarantees, and
``sk.formats.hurray.quantize`` / ``dequantize`` agreeing with the oracle and
with ``affine_dequant``.  Expected values: tests/oracle/affine.py."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import BINARY32, round_to_format, value_of
from oracle import affine as oa
from oracle import storage as ost
from support.formats_helpers import (BF16, F16, F32, FLOAT_WORD, FORMAT, MODES, NUMPY, QUANT_OUT, QUANT_PARAMS,
                                     STORAGE_DTYPES, SUB_BYTE, dequant_expected, ids, pack_image, quant_expected,
                                     storage)

E = sk.ErrorCode
H = sk.formats.hurray
NP_FLOAT = {F32: np.dtype(np.float32), BF16: np.dtype(ml_dtypes.bfloat16), F16: np.dtype(np.float16)}
WIDE_OUT = tuple(d for d in QUANT_OUT if not d.sub_byte)


def as_float(bits: int) -> np.float32:
    return np.array(bits, np.uint32).view(np.float32)[()]


def inputs(src, n=257, seed=0, m=0x3F000000, spread=300.0) -> np.ndarray:
    """Float values of ``src`` (a NumPy / ml_dtypes array) whose products
    with ``m`` spread over [-spread, spread], and a few specials."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-spread, spread, n) / float(as_float(m))
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(NP_FLOAT[src])


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
@pytest.mark.parametrize("src", (F32, BF16, F16), ids=ids((F32, BF16, F16)))
def test_quantize_dtype(src, out):
    m, zp = QUANT_PARAMS[out]
    x = inputs(src, m=m, spread=2.0 * (storage(out).hi - storage(out).lo))
    patterns = x.view(FLOAT_WORD[src])
    for k, mode in enumerate(MODES):
        spelled = (out.name.lower(), out, NUMPY[out], out.name.lower())[k]
        got = sk.quantize(x, as_float(m), zp, dtype=spelled, rounding=mode)
        assert isinstance(got, np.ndarray) and got.dtype == NUMPY[out] and got.shape == x.shape
        assert np.array_equal(got.astype(np.int64), quant_expected(src, patterns, m, zp, mode, out)), (out, mode)


@pytest.mark.parametrize("out", QUANT_OUT, ids=ids(QUANT_OUT))
def test_quantize_into_strided_out(out):
    m, zp = QUANT_PARAMS[out]
    x = inputs(F32, 24, m=m).reshape(4, 6)
    backing = np.zeros((4, 12), NUMPY[out])
    backing.view(np.uint8)[...] = 0x5A
    before = backing.view(np.uint8).copy()
    view = backing[:, ::2]
    got = sk.quantize(x, as_float(m), zp, dtype=out, out=view)
    assert got is view
    expected = quant_expected(F32, x.view(np.uint32), m, zp, "nearest_even", out)
    assert np.array_equal(view.astype(np.int64), expected)
    after = backing.view(np.uint8)
    gaps = np.ones(backing.shape, bool)
    gaps[:, ::2] = False
    gap_bytes = np.repeat(gaps, backing.itemsize, axis=1)
    assert np.array_equal(after[gap_bytes], before[gap_bytes])                  # gaps untouched
    t = np.zeros((6, 4), NUMPY[out]).T                  # a transposed out
    sk.quantize(x, as_float(m), zp, dtype=out, out=t)
    assert np.array_equal(t.astype(np.int64), expected)


def test_quantize_refusals():
    x = np.float32([1.0, 2.0])
    for kwargs, code in (({"dtype": "int32"}, E.UNSUPPORTED_DTYPE), ({"dtype": "float32"}, E.UNSUPPORTED_DTYPE),
                         ({"dtype": "uint8", "packed": True}, E.UNSUPPORTED_DTYPE),
                         ({"dtype": "int4", "out": np.zeros(2, np.int8)}, E.UNSUPPORTED_DTYPE)):   # as cast's
        with pytest.raises(sk.KernelError) as info:
            sk.quantize(x, 1.0, 0, **kwargs)
        assert info.value.error.code is code, (kwargs, info.value.error)
    for dtype, zp in (("uint8", -1), ("uint8", 256), ("int4", 8), ("uint2", 4), ("int16", -32769), ("uint16", 65536)):
        with pytest.raises(sk.KernelError) as info:
            sk.quantize(x, 1.0, zp, dtype=dtype)
        assert info.value.error.code is E.INVALID_PARAMS
        assert "zero_point" in info.value.error.message and str(zp) in info.value.error.message
        st = ost.storage_type(dtype)
        assert f"[{st.lo}, {st.hi}]" in info.value.error.message
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(np.zeros((2, 2), np.float32)[::-1], 1.0, dtype="uint8")
    assert info.value.error.code is E.UNSUPPORTED_LAYOUT


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
def test_dequantize_arrays(dtype):
    """Each type's array (int8 too, through affine_dequant only with a
    negative scale being refused: it is the specification's Dequant)."""
    st = storage(dtype)
    rng = np.random.default_rng(st.tag)
    values = np.concatenate([[st.lo, st.hi, 0 if st.signed else 1], rng.integers(st.lo, st.hi + 1, 200)])
    q = values.astype(NUMPY[dtype]).reshape(-1, 7)[:, 1:6]
    values = q.astype(np.int64)
    scales = [(0x3E99999A, st.hi), (0x00000001, st.lo)]
    if dtype is not sk.DType.INT8:
        scales.append((0xC2280000, (st.lo + st.hi) // 2))   # negative: affine_dequant's only
    for scale_bits, zp in scales:
        for out in ("float32", "bfloat16"):
            got = sk.dequantize(q, as_float(scale_bits), zp, dtype=out)
            word = np.uint32 if out == "float32" else np.uint16
            assert got.dtype == (np.float32 if out == "float32" else ml_dtypes.bfloat16) and got.shape == q.shape
            assert np.array_equal(got.view(word), dequant_expected(dtype, values, scale_bits, zp, out)), (
                dtype, hex(scale_bits), zp, out)
    if dtype is sk.DType.INT8:
        with pytest.raises(sk.KernelError) as info:
            sk.dequantize(q, -1.0)
        assert info.value.error.code is E.INVALID_PARAMS


def test_dequantize_wraps_32bit_differences():
    # int32: -2^31 - 1 wraps to 2^31 - 1 and 2^31 - 2 rounds to 2^31 (spacing
    # 128 below 2^31); uint32 with zero point 2^32 - 1: 0 - (2^32 - 1) wraps
    # to 1, 2^31 - (2^32 - 1) = -(2^31 - 1) rounds to -2^31.
    q = np.array([-2**31, 2**31 - 1], np.int32)
    assert sk.dequantize(q, 1.0, 1).view(np.uint32).tolist() == [0x4F000000, 0x4F000000]
    u = np.array([0, 2**32 - 1, 2**31], np.uint32)
    assert sk.dequantize(u, 1.0, 2**32 - 1).view(np.uint32).tolist() == [0x3F800000, 0x00000000, 0xCF000000]
    # uint16 with a negative scale: a zero difference gives -0.
    assert sk.dequantize(np.uint16([0, 65535]), -1.0, 65535).view(np.uint32).tolist() == [0x477FFF00, 0x80000000]


def test_int8_arrays_stay_the_specifications_dequant_whatever_the_dtype_object():
    """An int8 array is the specification's Dequant (any INT32 zero point,
    scale > 0) also when its dtype is an equal but distinct object (an
    unpickled one, as Dask's workers see, or one with metadata)."""
    import pickle
    for dtype in (np.dtype(np.int8), pickle.loads(pickle.dumps(np.dtype(np.int8))),
                  np.dtype(np.int8).newbyteorder("<"), np.dtype("int8", metadata={"unit": "count"})):
        q = np.array([1, 2, -128], dtype=dtype)
        got = sk.dequantize(q, 1.0, 300)                      # 300: outside INT8, inside INT32
        assert got.tolist() == [-299.0, -298.0, -428.0], dtype
        with pytest.raises(sk.KernelError) as info:
            sk.dequantize(q, -1.0)
        assert info.value.error.code is E.INVALID_PARAMS, dtype


def test_zero_dimensional_parameters_as_for_int8():
    """A 0-d array is taken as its value for every output type, as the
    INT8 path takes it (never a TypeError)."""
    x = np.float32([1.0, 2.0, 3.0])
    want = sk.quantize(x, np.array(0.5, np.float32), np.array(1))
    for dtype in ("int8", "uint8", "int16", "int4"):
        got = sk.quantize(x, np.array(0.5, np.float32), np.array(1), dtype=dtype)
        assert got.astype(np.int64).tolist() == want.astype(np.int64).tolist() == [1, 2, 3], dtype
    y = sk.dequantize(np.uint8([1, 2]), np.array(-2.0, np.float32), np.array(1))
    assert y.tolist() == [-0.0, -2.0]


def test_quantize_with_qparams_does_not_depend_on_the_dtype_string_object():
    """``dtype="int8"`` given with a QParams means the same whether the
    string is a literal or built at run time."""
    x = np.linspace(-1, 1, 9).astype(np.float32)
    qp = sk.choose_qparams(x, dtype="uint4")
    built = "".join(["int", "8"])
    assert built == "int8"                  # equal to the literal, another object
    try:
        literal = sk.quantize(x, qp, dtype="int8")
    except sk.KernelError as exc:
        literal = exc.error.code
    try:
        other = sk.quantize(x, qp, dtype=built)
    except sk.KernelError as exc:
        other = exc.error.code
    if isinstance(literal, np.ndarray) and isinstance(other, np.ndarray):
        assert literal.dtype == other.dtype and np.array_equal(literal.astype(np.int64), other.astype(np.int64))
    else:
        assert literal == other, (literal, other)


@pytest.mark.parametrize("dtype", (sk.DType.UINT8, sk.DType.INT16, sk.DType.INT4, sk.DType.UINT2),
                         ids=ids((sk.DType.UINT8, sk.DType.INT16, sk.DType.INT4, sk.DType.UINT2)))
def test_axis_and_block_size(dtype):
    st = storage(dtype)
    m_bits = np.array([0x3F000000, 0x3E99999A, 0x3DCCCCCD], np.uint32)
    x = inputs(F32, 3 * 10, m=0x3E99999A, spread=3.0 * (st.hi - st.lo)).reshape(3, 10)
    zps = [st.lo, st.hi, (st.lo + st.hi) // 2]
    got = sk.quantize(x, m_bits.view(np.float32), zps, axis=0, dtype=dtype, rounding="toward_positive")
    expected = oa.affine_quant_axis(x.view(np.uint32), BINARY32, st, 0, m_bits.tolist(), zps, "toward_positive")
    assert np.array_equal(got.astype(np.int64), expected)
    blocks = np.array([[0x3F000000, 0x3E99999A, 0x40000000]] * 3, np.uint32)     # 10 in blocks of 4: 3
    bz = np.array([[st.lo, 0, st.hi]] * 3) if st.signed else np.array([[0, 1, st.hi]] * 3)
    got = sk.quantize(x, blocks.view(np.float32), bz, axis=1, block_size=4, dtype=dtype)
    expected = oa.affine_quant_blocked(x.view(np.uint32), BINARY32, st, 1, 4, blocks, bz, "nearest_even")
    assert np.array_equal(got.astype(np.int64), expected)
    q = expected.astype(NUMPY[dtype])
    scales = np.array([0xBE000000, 0x3C800000, 0x7F7FFFFF], np.uint32)
    y = sk.dequantize(q, scales.view(np.float32), zps, axis=0)
    assert np.array_equal(y.view(np.uint32), oa.affine_dequant_axis(expected, st, 0, scales.tolist(), zps))
    y = sk.dequantize(q, (blocks | 0x80000000).view(np.float32), bz, axis=1, block_size=4, dtype="bfloat16")
    assert np.array_equal(y.view(np.uint16), oa.affine_dequant_blocked(expected, st, 1, 4, blocks | 0x80000000, bz,
                                                                       "bfloat16"))
    if dtype.sub_byte:
        p = sk.quantize(x, blocks.view(np.float32), bz, axis=1, block_size=4, dtype=dtype, packed=True)
        assert p.data.tobytes() == pack_image(expected, dtype).tobytes()
        y = sk.dequantize(p, scales.view(np.float32), zps, axis=0)
        assert np.array_equal(y.view(np.uint32), oa.affine_dequant_axis(expected, st, 0, scales.tolist(), zps))


# ------------------------------------------------------------ choose_qparams


@pytest.mark.parametrize("dtype", QUANT_OUT, ids=ids(QUANT_OUT))
def test_choose_qparams_guarantees(dtype):
    """Levels of the type's range: a finite positive scale, a zero point in
    the range that dequantizes to exactly 0, every finite input back within
    about half a step, neither end of the range saturating; symmetric
    parameters for signed types only."""
    st = storage(dtype)
    rng = np.random.default_rng(st.tag)
    for lo, hi in ((-3.0, 5.0), (0.0, 1.0), (-1e-3, 0.0), (2.0, 2.0), (-1e4, 1e-2)):
        x = rng.uniform(lo, hi, 200).astype(np.float32)
        x[:2] = [lo, hi]
        for symmetric in ((False, True) if st.signed else (False,)):
            qp = sk.choose_qparams(x, dtype=dtype, symmetric=symmetric)
            scale = np.float32(qp.scale)
            assert np.isfinite(scale) and scale > 0
            assert st.lo <= int(qp.zero_point) <= st.hi
            if symmetric:
                assert int(qp.zero_point) == 0
            zero = np.array([qp.zero_point], NUMPY[dtype])
            assert sk.dequantize(zero, qp.scale, qp.zero_point)[0] == 0.0
            q = sk.quantize(x, qp)
            assert q.dtype == NUMPY[dtype]
            levels = q.astype(np.int64)
            lowest, highest = (-(2 ** (st.bits - 1) - 1), st.hi) if symmetric else (st.lo, st.hi)
            assert levels.min() >= lowest and levels.max() <= highest
            back = sk.dequantize(q, qp.scale, qp.zero_point).astype(np.float64)
            bound = 0.5 * float(scale) * (1 + 2.0 ** -10) + 2.0 ** -23 * np.abs(x.astype(np.float64))
            assert np.all(np.abs(back - x) <= bound), (dtype, lo, hi, symmetric)
    if not st.signed:
        with pytest.raises((sk.KernelError, ValueError)):
            sk.choose_qparams(np.float32([-1, 1]), dtype=dtype, symmetric=True)


# --------------------------------------------------------------------- Hurray


def reciprocal_bits(scale_bits: int) -> int:
    """The binary32 reciprocal of a binary32 scale, nearest-even (the
    oracle's rounding of the exact 1 / scale)."""
    return round_to_format(BINARY32, 1 / value_of(BINARY32, scale_bits))


@pytest.mark.parametrize("dtype", QUANT_OUT, ids=ids(QUANT_OUT))
def test_hurray_quantize(dtype):
    st = storage(dtype)
    kind = H.StorageType[dtype.name]
    scale_bits = 0x3DCCCCCD                                  # 0.1: its reciprocal rounds
    m = reciprocal_bits(scale_bits)
    zp = st.hi - 1
    for src in (F32, BF16, F16):
        x = inputs(src, 101, seed=5, m=m, spread=2.0 * (st.hi - st.lo))
        data, descriptor = H.quantize(x, kind, as_float(scale_bits), zp, rounding="toward_zero")
        assert isinstance(data, bytes) and isinstance(descriptor, H.PerTensorAffine)
        assert descriptor.scale_bits == scale_bits and descriptor.zero_point == zp
        values = quant_expected(src, x.view(FLOAT_WORD[src]), m, zp, "toward_zero", dtype)
        if dtype.sub_byte:
            assert data == ost.pack(values.tolist(), st, 0)
        else:
            assert data == ost.little_endian(values.tolist(), st)
        back = H.dequantize(data, descriptor, kind, count=x.size)
        assert np.array_equal(back.view(np.uint32), dequant_expected(dtype, values, scale_bits, zp, "float32"))
    with pytest.raises(H.HurrayFormatError):
        H.quantize(np.float32([1.0]), H.StorageType.INT32, 1.0)
    with pytest.raises(H.HurrayFormatError):
        H.quantize(np.float32([1.0]), kind, 1.0, st.hi + 1)


@pytest.mark.parametrize("dtype", STORAGE_DTYPES, ids=ids(STORAGE_DTYPES))
def test_hurray_dequantize_is_affine_dequant(dtype):
    st = storage(dtype)
    kind = H.StorageType[dtype.name]
    rng = np.random.default_rng(st.tag)
    values = np.concatenate([[st.lo, st.hi], rng.integers(st.lo, st.hi + 1, 99, dtype=np.int64)])
    data = ost.pack(values.tolist(), st, 0) if dtype.sub_byte else ost.little_endian(values.tolist(), st)
    # The descriptor's zero point is an int32 field: UINT32 zero points
    # above 2^31 - 1 have no Hurray encoding.
    for scale_bits, zp in ((0xBF400000, st.lo), (0x3A83126F, min(st.hi, 2**31 - 1)),
                           (0x00000003, 0 if st.signed else 1)):
        descriptor = H.PerTensorAffine(as_float(scale_bits), zp)
        got = H.dequantize(data, descriptor, kind, count=values.size)
        expected = dequant_expected(dtype, values, scale_bits, zp, "float32")
        assert np.array_equal(got.view(np.uint32), expected), (dtype, hex(scale_bits), zp)
        if dtype.sub_byte:
            arr = sk.Packed(np.frombuffer(data, np.uint8).copy(), dtype, values.shape)
        else:
            arr = values.astype(NUMPY[dtype])
        if dtype is sk.DType.INT8 and scale_bits >> 31:
            continue                     # an int8 array is the specification's Dequant: scale > 0
        assert np.array_equal(sk.dequantize(arr, as_float(scale_bits), zp).view(np.uint32), expected)


def test_reciprocal_oracle():
    assert reciprocal_bits(0x3F000000) == 0x40000000
    assert reciprocal_bits(0x3DCCCCCD) == int(np.array(np.float32(1) / np.float32(0.1)).view(np.uint32))
    assert value_of(BINARY32, reciprocal_bits(0x40400000)) == Fraction(11184811, 2**25)


def test_sub_byte_dtypes_and_bits():
    assert [d.bits for d in STORAGE_DTYPES] == [8, 8, 16, 16, 32, 32, 4, 4, 2, 2]
    assert [d.bits for d in (F32, BF16, F16)] == [32, 16, 16]
    assert all(d.itemsize == 1 for d in SUB_BYTE)
    assert FORMAT[F32] is BINARY32
