"""Per-axis numerics, bit for bit, on every route: every INT8 input in every
channel of mixed-form Dequant parameter sets (both outputs), every BF16 and
FP16 pattern in every channel of Quant parameter sets (all four roundings),
and a large FP32 sample with its specials; each with the channel axis
outside the walk's inner run (outermost and in the middle: per-run kernel
entries and contexts) and as the inner run (merged with the slower axis:
parameter-vector leaves over the repeating table).  Quant runs again under
flush-to-zero and denormals-are-zero, which it admits, with the same
expected bits.

Expected bits come from the independent oracle (tests/oracle/axis.py: the
per-tensor oracle under each element's channel parameters), computed
before anything runs.  One pass per (parameter set, dtype, mode) with the
route loop inside."""
import numpy as np
import pytest

from support.axis_helpers import (
    DEQUANT_SETS,
    QUANT_SETS,
    axis_period,
    channels,
    expected,
    make_case,
    run_cases,
)
from support.helpers import BF16, F16, F32, I8, INPUT_FILL, ROUTES, SENTINEL, Storage, fail_if, plan_form
from support.quant_helpers import FTZ_DAZ, MODES, SPECIALS, f32_boundaries, f32_exponent_classes

OUTPUTS = {"f32": F32, "bf16": BF16}
INPUTS16 = {"bf16": BF16, "f16": F16}


def test_dequant_sets_cover_every_form():
    """Each Dequant set mixes forms; together they reach all five (the
    per-tensor choice for each channel's parameters)."""
    forms = {name: {plan_form(s, z) for s, z in params} for name, params in DEQUANT_SETS.items()}
    assert forms["forms"] == {"narrow", "narrow_pow2", "wide_pow2", "wide_unit", "wide"}, forms
    assert all(len(f) >= 4 for f in forms.values()), forms


def test_periods_restated():
    """The run lengths the layout tests aim at (axis.h's rule restated):
    a multiple of C and, when that stays within 64K, of the 16-lane block;
    at least 256."""
    assert [axis_period(c) for c in (1, 3, 16, 17, 100, 4097)] == [256, 288, 256, 272, 400, 4097]


# ----------------------------------------------------------------- layouts
# Arrangements of a (channel count, patterns per channel) tensor in which
# every channel sees every pattern: (name, shape, axis, values).  "outer":
# one run per channel; "middle": the channel axis between two others (runs
# of one channel each, the channel changing between runs of one plane);
# "inner": channels along the contiguous axis, merged with the slower one
# into one run (the channel is the flat index mod C).


def arrangements(count: int, patterns: np.ndarray, middle: int):
    n = patterns.size
    rolled = np.stack([np.roll(patterns, (4099 * c) % n) for c in range(count)])      # (C, n)
    out = [
        ("outer", (count, n), 0, rolled),
        ("inner", (n, count), -1, np.ascontiguousarray(rolled.T)),
    ]
    if middle and n % middle == 0:
        out.append(("middle", (middle, count, n // middle), -2,
                    np.ascontiguousarray(rolled.reshape(count, middle, n // middle).transpose(1, 0, 2))))
    return out


def test_arrangements_reach_both_walks():
    """White-box check of the aim (the plan's native walk): "outer" and
    "middle" keep the channel axis outside the inner run (one channel per
    run; "middle" merges the slower axis into the channel axis), "inner"
    makes it the inner run merged with the slower axis."""
    params = QUANT_SETS["ties"]
    seen = {}
    for name, shape, axis, _ in arrangements(len(params), np.arange(256, dtype=np.uint16), 16):
        walk = make_case(ROUTES[0], shape, BF16, I8, axis, params, "nearest_even").plan._native.walk
        seen[name] = (walk.channel == walk.outer_rank, int(walk.run_length), int(walk.runs))
    count = len(params)
    assert seen == {"outer": (False, 256, count), "middle": (False, 16, 16 * count), "inner": (True, 256 * count, 1)}


def exhaustive_cases(route_list, src_dtype, dst_dtype, params, mode, patterns, middle, shared_zp=None):
    """Cases for every arrangement on every route; each arrangement's
    input storage, output storage and expectation are shared by its routes."""
    cases = []
    for name, shape, axis, values in arrangements(len(params), patterns, middle):
        eff = params if shared_zp is None else tuple((v, shared_zp) for v, _ in params)
        want = expected(src_dtype, dst_dtype, values, axis, eff, mode)
        src = Storage.make(shape, src_dtype, excess=3, fill=INPUT_FILL)
        src.write(values.reshape(-1))
        dst = Storage.make(shape, dst_dtype, excess=9, fill=SENTINEL)
        for route in route_list:
            case = make_case(route, shape, src_dtype, dst_dtype, axis, params, mode, values=values, src=src,
                             dst=dst, want=want, shared_zp=shared_zp)
            case.what += f" {name}"
            cases.append(case)
    return cases


# ------------------------------------------------------------------ Dequant

INT8_ALL = np.arange(256, dtype=np.uint8)


@pytest.mark.parametrize("dst", OUTPUTS)
@pytest.mark.parametrize("pset", DEQUANT_SETS)
def test_dequant_exhaustive_int8(pset, dst):
    """All 256 INT8 inputs in every channel: the set's own channels, and
    the set repeated cyclically over 17 and 100 channels (tables of period
    272 and 400) and 4097 (period 4097: 16-lane blocks straddle the
    repeat), channel axis outer, in the middle and inner."""
    base = DEQUANT_SETS[pset]
    cases = []
    for count in (len(base), 17, 100):
        cases += exhaustive_cases(ROUTES, I8, OUTPUTS[dst], channels(base, count), None, INT8_ALL, 16)
    big = channels(base, 4097)
    values = np.stack([np.roll(INT8_ALL, c) for c in range(4097)])
    for shape, axis, v in (((4097, 256), 0, values), ((256, 4097), 1, np.ascontiguousarray(values.T))):
        want = expected(I8, OUTPUTS[dst], v, axis, big)
        src = Storage.make(shape, I8, excess=1, fill=INPUT_FILL)
        src.write(v.reshape(-1))
        dst_storage = Storage.make(shape, OUTPUTS[dst], excess=5)
        cases += [make_case(r, shape, I8, OUTPUTS[dst], axis, big, values=v, src=src, dst=dst_storage, want=want)
                  for r in ROUTES]
    fail_if(run_cases(cases))


@pytest.mark.parametrize("dst", OUTPUTS)
def test_dequant_exhaustive_shared_zero_point(dst):
    """``zero_points`` one integer for every channel (INT8-range and wide)."""
    cases = []
    for zp in (-128, 16777217):
        cases += exhaustive_cases(ROUTES, I8, OUTPUTS[dst], DEQUANT_SETS["forms"], None, INT8_ALL, 16, shared_zp=zp)
    fail_if(run_cases(cases))


# -------------------------------------------------------------------- Quant

PATTERNS16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", INPUTS16)
@pytest.mark.parametrize("pset", QUANT_SETS)
def test_quant_exhaustive_16bit(pset, input, mode):
    """Every pattern of the 16-bit format in every channel, outer / middle /
    inner, every route, in the default state and under FTZ+DAZ."""
    cases = exhaustive_cases(ROUTES, INPUTS16[input], I8, QUANT_SETS[pset], mode, PATTERNS16, 256)
    fail_if(run_cases(cases) + run_cases(cases, FTZ_DAZ, "ftz+daz"))


# 32 channels: 16 of the "ties" set, then 16 of the "tiny" one.  The inner
# run's 16-lane blocks (aligned to the run, which starts at channel 0)
# alternate between blocks of tie-making multipliers (the vector path, or
# the exact path where an input lane is NaN or subnormal) and blocks
# holding subnormal multipliers (always the exact path).
MIXED_BLOCKS = channels(QUANT_SETS["ties"], 16) + channels(QUANT_SETS["tiny"], 16)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", INPUTS16)
def test_quant_exhaustive_16bit_mixed_blocks(input, mode):
    dtype = INPUTS16[input]
    values = np.ascontiguousarray(np.stack([np.roll(PATTERNS16, 977 * c) for c in range(32)]).T)   # (65536, 32)
    shape = values.shape
    want = expected(dtype, I8, values, 1, MIXED_BLOCKS, mode)
    src = Storage.make(shape, dtype, excess=3, fill=INPUT_FILL)
    src.write(values.reshape(-1))
    dst = Storage.make(shape, I8, excess=9)
    cases = [make_case(r, shape, dtype, I8, 1, MIXED_BLOCKS, mode, values=values, src=src, dst=dst, want=want)
             for r in ROUTES]
    fail_if(run_cases(cases) + run_cases(cases, FTZ_DAZ, "ftz+daz"))


def f32_sample(params) -> np.ndarray:
    """Every biased exponent with 16 significands and both signs, the
    product boundaries (k and k + 0.5 for |k| <= 260, +-2 ulps) of each
    multiplier of the set, inputs whose products straddle 2^-126 for each
    multiplier, the specials and random patterns (every class); distinct,
    shuffled."""
    parts = [f32_exponent_classes(), np.array(SPECIALS[F32], dtype=np.uint32)]
    rng = np.random.default_rng(0xF32)
    for m in sorted({m for m, _ in params}):
        parts.append(f32_boundaries(m))
        mv = float(np.array(m, np.uint32).view(np.float32))
        edge = np.float64(2.0 ** -126) / mv
        if edge < 3.0e38:
            centre = np.array([edge, -edge], np.float64).astype(np.float32).view(np.uint32).astype(np.int64)
            parts.append(((centre[:, None] + np.arange(-3, 4)) & 0xFFFFFFFF).astype(np.uint32).reshape(-1))
    parts.append(rng.integers(0, 1 << 32, size=4096, dtype=np.uint64).astype(np.uint32))
    sample = np.unique(np.concatenate(parts))
    return rng.permutation(sample)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pset", QUANT_SETS)
def test_quant_f32_sample(pset, mode):
    """The FP32 sample in every channel, outer and inner (the middle
    arrangement needs a divisible length), every route, default and
    FTZ+DAZ."""
    params = QUANT_SETS[pset]
    cases = exhaustive_cases(ROUTES, F32, I8, params, mode, f32_sample(params), 0)
    fail_if(run_cases(cases) + run_cases(cases, FTZ_DAZ, "ftz+daz"))


# Channels with scales 2^-1 .. 2^-4 and INT8-range zero points (the
# narrow_pow2 form with a negative exponent, which the portable routes
# serve with the NARROW multiply) between channels of other forms.
NEGATIVE_POW2 = ((0x3F000000, 0), (0x4037CED9, -123), (0x3E800000, 5), (0x3E000000, -128), (0x3D800000, 127),
                 (0x3F800000, 40000))


@pytest.mark.parametrize("dst", OUTPUTS)
def test_dequant_negative_power_of_two_scales_per_run(dst):
    """Each channel's form must come with its own exponent: a per-run
    channel with scale 2^-k (k = 1..4) and an INT8-range zero point gives
    the staged expression's bits on every route (all 256 inputs)."""
    cases = exhaustive_cases(ROUTES, I8, OUTPUTS[dst], NEGATIVE_POW2, None, INT8_ALL, 16)
    assert {plan_form(s, z) for s, z in NEGATIVE_POW2[2:5]} == {"narrow_pow2"}
    fail_if(run_cases(cases))
