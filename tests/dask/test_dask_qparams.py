"""simakernels.dask.choose_qparams: computed on the cluster, the parameters
are field for field those of ``sk.choose_qparams`` on the whole array (the
rule itself is checked in tests/arrays/test_choose_qparams.py), per tensor
and per axis, with chunks across and along the channel axis, NaN and
infinity blocks, an all-NaN block and an all-NaN channel; errors are the
in-memory call's, raised before anything is computed."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # distributed: the client fixture's (tests/dask/conftest.py)

import simakernels as sk  # noqa: E402
import simakernels.dask as skd  # noqa: E402

FLOATS = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
SHAPE = (6, 10, 4)
# Chunkings of SHAPE: (name, chunks).  Per axis, "across" splits the channel
# axis, "along" splits the others and keeps it whole.
CHUNKS = {
    "one-block": ((6,), (10,), (4,)),
    "uneven": ((1, 3, 2), (4, 5, 1), (3, 1)),
    "rows": ((2, 2, 2), (10,), (4,)),
    "columns": ((6,), (3, 3, 3, 1), (4,)),
}


def data(key, seed):
    """Values of different magnitudes along axis 0, an all-NaN block (the
    first of "uneven": [0:1, 0:4, 0:3]), infinities in others, a channel of
    axis 2 that is all NaN (the last blocks of "uneven" along axis 2), and
    the least and greatest values of some channels in different blocks."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(SHAPE) * np.float64([1, 30, 0.01, 5, 700, 2]).reshape(-1, 1, 1)
    values[0, 0:4, 0:3] = np.nan
    values[3, 6:9, 1] = np.inf
    values[4, 2, 2] = -np.inf
    values[:, :, 3] = np.nan
    values[5, 9, 0], values[2, 0, 1] = -900.0, 1e3
    with np.errstate(over="ignore"):
        return values.astype(FLOATS[key])


def assert_same_qparams(got, expected, what):
    assert type(got) is type(expected) and got.axis == expected.axis and got.symmetric == expected.symmetric, what
    assert got.dtype == expected.dtype and got.block_size == expected.block_size, what
    for field in ("scale", "zero_point", "multiplier"):
        a, b = getattr(got, field), getattr(expected, field)
        assert type(a) is type(b), (what, field, type(a), type(b))
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (what, field, a.dtype, b.dtype)
        if a.dtype.kind == "f":
            a, b = a.view(np.uint32), b.view(np.uint32)
        assert np.array_equal(a, b), (what, field, a, b)


# Every dtype, axis and chunking; symmetric and asymmetric in turn.
CASES = [pytest.param(key, axis, chunks, (i + j) % 2 == 1,
                      id=f"{key}-axis{axis}-{chunks}-{('asym', 'sym')[(i + j) % 2]}")
         for i, key in enumerate(FLOATS) for axis in (None, 0, 1, -1) for j, chunks in enumerate(CHUNKS)]


@pytest.mark.parametrize("key, axis, chunks, symmetric", CASES)
def test_fields_are_the_in_memory_fields(client, key, axis, chunks, symmetric):
    x = data(key, seed=list(CHUNKS).index(chunks))
    got = skd.choose_qparams(da.from_array(x, chunks=CHUNKS[chunks]), symmetric=symmetric, axis=axis)
    assert_same_qparams(got, sk.choose_qparams(x, symmetric=symmetric, axis=axis), f"{key} axis {axis} {chunks}")


@pytest.mark.parametrize("shape, chunks", [((), ()), ((7,), (2,)), ((0, 3), (1, 2)), ((3, 0), (2, 1)),
                                           ((2, 3, 1, 5), (1, 2, 1, 3))])
def test_ranks_and_empty_arrays(client, shape, chunks):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    axes = [None] + list(range(-len(shape), len(shape)))
    for axis in axes:
        got = skd.choose_qparams(da.from_array(x, chunks=chunks), axis=axis)
        assert_same_qparams(got, sk.choose_qparams(x, axis=axis), f"{shape} axis {axis}")


def test_all_nan_array_and_broadcast_blocks(client):
    nan = da.full((5, 4), np.nan, dtype=np.float32, chunks=2)
    assert_same_qparams(skd.choose_qparams(nan, axis=1), sk.choose_qparams(np.full((5, 4), np.nan, np.float32), axis=1),
                        "all NaN")
    ones = da.ones((3, 8), dtype=ml_dtypes.bfloat16, chunks=(2, 3))
    assert_same_qparams(skd.choose_qparams(ones, symmetric=True), sk.choose_qparams(np.ones((3, 8), ml_dtypes.bfloat16),
                                                                                    symmetric=True), "ones")


def test_the_range_is_reduced_on_the_workers(client):
    from distributed import get_task_stream
    x = data("f32", seed=3)
    with get_task_stream(client) as stream:
        skd.choose_qparams(da.from_array(x, chunks=CHUNKS["uneven"]), axis=1)
    assert stream.data and {t["worker"] for t in stream.data} <= set(client.scheduler_info()["workers"])


# ---- Errors ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, symmetric, axis, block_size", [("uint4", False, 1, None), ("int2", True, 1, 4)],
                         ids=["uint4-axis1", "int2-symmetric-blocked"])
def test_other_storage_types_are_the_in_memory_choice(client, dtype, symmetric, axis, block_size):
    """``dtype=`` reaches the rule on both paths (per axis, blocked): the
    in-memory fields, dtype included."""
    x = data("f32", seed=3)
    got = skd.choose_qparams(da.from_array(x, chunks=CHUNKS["uneven"]), dtype=dtype, symmetric=symmetric, axis=axis,
                             block_size=block_size)
    expected = sk.choose_qparams(x, dtype=dtype, symmetric=symmetric, axis=axis, block_size=block_size)
    assert_same_qparams(got, expected, f"{dtype} axis {axis} block {block_size}")


def _never(block):
    raise AssertionError("a block was computed while the parameters were checked")


def untouchable(values, chunks):
    meta = np.empty((0,) * values.ndim, values.dtype)
    return da.from_array(values, chunks=chunks).map_blocks(_never, dtype=values.dtype, meta=meta)


@pytest.mark.parametrize("values, options", [
    (np.zeros((3, 4), np.float32), {"axis": 2}),
    (np.zeros((3, 4), np.float32), {"axis": -3}),
    (np.zeros((), np.float32), {"axis": 0}),
    (np.zeros((3, 4), np.float32), {"axis": 1.0}),
    (np.zeros((3, 4), np.float32), {"symmetric": 1}),
    (np.zeros((3, 4), np.float16), {"symmetric": None, "axis": 0}),
    (np.zeros((3, 4), np.float32), {"dtype": "uint32"}),
    (np.zeros((3, 4), np.float32), {"dtype": "uint8", "symmetric": True}),
], ids=["axis-2", "axis--3", "rank0-axis", "axis-float", "symmetric-int", "symmetric-none", "dtype-uint32",
        "symmetric-uint8"])
def test_errors_are_the_in_memory_errors_before_compute(values, options):
    with pytest.raises(sk.KernelError) as expected:
        sk.choose_qparams(values, **options)
    with pytest.raises(sk.KernelError) as raised:
        skd.choose_qparams(untouchable(values, 2 if values.ndim else ()), **options)
    assert raised.value.error == expected.value.error


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.uint16])
def test_other_dtypes_are_refused_naming_x(dtype):
    values = np.zeros((3, 4), dtype)
    with pytest.raises(sk.KernelError) as expected:
        sk.choose_qparams(values)
    with pytest.raises(sk.KernelError) as raised:
        skd.choose_qparams(untouchable(values, 2))
    # The same message, but for the type it names: x's own.
    assert raised.value.code is expected.value.code is sk.ErrorCode.UNSUPPORTED_DTYPE
    assert raised.value.error.message == expected.value.error.message.replace("numpy.ndarray", "dask.array.core.Array")
