"""simakernels.dask's cast, dequantize and quantize: computed on the cluster's
worker processes, the whole result is bit for bit the in-memory call's on
the same data (those calls are checked against the oracle elsewhere), per
tensor and per axis, rank 0 to 4, with uneven chunks that split the channel
axis, the other axes or both; errors are the in-memory call's, raised when
the graph is built."""
from __future__ import annotations

import doctest
import os
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # distributed: the client fixture's (tests/dask/conftest.py)

import simakernels as sk  # noqa: E402
import simakernels.dask as skd  # noqa: E402
from simakernels import arrays  # noqa: E402
from support.helpers import assert_bits_equal  # noqa: E402

FLOATS = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}
MODES = ["nearest_even", "toward_zero", "toward_positive", "toward_negative"]

# One shape per rank, chunked unevenly along every axis that has room.
LAYOUTS = {
    0: ((), ()),
    1: ((29,), ((5, 13, 11),)),
    2: ((9, 14), ((4, 5), (3, 8, 3))),
    3: ((5, 6, 7), ((2, 3), (1, 5), (7,))),
    4: ((3, 4, 5, 6), ((1, 2), (4,), (2, 2, 1), (5, 1))),
}
# Per-axis cases: (rank, axis): first, middle, last and negative axes.
AXES = [(1, 0), (2, 0), (2, -1), (3, 1), (3, -3), (4, 0), (4, 2), (4, -1)]
# How the chunks fall: across the channel axis only, along it only (the
# channel axis whole, the others split), or the rank's layout (both).
# Quantize takes each (axis case, split) in one input dtype, in turn: each
# dtype meets every axis case and every split.
SPLITS = ["across", "along", "both"]


def uneven(n):
    """Unequal chunk sizes summing to n (one chunk when n < 2)."""
    return (n,) if n < 2 else tuple(p for p in (1, n // 2, n - 1 - n // 2) if p)


def chunks_for(rank, axis, split):
    shape, both = LAYOUTS[rank]
    if split == "both":
        return shape, both
    channel = axis % rank
    return shape, tuple((uneven(n) if (d == channel) == (split == "across") else (n,)) for d, n in enumerate(shape))


def floats(shape, dtype, seed):
    """Values around the parameters' range, random bit patterns (every
    class: NaN with payloads, infinities, subnormals, zeros) in a fifth of
    the places, and the named specials first."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = (rng.standard_normal(n) * 2).astype(np.float32).astype(dtype)
    bits = values.view(UINT[values.itemsize])
    noise = rng.random(n) < 0.2
    bits[noise] = rng.integers(0, 1 << (8 * values.itemsize), int(noise.sum()), dtype=np.uint64).astype(bits.dtype)
    specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1e-40, -3.4e38], np.float32)
    with np.errstate(over="ignore"):
        values[:min(n, len(specials))] = specials[:n].astype(dtype)
    return values.reshape(shape)


def int8s(shape, seed):
    return np.random.default_rng(seed).integers(-128, 128, shape, dtype=np.int8)


def lazy(values, chunks):
    return da.from_array(values, chunks=chunks)


def computed(client, *graphs):
    """The graphs' results, computed together on the cluster."""
    return [np.asarray(r) for r in client.gather(client.compute(list(graphs)))]


def assert_same(got, expected, inputs, what):
    assert got.dtype == expected.dtype and got.shape == expected.shape, (what, got.dtype, got.shape)
    assert_bits_equal(got.view(UINT[got.itemsize]), expected.view(UINT[expected.itemsize]),
                      inputs.view(UINT[inputs.itemsize]), what, got.shape)


def channel_params(shape, axis, seed, quant):
    """Per-channel parameters: multipliers (quant) or scales, with zero
    points per channel (odd seeds) or one shared integer."""
    rng = np.random.default_rng(seed)
    channels = shape[axis]
    if quant:
        values = rng.uniform(0.5, 60, channels).astype(np.float32)
        zero_points = rng.integers(-128, 128, channels)
    else:
        values = rng.uniform(1e-3, 2, channels).astype(np.float32)
        values[0] = np.float32(1e-40)  # subnormal: a valid scale
        zero_points = rng.integers(-300, 300, channels)
    return values, (zero_points if seed % 2 else int(zero_points[0]))


# ---- Bit identity ----------------------------------------------------------------
# A case is (input, chunks, calls): each call, ``call(module, x)``, is made
# with simakernels.dask on the chunked input, computed on the cluster, and
# with simakernels on the NumPy input; the two results must be the same
# bits.

def cast_case(rank, direction):
    shape, chunks = LAYOUTS[rank]
    source, target = (np.float32, "bfloat16") if direction == "f32_to_bf16" else (ml_dtypes.bfloat16, np.float32)
    return floats(shape, source, seed=rank), chunks, {direction: lambda m, x: m.cast(x, target)}


def quantize_case(key, rank, axis=None, split="both"):
    if axis is None:
        shape, chunks = LAYOUTS[rank]
        params, options = (np.float32(21.5), -3), {}
    else:
        shape, chunks = chunks_for(rank, axis, split)
        params, options = channel_params(shape, axis, seed=rank + SPLITS.index(split), quant=True), {"axis": axis}
    x = floats(shape, FLOATS[key], seed=rank * 10 + (axis or 0))
    return x, chunks, {mode: (lambda m, x, mode=mode: m.quantize(x, *params, rounding=mode, **options))
                       for mode in MODES}


def dequantize_case(rank, axis=None, split="both"):
    if axis is None:
        shape, chunks = LAYOUTS[rank]
        params, options = (np.float32(0.37), 11), {}
    else:
        shape, chunks = chunks_for(rank, axis, split)
        params, options = channel_params(shape, axis, seed=rank + SPLITS.index(split), quant=False), {"axis": axis}
    q = int8s(shape, seed=rank * 10 + (axis or 0))
    return q, chunks, {target: (lambda m, x, target=target: m.dequantize(x, *params, dtype=target, **options))
                       for target in ("float32", "bfloat16")}


def parameter_forms_case():
    """The parameters in other forms the in-memory call takes: Python
    lists, a Rounding member, a Fraction."""
    mode = sk.ops.quant.Rounding.TOWARD_POSITIVE
    return floats((4, 6), np.float32, seed=7), ((1, 3), (2, 4)), {
        "lists": lambda m, x: m.quantize(x, [3, 0.5, 7.25, 12.0], [1, -2, 0, 5], axis=0, rounding=mode),
        "fraction": lambda m, x: m.quantize(x, Fraction(10, 3), 2, rounding="toward_negative"),
    }


CASES = {
    **{f"cast-rank{rank}-{d}": (cast_case, (rank, d)) for rank in LAYOUTS for d in ("f32_to_bf16", "bf16_to_f32")},
    **{f"quantize-{key}-rank{rank}": (quantize_case, (key, rank)) for key in FLOATS for rank in LAYOUTS},
    **{f"quantize-{key}-rank{rank}-axis{axis}-{split}": (quantize_case, (key, rank, axis, split))
       for i, (rank, axis) in enumerate(AXES) for j, split in enumerate(SPLITS) for key in [list(FLOATS)[(i + j) % 3]]},
    **{f"dequantize-rank{rank}": (dequantize_case, (rank,)) for rank in LAYOUTS},
    **{f"dequantize-rank{rank}-axis{axis}-{split}": (dequantize_case, (rank, axis, split))
       for rank, axis in AXES for split in SPLITS},
    "parameter-forms": (parameter_forms_case, ()),
}


@pytest.fixture(scope="module")
def futures(client):
    """Every case's Dask results, submitted to the cluster at once (one
    round trip per case would cost more than the work): {case: {call: future}}."""
    submitted = {}
    for name, (build, args) in CASES.items():
        x, chunks, calls = build(*args)
        graphs = {label: call(skd, lazy(x, chunks)) for label, call in calls.items()}
        submitted[name] = dict(zip(graphs, client.compute(list(graphs.values()))))
    return submitted


@pytest.mark.parametrize("name", CASES)
def test_bits_are_the_in_memory_call(futures, name):
    build, args = CASES[name]
    x, chunks, calls = build(*args)
    for label, call in calls.items():
        got = np.asarray(futures[name][label].result())
        assert_same(got, call(sk, x), x, f"{name} {label}, chunks {chunks}")


def test_views_broadcasts_and_empty_arrays(client):
    """Reversed and strided views, broadcast blocks (``da.zeros``) and
    zero-size arrays: each block is taken as computing the whole array
    gives it."""
    x = floats((7, 9), np.float32, seed=3)
    view = lazy(x, (3, 4))[::-1, ::2]
    zeros = da.zeros((5, 4), dtype=np.float32, chunks=(2, 3))
    empty = da.zeros((0, 3), dtype=np.int8, chunks=(1, 2))
    got = computed(client, skd.quantize(view, 9.0, 1), skd.quantize(zeros, [9.0] * 4, 1, axis=1),
                   skd.dequantize(empty, [1.0, 2.0, 3.0], axis=1), skd.cast(view, "bfloat16"))
    whole = np.ascontiguousarray(x[::-1, ::2])
    assert_same(got[0], sk.quantize(whole, 9.0, 1), whole, "reversed view")
    assert_same(got[1], sk.quantize(np.zeros((5, 4), np.float32), [9.0] * 4, 1, axis=1), np.zeros((5, 4), np.float32),
                "broadcast blocks")
    assert got[2].shape == (0, 3) and got[2].dtype == np.float32
    assert_same(got[3], sk.cast(whole, "bfloat16"), whole, "cast of a view")


def test_results_keep_the_chunks_and_declare_the_dtype():
    x = lazy(floats((9, 14), np.float32, 0), LAYOUTS[2][1])
    for graph, dtype in [(skd.quantize(x, 2.0), np.int8), (skd.quantize(x, [2.0] * 14, axis=1), np.int8),
                         (skd.cast(x, "bfloat16"), ml_dtypes.bfloat16),
                         (skd.dequantize(lazy(int8s((9, 14), 0), (4, 5)), [1.0] * 9, axis=0, dtype="bfloat16"),
                          ml_dtypes.bfloat16)]:
        assert graph.dtype == np.dtype(dtype)
        assert graph.chunks == (LAYOUTS[2][1] if graph.numblocks == (2, 3) else ((4, 4, 1), (5, 5, 4)))


def test_building_the_graph_runs_no_kernel(monkeypatch):
    """dtype and meta are declared: Dask calls no block function to guess them."""
    def refuse(*args, **kwargs):
        raise AssertionError("a kernel ran while the graph was built")

    for name in ("cast", "dequantize", "quantize"):
        monkeypatch.setattr(arrays, name, refuse)
    x = lazy(floats((6, 5), np.float32, 1), 2)
    skd.quantize(x, 4.0)
    skd.quantize(x, [4.0] * 5, [1, 2, 3, 4, 5], axis=-1)
    skd.cast(x, "bfloat16")
    q = lazy(int8s((6, 5), 1), 4)
    skd.dequantize(q, 0.5)
    skd.dequantize(q, [0.5] * 6, axis=0, dtype="bfloat16")


def test_blocks_run_on_the_worker_processes(client):
    from distributed import get_task_stream
    pids = client.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()
    x = floats((8, 8), np.float32, seed=2)
    with get_task_stream(client) as stream:
        q, = computed(client, skd.quantize(lazy(x, 3), [2.0] * 8, axis=0))
    assert stream.data and {t["worker"] for t in stream.data} <= set(pids)
    assert_same(q, sk.quantize(x, [2.0] * 8, axis=0), x, "on the workers")


@pytest.mark.parametrize("name", ["cast", "choose_qparams", "dequantize", "quantize"])
def test_docstring_examples_run(client, name):
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = doctest.DocTestFinder().find(getattr(skd, name), name, globs={})
    assert sum(len(t.examples) for t in tests) >= 2
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---- Errors: the in-memory call's, before anything is computed -------------------

def _never(block):
    raise AssertionError("a block was computed while the graph was built")


def untouchable(values, chunks):
    """A Dask array of ``values`` whose blocks fail if anything computes them."""
    meta = np.empty((0,) * values.ndim, values.dtype)
    return lazy(values, chunks).map_blocks(_never, dtype=values.dtype, meta=meta)


def in_memory_error(call):
    with pytest.raises(sk.KernelError) as raised:
        call()
    return raised.value.error


F32 = floats((4, 5, 6), np.float32, seed=5)
I8 = int8s((4, 5, 6), seed=5)
with np.errstate(over="ignore"):
    F16 = F32.astype(np.float16)
ERRORS = {
    "quantize int8": (lambda m, x: m.quantize(x, 2.0), I8),
    "quantize float64": (lambda m, x: m.quantize(x, 2.0), F32.astype(np.float64)),
    "quantize rank 7": (lambda m, x: m.quantize(x, 2.0), np.zeros((1,) * 7, np.float32)),
    "quantize multiplier 0": (lambda m, x: m.quantize(x, 0.0), F32),
    "quantize multiplier nan": (lambda m, x: m.quantize(x, np.nan), F32),
    "quantize zero point 128": (lambda m, x: m.quantize(x, 1.0, 128), F32),
    "quantize rounding": (lambda m, x: m.quantize(x, 1.0, rounding="nearest"), F32),
    "quantize sequence without axis": (lambda m, x: m.quantize(x, [1.0] * 4), F32),
    "quantize axis 3": (lambda m, x: m.quantize(x, [1.0] * 4, axis=3), F32),
    "quantize axis -4": (lambda m, x: m.quantize(x, [1.0] * 4, axis=-4), F32),
    "quantize axis not an int": (lambda m, x: m.quantize(x, [1.0] * 4, axis="0"), F32),
    "quantize rank 0 axis": (lambda m, x: m.quantize(x, [1.0], axis=0), np.float32(1.0).reshape(())),
    "quantize multipliers length": (lambda m, x: m.quantize(x, [1.0] * 5, axis=0), F32),
    "quantize zero points length": (lambda m, x: m.quantize(x, [1.0] * 6, [0] * 5, axis=-1), F32),
    "quantize multiplier entry": (lambda m, x: m.quantize(x, [1.0, 2.0, -1.0, 3.0, 1.0], axis=1), F32),
    "quantize zero point entry": (lambda m, x: m.quantize(x, [1.0] * 5, [0, 0, 0, 0, -129], axis=1), F32),
    "dequantize float32": (lambda m, x: m.dequantize(x, 0.5), F32),
    "dequantize dtype float16": (lambda m, x: m.dequantize(x, 0.5, dtype=np.float16), I8),
    "dequantize dtype unknown": (lambda m, x: m.dequantize(x, 0.5, dtype="float8"), I8),
    "dequantize scale inf": (lambda m, x: m.dequantize(x, np.inf), I8),
    "dequantize scale a string": (lambda m, x: m.dequantize(x, "0.5"), I8),
    "dequantize zero point 2**31": (lambda m, x: m.dequantize(x, 0.5, 2 ** 31), I8),
    "dequantize scales length": (lambda m, x: m.dequantize(x, [0.5] * 3, axis=1), I8),
    "dequantize axis": (lambda m, x: m.dequantize(x, [0.5] * 4, axis=-5), I8),
    "dequantize scales 2-D": (lambda m, x: m.dequantize(x, np.ones((4, 1), np.float32), axis=0), I8),
    "cast int8 target": (lambda m, x: m.cast(x, np.int8), F32),
    "cast float16 source": (lambda m, x: m.cast(x, "float32"), F16),
    "cast to itself": (lambda m, x: m.cast(x, "float32"), F32),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_the_in_memory_errors_before_compute(name):
    call, values = ERRORS[name]
    expected = in_memory_error(lambda: call(sk, values))
    chunks = tuple(uneven(n) for n in values.shape)
    with pytest.raises(sk.KernelError) as raised:
        call(skd, untouchable(values, chunks))
    assert raised.value.error == expected


def test_masked_blocks_are_refused_as_masked_arrays():
    expected = in_memory_error(lambda: sk.quantize(np.ma.masked_greater(F32, 1.0), 2.0))
    masked = da.ma.masked_greater(lazy(F32, 2), 1.0)
    for call in (lambda: skd.quantize(masked, 2.0), lambda: skd.cast(masked, "bfloat16"),
                 lambda: skd.choose_qparams(masked)):
        with pytest.raises(sk.KernelError) as raised:
            call()
        assert raised.value.error == expected


@pytest.mark.parametrize("call", [lambda x: skd.quantize(x, 2.0), lambda x: skd.dequantize(x, 2.0),
                                  lambda x: skd.cast(x, "bfloat16"), lambda x: skd.choose_qparams(x)],
                         ids=["quantize", "dequantize", "cast", "choose_qparams"])
def test_x_must_be_a_dask_array(call):
    with pytest.raises(TypeError, match=r"^x must be a dask\.array\.Array, got numpy\.ndarray"):
        call(F32)


def test_dask_array_parameters_are_refused_by_name():
    x = untouchable(F32, 2)
    for call, name in [(lambda: skd.quantize(x, da.ones(4, chunks=2), axis=0), "multiplier"),
                       (lambda: skd.quantize(x, 2.0, da.zeros((), dtype=int)), "zero_point"),
                       (lambda: skd.dequantize(untouchable(I8, 2), da.ones(5, chunks=2), axis=1), "scale")]:
        with pytest.raises(sk.KernelError) as raised:
            call()
        assert raised.value.code is sk.ErrorCode.INVALID_PARAMS
        assert raised.value.error.message.startswith(f"{name} is a dask.array.Array; pass its values")


def test_unknown_chunk_sizes_are_refused():
    x = lazy(F32.reshape(-1), 7)
    selected = x[x > 0]
    with pytest.raises(sk.KernelError) as raised:
        skd.quantize(selected, 2.0)
    assert raised.value.code is sk.ErrorCode.INVALID_SHAPE
    assert "compute_chunk_sizes()" in raised.value.error.message
