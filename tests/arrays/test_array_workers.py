"""``workers=N`` in the array layer: the outermost axis split across threads
gives the same bits as the oracle (and as one thread), on dense and strided
views, and every error is raised before any slab writes.  N is a bound: no
more threads than usable CPUs, outermost extent and minimum-size slabs.

The oracle tests split small tensors: they lift the slab minimum and the CPU
bound (``split_freely``) so that every slab boundary is exercised cheaply."""
import os
import threading

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from simakernels import _split
from support.helpers import bf16_table, oracle_f32_to_bf16, split_freely
from oracle import dequant as oracle_dequant
from simakernels import testing

E = sk.ErrorCode
BF = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(7)


def bits(a):
    c = np.ascontiguousarray(a)
    return c.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[c.dtype.itemsize])


def dequant_expected(q, scale, zp):
    table = np.array(oracle_dequant.dequant_f32_table(int(np.float32(scale).view(np.uint32)), zp), np.uint32)
    return table[q.view(np.uint8)]


SHAPES = [(2,), (3,), (5, 7), (9, 1, 4), (1, 6), (17, 33)]


@pytest.fixture(name="split_freely")
def split_freely_fixture():
    with split_freely():
        yield


@pytest.fixture
def started(monkeypatch):
    """The number of threads started so far (a one-item list)."""
    count = [0]
    start = threading.Thread.start

    def counting_start(self):
        count[0] += 1
        start(self)

    monkeypatch.setattr(threading.Thread, "start", counting_start)
    return count


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("workers", [2, 3, 8])
def test_dequant_slabs_match_the_oracle(shape, workers, split_freely, started):
    q = RNG.integers(-128, 128, shape, dtype=np.int8)
    out = sk.dequantize(q, 0.0625, -3, workers=workers)
    assert np.array_equal(bits(out), dequant_expected(q, 0.0625, -3))
    assert started[0] == min(workers, shape[0]) - 1  # the first slab runs on the calling thread


@pytest.mark.parametrize("workers", [2, 5])
def test_cast_on_a_strided_view(workers, split_freely):
    words = RNG.integers(0, 1 << 16, (11, 20), dtype=np.uint16)
    x = words.view(BF)[:, ::2]
    out = sk.cast(x, np.float32, workers=workers)
    assert np.array_equal(bits(out), bf16_table()[words[:, ::2]])
    f = RNG.standard_normal((7, 13), dtype=np.float32).T  # a transposed view
    outb = sk.cast(f, BF, workers=workers)
    assert np.array_equal(bits(outb), oracle_f32_to_bf16(bits(f).reshape(-1)).reshape(f.shape))


@pytest.mark.parametrize("workers", [2, 4])
def test_quant_into_a_strided_out(workers, split_freely):
    x = np.linspace(-300, 300, 6 * 10, dtype=np.float32).reshape(6, 10)
    backing = np.full((6, 20), 99, np.int8)
    out = backing[:, 1::2]
    sk.quantize(x, 0.5, -2, rounding="toward_zero", out=out, workers=workers)
    expected = np.clip(np.trunc(x * np.float32(0.5)) - 2, -128, 127)
    assert np.array_equal(out, expected.astype(np.int8))
    assert np.all(backing[:, ::2] == 99), "a slab wrote between the strided elements"


def test_one_slab_and_empty_inputs_run_as_usual():
    assert sk.dequantize(np.int8([5]), 2.0, workers=4).tolist() == [10.0]
    assert sk.dequantize(np.int8(5), 2.0, workers=4).tolist() == 10.0
    assert sk.dequantize(np.zeros((0, 3), np.int8), 2.0, workers=4).shape == (0, 3)


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True, np.True_, None, np.float64(2.0)], ids=repr)
@pytest.mark.parametrize("operation", ["cast", "dequantize", "quantize"])
def test_invalid_worker_counts_raise_kernel_error_naming_workers(workers, operation):
    x = np.zeros(8, np.int8 if operation == "dequantize" else np.float32)
    out = np.full(8, 7, {"cast": BF, "dequantize": np.float32, "quantize": np.int8}[operation])
    before = bits(out).copy()
    args = {"cast": (BF,), "dequantize": (1.0,), "quantize": (1.0,)}[operation]
    with pytest.raises(sk.KernelError) as info:
        getattr(sk, operation)(x, *args, out=out, workers=workers)
    assert info.value.error.code == E.INVALID_PARAMS
    assert "workers" in info.value.error.message and repr(workers) in info.value.error.message
    assert np.array_equal(bits(out), before)


def test_numpy_integer_worker_counts_are_taken(split_freely, started):
    assert sk.dequantize(np.int8([1, 2, 3, 4]), 2.0, workers=np.int64(2)).tolist() == [2.0, 4.0, 6.0, 8.0]
    assert started[0] == 1


def test_workers_are_bounded_by_the_usable_cpus(monkeypatch, started):
    """workers=1000 used to start 999 threads, whatever the machine."""
    monkeypatch.setattr(_split, "MIN_SLAB_ELEMENTS", 1)
    q = RNG.integers(-128, 128, (1000, 4), dtype=np.int8)
    out = sk.dequantize(q, 0.5, workers=1000)
    assert np.array_equal(bits(out), dequant_expected(q, 0.5, 0))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert started[0] <= cpus - 1


def test_small_tensors_are_not_split(started):
    """A tensor of fewer than two minimum slabs runs on the calling thread."""
    q = RNG.integers(-128, 128, (64, 1), dtype=np.int8)
    out = sk.dequantize(q, 0.5, workers=1000)
    assert np.array_equal(bits(out), dequant_expected(q, 0.5, 0))
    assert started[0] == 0


@pytest.mark.parametrize("slabs", [1, 2, 3])
def test_each_slab_holds_at_least_the_minimum(monkeypatch, started, slabs):
    """With CPUs to spare, a tensor of just under slabs + 1 minimum slabs
    gets ``slabs`` threads, whatever ``workers`` asks beyond that."""
    monkeypatch.setattr(_split, "usable_cpus", lambda: 64)
    rows = (slabs + 1) * 4 - 1                                     # rows of MIN_SLAB_ELEMENTS // 4
    q = RNG.integers(-128, 128, (rows, _split.MIN_SLAB_ELEMENTS // 4), dtype=np.int8)
    out = sk.dequantize(q, 0.5, workers=8)
    assert np.array_equal(bits(out), dequant_expected(q, 0.5, 0))
    assert started[0] == slabs - 1


def test_overlap_with_another_slab_is_refused_before_any_write():
    """out's second half is the input's first half: each slab on its own
    would pass its own check (slab 0's output is slab 1's input, which slab 1
    reads after slab 0 may have written it); the whole call must refuse."""
    buf = np.zeros(48, np.uint8)
    x = buf[:32].view(np.float32).reshape(8)
    x[:] = np.arange(8, dtype=np.float32)
    out = buf[16:48].view(np.uint16).reshape(8, 2)[:, 0].view(BF)  # overlaps x's upper half
    before = buf.copy()
    with pytest.raises(sk.KernelError) as info:
        sk.cast(x, BF, out=out, workers=2)
    assert info.value.error.code == E.INVALID_BINDING
    assert np.array_equal(buf, before)


def test_unmet_fp_environment_is_refused_before_any_write():
    q = np.arange(64, dtype=np.int8).reshape(8, 8)
    out = np.full((8, 8), -7.0, np.float32)
    try:
        with testing.fp_environment(flush_to_zero=True, denormals_are_zero=True):
            with pytest.raises(sk.KernelError) as info:
                sk.dequantize(q, 0.5, out=out, workers=4)
    except testing.UnsupportedFPState as exc:
        pytest.skip(str(exc))
    assert info.value.error.code == E.UNSUPPORTED_ENVIRONMENT
    assert np.all(out == -7.0)


def test_read_only_out_is_refused():
    out = np.zeros((4, 4), np.float32)
    out.flags.writeable = False
    with pytest.raises(sk.KernelError, match="read-only"):
        sk.dequantize(np.ones((4, 4), np.int8), 1.0, out=out, workers=2)
