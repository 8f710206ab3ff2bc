"""Self-tests of the per-axis oracle (oracle/axis.py) against things
independent of its bookkeeping: element-by-element loops over
``numpy.ndindex`` calling the per-tensor oracle with the element's own
channel parameters, hand-worked literals, and its argument checks.  The
package under test is not imported here."""

from __future__ import annotations

import numpy as np
import pytest

from . import BFLOAT16, BINARY16, BINARY32, ROUNDING_MODES, dequant_bf16, dequant_f32, quant
from .axis import channel_of, dequant_axis, quant_axis

SCALES = (0x3E99999A, 0x3D800000, 0x00000001, 0x7F7FFFFF, 0x3F800000, 0x4037CED9)
DEQUANT_ZPS = (0, -128, 127, 40000, 16777217, -(2**31), 2**31 - 1)
MULTIPLIERS = (0x3F800000, 0x3E99999A, 0x3F000000, 0x00400000, 0x7F7FFFFF, 0x3F808000)
QUANT_ZPS = (-128, 127, 0, -3, 17)


def random_case(rng, max_rank=4):
    rank = int(rng.integers(1, max_rank + 1))
    shape = tuple(int(e) for e in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank, rank))
    return shape, axis, shape[axis]


def test_channel_of_is_the_index_along_the_axis():
    for shape, axis in (((3,), 0), ((2, 3), 1), ((2, 3), -2), ((2, 3, 4), 1), ((4, 1, 2, 3), -1), ((0, 3), 1)):
        got = channel_of(shape, axis)
        assert got.shape == shape
        assert np.array_equal(got, np.indices(shape)[axis % len(shape)])


@pytest.mark.parametrize("output", ["float32", "bfloat16"])
def test_dequant_axis_is_the_per_tensor_oracle_per_element(output):
    rng = np.random.default_rng(0xD0)
    single = dequant_f32 if output == "float32" else dequant_bf16
    for _ in range(25):
        shape, axis, count = random_case(rng)
        scales = [SCALES[i] for i in rng.integers(0, len(SCALES), count)]
        zps = [DEQUANT_ZPS[i] for i in rng.integers(0, len(DEQUANT_ZPS), count)]
        q = rng.integers(-128, 128, size=shape).astype(np.int8)
        got = dequant_axis(q, axis, scales, zps, output)
        for index in np.ndindex(*shape):
            c = index[axis]
            assert got[index] == single(int(q[index]), scales[c], zps[c]), (shape, axis, index)
        # bytes and values give the same; one shared zero point
        assert np.array_equal(dequant_axis(q.view(np.uint8), axis, scales, zps, output), got)
        shared = dequant_axis(q, axis, scales, zps[0], output)
        assert np.array_equal(shared, dequant_axis(q, axis, scales, [zps[0]] * count, output))


def _per_pattern(patterns, fmt, m, zp, mode):
    return [quant(int(b), fmt, m, zp, mode) for b in patterns]


@pytest.mark.parametrize("fmt", [BINARY32, BFLOAT16, BINARY16], ids=lambda f: f.name)
def test_quant_axis_is_the_per_tensor_oracle_per_element(fmt):
    """Random tensors, axes and channel parameters (16-bit formats through
    the per-pattern hook here; the whole-format tables below)."""
    rng = np.random.default_rng(0xA0 + fmt.width)
    word = np.uint32 if fmt is BINARY32 else np.uint16
    for k in range(12):
        shape, axis, count = random_case(rng, 3)
        ms = [MULTIPLIERS[i] for i in rng.integers(0, len(MULTIPLIERS), count)]
        zps = [QUANT_ZPS[i] for i in rng.integers(0, len(QUANT_ZPS), count)]
        mode = ROUNDING_MODES[k % 4]
        x = rng.integers(0, 1 << fmt.width, size=shape, dtype=np.uint64).astype(word)
        got = quant_axis(x, fmt, axis, ms, zps, mode, many=None if fmt is BINARY32 else _per_pattern)
        assert got.dtype == np.int8 and got.shape == shape
        for index in np.ndindex(*shape):
            c = index[axis]
            assert got[index] == quant(int(x[index]), fmt, ms[c], zps[c], mode), (shape, axis, index)


@pytest.mark.parametrize("fmt", [BFLOAT16, BINARY16], ids=lambda f: f.name)
def test_quant_axis_whole_format_tables(fmt):
    """The default 16-bit path (per-tensor tables) agrees element by
    element, two channels, every pattern in each."""
    x = np.stack([np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)] * 2, axis=1)      # (65536, 2)
    ms, zps = [0x3E99999A, 0x00400000], [-3, 127]
    got = quant_axis(x, fmt, 1, ms, zps, "toward_negative")
    sample = np.random.default_rng(fmt.width).choice(1 << 16, 2000, replace=False)
    for i in sample.tolist():
        for c in (0, 1):
            assert got[i, c] == quant(i, fmt, ms[c], zps[c], "toward_negative"), (hex(i), c)


def test_literals():
    """By hand: the array layer's documented examples.  Dequant, axis 1,
    scales [0.5, 0.25], zero points [0, 4]: [[4, 4], [-4, 8]] ->
    [[2.0, 0.0], [-2.0, 1.0]].  Quant, axis 1, multipliers [10, 100],
    zero points [0, -50]: [[1.0, 1.0], [-2.0, 0.5]] -> [[10, 50], [-20, 0]]."""
    q = np.array([[4, 4], [-4, 8]], np.int8)
    got = dequant_axis(q, 1, [0x3F000000, 0x3E800000], [0, 4])
    assert got.tolist() == [[0x40000000, 0x00000000], [0xC0000000, 0x3F800000]]
    x = np.array([[0x3F800000, 0x3F800000], [0xC0000000, 0x3F000000]], np.uint32)
    assert quant_axis(x, BINARY32, 1, [0x41200000, 0x42C80000], [0, -50]).tolist() == [[10, 50], [-20, 0]]
    # axis 0 of the same data takes rows' parameters
    assert quant_axis(x, BINARY32, -2, [0x41200000, 0x42C80000], 0).tolist() == [[10, 10], [-128, 50]]


def test_argument_checks():
    q = np.zeros((2, 3), np.int8)
    with pytest.raises(ValueError):
        dequant_axis(q, 1, [0x3F800000] * 2)                  # one scale short
    with pytest.raises(ValueError):
        dequant_axis(q, 2, [0x3F800000] * 3)                  # axis outside the rank
    with pytest.raises(ValueError):
        dequant_axis(q, 1, [0x3F800000] * 3, [0, 0, 2**31])  # zero point beyond INT32
    with pytest.raises(ValueError):
        dequant_axis(q, 1, [0x3F800000, 0, 0x3F800000])      # scale zero
    with pytest.raises(ValueError):
        quant_axis(q.astype(np.uint16), BFLOAT16, -1, [0x3F800000] * 3, [0, 128, 0])
    with pytest.raises(ValueError):
        quant_axis(q.astype(np.uint16), BFLOAT16, -3, [0x3F800000] * 2)
    with pytest.raises(ValueError):
        quant_axis(q.astype(np.uint32), BINARY32, 0, [0x3F800000, 0x7F800000])   # infinite multiplier
    with pytest.raises(ValueError):
        quant_axis(q.astype(np.uint32), BINARY32, 0, [0x3F800000] * 2, 0, "nearest")
