"""The range pass of choose_qparams (csrc/range) on every route against the
keys by their definition (range_support.expected_keys): every BF16 and
FP16 pattern, FP32 around every exponent boundary, non-finite and tiny
values in every lane of a block, sizes around every block and cutoff, and
FP states that must not matter."""
from __future__ import annotations

import numpy as np
import pytest

import simakernels as sk
from support.helpers import fp_or_skip
from simakernels import qparams
from support.range_helpers import FORMATS, ROUTES, blocks, check, edges, expected_keys, forced, from_bits, native_keys

NAMES = tuple(FORMATS)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["bf16", "f16"])
def test_every_16bit_pattern(route, name):
    patterns = from_bits(np.arange(1 << 16), name)
    check(patterns, None, route)                        # all in one tensor
    check(patterns.reshape(-1, 1), 0, route)            # each alone: one channel each (the periodic leaf)
    check(np.repeat(patterns.reshape(-1, 1), 3, axis=1), 0, route)   # each alone in runs of three
    rng = np.random.default_rng(16)
    check(patterns[rng.permutation(1 << 16)].reshape(256, 256), 1, route)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["bf16", "f16"])
def test_every_16bit_pattern_as_the_extreme(route, name):
    """Each pattern in a tensor of small values: it is the extreme unless it
    is non-finite, whatever lane it lands in."""
    n = 1 << 16
    width = blocks(route, name)[1] or 64
    rows = np.full((n, width), 0x0001, np.uint64)     # the least positive subnormal
    rows[np.arange(n), np.arange(n) % width] = np.arange(n)
    check(from_bits(rows, name), 0, route)


def f32_boundaries():
    out = []
    for sign in (0, 1):
        for exponent in range(256):
            for fraction in (0, 1, 2, 0x400000, 0x7FFFFE, 0x7FFFFF):
                out.append(sign << 31 | exponent << 23 | fraction)
    return np.array(out, np.uint64)


@pytest.mark.parametrize("route", ROUTES)
def test_f32_exponent_boundaries(route):
    patterns = from_bits(f32_boundaries(), "f32")
    check(patterns, None, route)
    check(patterns.reshape(-1, 1), 0, route)
    check(np.repeat(patterns.reshape(-1, 1), 5, axis=1), 0, route)
    rng = np.random.default_rng(32)
    for _ in range(20):   # random subsets: each an extreme somewhere
        check(patterns[rng.choice(patterns.size, size=37)], None, route)


SPECIALS = {
    "f32": (0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x7F800001, 0xFFFFFFFF, 0x7F7FFFFF, 0xFF7FFFFF,
            0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x80000000),
    "bf16": (0x7FC0, 0xFFC0, 0x7F80, 0xFF80, 0x7F81, 0xFFFF, 0x7F7F, 0xFF7F, 0x0001, 0x8001, 0x007F, 0x807F, 0x8000),
    "f16": (0x7E00, 0xFE00, 0x7C00, 0xFC00, 0x7C01, 0xFFFF, 0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x8000),
}
# Small normal values around which each special is the extreme (or left out).
BASE = {"f32": (0x3F800000, 0x3E000000, 0xBF000000), "bf16": (0x3F80, 0x3E00, 0xBF00),
        "f16": (0x3C00, 0x3000, 0xB800)}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_specials_in_every_lane(route, name):
    iteration, check_block, _ = blocks(route, name)
    span = max(check_block, iteration, 16)
    n = 2 * span + iteration + 3                          # two checked blocks, the masked iterations, a tail
    rng = np.random.default_rng(7)
    for base_kind in ("normal", "zero"):
        base = np.zeros(n, np.uint64) if base_kind == "zero" else rng.choice(np.array(BASE[name], np.uint64), n)
        tensor = np.tile(base, (len(SPECIALS[name]), 1))   # one row (channel) per special
        for position in range(n):
            rows = tensor.copy()
            rows[:, position] = SPECIALS[name]
            x = from_bits(rows, name)
            check(x, 0, route)
            if position < span + 1:   # per tensor, each special alone with the base
                for special in SPECIALS[name][:6]:
                    row = base.copy()
                    row[position] = special
                    check(from_bits(row, name), None, route)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_sizes_around_blocks(route, name):
    rng = np.random.default_rng(11)
    specials = np.array(SPECIALS[name], np.uint64)
    word = FORMATS[name][1]
    for n in edges(route, name):
        bits = rng.integers(0, np.iinfo(word).max, size=n, dtype=np.uint64, endpoint=True)
        check(from_bits(bits, name), None, route)
        finite = from_bits(bits, name)
        finite = finite[np.isfinite(finite.astype(np.float32))]
        check(finite, None, route)
        if n:
            mixed = bits.copy()
            mixed[rng.integers(0, n, size=max(1, n // 50))] = rng.choice(specials, size=max(1, n // 50))
            check(from_bits(mixed, name), None, route)
            check(from_bits(mixed, name).reshape(1, n), 0, route)
            check(from_bits(np.tile(mixed, (3, 1)), name), 1, route)   # n channels, three runs each


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_empty_and_rank0(route, name):
    dtype = FORMATS[name][0]
    assert native_keys(np.zeros((0,), dtype), None, route) == ([0], [0])
    assert native_keys(np.zeros((3, 0), dtype), 0, route) == ([0, 0, 0], [0, 0, 0])
    assert native_keys(np.zeros((0, 3), dtype), 0, route) == ([], [])
    x = from_bits(np.array(SPECIALS[name][6]), name).reshape(())
    assert native_keys(x, None, route) == expected_keys(x, None)


STATES = {
    "ftz_daz": dict(flush_to_zero=True, denormals_are_zero=True),
    "upward": dict(rounding=sk.fenv.Rounding.UPWARD),
    "toward_zero_ftz": dict(rounding=sk.fenv.Rounding.TOWARD_ZERO, flush_to_zero=True),
    "traps": dict(traps=list(sk.fenv.Trap)),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("state", STATES)
def test_fp_state_does_not_matter(route, state):
    rng = np.random.default_rng(5)
    cases = []
    for name in NAMES:
        word = FORMATS[name][1]
        bits = rng.integers(0, np.iinfo(word).max, size=(7, 1301), dtype=np.uint64, endpoint=True)
        bits[:, ::101] = np.array(SPECIALS[name], np.uint64)
        sign = np.uint64(1) << np.uint64(8 * np.dtype(word).itemsize - 1)
        signs = np.arange(7, dtype=np.uint64)[:, None] % 2 * sign
        tiny = rng.integers(0, 16, size=(7, 1301), dtype=np.uint64) | signs
        for x in (from_bits(bits, name), from_bits(tiny, name)):
            cases += [(x, axis, expected_keys(x, axis)) for axis in (None, 0)] + [(x.T, 0, expected_keys(x.T, 0))]
    with forced(route):
        with fp_or_skip(**STATES[state]):
            got = [qparams._keys(x, axis) for x, axis, _ in cases]
    for (x, axis, want), (least, greatest) in zip(cases, got):
        assert (least.tolist(), greatest.tolist()) == want, (x.dtype, axis)


# Non-finite values whose sign matches the extreme beside them.
BESIDE = {
    "f32": ((0x7F800000, 0x7F7FFFFF), (0x7FC00001, 0x7F7FFFFF), (0xFF800000, 0xFF7FFFFF), (0xFFFFFFFF, 0xFF7FFFFF)),
    "bf16": ((0x7F80, 0x7F7F), (0x7FC1, 0x7F7F), (0xFF80, 0xFF7F), (0xFFFF, 0xFF7F)),
    "f16": ((0x7C00, 0x7BFF), (0x7E01, 0x7BFF), (0xFC00, 0xFBFF), (0xFFFF, 0xFBFF)),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_special_beside_the_extreme_in_its_lane(route, name):
    """A non-finite value and the finite extreme of the same sign in the same
    vector lane (one iteration apart) of one block, at every position: a
    fold that drops the non-finite value's lane, or keeps it, is caught."""
    iteration, check_block, _ = blocks(route, name)
    block = check_block or 4 * max(iteration, 16)
    step = max(iteration, 16)
    n = block + step
    rows = np.full((len(BESIDE[name]), n), BASE[name][1], np.uint64)
    for position in range(block):
        x = rows.copy()
        for r, (special, extreme) in enumerate(BESIDE[name]):
            x[r, position] = special
            x[r, (position + step) % block] = extreme
        check(from_bits(x, name), 0, route)
        check(from_bits(x[:1], name), None, route)
