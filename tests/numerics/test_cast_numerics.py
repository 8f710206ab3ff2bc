"""Cast numerics, bit for bit, on every route: exhaustive BF16 -> FP32, FP32 ->
BF16 over every special class and random patterns, and hand-worked literals.

Expected bits come from the independent oracle (tests/oracle) or from the
literals below, worked by hand from the specification's unsigned rule
``(bits + 0x7fff + ((bits >> 16) & 1)) mod 2**32 >> 16``.
"""
import functools

import numpy as np
import pytest

from support.helpers import (
    BF16,
    F32,
    ROUTES,
    assert_bits_equal,
    bf16_table,
    oracle_f32_to_bf16,
    run_cast,
)
from oracle import bf16_to_f32, f32_to_bf16

# FP32 bits -> BF16 bits, each worked by hand: h = bits >> 16, l = bits & 0xffff;
# l < 0x8000 keeps h, l > 0x8000 gives h + 1, l == 0x8000 gives h + (h & 1);
# h + 1 == 0x10000 wraps to 0.
F32_TO_BF16_LITERALS = [
    (0x7F800001, 0x7F80),  # specification example: signaling NaN becomes +infinity
    (0xFFFFFFFF, 0x0000),  # specification example: high negative NaN payload wraps to +0
    (0x00000000, 0x0000),  # +0
    (0x80000000, 0x8000),  # -0
    (0x3F800000, 0x3F80),  # 1.0 exact
    (0xBF800000, 0xBF80),  # -1.0 exact
    (0x3F808000, 0x3F80),  # tie, kept word even: stays
    (0x3F818000, 0x3F82),  # tie, kept word odd: rounds up to even
    (0x3F807FFF, 0x3F80),  # just below half: down
    (0x3F808001, 0x3F81),  # just above half: up
    (0xBF818000, 0xBF82),  # negative tie to even (magnitude up)
    (0x40490FDB, 0x4049),  # pi: low half 0x0fdb < 0x8000
    (0x00000001, 0x0000),  # smallest FP32 subnormal underflows to +0
    (0x80000001, 0x8000),  # ... and to -0 when negative
    (0x00008000, 0x0000),  # tie at zero, kept word even
    (0x00008001, 0x0001),  # above half: smallest BF16 subnormal
    (0x00018000, 0x0002),  # subnormal tie, odd kept word: up
    (0x007FFFFF, 0x0080),  # largest FP32 subnormal rounds up to the smallest normal
    (0x807FFFFF, 0x8080),
    (0x00800000, 0x0080),  # smallest normal exact
    (0x7F7F7FFF, 0x7F7F),  # below half: BF16 max finite
    (0x7F7F8000, 0x7F80),  # tie at max finite (odd word): rounds to +infinity
    (0x7F7FFFFF, 0x7F80),  # FP32 max finite rounds to +infinity
    (0xFF7FFFFF, 0xFF80),  # ... and to -infinity
    (0xFF7F7FFF, 0xFF7F),  # BF16 lowest finite
    (0x7F800000, 0x7F80),  # +infinity
    (0xFF800000, 0xFF80),  # -infinity
    (0x7F807FFF, 0x7F80),  # signaling NaN below half: +infinity
    (0x7F808000, 0x7F80),  # signaling NaN tie, even word: +infinity
    (0x7F808001, 0x7F81),  # signaling NaN above half: stays a NaN
    (0x7F818000, 0x7F82),  # NaN tie, odd word: up
    (0x7FC00000, 0x7FC0),  # default quiet NaN
    (0xFFC00000, 0xFFC0),  # negative quiet NaN
    (0x7FC0FFFF, 0x7FC1),  # quiet NaN payload rounds up
    (0x7FFF7FFF, 0x7FFF),  # highest positive NaN word, below half
    (0x7FFF8000, 0x8000),  # odd word tie: 0x7fff + 1 = 0x8000, a positive NaN becomes -0
    (0x7FFFFFFF, 0x8000),  # ... likewise above half
    (0xFF800001, 0xFF80),  # negative signaling NaN becomes -infinity
    (0xFFFF7FFF, 0xFFFF),  # negative NaN below half keeps its word
    (0xFFFF8000, 0x0000),  # negative NaN tie wraps to +0
    (0xFFFE8000, 0xFFFE),  # even word tie: stays
]

# BF16 bits -> FP32 bits: the word moves to the upper half, the lower half is zero.
BF16_TO_F32_LITERALS = [
    (0x0000, 0x00000000), (0x8000, 0x80000000), (0x0001, 0x00010000), (0x8001, 0x80010000),
    (0x007F, 0x007F0000), (0x0080, 0x00800000), (0x3F80, 0x3F800000), (0xC049, 0xC0490000),
    (0x7F7F, 0x7F7F0000), (0x7F80, 0x7F800000), (0xFF80, 0xFF800000), (0x7F81, 0x7F810000),
    (0x7FC0, 0x7FC00000), (0xFFFF, 0xFFFF0000), (0x7FFF, 0x7FFF0000), (0xFF81, 0xFF810000),
]

# Lower halves that sit on every rounding boundary; paired with every upper
# half they cover every special class: NaN payloads of both signs, infinities,
# subnormals, signed zeros, ties, values rounding up to infinity, max finite.
BOUNDARY_LOWS = (0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF)


@functools.lru_cache(maxsize=1)
def special_sweep():
    highs = np.arange(1 << 16, dtype=np.uint32) << 16
    inputs = (highs[:, None] | np.array(BOUNDARY_LOWS, dtype=np.uint32)[None, :]).reshape(-1)
    return inputs, oracle_f32_to_bf16(inputs)


@functools.lru_cache(maxsize=None)
def random_sweep(seed: int, count: int):
    rng = np.random.default_rng(seed)
    inputs = rng.integers(0, 1 << 32, size=count, dtype=np.uint64).astype(np.uint32)
    return inputs, oracle_f32_to_bf16(inputs)


def test_literals_agree_with_oracle():
    """The hand-worked literals and the independent oracle tell the same story."""
    for bits, expected in F32_TO_BF16_LITERALS:
        assert f32_to_bf16(bits) == expected, f"{bits:#010x}"
    for bits, expected in BF16_TO_F32_LITERALS:
        assert bf16_to_f32(bits) == expected, f"{bits:#06x}"


@pytest.mark.parametrize("route", ROUTES)
def test_specification_examples(route):
    inputs = np.array([0x7F800001, 0xFFFFFFFF], dtype=np.uint32)
    expected = np.array([0x7F80, 0x0000], dtype=np.uint16)
    run_cast(route, (2,), F32, BF16, values=(inputs, expected))


@pytest.mark.parametrize("route", ROUTES)
def test_f32_to_bf16_literals(route):
    inputs = np.array([b for b, _ in F32_TO_BF16_LITERALS], dtype=np.uint32)
    expected = np.array([e for _, e in F32_TO_BF16_LITERALS], dtype=np.uint16)
    run_cast(route, inputs.shape, F32, BF16, values=(inputs, expected))
    # One at a time too, so each literal also goes through the scalar tail.
    for b, e in F32_TO_BF16_LITERALS:
        run_cast(route, (1,), F32, BF16, values=(np.array([b], np.uint32), np.array([e], np.uint16)))


@pytest.mark.parametrize("route", ROUTES)
def test_bf16_to_f32_literals(route):
    inputs = np.array([b for b, _ in BF16_TO_F32_LITERALS], dtype=np.uint16)
    expected = np.array([e for _, e in BF16_TO_F32_LITERALS], dtype=np.uint32)
    run_cast(route, inputs.shape, BF16, F32, values=(inputs, expected))


@pytest.mark.parametrize("route", ROUTES)
def test_bf16_to_f32_exhaustive(route):
    """All 65,536 BF16 patterns, dense."""
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    run_cast(route, inputs.shape, BF16, F32, values=(inputs, bf16_table()))


@pytest.mark.parametrize("route", ROUTES)
def test_bf16_to_f32_exhaustive_as_matrix(route):
    """All 65,536 patterns again through a 256 x 256 padded-row output."""
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    run_cast(route, (256, 256), BF16, F32, None, (4 * 259, 4), values=(inputs, bf16_table()))


def test_special_sweep_covers_every_class():
    """The sweep really contains each class named by the specification."""
    inputs, _ = special_sweep()
    exponent, fraction, sign = (inputs >> 23) & 0xFF, inputs & 0x7FFFFF, inputs >> 31
    nan = (exponent == 0xFF) & (fraction != 0)
    assert np.any(nan & (sign == 0)) and np.any(nan & (sign == 1))
    assert np.any((exponent == 0xFF) & (fraction == 0) & (sign == 0))
    assert np.any((exponent == 0xFF) & (fraction == 0) & (sign == 1))
    assert np.any((exponent == 0) & (fraction != 0))
    assert 0x00000000 in inputs and 0x80000000 in inputs
    assert 0x7F7FFFFF in inputs and 0xFF7FFFFF in inputs and 0x7F7F8000 in inputs
    assert np.count_nonzero((inputs & 0xFFFF) == 0x8000) == 1 << 16  # every tie


@pytest.mark.parametrize("route", ROUTES)
def test_f32_to_bf16_special_classes(route):
    """Every upper half with every boundary lower half (393,216 patterns)."""
    inputs, expected = special_sweep()
    run_cast(route, inputs.shape, F32, BF16, values=(inputs, expected))


@pytest.mark.parametrize("route", ROUTES)
def test_f32_to_bf16_random(route):
    inputs, expected = random_sweep(20240229, 1 << 18)
    run_cast(route, inputs.shape, F32, BF16, values=(inputs, expected))


@pytest.mark.parametrize("route", ROUTES)
def test_f32_to_bf16_random_strided(route):
    """Random patterns through a stepped input and a padded-row output."""
    inputs, expected = random_sweep(7, 64 * 1021)
    run_cast(route, (64, 1021), F32, BF16, (4 * 2 * 1021, 8), (2 * 1030, 2), values=(inputs, expected))


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_f32_to_bf16_random_large(route, seed):
    inputs, expected = random_sweep(seed, 1 << 20)
    run_cast(route, inputs.shape, F32, BF16, values=(inputs, expected))


def test_failure_report_is_in_hex():
    """The comparison helper reports index, input, expected and got in hex."""
    with pytest.raises(pytest.fail.Exception) as info:
        assert_bits_equal(
            np.array([0x7F80, 0x1234], np.uint16),
            np.array([0x7F80, 0x1235], np.uint16),
            np.array([0x7F800001, 0x12348000], np.uint32),
            "demo",
        )
    text = str(info.value)
    assert "index 1" in text and "0x12348000" in text and "0x1235" in text and "0x1234" in text
