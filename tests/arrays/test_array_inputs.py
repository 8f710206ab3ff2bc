"""What the array functions take as parameters and arrays (issue 19, edge 9).

A scale or multiplier is a real number: Python ints and floats, Fractions,
NumPy integer and floating scalars (``ml_dtypes.bfloat16`` included).
Strings and bytes (which ``float()`` would parse), bools, None and complex
numbers are ``INVALID_PARAMS`` naming the parameter, in the array layer and
in the contract layer alike.  A masked array is refused (its mask would be
dropped); np.matrix is plain storage and is taken.  Expected values are
worked out by hand."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk

E = sk.ErrorCode
F32, I8 = sk.DType.FLOAT32, sk.DType.INT8
NOT_REAL = ["2", b"2", "0.5", True, False, np.True_, None, 2 + 0j]
SEQUENCES = [[2.0], np.float32([2.0])]  # per-axis values without axis=


def expected_start(name, value):
    if any(value is v for v in SEQUENCES):
        return (f"{name} is a sequence of 1 values ({type(value).__name__}): "
                "one value per index along an axis needs axis=")
    return f"{name} {value!r} ({type(value).__name__}) must be a real number"


def refused(fn, code):
    with pytest.raises(sk.KernelError) as info:
        fn()
    assert info.value.error.code == code, info.value.error
    return info.value.error.message


@pytest.mark.parametrize("value", NOT_REAL + SEQUENCES, ids=repr)
def test_quantize_refuses_a_multiplier_that_is_not_a_real_number(value):
    out = np.full(3, 7, np.int8)
    message = refused(lambda: sk.quantize(np.float32([1, 2, 3]), value, out=out), E.INVALID_PARAMS)
    assert message.startswith(expected_start("multiplier", value)), message
    assert out.tolist() == [7, 7, 7]


@pytest.mark.parametrize("value", NOT_REAL + SEQUENCES, ids=repr)
def test_dequantize_refuses_a_scale_that_is_not_a_real_number(value):
    out = np.full(2, -1.0, np.float32)
    message = refused(lambda: sk.dequantize(np.int8([1, 2]), value, out=out), E.INVALID_PARAMS)
    assert message.startswith(expected_start("scale", value)), message
    assert out.tolist() == [-1.0, -1.0]


@pytest.mark.parametrize("operation", ["quant", "dequant"])
@pytest.mark.parametrize("value", ["2", b"2", True], ids=repr)
def test_the_contract_layer_refuses_them_too(operation, value):
    module = getattr(sk.ops, operation)
    src, dst = (F32, I8) if operation == "quant" else (I8, F32)
    request = module.Request([sk.TensorSpec((2,), src)], [sk.TensorSpec((2,), dst)], module.Params(value))
    error = module.check_inference(request)
    name = "multiplier" if operation == "quant" else "scale"
    assert isinstance(error, sk.Error) and error.code == E.INVALID_PARAMS, error
    assert error.message.startswith(f"{name} {value!r}"), error.message


REAL = [2, 2.0, Fraction(2), np.float32(2), np.float64(2), np.float16(2), np.int8(2), np.uint64(2),
        np.longdouble(2), ml_dtypes.bfloat16(2), np.array(2.0, np.float32), np.array(2, np.int32)]


@pytest.mark.parametrize("value", REAL, ids=lambda v: f"{type(v).__name__}({v})")
def test_real_numbers_of_every_kind_are_taken(value):
    assert sk.quantize(np.float32([1.0, -2.5, 60.0]), value).tolist() == [2, -5, 120]
    assert sk.dequantize(np.int8([1, -3]), value, 1).tolist() == [0.0, -8.0]


@pytest.mark.parametrize("zero_point", ["1", b"1", 1.0, np.float32(1), True, None], ids=repr)
def test_zero_points_must_be_integers(zero_point):
    for call in (lambda: sk.quantize(np.float32([1.0]), 1.0, zero_point),
                 lambda: sk.dequantize(np.int8([1]), 1.0, zero_point)):
        message = refused(call, E.INVALID_PARAMS)
        assert message.startswith(f"zero_point {zero_point!r} must be an integer"), message


def test_numpy_integer_zero_points_are_taken():
    assert sk.quantize(np.float32([1.0]), 1.0, np.int16(-3)).tolist() == [-2]
    assert sk.dequantize(np.int8([1]), 1.0, np.uint8(3)).tolist() == [-2.0]


CALLS = {
    "cast": (np.float32([1.0, 2.0, 3.0]), lambda x, **kw: sk.cast(x, ml_dtypes.bfloat16, **kw), ml_dtypes.bfloat16),
    "dequantize": (np.int8([1, 2, 3]), lambda x, **kw: sk.dequantize(x, 0.5, **kw), np.float32),
    "quantize": (np.float32([1.0, 2.0, 3.0]), lambda x, **kw: sk.quantize(x, 2.0, **kw), np.int8),
}


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_a_masked_input_is_refused(operation):
    data, call, out_dtype = CALLS[operation]
    x = np.ma.masked_array(data, mask=[False, True, False])
    out = np.zeros(3, out_dtype)
    message = refused(lambda: call(x, out=out), E.INVALID_BINDING)
    assert message.startswith("input 0 (x): numpy.ma.MaskedArray is not supported"), message
    assert np.all(out.astype(np.float32) == 0)
    # without a masked element the mask still means something: refused as well
    refused(lambda: call(np.ma.masked_array(data)), E.INVALID_BINDING)


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_a_masked_out_is_refused(operation):
    data, call, out_dtype = CALLS[operation]
    out = np.ma.masked_array(np.zeros(3, out_dtype), mask=[False, True, False])
    message = refused(lambda: call(data, out=out), E.INVALID_BINDING)
    assert message.startswith("output 0 (out): numpy.ma.MaskedArray is not supported"), message
    assert np.all(out.data.astype(np.float32) == 0)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_a_matrix_is_plain_storage():
    m = np.matrix([[1.0, 2.0], [3.0, 60.0]], dtype=np.float32)
    assert sk.quantize(m, 2.0).tolist() == [[2, 4], [6, 120]]
    assert sk.cast(m, "bfloat16").astype(np.float32).tolist() == [[1.0, 2.0], [3.0, 60.0]]
