"""Quant's vector fast paths at their edges, bit for bit against the oracle,
on every route (the edges are those of csrc/quant/quant_avx2.c and
quant_avx512.c; the other routes see ordinary inputs):

* the low bound under flush-to-zero/denormals-are-zero: T, the smallest
  normal input whose exact product reaches 2^-126 (computed here with
  Fractions), and its neighbours T-2..T+2, for multipliers that put T on
  format boundaries (the smallest normal, 1.0 for FP16), between them, and
  where T-1's product rounds up to 2^-126 (x86 may flush it: tininess
  before rounding);
* the high test: products at and next to +-2^31 (the "integer indefinite"
  conversion), +-2^30, -32768 and -32767.5 (the int16 saturation the test
  reads), NaN and infinities;
* each such value in every lane of a 64-element block of fast-path inputs,
  in the first, middle and last block of a 1024-element chunk and in later
  chunks (the chunk that holds it is gone over again);
* sizes around the blocks and the chunk, output addresses at several
  offsets modulo 64 (the streaming heads), and the streaming threshold
  forced low, at and next to the run's input and output bytes together
  (``lib.sk_stream_override``, restored in ``finally``); one slow test
  streams above the real threshold;
* all of these again through the every_other leaves of the vector routes
  (input a[::2], step 2, its gaps poisoned with NaNs, infinities, huge and
  subnormal values, its buffer ending at the last element).

Every output is framed by sentinel bytes that must stay untouched.
"""
from fractions import Fraction

import numpy as np
import pytest

import simakernels as sk
from support import oracle_store
from support.helpers import (ROUTES, SENTINEL, UINT, fail_if, fp_or_skip, mismatch_report, stream_override,
                             untouched_report)
from oracle import BINARY32, quant_many, value_of
from support.quant_helpers import (
    BF16,
    F16,
    F32,
    FORMAT,
    FTZ_DAZ,
    INPUTS,
    MODES,
    SPECIALS,
    f32_value,
    normal_neighbours,
    pow2,
    quant_plan,
    quant_request,
    table16,
    to_patterns,
)
from simakernels._ffi import lib

# The widest route's block (avx512: 64 elements; a lane sweep over it covers
# every lane of AVX2's 32-element blocks too) and chunk (1024 on both).
BLOCK, CHUNK = 64, 1024
MIN_NORMAL = {F32: 0x00800000, BF16: 0x0080, F16: 0x0400}
INFINITY = {F32: 0x7F800000, BF16: 0x7F80, F16: 0x7C00}
SIGN = {F32: 0x80000000, BF16: 0x8000, F16: 0x8000}
ENVIRONMENTS = {"default": None, "ftz-daz": FTZ_DAZ}


def low_bound(dtype: sk.DType, m: int) -> int:
    """T: the smallest normal magnitude whose exact product with ``m``
    reaches 2^-126, else the infinity's bits (exact rationals)."""
    fmt, mv, tiny = FORMAT[dtype], value_of(BINARY32, m), Fraction(1, 1 << 126)
    lo, hi = MIN_NORMAL[dtype], INFINITY[dtype]
    while lo < hi:
        mid = (lo + hi) // 2
        if value_of(fmt, mid) * mv >= tiny:
            hi = mid
        else:
            lo = mid + 1
    return lo


# (multiplier, why) per input: T on the smallest normal, on 1.0 (FP16),
# between binades, and T-1 whose product rounds up to 2^-126.
LOW_MULTIPLIERS = (
    (0x3F800000, "1.0: T is the smallest normal"),
    (0x3F7FFFFF, "1-2^-24: T-1's product rounds to 2^-126"),
    (0x3F800001, "1+2^-23"),
    (0x3E99999A, "0.3"),
    (pow2(-1), "2^-1"),
    (pow2(-20), "2^-20"),
    (pow2(-126), "2^-126: T is 1.0"),
    (0x00800001, "2^-126(1+2^-23)"),
    (0x0C000007, "2^-103 odd significand"),
    (0x7F7FFFFF, "max: T is the smallest normal"),
)


def fast_pool(dtype: sk.DType, m: int, count: int = 61) -> np.ndarray:
    """Inputs every route takes on its fast path (normal, products from
    2^-126 up, mostly in the INT8 range), and zeros of both signs."""
    pool = normal_neighbours(dtype, count, 77 + m % 1000, m)
    return np.concatenate([pool, np.array([0, SIGN[dtype]], dtype=UINT[dtype])])


def in_every_lane(pool: np.ndarray, specials, seed: int) -> np.ndarray:
    """For each special value and each lane 0..BLOCK-1: a block of pool values
    with that lane special, then a block of pool values; a 7-element tail."""
    rng = np.random.default_rng(seed)
    blocks = []
    for v in specials:
        for lane in range(BLOCK):
            block = pool[rng.integers(0, pool.size, 2 * BLOCK)]
            block[lane] = v
            blocks.append(block)
    blocks.append(pool[rng.integers(0, pool.size, 7)])
    return np.concatenate(blocks)


def run(route, dtype, m, zp, mode, values, env=None, out_offset=0, in_offset=0, step=1):
    """One execution of ``values`` with the output at ``out_offset`` bytes
    past a 64-byte boundary (and the input ``in_offset`` elements past one),
    framed by sentinels; a report or None.  The expectation is the oracle's,
    computed before the environment is entered.  ``step`` 2 lays the input
    out as every other element (a[::2], the vector routes' every_other leaves),
    the gaps holding NaNs, infinities, huge and subnormal values that must
    not influence any result; its buffer ends at the last element."""
    values = np.ascontiguousarray(values, dtype=UINT[dtype])
    n = values.size
    expected = expected_of(dtype, values, m, zp, mode)
    in_strides = None if step == 1 else (step * src_itemsize(dtype),)
    plan = quant_plan(quant_request((n,), dtype, m, zp, mode, in_strides), route)
    src_big = repeated(np.array(GAP_POISON[dtype], dtype=UINT[dtype]), step * n + in_offset + 64)
    start = (-src_big.ctypes.data // src_big.itemsize) % (64 // src_big.itemsize)
    src = src_big[start + in_offset: start + in_offset + step * (n - 1) + 1]
    src[::step] = values
    out_big = np.full(n + 128, SENTINEL, dtype=np.uint8)
    base = (-out_big.ctypes.data) % 64 + out_offset
    out = out_big[base: base + n]
    with (fp_or_skip(**env) if env else _nothing()):
        status = sk.a65.quant.execute(plan, [src], [out])
    what = f"{route} {dtype.name} m={m:#010x} zp={zp} {mode} n={n} out+{out_offset} in+{in_offset} step {step}"
    if status is not None:
        return f"{what}: {status}"
    gaps = np.ones(out_big.size, dtype=bool)
    gaps[base: base + n] = False
    problems = [mismatch_report(out_big[base: base + n], expected, values, what),
                untouched_report(out_big, SENTINEL, gaps, f"{what}: output frame")]
    return "\n".join(p for p in problems if p) or None


# The oracle's results by input set: every route, step and environment of a
# test runs the same inputs, and each test runs one input set under several
# parameters in a row, so a set's distinct patterns are found once for those
# calls and the oracle's results for them are memoised on disk
# (support/oracle_store), where the other routes and the emulated runs find
# what the first host run computed.
_DISTINCT: dict = {}


def expected_of(dtype: sk.DType, values: np.ndarray, m: int, zp: int, mode: str) -> np.ndarray:
    """The oracle's INT8 results (as bytes) for ``values``."""
    name = oracle_store.digest(values)
    if name not in _DISTINCT:
        _DISTINCT.clear()
        unique, inverse = np.unique(values, return_inverse=True)
        _DISTINCT[name] = unique, inverse.reshape(-1)
    unique, inverse = _DISTINCT[name]
    results = oracle_store.stored(
        f"quant_many {FORMAT[dtype].name} {oracle_store.digest(unique)} {m:#010x} {zp} {mode}", np.int8,
        unique.size, lambda: np.array(quant_many(unique.tolist(), FORMAT[dtype], m, zp, mode), dtype=np.int8))
    return results[inverse].view(np.uint8)


# Gap values for step-2 inputs: quiet and signalling NaNs, infinities, the
# largest finite values, subnormals, 1.0.
GAP_POISON = {F32: (0x7FC00001, 0x7F800001, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0x807FFFFF, 0x3F800000),
              BF16: (0x7FC1, 0x7F81, 0xFF80, 0x7F7F, 0x0001, 0x807F, 0x3F80),
              F16: (0x7E01, 0x7C01, 0xFC00, 0x7BFF, 0x0001, 0x83FF, 0x3C00)}
# Steps per route: 2 (every other element) where the route reads it in place.
STEPS = {route: (1, 2) if route in ("avx512", "avx2") else (1,) for route in ROUTES}
ROUTE_STEPS = [(route, step) for route in ROUTES for step in STEPS[route]]
ROUTE_STEP_IDS = [f"{route}-step{step}" for route, step in ROUTE_STEPS]


def repeated(a: np.ndarray, size: int) -> np.ndarray:
    """``numpy.resize(a, size)`` for a 1-D ``a`` (its repeats, cut to
    ``size``), without its cost for a short ``a`` and a large ``size``."""
    return np.tile(a, -(-size // a.size))[:size].copy()


def src_itemsize(dtype: sk.DType) -> int:
    return 4 if dtype is F32 else 2


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


stream_threshold = stream_override


# ------------------------------------------------------------- low bound


def test_low_bound_examples():
    """T by hand for a few multipliers (checks low_bound itself)."""
    assert low_bound(F32, 0x3F800000) == 0x00800000
    assert low_bound(BF16, 0x3F800000) == 0x0080
    assert low_bound(F16, 0x3F800000) == 0x0400
    assert low_bound(F32, 0x3F7FFFFF) == 0x00800001     # 2^-126 (1 - 2^-24) < 2^-126
    assert low_bound(F16, pow2(-126)) == 0x3C00          # 1.0
    assert low_bound(F32, pow2(-1)) == 0x01000000        # 2^-125
    assert low_bound(F32, 0x7F7FFFFF) == 0x00800000


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route,step", ROUTE_STEPS, ids=ROUTE_STEP_IDS)
def test_inputs_at_and_next_to_the_low_bound(route, step, input, env):
    """T-2..T+2 of both signs (kept finite and nonzero), and the largest
    subnormal, in every lane of a block, for each multiplier, every mode."""
    dtype = INPUTS[input]
    reports = []
    for m, why in LOW_MULTIPLIERS:
        t = low_bound(dtype, m)
        near = [a for a in range(t - 2, t + 3) if 0 < a < INFINITY[dtype]] + [MIN_NORMAL[dtype] - 1]
        specials = near + [a | SIGN[dtype] for a in near]
        values = in_every_lane(fast_pool(dtype, m), specials, seed=t)
        for mode in MODES:
            r = run(route, dtype, m, -7, mode, values, ENVIRONMENTS[env], step=step)
            reports.append(r and f"[{why}, T={t:#x}] {r}")
    fail_if(reports)


# ------------------------------------------------------------- high test

HIGH_MULTIPLIERS = {F32: (0x3F800000, 0x3E99999A, pow2(10)), BF16: (0x3F800000, 0x3E99999A, pow2(-1)),
                    F16: (pow2(16), pow2(17) + 0x1234, pow2(20))}
HIGH_PRODUCTS = (2.0 ** 31, 2.0 ** 30, 2.0 ** 31 - 128, 32768.0, 32767.5, 32767.0, 32768.5, 2.0 ** 24)


def high_values(dtype: sk.DType, m: int) -> list:
    """Inputs whose products lie at and one or two ulps around the named
    products, both signs, plus NaNs and infinities."""
    mv = f32_value(m)
    t = np.array(HIGH_PRODUCTS + tuple(-p for p in HIGH_PRODUCTS)) / mv
    centre = to_patterns(dtype, t).astype(np.int64)
    near = (centre[:, None] + np.arange(-2, 3)[None, :]).reshape(-1)
    magnitude = near & ~SIGN[dtype]
    near = near[(magnitude > 0) & (magnitude < INFINITY[dtype]) & ((near ^ centre.repeat(5)) & SIGN[dtype] == 0)]
    specials = [s for s in SPECIALS[dtype] if (s & ~SIGN[dtype]) >= INFINITY[dtype]]
    return sorted(set(near.tolist())) + specials


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route,step", ROUTE_STEPS, ids=ROUTE_STEP_IDS)
def test_products_around_the_high_test(route, step, input, env):
    dtype = INPUTS[input]
    reports = []
    for m in HIGH_MULTIPLIERS[dtype]:
        values = in_every_lane(fast_pool(dtype, m), high_values(dtype, m), seed=m & 0xFFFF)
        for mode in MODES:
            for zp in (-128, 5, 127):
                reports.append(run(route, dtype, m, zp, mode, values, ENVIRONMENTS[env], step=step))
    fail_if(reports)


# ------------------------------------------------------------ chunks


def chunk_values(dtype: sk.DType, m: int, bad: int) -> np.ndarray:
    """Five chunks and a bit of fast-path inputs with single exceptional
    lanes: none in chunk 0, the first and last lane of chunk 1, the first
    lane of chunk 2's last block, chunk 3's middle, the last full block,
    the tail."""
    pool = fast_pool(dtype, m)
    n = 5 * CHUNK + 3 * BLOCK + 7
    values = pool[np.random.default_rng(bad).integers(0, pool.size, n)]
    for where in (CHUNK, 2 * CHUNK - 1, 3 * CHUNK - BLOCK, 3 * CHUNK + CHUNK // 2 + 5,
                  n - 7 - BLOCK + 17, n - 3):
        values[where] = bad
    return values


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route,step", ROUTE_STEPS, ids=ROUTE_STEP_IDS)
def test_exceptional_lanes_in_later_chunks(route, step, input, env):
    dtype = INPUTS[input]
    m = 0x3E99999A if dtype is not F16 else pow2(16)
    t = low_bound(dtype, m)
    bads = [INFINITY[dtype] | SIGN[dtype], INFINITY[dtype] + 1, t - 1, 1, *high_values(dtype, m)[:3]]
    reports = []
    for bad in bads:
        for mode in MODES:
            reports.append(run(route, dtype, m, 3, mode, chunk_values(dtype, m, bad), ENVIRONMENTS[env],
                                  step=step))
    fail_if(reports)


# ------------------------------------------- sizes, offsets, streaming

SIZES = (31, 32, 33, 63, 64, 65, 95, 97, 127, 128, 129, 1023, 1024, 1025, 1056, 1057, 2047, 2048, 2080, 3100)
OFFSETS = (0, 1, 7, 16, 31, 33, 63)  # the streaming head: 32-byte (avx2), 64-byte (avx512)


@pytest.mark.parametrize("stream", ["default", "tiny", "at-size"])
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route,step", ROUTE_STEPS, ids=ROUTE_STEP_IDS)
def test_sizes_offsets_and_streaming(route, step, input, stream):
    """Every size and output offset, with the streaming threshold as built,
    forced to 1 byte (every block streams after an aligned head) and to
    the run's bytes (input read, step included, and output) and their
    neighbours; fast-path data with some exceptional lanes."""
    dtype = INPUTS[input]
    m = 0x3E99999A if dtype is not F16 else pow2(3)
    pool = np.concatenate([fast_pool(dtype, m), np.array(SPECIALS[dtype], dtype=UINT[dtype])])
    reports = []
    for n in SIZES:
        values = pool[np.random.default_rng(n).integers(0, pool.size, n)]
        clean = fast_pool(dtype, m)[np.random.default_rng(n + 1).integers(0, 63, n)]
        for k, offset in enumerate(OFFSETS):
            run_bytes = n * (step * dtype.itemsize + 1)
            thresholds = {"default": [0], "tiny": [1], "at-size": [run_bytes - 1, run_bytes, run_bytes + 1]}[stream]
            for nbytes in thresholds:
                mode = MODES[(n + k + nbytes) % 4]
                with stream_threshold(nbytes):
                    for data in (values, clean):
                        reports.append(run(route, dtype, m, -3, mode, data, out_offset=offset,
                                           in_offset=k % 3, step=step))
    fail_if(reports)


@pytest.mark.parametrize("route,step", ROUTE_STEPS, ids=ROUTE_STEP_IDS)
def test_streaming_under_ftz_daz(route, step):
    """The streamed blocks with the low test (FTZ/DAZ), every input."""
    reports = []
    for _input, dtype in INPUTS.items():
        m = 0x3F7FFFFF if dtype is not F16 else pow2(-126)
        t = low_bound(dtype, m)
        values = in_every_lane(fast_pool(dtype, m), [t - 1, t, 1], seed=5)
        with stream_threshold(1):
            for mode in MODES:
                reports.append(run(route, dtype, m, 0, mode, values, FTZ_DAZ, out_offset=9, step=step))
    fail_if(reports)


def test_stream_override_restores_the_default():
    default = lib.sk_stream_min_bytes()
    with stream_threshold(12345):
        assert lib.sk_stream_min_bytes() == 12345
    assert lib.sk_stream_min_bytes() == default >= 16 << 20


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES)
def test_streaming_above_the_real_threshold(route):
    """A BF16 tensor whose input and output bytes exceed
    sk_stream_min_bytes() (every pattern, shuffled, repeated), expected
    from the exhaustive oracle table."""
    n = lib.sk_stream_min_bytes() // 3 + 45
    m, zp, mode = 0x3E99999A, -9, "toward_positive"
    every = np.random.default_rng(9).permutation(1 << 16).astype(np.uint16)
    values = np.resize(every, n)
    expected = table16(BF16, m, zp, mode)[values].view(np.uint8)
    plan = quant_plan(quant_request((n,), BF16, m, zp, mode), route)
    out_big = np.full(n + 64, SENTINEL, dtype=np.uint8)
    out = out_big[5: 5 + n]
    assert sk.a65.quant.execute(plan, [values], [out]) is None
    bad = np.flatnonzero(out != expected)
    assert bad.size == 0, f"{bad.size} mismatches, first at {bad[:5]}"
    assert (out_big[:5] == SENTINEL).all() and (out_big[5 + n:] == SENTINEL).all()
