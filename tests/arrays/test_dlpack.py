"""Arrays of other libraries through DLPack: zero-copy as input, ``out=`` and
``execute`` bindings, with their strides; another device and negative
strides refused by name with nothing written; results the library creates
are NumPy arrays.  A DLPack-only wrapper (no buffer protocol, no
``__array__``) runs everywhere; PyTorch where it is installed (bfloat16
tensors too).  Expected bits come from the oracle-tested NumPy path of the
same arrays, which the other suites check against tests/oracle."""
from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import formats as of
from oracle.quant import quant_many
from support.dlpack_helpers import DLPackOnly
from support.helpers import SENTINEL, in_sanitizer_process

E = sk.ErrorCode
RNG = np.random.default_rng(2026_12_03)
X = (RNG.standard_normal((6, 10)) * 40).astype(np.float32)


def oracle_int8(x, multiplier, zero_point=0):
    """Quant per element from the oracle (nearest-even)."""
    m = int(np.array(np.float32(multiplier)).view(np.uint32))
    bits = np.ascontiguousarray(x, np.float32).reshape(-1).view(np.uint32)
    return np.array(quant_many(bits, of.BINARY32, m, zero_point), np.int8).reshape(x.shape)


def test_a_dlpack_only_input_is_taken_in_place():
    wrapped = DLPackOnly(X)
    assert not hasattr(wrapped, "__array__")
    got = sk.quantize(wrapped, 3.5, 2)
    assert type(got) is np.ndarray and np.array_equal(got, oracle_int8(X, 3.5, 2))
    assert np.array_equal(sk.cast(DLPackOnly(X), "bfloat16").view(np.uint16), sk.cast(X, "bfloat16").view(np.uint16))


def test_a_dlpack_only_input_keeps_its_strides():
    view = X.T[::2]  # transposed, every other row: no contiguous copy may be made
    assert np.array_equal(sk.quantize(DLPackOnly(view), 1.25), oracle_int8(view, 1.25))


def test_a_dlpack_only_output_is_written_in_place_and_returned():
    target = np.full((10, 6), SENTINEL, np.uint8).view(np.int8)
    out = DLPackOnly(target.T)  # a strided output
    got = sk.quantize(X, 0.75, out=out)
    assert got is out
    assert np.array_equal(target.T, oracle_int8(X, 0.75))


def test_another_device_is_refused_by_name_and_nothing_is_written():
    target = np.full(X.shape, SENTINEL, np.uint8).view(np.int8)
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(X, 1.0, out=DLPackOnly(target, device=(2, 0)))
    assert info.value.error.code is E.INVALID_BINDING and "device (2, 0)" in str(info.value)
    assert "output 0" in str(info.value) and (target.view(np.uint8) == SENTINEL).all()
    with pytest.raises(sk.KernelError) as info:
        sk.dequantize(DLPackOnly(np.int8([1, 2]), device=(10, 1)), 0.5)
    assert info.value.error.code is E.INVALID_BINDING and "input 0" in str(info.value)


def test_negative_strides_are_refused_and_nothing_is_written():
    target = np.full(X.shape, SENTINEL, np.uint8).view(np.int8)
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(DLPackOnly(X[::-1]), 1.0, out=target)
    assert info.value.error.code is E.UNSUPPORTED_LAYOUT and "negative stride" in str(info.value)
    assert (target.view(np.uint8) == SENTINEL).all()


def test_a_read_only_export_is_not_written():
    frozen = np.full(X.shape, SENTINEL, np.uint8).view(np.int8)
    frozen.flags.writeable = False
    with pytest.raises(sk.KernelError) as info:
        sk.quantize(X, 1.0, out=DLPackOnly(frozen))
    assert info.value.error.code is E.INVALID_BINDING and "read-only" in str(info.value)


def test_execute_takes_dlpack_bindings():
    request = sk.ops.quant.Request([sk.TensorSpec(X.shape, sk.DType.FLOAT32)], [sk.TensorSpec(X.shape, sk.DType.INT8)],
                                   sk.ops.quant.Params(2.0))
    plan = sk.a65.quant.check_inference(request)
    assert not isinstance(plan, sk.Error), plan
    target = np.full(X.shape, SENTINEL, np.uint8).view(np.int8)
    assert sk.a65.quant.execute(plan, [DLPackOnly(X)], [DLPackOnly(target)]) is None
    assert np.array_equal(target, oracle_int8(X, 2.0))
    error = sk.a65.quant.execute(plan, [DLPackOnly(X, device=(2, 0))], [DLPackOnly(target)])
    assert isinstance(error, sk.Error) and error.code is E.INVALID_BINDING and "device" in error.message


def test_objects_that_are_not_arrays_are_named():
    for value in (None, object(), {"a": 1}):
        with pytest.raises(sk.KernelError) as info:
            sk.quantize(value, 1.0)
        assert info.value.error.code is E.UNSUPPORTED_DTYPE and "is not an array" in str(info.value)
        assert "dtype object" not in str(info.value)


# ---- PyTorch -----------------------------------------------------------------

def _torch():
    if in_sanitizer_process():
        pytest.skip("PyTorch is not loaded into the sanitizer build's process")
    return pytest.importorskip("torch")


def test_torch_tensors_in_and_out():
    torch = _torch()
    t = torch.from_numpy(X.copy())
    assert np.array_equal(sk.quantize(t, 3.0), oracle_int8(X, 3.0))
    assert np.array_equal(sk.quantize(t.T, 3.0), oracle_int8(X.T, 3.0))  # strides, no copy
    out = torch.zeros(X.shape, dtype=torch.int8)
    assert sk.quantize(t, 3.0, out=out) is out and np.array_equal(out.numpy(), oracle_int8(X, 3.0))
    q = torch.from_numpy(np.int8([[-128, 0], [5, 127]]))
    assert np.array_equal(sk.dequantize(q, 0.5, 1), np.float32([[-64.5, -0.5], [2.0, 63.0]]))


def test_torch_bfloat16_tensors_are_bfloat16_ports():
    torch = _torch()
    values = X.astype(ml_dtypes.bfloat16)
    t = torch.from_numpy(values.view(np.int16)).view(torch.bfloat16)
    assert np.array_equal(sk.quantize(t, 2.0), oracle_int8(values.astype(np.float32), 2.0))
    out = torch.zeros(X.shape, dtype=torch.bfloat16)
    assert sk.cast(X, out=out) is out
    assert np.array_equal(out.view(torch.int16).numpy().view(np.uint16), values.view(np.uint16))
    back = sk.cast(t, "float32")
    assert type(back) is np.ndarray and np.array_equal(back, values.astype(np.float32))
    bf16_out = torch.zeros((2, 2), dtype=torch.bfloat16)
    sk.dequantize(np.int8([[1, 2], [3, 4]]), 0.5, out=bf16_out)  # the output dtype from out=
    assert bf16_out.float().numpy().tolist() == [[0.5, 1.0], [1.5, 2.0]]


def test_torch_tensor_written_in_place_shares_memory():
    torch = _torch()
    backing = np.full((4, 8), SENTINEL, np.uint8).view(np.int8)
    out = torch.from_numpy(backing)[:, ::2]  # every other column: gaps keep their sentinel
    sk.quantize(X[:4, :4], 1.0, out=out)
    assert np.array_equal(backing[:, ::2], oracle_int8(X[:4, :4], 1.0))
    assert (backing[:, 1::2].view(np.uint8) == SENTINEL).all()
