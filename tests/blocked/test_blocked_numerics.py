"""Blocked numerics, bit for bit, on every route: block sizes 1, 15-17,
31-33, 63-65, 127-129 with a partial last block (and an exact fit), the
block axis as the walk's inner run (parameters change every block inside a
run) and outside it (consecutive entries along a run), every operation and
dtype pair, Quant's four roundings, under flush-to-zero and
denormals-are-zero too; every INT8 input under every Dequant parameter pair
of the sets (wide zero points, subnormal and overflowing scales, both
outputs) and every BF16 / FP16 pattern under blocks of the Quant sets
(NaN, infinities, saturation, ties, subnormal products).

Expected bits come from the independent oracle (tests/oracle/blocked.py:
the per-tensor oracle under each element's block parameters)."""
import numpy as np
import pytest

from support.axis_helpers import run_cases
from support.blocked_helpers import BLOCKS, OPS, make_case, op_case
from support.helpers import BF16, F16, I8, ROUTES, fail_if
from support.quant_helpers import FTZ_DAZ, MODES


def run_all(cases, label=""):
    """The cases, then the Quant ones again under FTZ+DAZ (admitted; the
    same expected bits)."""
    reports = run_cases(cases, label=label)
    quant = [c for c in cases if c.src.dtype is not I8]
    if quant:
        reports += run_cases(quant, FTZ_DAZ, "ftz+daz" + (f" {label}" if label else ""))
    return reports


def extents(block: int):
    """Extents of the block axis: a partial last block (one element, and
    one short of full) and an exact fit of three blocks."""
    return sorted({2 * block + 1, 3 * block - 1 if block > 1 else 4, 3 * block})


def test_shapes_reach_both_walks():
    """White-box check of the aim (the plan's native walk): the inner
    shapes make the block axis the walk's inner run, the outer ones an
    outer axis; both walks are blocked with the requested block size."""
    seen = {}
    for name, shape, axis in (("inner", (3, 70), 1), ("outer", (70, 37), 0), ("outer-column", (70, 1), 0)):
        walk = op_case(ROUTES[0], "quant-bf16", shape, axis, 32).plan._native.walk
        seen[name] = (int(walk.block), walk.block_at == walk.outer_rank)
    assert seen == {"inner": (32, True), "outer": (32, False), "outer-column": (32, True)}, seen


@pytest.mark.parametrize("route", ROUTES)
def test_block_axis_inner(route):
    """(rows, E) tensors, axis -1 / 1: LLM weights' layout; rows of other
    parameters (the entry steps by the row's block count)."""
    cases, k = [], 0
    for block in BLOCKS:
        for n in extents(block):
            for op in OPS:
                cases.append(op_case(route, op, (3, n), (-1, 1)[k % 2], block, k=k))
                k += 1
    fail_if(run_all(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_block_axis_outer(route):
    """(E, C) tensors, axis 0: each row a run whose elements take
    consecutive entries of the row's block; also one column (a run per
    row of one element) and 1-D tensors (the block axis is the only one)."""
    cases, k = [], 0
    for block in BLOCKS:
        for n in extents(block):
            for op in OPS:
                shape = ((n, 37), (n, 1), (n,))[k % 3]
                cases.append(op_case(route, op, shape, (0, -len(shape))[k % 2], block, k=k))
                k += 1
    fail_if(run_all(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_block_at_least_the_extent(route):
    """``block_size >= shape[axis]``: one block along the axis (per-row
    parameters), including a block far larger than the extent."""
    cases = [op_case(route, op, shape, axis, block, k=k)
             for k, (shape, axis, block) in enumerate(
                 [((5, 16), 1, 16), ((5, 16), 1, 17), ((5, 16), 1, 1 << 40), ((16, 5), 0, 1000), ((7,), 0, 7)])
             for op in OPS]
    fail_if(run_all(cases))


INT8_ALL = np.arange(256, dtype=np.uint8)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dst", ["dequant-f32", "dequant-bf16"])
def test_dequant_every_input_every_pair(route, dst):
    """Every INT8 input under every Dequant pair of the sets (one block per
    pair: 17 blocks of 256 along the inner axis, and the transpose: blocks
    of 256 rows), shared and per-block zero points."""
    src, out = OPS[dst]
    inner = np.tile(INT8_ALL, (2, 17))                             # (2, 4352): 17 blocks of 256 per row
    cases = [make_case(route, inner.shape, src, out, 1, 256, values=inner, k=3),
             make_case(route, inner.T.shape, src, out, 0, 256, values=np.ascontiguousarray(inner.T), k=4),
             make_case(route, inner.shape, src, out, 1, 256, values=inner, k=5, shared_zp=16777217)]
    fail_if(run_cases(cases))


PATTERNS16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", ["bf16", "f16"])
def test_quant_every_16bit_pattern(input, mode):
    """Every BF16 / FP16 pattern under blocks of every Quant pair: 13
    blocks of 65536 along the inner axis and along the outer one, every
    route, default state and FTZ+DAZ."""
    dtype = {"bf16": BF16, "f16": F16}[input]
    row = np.tile(PATTERNS16, 13)
    cases = []
    for route in ROUTES:
        cases += [make_case(route, (1, row.size), dtype, I8, 1, 1 << 16, mode, values=row[None, :], k=0),
                  make_case(route, (row.size, 1), dtype, I8, 0, 1 << 16, mode, values=row[:, None], k=1)]
    fail_if(run_all(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_quant_16bit_sample_blocks_of_32(route):
    """Blocks of 32 (the LLM group size) over a (64, 1024) tensor of pool
    patterns (specials, ties and product boundaries of every multiplier of
    the sets), both axes, every rounding, default state and FTZ+DAZ."""
    cases = []
    for k, mode in enumerate(MODES):
        for dtype in (BF16, F16):
            cases.append(make_case(route, (64, 1024), dtype, I8, 1, 32, mode, k=k))
            cases.append(make_case(route, (1024, 64), dtype, I8, 0, 32, mode, k=k + 4))
    fail_if(run_all(cases))


@pytest.mark.parametrize("op", OPS)
def test_expectations_tell_blocks_apart(op):
    """The parameter arrays and inputs these tests draw make a wrong block
    size, a wrong axis or per-axis parameters visible: the oracle's bits
    for the drawn values differ (so a kernel that misplaced block
    boundaries would fail the tests above)."""
    from support.blocked_helpers import block_entries, expected, parameter_shape
    from support.axis_helpers import draw
    src, dst = OPS[op]
    mode = None if src is I8 else "nearest_even"
    for shape, axis, block in (((3, 70), 1, 32), ((70, 3), 0, 16), ((70,), 0, 17)):
        values = draw(src, shape, np.random.default_rng(7))
        bits, zps = block_entries(src, parameter_shape(shape, axis, block), 2)
        want = expected(src, dst, values, axis, block, bits, zps, mode)
        for other in (block - 1, block + 1):
            b2, z2 = block_entries(src, parameter_shape(shape, axis, other), 2)
            assert not np.array_equal(want, expected(src, dst, values, axis, other, b2, z2, mode)), (shape, other)
