"""Self-tests of the blocked oracle (oracle/blocked.py) against things
independent of its bookkeeping: element-by-element loops over
``numpy.ndindex`` calling the per-tensor oracle with the parameters at the
element's index with ``index[axis] // block_size``, hand-worked literals
(the parameter shapes of API.md's rule, a partial last block) and its
argument checks.  The package under test is not imported here."""

from __future__ import annotations

import numpy as np
import pytest

from . import BFLOAT16, BINARY16, BINARY32, ROUNDING_MODES, dequant_bf16, dequant_f32, quant
from .blocked import dequant_blocked, parameter_index_of, parameter_shape, quant_blocked
from .test_axis_oracle import DEQUANT_ZPS, MULTIPLIERS, QUANT_ZPS, SCALES  # the per-axis self-tests' edges


def random_case(rng, max_rank=4):
    rank = int(rng.integers(1, max_rank + 1))
    shape = tuple(int(e) for e in rng.integers(1, 7, size=rank))
    axis = int(rng.integers(-rank, rank))
    block = int(rng.integers(1, shape[axis] + 2))
    pshape = tuple(-(-e // block) if d == axis % rank else e for d, e in enumerate(shape))
    return shape, axis, block, pshape


def test_parameter_shape_literals():
    assert parameter_shape((7,), 0, 3) == (3,)
    assert parameter_shape((7,), -1, 7) == (1,)
    assert parameter_shape((7,), 0, 100) == (1,)
    assert parameter_shape((4, 130), 1, 32) == (4, 5)
    assert parameter_shape((4, 130), -2, 3) == (2, 130)
    assert parameter_shape((2, 3, 65), 2, 1) == (2, 3, 65)
    assert parameter_shape((2, 0, 5), 1, 4) == (2, 0, 5)


def test_parameter_index_literals():
    rows, cols = parameter_index_of((2, 7), 1, 3)
    assert rows.tolist() == [[0] * 7, [1] * 7]
    assert cols.tolist() == [[0, 0, 0, 1, 1, 1, 2]] * 2          # the last block holds one element
    (only,) = parameter_index_of((5,), -1, 2)
    assert only.tolist() == [0, 0, 1, 1, 2]


@pytest.mark.parametrize("output", ["float32", "bfloat16"])
def test_dequant_blocked_is_the_per_tensor_oracle_per_element(output):
    rng = np.random.default_rng(0xB0)
    single = dequant_f32 if output == "float32" else dequant_bf16
    for _ in range(25):
        shape, axis, block, pshape = random_case(rng)
        scales = np.array(SCALES, np.uint32)[rng.integers(0, len(SCALES), pshape)]
        zps = np.array(DEQUANT_ZPS, np.int64)[rng.integers(0, len(DEQUANT_ZPS), pshape)]
        q = rng.integers(-128, 128, size=shape).astype(np.int8)
        got = dequant_blocked(q, axis, block, scales, zps, output)
        a = axis % len(shape)
        for index in np.ndindex(*shape):
            at = index[:a] + (index[a] // block,) + index[a + 1:]
            assert got[index] == single(int(q[index]), int(scales[at]), int(zps[at])), (shape, axis, block, index)
        assert np.array_equal(dequant_blocked(q.view(np.uint8), axis, block, scales, zps, output), got)
        shared = dequant_blocked(q, axis, block, scales, int(zps.reshape(-1)[0]), output)
        assert np.array_equal(shared, dequant_blocked(q, axis, block, scales, np.full(pshape, zps.reshape(-1)[0]),
                                                      output))


def _per_pattern(patterns, fmt, m, zp, mode):
    return [quant(int(b), fmt, m, zp, mode) for b in patterns]


@pytest.mark.parametrize("fmt", [BINARY32, BFLOAT16, BINARY16], ids=lambda f: f.name)
def test_quant_blocked_is_the_per_tensor_oracle_per_element(fmt):
    rng = np.random.default_rng(0xB1)
    width = 32 if fmt is BINARY32 else 16
    for k in range(20):
        shape, axis, block, pshape = random_case(rng, 3)
        mults = np.array(MULTIPLIERS, np.uint32)[rng.integers(0, len(MULTIPLIERS), pshape)]
        zps = np.array(QUANT_ZPS, np.int64)[rng.integers(0, len(QUANT_ZPS), pshape)]
        x = rng.integers(0, 1 << width, size=shape, dtype=np.uint64).astype(np.uint32 if width == 32 else np.uint16)
        mode = ROUNDING_MODES[k % len(ROUNDING_MODES)]
        got = quant_blocked(x, fmt, axis, block, mults, zps, mode, many=_per_pattern)  # (no whole-format tables)
        a = axis % len(shape)
        for index in np.ndindex(*shape):
            at = index[:a] + (index[a] // block,) + index[a + 1:]
            want = quant(int(x[index]), fmt, int(mults[at]), int(zps[at]), mode)
            assert int(got[index]) == want, (shape, axis, block, index)


def test_literal_partial_block():
    """Dequant of 1..7 in blocks of 3 with scales 1, 2, 4: the last block
    holds the seventh element alone."""
    q = np.arange(1, 8, dtype=np.int8)
    got = dequant_blocked(q, 0, 3, np.array([0x3F800000, 0x40000000, 0x40800000], np.uint32), 0)
    assert got.view(np.float32).tolist() == [1, 2, 3, 8, 10, 12, 28]


def test_argument_checks():
    q = np.zeros((2, 5), np.int8)
    with pytest.raises(ValueError):
        dequant_blocked(q, 1, 2, np.full((2, 2), 0x3F800000, np.uint32))          # needs (2, 3)
    with pytest.raises(ValueError):
        dequant_blocked(q, 1, 0, np.full((2, 3), 0x3F800000, np.uint32))
    with pytest.raises(ValueError):
        dequant_blocked(q, 1, True, np.full((2, 5), 0x3F800000, np.uint32))
    with pytest.raises(ValueError):
        dequant_blocked(q, 2, 2, np.full((2, 3), 0x3F800000, np.uint32))
    with pytest.raises(ValueError):
        quant_blocked(q.astype(np.uint32), BINARY32, 1, 2, np.full((2, 3), 0x3F800000, np.uint32), 128)
    with pytest.raises(ValueError):
        quant_blocked(q.astype(np.uint32), BINARY32, 1, 2, np.full((2, 3), 0x3F800000, np.uint32),
                      np.zeros((2, 2), np.int64))
