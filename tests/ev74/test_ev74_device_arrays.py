"""The EV74 host model's memory as arrays (issue 19, edge 3): every input
dtype of the device (FP32, BF16 as ml_dtypes.bfloat16, FP16) and INT8
results go in with ``Device.write`` and come out with ``Device.read_array``,
whatever the host array's shape and strides.

Expected device bytes are NumPy's own ``tobytes()`` (C order); expected INT8
results are the oracle's (ev74_helpers.draw)."""
import numpy as np
import pytest

import simakernels as sk
from support.ev74_helpers import BF16, F16, F32, I8, NUMPY_FLOAT, draw, ev_plan, ok

INPUTS = (F32, BF16, F16)
MULTIPLIER = 0x3E99999A          # ~0.3: products land inside INT8 with fraction bits


@pytest.fixture(scope="module")
def device():
    with sk.ev74.Device(size=1 << 20) as d:
        yield d


def patterns(dtype, shape, seed=19):
    """An array of ``dtype`` (specials first) and the oracle INT8 results."""
    count = int(np.prod(shape, dtype=np.int64))
    bits, want = draw(dtype, count, seed, MULTIPLIER, 0, "nearest_even")
    return bits.view(NUMPY_FLOAT[dtype]).reshape(shape), want.view(np.int8).reshape(shape)


def same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# ------------------------------------------------------------ round trips
@pytest.mark.parametrize("shape", [(), (7,), (3, 5), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("dtype", INPUTS, ids=lambda d: d.name)
def test_each_input_dtype_round_trips(device, dtype, shape):
    x, _ = patterns(dtype, shape)
    region = device.allocate(x.nbytes)
    device.write(region, x)
    assert device.read(region) == x.tobytes()
    for spelled in (x.dtype, dtype):      # a NumPy dtype or an sk.DType
        back = device.read_array(region, spelled, shape)
        assert same_bits(back, x), f"{dtype.name} {shape} read as {spelled}"
        assert back.flags.c_contiguous and back.flags.writeable


def test_int8_round_trips_and_the_region_default_shape(device):
    q = np.arange(-128, 128, dtype=np.int8)
    region = device.allocate(q.nbytes)
    device.write(region, q)
    assert same_bits(device.read_array(region, np.int8), q)
    assert same_bits(device.read_array(region, I8, (16, 16)), q.reshape(16, 16))


@pytest.mark.parametrize("view", ["step", "transposed", "reversed", "window"])
@pytest.mark.parametrize("dtype", INPUTS, ids=lambda d: d.name)
def test_non_contiguous_arrays_are_written_in_c_order(device, dtype, view):
    base, _ = patterns(dtype, (6, 8), seed=7)
    x = {"step": base[:, ::2], "transposed": base.T, "reversed": base[::-1], "window": base[1:4, 2:7]}[view]
    assert not x.flags.c_contiguous
    region = device.allocate(x.nbytes)
    device.write(region, x)
    assert device.read(region) == x.tobytes()
    assert same_bits(device.read_array(region, x.dtype, x.shape), np.ascontiguousarray(x))


def test_read_array_is_a_copy(device):
    region = device.allocate(8)
    device.write(region, np.float32([1.5, -2.0]))
    got = device.read_array(region, F32)
    got[:] = 0
    assert device.read_array(region, F32).tolist() == [1.5, -2.0]


# ------------------------------------------------------------ through a run
@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "strided-host-array"])
@pytest.mark.parametrize("dtype", INPUTS, ids=lambda d: d.name)
def test_each_input_dtype_runs_from_arrays(device, dtype, contiguous):
    shape = (4, 40)
    if contiguous:
        x, want = patterns(dtype, shape)
    else:                                   # a host view with a step: the device gets it packed
        wide, wide_want = patterns(dtype, (4, 80))
        x, want = wide[:, ::2], wide_want[:, ::2]
    plan = ev_plan(shape, dtype, multiplier_bits=MULTIPLIER)
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    src, dst = device.allocate(need_in.nbytes), device.allocate(need_out.nbytes)
    device.write(src, x)
    device.write(dst, np.full(shape, 0x5A, np.uint8))         # a sentinel the run must overwrite
    bound = ok(sk.ev74.quant.encode(plan, [src], [dst]), "encode")
    ok(device.submit(bound).result(timeout=120), "submit")
    got = device.read_array(dst, I8, shape)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{dtype.name}: {bad.size} results differ, first at {bad[0]}: "
                           f"input {x.reshape(-1)[bad[0]]!r}, got {got.reshape(-1)[bad[0]]}, "
                           f"expected {want.reshape(-1)[bad[0]]}")


# ------------------------------------------------------------ refusals
@pytest.mark.parametrize("data, error, message", [
    (np.float64([1.0, 2.0]), ValueError, "write: data: no simakernels dtype for dtype('float64'); supported: "),
    (np.float32([1.0, 2.0]).astype(">f4"), ValueError, "write: data: no simakernels dtype for dtype('>f4')"),
    (np.array([1.0, "a"], dtype=object), ValueError, "write: data: no simakernels dtype for dtype('O')"),
    ([1.0, 2.0], TypeError, "write: data must be a NumPy array or a bytes-like object, got builtins.list"),
], ids=["float64", "big-endian", "object", "list"])
def test_write_refuses_what_is_no_device_data_before_writing(device, data, error, message):
    region = device.allocate(16)
    device.write(region, bytes(range(16)))
    with pytest.raises(error) as info:
        device.write(region, data)
    assert str(info.value).startswith(message), str(info.value)
    assert device.read(region) == bytes(range(16)), "refused, yet device memory changed"


def test_read_array_refusals(device):
    region = device.allocate(6)
    with pytest.raises(ValueError, match="shape must be given for a plain address"):
        device.read_array(region.address, F32)
    with pytest.raises(ValueError, match=r"region's 6 bytes are not a whole number of float32 elements"):
        device.read_array(region, F32)
    for shape in [(-1,), (True,), (2.0,)]:
        with pytest.raises(ValueError, match=r"shape must be ints >= 0, got"):
            device.read_array(region, F32, shape)
    with pytest.raises(ValueError, match="exceed the region of 6 bytes"):
        device.read_array(region, F32, (2,))
    with pytest.raises(sk.KernelError) as info:
        device.read_array(region, np.float64, (0,))
    assert info.value.code is sk.ErrorCode.UNSUPPORTED_DTYPE
