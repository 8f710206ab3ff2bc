"""The block axis outside the inner run, rows that share their entries:
in an (E, C) tensor blocked along axis 0 every row of a block takes the
same C consecutive entries, and the NEON route converts them a strip of
columns at a time down a group of rows (its rows leaves), the strip's
parameters held in registers.  Run lengths C around the 16- and
32-column strips (and shorter than a strip), blocks of rows around the
16-row groups with a partial last block, dense and padded rows (the row
pitch beyond the run: sentinel gaps), every operation, Quant's four
roundings, also under FTZ+DAZ; Dequant also with every zero point in the
INT8 range (NEON's narrow form; the parameter sets' wide zero points
otherwise make the staged form run).  The per-axis channel axis inner
shares its table positions along rows the same way (tests/axis covers
it; here its narrow Dequant tables).  Every route runs the cases (the
others take the periodic leaf row by row: the same expected bits, from
the oracle, tests/oracle/blocked.py and tests/oracle/axis.py)."""
import pytest

import simakernels as sk
from support import axis_helpers
from support.blocked_helpers import DEQUANT_NARROW, OPS, op_case
from blocked.test_blocked_numerics import run_all
from support.helpers import I8, ROUTES, fail_if

RUNS = (1, 15, 16, 17, 31, 32, 33, 48, 63, 65, 100)
ROW_BLOCKS = (1, 15, 16, 17, 33)


def test_cases_share_entries_along_rows():
    """White-box check of the aim: the walk's block axis is its fastest
    outer axis (where rows of a block share their entries), dense and
    padded."""
    for in_el in (None, (40, 1)):
        walk = op_case(ROUTES[0], "quant-f32", (35, 37), 0, 17, in_el).plan._native.walk
        assert (walk.block, walk.block_at, walk.outer_rank, walk.run_length) == (17, 0, 1, 37)


@pytest.mark.parametrize("route", ROUTES)
def test_rows_of_a_block_share_entries(route):
    cases, k = [], 0
    for c in RUNS:
        for block in ROW_BLOCKS:
            padded = k % 2 == 1
            in_el, out_el = ((c + 3, 1), (c + 5, 1)) if padded else (None, None)
            for op in OPS:
                cases.append(op_case(route, op, (2 * block + 1, c), 0, block, in_el, out_el, k=k))
                k += 1
    fail_if(run_all(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_rows_with_narrow_zero_points(route):
    """Dequant, both outputs: blocked along axis 0 and per axis along
    axis 1, each entry's zero point in the INT8 range and the entries'
    zero points differing within a strip."""
    cases, k = [], 0
    for c in RUNS:
        for dst in (sk.DType.FLOAT32, sk.DType.BFLOAT16):
            padded = k % 2 == 1
            in_el, out_el = ((c + 3, 1), (c + 5, 1)) if padded else (None, None)
            op = "dequant-f32" if dst is sk.DType.FLOAT32 else "dequant-bf16"
            cases.append(op_case(route, op, (35, c), 0, 17, in_el, out_el, k=k, narrow=True))
            r = k % len(DEQUANT_NARROW)
            params = axis_helpers.channels(DEQUANT_NARROW[r:] + DEQUANT_NARROW[:r], c)
            cases.append(axis_helpers.make_case(route, (21, c), I8, dst, 1, params, None,
                                                axis_helpers.byte_strides(in_el, I8),
                                                axis_helpers.byte_strides(out_el, dst), seed=k))
            k += 1
    fail_if(run_all(cases))
