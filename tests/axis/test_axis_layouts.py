"""Per-axis traversal on every route, both operations, every dtype pair:

* the channel axis as the inner run (merged with slower axes: the channel
  is the flat index mod C) at run lengths around the 16-lane blocks, the
  table period and the 2048-element staging chunk, for C = 1, 3, 16, 17,
  100, 4097, dense, in padded rows (a run per row, the table position
  reset), every other input element and stepped outputs (staged);
* a rank-1 tensor whose every element is its own channel;
* the channel axis outside the inner run at run lengths 1 .. 2049, dense,
  padded, every other input element (x[:, ::2]), stepped, transposed on
  either port (the walk may then make the channel axis the inner run), in
  the middle of three axes;
* transposes through the tiler, also with every output streamed;
* singleton and empty axes;
* seeded random layouts of rank 1-4 with a random (also negative) axis,
  permuted, padded and stepped ports, no broadcast;
* guard pages around both ports (a child process).

Outputs are sentinel-filled with gaps and excess capacity that must stay
unchanged; inputs are checked unchanged.  Quant cases also run under
flush-to-zero and denormals-are-zero.  Expected bits come from the oracle
(tests/oracle/axis.py)."""
import math

import numpy as np
import pytest

import simakernels as sk
from support import guarded
from support.axis_helpers import (
    CHUNK,
    DEQUANT_SETS,
    QUANT_SETS,
    axis_period,
    byte_strides,
    channels,
    draw,
    expected,
    make_case,
    module_of,
    plan_for,
    random_layout,
    run_cases,
)
from support.helpers import BF16, F16, F32, I8, ITEMSIZE, ROUTES, UINT, fail_if, stream_override
from support.quant_helpers import FTZ_DAZ, MODES

OPS = {
    "dequant-f32": (I8, F32),
    "dequant-bf16": (I8, BF16),
    "quant-f32": (F32, I8),
    "quant-bf16": (BF16, I8),
    "quant-f16": (F16, I8),
}
DEQUANT_ALL = DEQUANT_SETS["forms"] + DEQUANT_SETS["extremes"]
QUANT_ALL = QUANT_SETS["ties"] + QUANT_SETS["tiny"]


def op_params(src, count: int, k: int):
    """``count`` channels from every parameter pair of the operation's sets,
    starting at a case-dependent pair."""
    base = DEQUANT_ALL if src is I8 else QUANT_ALL
    r = k % len(base)
    return channels(base[r:] + base[:r], count)


def op_case(route, op, shape, axis, in_el=None, out_el=None, k=0, **kwargs):
    """One case of operation ``op``; strides in elements of each port."""
    src, dst = OPS[op]
    shape = tuple(shape)
    count = shape[axis] if shape else 0
    mode = None if src is I8 else MODES[k % len(MODES)]
    return make_case(route, shape, src, dst, axis, op_params(src, count, k), mode, byte_strides(in_el, src),
                     byte_strides(out_el, dst), seed=k, **kwargs)


def run_all(cases, label=""):
    """The cases, then the Quant ones again under FTZ+DAZ."""
    reports = run_cases(cases, label=label)
    quant = [c for c in cases if c.src.dtype is not I8]
    if quant:
        reports += run_cases(quant, FTZ_DAZ, "ftz+daz" + (f" {label}" if label else ""))
    return reports


# ------------------------------------------------------- channel axis inner

COUNTS = (1, 3, 16, 17, 100, 4097)


def inner_rows(count: int):
    """Row counts N of an (N, C) tensor: merged run lengths N*C just below,
    at and above the table period, twice it, and the staging chunk."""
    p = axis_period(count) // count
    rows = {1, 2, 3, p - 1, p, p + 1, 2 * p + 1}
    rows |= {-(-n // count) for n in (CHUNK - 1, CHUNK, CHUNK + 1)}
    return sorted(r for r in rows if r >= 1)


def inner_layouts(n: int, c: int):
    """(name, input strides, output strides) in elements of an (n, c) tensor."""
    return [
        ("dense", None, None),
        ("padded-rows", (c + 3, 1), (c + 5, 1)),        # one run per row: the table restarts each row
        ("in-every-other", (2 * c, 2), None),            # merged, staged in chunks
        ("out-stepped", None, (3 * c, 3)),
    ]


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("route", ROUTES)
def test_channel_axis_inner(route, count):
    cases = []
    k = 0
    for n in inner_rows(count):
        for name, in_el, out_el in inner_layouts(n, count):
            for op in OPS:
                axis = (-1, 1)[k % 2]
                case = op_case(route, op, (n, count), axis, in_el, out_el, k)
                case.what += f" {name}"
                cases.append(case)
                k += 1
    fail_if(run_all(cases))


# The channel axis last, merged with one or more slower axes (the channel
# is the flat index mod C over the merged run), or with some of them (a
# padded slower axis starts a new run, at the table's start):
# (shape, axis, input strides, output strides) in elements.
MERGED = [
    ((2, 3, 17), -1, None, None),
    ((4, 5, 16, 3), -1, None, None),
    ((3, 2, 100), 2, None, None),
    ((2, 2, 2, 4097), 3, None, None),
    ((3, 4, 17), -1, None, (4 * 17 + 5, 17, 1)),
    ((3, 4, 17), 2, (4 * 17 * 2, 17 * 2, 2), None),
    ((5, 1, 7, 33), -1, None, (1000, 999, 33, 1)),
    ((16, 16, 17), -1, (16 * 17 + 1, 17, 1), (16 * 17 + 2, 17, 1)),
]


@pytest.mark.parametrize("route", ROUTES)
def test_channel_axis_inner_merged(route):
    cases = [op_case(route, op, shape, axis, in_el, out_el, k)
             for k, (shape, axis, in_el, out_el) in enumerate(MERGED) for op in OPS]
    fail_if(run_all(cases))


LENGTHS = (1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 2047, 2048, 2049)


@pytest.mark.parametrize("route", ROUTES)
def test_every_element_its_own_channel(route):
    """Rank 1, axis 0: C = n channels (periods up to 32752), dense and
    stepped on either port."""
    cases = []
    for k, n in enumerate(LENGTHS):
        for in_el, out_el in ((None, None), ((2,), None), (None, (2,))):
            for op in OPS:
                cases.append(op_case(route, op, (n,), (0, -1)[k % 2], in_el, out_el, k))
    fail_if(run_all(cases))


# ------------------------------------------------------- channel axis outer

RUNS = (1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 2047, 2048, 2049)


def outer_layouts(c: int, n: int):
    """(name, shape, axis, input strides, output strides) in elements."""
    return [
        ("dense", (c, n), 0, None, None),
        ("padded", (c, n), -2, (n + 7, 1), (n + 1, 1)),
        ("in[:, ::2]", (c, n), 0, (2 * n, 2), None),
        ("out-stepped", (c, n), 0, None, (2 * n + 1, 2)),
        ("in.T", (c, n), 0, (1, c), None),
        ("out.T", (c, n), -2, None, (1, c)),
        ("middle", (2, c, n), 1, (c * n + 3, n, 1), (c * n, n, 1)),
        ("middle-transposed", (2, c, n), -2, (1, 2 * n, 2), None),
    ]


@pytest.mark.parametrize("route", ROUTES)
def test_channel_axis_outer(route):
    cases = []
    k = 0
    for n in RUNS:
        for name, shape, axis, in_el, out_el in outer_layouts(5, n):
            for op in OPS:
                case = op_case(route, op, shape, axis, in_el, out_el, k)
                case.what += f" {name}"
                cases.append(case)
                k += 1
    fail_if(run_all(cases))


# (shape, axis, input strides, output strides) in elements: transposes on
# one port or both, the channel axis on either side, two and three axes.
TRANSPOSES = [
    ((70, 257), 0, (1, 70), None),
    ((70, 257), 1, (1, 70), None),
    ((257, 70), 0, None, (1, 257)),
    ((257, 70), -1, None, (1, 257)),
    ((65, 130), 1, (1, 65), (1, 65)),
    ((3, 70, 65), 0, (1, 3 * 65, 3), None),
    ((3, 70, 65), 1, (70 * 65, 1, 70), None),
    ((3, 70, 65), 2, None, (70 * 65, 1, 70)),
    ((17, 33, 40), -3, (1, 17 * 40, 17), (33 * 40, 1, 33)),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["cached", "streamed"])
@pytest.mark.parametrize("route", ROUTES)
def test_transposes(route, streamed):
    """Transposed ports (the tiler when the channel axis is neither of the
    tile's axes); ``streamed``: every output through the streaming
    stores (sk_stream_override, reset after)."""
    cases = [op_case(route, op, shape, axis, in_el, out_el, k)
             for k, (shape, axis, in_el, out_el) in enumerate(TRANSPOSES) for op in OPS]
    with streaming(streamed):
        reports = run_all(cases, "streamed" if streamed else "")
    fail_if(reports)


@pytest.mark.parametrize("route", ROUTES)
def test_outer_runs_streamed(route):
    """Per-run channels whose runs all stream their output (each run a
    slice of one output, starting anywhere in a line)."""
    cases = []
    for k, n in enumerate((33, 64, 65, 257, 2049)):
        for _name, shape, axis, in_el, out_el in outer_layouts(3, n)[:4]:
            cases += [op_case(route, op, shape, axis, in_el, out_el, k) for op in OPS]
    with streaming(True):
        reports = run_all(cases, "streamed")
    fail_if(reports)


def streaming(on: bool):
    return stream_override(1 if on else 0)


# ------------------------------------------------------ singleton and empty

DEGENERATE = [
    ((1, 7), 0), ((7, 1), 1), ((7, 1), -1), ((1,), 0), ((1, 1, 1), 1), ((5, 1, 3), 1), ((1, 300), -2),
    ((0, 5), 1), ((5, 0), 1), ((5, 0), -2), ((3, 0, 4), 0), ((0,), 0),
]


@pytest.mark.parametrize("route", ROUTES)
def test_singleton_and_empty_axes(route):
    """A channel axis of extent 1 (one channel: the per-tensor walk with its
    parameters), empty tensors (no channel parameters at all when the
    channel axis is empty): exact bits, nothing else written."""
    cases = [op_case(route, op, shape, axis, None, None, k)
             for k, (shape, axis) in enumerate(DEGENERATE) for op in OPS]
    fail_if(run_all(cases))


# ------------------------------------------------------------ random layouts

EXTENTS = (1, 2, 3, 5, 15, 16, 17, 31, 33, 255, 256, 257)
LONG = (2047, 2048, 2049)
LIMIT = 30_000
RANDOM_CASES = 60


def random_shape(rng, rank):
    shape = [int(rng.choice(EXTENTS)) for _ in range(rank)]
    if rng.integers(0, 4) == 0:
        shape[int(rng.integers(0, rank))] = int(rng.choice(LONG))
    while math.prod(shape) > LIMIT:
        big = int(np.argmax(shape))
        shape[big] = int(rng.choice(EXTENTS[:7]))
    return tuple(shape)


@pytest.mark.parametrize("route", ROUTES)
def test_random_layouts(route):
    """Seeded: rank 1-4, random extents (around 16, 256 and 2048), a random
    channel axis counted either way, each port's axes in a random physical
    order with padding and every-other or every-third element."""
    rng = np.random.default_rng(0xA715)
    cases = []
    for k in range(RANDOM_CASES):
        rank = int(rng.integers(1, 5))
        shape = random_shape(rng, rank)
        axis = int(rng.integers(-rank, rank))
        op = list(OPS)[k % len(OPS)]
        src, dst = OPS[op]
        in_strides = random_layout(rng, shape, ITEMSIZE[src])
        out_strides = random_layout(rng, shape, ITEMSIZE[dst])
        mode = None if src is I8 else MODES[k % len(MODES)]
        cases.append(make_case(route, shape, src, dst, axis, op_params(src, shape[axis], k), mode, in_strides,
                               out_strides, seed=k))
    fail_if(run_all(cases))


def test_random_layouts_reach_every_walk():
    """The seeded layouts include channel axes inner and outer, negative
    axes, transposes, every-other inputs and Contiguous() ports."""
    rng = np.random.default_rng(0xA715)
    seen = set()
    for k in range(RANDOM_CASES):
        rank = int(rng.integers(1, 5))
        shape = random_shape(rng, rank)
        axis = int(rng.integers(-rank, rank))
        src, dst = OPS[list(OPS)[k % len(OPS)]]
        ins = random_layout(rng, shape, ITEMSIZE[src])
        random_layout(rng, shape, ITEMSIZE[dst])
        seen.add("negative" if axis < 0 else "positive")
        seen.add("last" if axis % rank == rank - 1 else "not-last")
        if ins is None:
            seen.add("contiguous")
        else:
            long_axes = [a for a in range(rank) if shape[a] > 1]
            if long_axes and min(long_axes, key=lambda a: ins[a]) != max(long_axes):
                seen.add("transposed")
            if long_axes and min(ins[a] for a in long_axes) == 2 * ITEMSIZE[src]:
                seen.add("every-other")
    assert seen >= {"negative", "positive", "last", "not-last", "contiguous", "transposed", "every-other"}, seen


# --------------------------------------------------------------- guard pages

GUARDED_LENGTHS = list(range(0, 18)) + [31, 32, 33, 47, 48, 49, 255, 256, 257, 2047, 2048, 2049]


def guarded_layouts(n: int):
    """(name, shape, axis, input strides, output strides) in elements."""
    return [
        ("own-channel", (n,), 0, None, None),
        ("inner", (3, n), -1, None, None),
        ("outer", (3, n), 0, None, None),
        ("in[:, ::2] outer", (3, n), 0, (2 * n, 2), None),
        ("in[:, ::2] inner", (3, n), 1, (2 * n, 2), None),
        ("in.T", (n, 3), 1, (1, n), None),
        ("out.T", (n, 3), 0, None, (1, n)),
    ]


def guarded_main(route: str) -> None:
    """Child process: every guarded layout of every operation on ``route``,
    both ports flush against an inaccessible page at either end (a stray
    access faults and kills the child, which the parent reports)."""
    log, regions = guarded.Log(), guarded.Regions()
    k = 0
    for n in GUARDED_LENGTHS:
        for name, shape, axis, in_el, out_el in guarded_layouts(n):
            for op, (src, dst) in OPS.items():
                k += 1
                mode = None if src is I8 else MODES[k % len(MODES)]
                params = op_params(src, shape[axis], k)
                si, so = ITEMSIZE[src], ITEMSIZE[dst]
                s_in = byte_strides(in_el, src) or guarded.c_strides(shape, si)
                s_out = byte_strides(out_el, dst) or guarded.c_strides(shape, so)
                what = f"{op} {route} {name} shape {shape} axis {axis} in {s_in} out {s_out}"
                plan = plan_for(route, shape, src, dst, axis, params, mode, s_in, s_out)
                need = (guarded.span(shape, s_in, si), guarded.span(shape, s_out, so))
                values = draw(src, shape, np.random.default_rng(k))
                want = expected(src, dst, values, axis, params, mode)
                for flush in guarded.FLUSHES:
                    log.announce(f"{what} flush {flush}")
                    log.problem(run_guarded(plan, src, dst, regions, flush, shape, s_in, s_out, need, values,
                                            want, f"{what} flush {flush}"))
    log.finish()


def run_guarded(plan, src, dst, regions, flush, shape, s_in, s_out, need, values, want, what):
    rin, rout = regions("in", need[0]), regions("out", need[1])
    at_in, at_out = rin.offset(need[0], flush), rout.offset(need[1], flush)
    rin.bytes[:] = 0x3C
    rin.words(at_in, UINT[src], shape, s_in)[...] = values
    input_image = rin.bytes.copy()
    rout.bytes[:] = 0xA5
    status = module_of(src).execute(plan, [sk.ConstHostBuffer.from_address(rin.start + at_in, need[0])],
                                    [sk.HostBuffer.from_address(rout.start + at_out, need[1])])
    if status is not None:
        return f"{what}: execute returned {status}"
    image = np.full(rout.size, 0xA5, np.uint8)
    np.ndarray(shape, UINT[dst], buffer=image, offset=at_out, strides=s_out)[...] = want
    return (guarded.image_report(rout.bytes, image, f"{what}: output")
            or guarded.image_report(rin.bytes, input_image, f"{what}: input changed"))


@pytest.mark.parametrize("route", ROUTES)
def test_no_access_beyond_either_port(route):
    child = guarded.run_child(guarded.call("axis.test_axis_layouts", "guarded_main", route))
    guarded.assert_child_clean(child, f"per-axis guard pages on {route}")
