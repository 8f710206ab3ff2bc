"""A binding is storage: raw storage (bytes-like objects, host
views, void arrays, uint8 arrays and the unsigned integer as wide as the
port's element) and arrays of the port's own dtype are taken as they are;
an array of another number format is INVALID_BINDING, named in the
message, before any output byte is written."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk

E = sk.ErrorCode
F32, BF16, F16, I8 = sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16, sk.DType.INT8
N = 8
SENTINEL = 0xA5


def plan(op, src, dst):
    spec_in, spec_out = sk.TensorSpec((N,), src), sk.TensorSpec((N,), dst)
    if op == "cast":
        return sk.a65.cast.check_inference(sk.ops.cast.Request([spec_in], [spec_out]))
    if op == "dequant":
        return sk.a65.dequant.check_inference(
            sk.ops.dequant.Request([spec_in], [spec_out], sk.ops.dequant.Params(0.5, 3)))
    return sk.a65.quant.check_inference(sk.ops.quant.Request([spec_in], [spec_out], sk.ops.quant.Params(2.0)))


def module(op):
    return getattr(sk.a65, op)


# (op, input dtype, output dtype, port, wrong array dtype)
REFUSED = [
    ("quant", F32, I8, "input 0", np.float64),
    ("quant", F32, I8, "input 0", np.int32),
    ("quant", BF16, I8, "input 0", np.float16),
    ("quant", BF16, I8, "input 0", np.int16),
    ("quant", F16, I8, "input 0", ml_dtypes.bfloat16),
    ("quant", F32, I8, "output 0", np.float32),
    ("quant", F32, I8, "output 0", np.uint16),
    ("dequant", I8, F32, "input 0", np.float32),
    ("dequant", I8, F32, "output 0", np.float64),
    ("dequant", I8, BF16, "output 0", np.float16),
    ("cast", F32, BF16, "output 0", np.int16),
    ("cast", BF16, F32, "input 0", np.float16),
]


@pytest.mark.parametrize("op,src,dst,port,wrong", REFUSED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_an_array_of_another_number_format_is_refused(op, src, dst, port, wrong):
    p = plan(op, src, dst)
    in_bytes, out_bytes = N * src.itemsize, N * dst.itemsize
    nbytes = in_bytes if port == "input 0" else out_bytes
    typed = np.zeros(max(1, -(-nbytes // np.dtype(wrong).itemsize)), wrong)
    src_buf = typed if port == "input 0" else np.zeros(in_bytes, np.uint8)
    dst_buf = typed if port == "output 0" else np.full(out_bytes, SENTINEL, np.uint8)
    before = np.array(dst_buf, copy=True)
    status = module(op).execute(p, [src_buf], [dst_buf])
    assert isinstance(status, sk.Error), f"a {np.dtype(wrong)} array was bound to {port} and reinterpreted"
    assert status.code == E.INVALID_BINDING, status
    assert port in status.message and str(np.dtype(wrong)) in status.message, status.message
    assert np.array_equal(np.asarray(dst_buf).view(np.uint8), before.view(np.uint8)), "output written"


def storages(dtype):
    """Every array form that is a port's storage: its own dtype, uint8, the
    unsigned integer as wide, and void."""
    own = {F32: np.float32, BF16: ml_dtypes.bfloat16, F16: np.float16, I8: np.int8}[dtype]
    return [own, np.uint8, f"<u{dtype.itemsize}", f"V{dtype.itemsize}"]


@pytest.mark.parametrize("op,src,dst", [("quant", F32, I8), ("quant", BF16, I8), ("dequant", I8, BF16),
                                        ("cast", F32, BF16), ("cast", BF16, F32)])
def test_storage_arrays_are_taken_as_they_are(op, src, dst):
    p = plan(op, src, dst)
    rng = np.random.default_rng(7)
    raw_in = rng.integers(0, 256, N * src.itemsize, dtype=np.uint8)
    if src is not I8:  # finite inputs, whatever the bytes
        raw_in = (rng.standard_normal(N).astype(np.float32) if src is F32 else
                  rng.standard_normal(N).astype(ml_dtypes.bfloat16)).view(np.uint8)
    reference = np.zeros(N * dst.itemsize, np.uint8)
    assert module(op).execute(p, [raw_in], [reference]) is None
    for in_form in storages(src):
        for out_form in storages(dst):
            out = np.full(N * dst.itemsize, SENTINEL, np.uint8).view(out_form)
            status = module(op).execute(p, [raw_in.view(in_form)], [out])
            assert status is None, f"{np.dtype(in_form)} -> {np.dtype(out_form)}: {status}"
            assert np.array_equal(out.view(np.uint8), reference), f"{np.dtype(in_form)} -> {np.dtype(out_form)}"
