"""Blocked traversal on every route, both operations, every dtype pair:
every axis of rank-1 to rank-3 tensors, each port dense, every other
element (``x[..., ::2]``), transposed and padded, outputs with gaps and
excess capacity that must keep their sentinel bytes; singleton and empty
axes; seeded random layouts of rank 1-4 (permuted, padded, stepped ports,
random axis and block size).  Quant cases also run under flush-to-zero and
denormals-are-zero.  Expected bits come from the oracle
(tests/oracle/blocked.py)."""
import math

import numpy as np
import pytest

from support.axis_helpers import random_layout
from support.blocked_helpers import OPS, make_case, op_case
from support.helpers import I8, ITEMSIZE, ROUTES, fail_if
from support.quant_helpers import MODES
from blocked.test_blocked_numerics import run_all

SHAPES = {1: (67,), 2: (21, 67), 3: (5, 9, 67)}
BLOCK_FOR = {67: (16, 33), 21: (4, 32), 9: (2, 5), 5: (3,)}


def c_order(shape):
    """Element strides of the C-contiguous layout of ``shape``."""
    out, step = [], 1
    for extent in reversed(shape):
        out.append(step)
        step *= extent
    return tuple(reversed(out))


def layouts(shape):
    """(name, element strides) of one port: dense (None), every other
    element along the last axis (x[..., ::2]), transposed (axes reversed
    in memory), padded (rows and planes apart)."""
    padded, step = [], 1
    for extent in reversed(shape):
        padded.append(step)
        step = step * extent + 3
    return [
        ("dense", None),
        ("every-other", tuple(2 * s for s in c_order(shape))),
        ("transposed", tuple(reversed(c_order(tuple(reversed(shape)))))),
        ("padded", tuple(reversed(padded))),
    ]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_every_axis_every_layout(route, rank):
    """Every axis of the rank (as given and counted from the end), a block
    size or two per axis (partial last blocks), each input layout with a
    different output layout, every operation."""
    shape = SHAPES[rank]
    names = layouts(shape)
    cases, k = [], 0
    for axis in range(rank):
        for block in BLOCK_FOR[shape[axis]]:
            for i, (in_name, in_el) in enumerate(names):
                out_name, out_el = names[(i + 1 + axis) % len(names)]
                op = list(OPS)[k % len(OPS)]
                case = op_case(route, op, shape, axis - rank if k % 2 else axis, block, in_el, out_el, k=k)
                case.what += f" in {in_name} out {out_name}"
                cases.append(case)
                k += 1
    fail_if(run_all(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_stepped_and_long_runs(route):
    """Runs beyond the 2048-element staging chunk, not packed (every other
    input, stepped output), with blocks that straddle the chunk boundary."""
    cases = [op_case(route, op, (2, 4200), 1, block, (8400, 2), (4201 * 3, 3), k=k)
             for k, (op, block) in enumerate((op, b) for op in OPS for b in (32, 100, 2047))]
    fail_if(run_all(cases))


DEGENERATE = [
    ((1, 7), 0, 1), ((1, 7), 1, 3), ((7, 1), 1, 2), ((1,), 0, 1), ((1, 1, 1), 1, 5), ((5, 1, 3), 1, 1),
    ((0, 5), 1, 2), ((5, 0), 1, 2), ((5, 0), 0, 3), ((3, 0, 4), 2, 3), ((0,), 0, 4),
]


@pytest.mark.parametrize("route", ROUTES)
def test_singleton_and_empty_axes(route):
    cases = [op_case(route, op, shape, axis, block, k=k)
             for k, (shape, axis, block) in enumerate(DEGENERATE) for op in OPS]
    fail_if(run_all(cases))


EXTENTS = (1, 2, 3, 5, 15, 16, 17, 31, 33, 64, 65, 129, 257)
LIMIT = 20_000
RANDOM_CASES = 40


def random_shape(rng, rank):
    shape = [int(rng.choice(EXTENTS)) for _ in range(rank)]
    while math.prod(shape) > LIMIT:
        shape[int(np.argmax(shape))] = int(rng.choice(EXTENTS[:7]))
    return tuple(shape)


@pytest.mark.parametrize("route", ROUTES)
def test_random_layouts(route):
    """Seeded: rank 1-4, random extents, a random block axis counted
    either way and a random block size (1 to beyond the extent), each
    port's axes in a random physical order with padding and every-other or
    every-third element."""
    rng = np.random.default_rng(0xB10C)
    cases = []
    for k in range(RANDOM_CASES):
        rank = int(rng.integers(1, 5))
        shape = random_shape(rng, rank)
        axis = int(rng.integers(-rank, rank))
        block = int(rng.integers(1, shape[axis] + 3))
        op = list(OPS)[k % len(OPS)]
        src, dst = OPS[op]
        mode = None if src is I8 else MODES[k % len(MODES)]
        cases.append(make_case(route, shape, src, dst, axis, block, mode, random_layout(rng, shape, ITEMSIZE[src]),
                               random_layout(rng, shape, ITEMSIZE[dst]), k=k))
    fail_if(run_all(cases))


# --------------------------------------------------------------- guard pages

GUARDED_LENGTHS = (1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 2049)


def guarded_layouts(n: int):
    """(name, shape, axis, block, input strides, output strides) in elements."""
    return [
        ("1-D", (n,), 0, 16, None, None),
        ("inner", (3, n), -1, 32, None, None),
        ("inner partial", (3, n), 1, 7, None, None),
        ("outer", (n, 3), 0, 16, None, None),
        ("in[:, ::2] inner", (3, n), 1, 32, (2 * n, 2), None),
        ("in.T inner", (n, 3), 0, 5, (1, n), None),
        ("out.T outer", (3, n), 0, 2, None, (1, 3)),
    ]


def guarded_main(route: str) -> None:
    """Child process: every guarded layout of every operation on ``route``,
    both ports flush against an inaccessible page at either end (a stray
    access faults and kills the child, which the parent reports)."""
    from support import guarded
    from support.axis_helpers import byte_strides, draw
    from support.blocked_helpers import block_entries, expected, parameter_shape, plan_for
    from axis.test_axis_layouts import run_guarded
    log, regions = guarded.Log(), guarded.Regions()
    k = 0
    for n in GUARDED_LENGTHS:
        for name, shape, axis, block, in_el, out_el in guarded_layouts(n):
            for op, (src, dst) in OPS.items():
                k += 1
                mode = None if src is I8 else MODES[k % len(MODES)]
                bits, zps = block_entries(src, parameter_shape(shape, axis, block), k)
                si, so = ITEMSIZE[src], ITEMSIZE[dst]
                s_in = byte_strides(in_el, src) or guarded.c_strides(shape, si)
                s_out = byte_strides(out_el, dst) or guarded.c_strides(shape, so)
                what = f"{op} {route} {name} shape {shape} axis {axis} block {block} in {s_in} out {s_out}"
                plan = plan_for(route, shape, src, dst, axis, block, bits, zps, mode, s_in, s_out)
                need = (guarded.span(shape, s_in, si), guarded.span(shape, s_out, so))
                values = draw(src, shape, np.random.default_rng(k))
                want = expected(src, dst, values, axis, block, bits, zps, mode)
                for flush in guarded.FLUSHES:
                    log.announce(f"{what} flush {flush}")
                    log.problem(run_guarded(plan, src, dst, regions, flush, shape, s_in, s_out, need, values,
                                            want, f"{what} flush {flush}"))
    log.finish()


@pytest.mark.parametrize("route", ROUTES)
def test_no_access_beyond_either_port(route):
    from support import guarded
    child = guarded.run_child(guarded.call("blocked.test_blocked_layouts", "guarded_main", route))
    guarded.assert_child_clean(child, f"blocked guard pages on {route}")
