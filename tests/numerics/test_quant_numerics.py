"""Quant numerics, bit for bit, on every route and in every rounding mode:
hand-worked literals (the specification's examples first), every BF16 and
FP16 pattern against multiplier profiles and zero points, FP32 exponent
classes, product ties and random samples, and blocks holding one exceptional
lane in each of the 16 positions (the exact path for that block, the fast
path around it) for all 12 (input dtype, rounding) entries.

Expected values come from the independent oracle (tests/oracle/quant.py)
or from the literals below, worked by hand from the ordered contract:
binary32 product (nearest-even, gradual underflow), integer rounding by the
mode, zero point added in a wide integer, saturation to [-128, 127].
"""
from fractions import Fraction

import numpy as np
import pytest

from support.helpers import ROUTES, fail_if, mismatch_report
from oracle import BFLOAT16, BINARY16, BINARY32, multiply_binary32, quant, quant_many, value_of
from support.quant_helpers import (
    BF16,
    CROSS_PROFILES,
    F16,
    F32,
    FORMAT,
    INPUTS,
    ISOLATED,
    MODES,
    PROFILES,
    QUICK16,
    ZERO_POINTS,
    Case,
    exhaustive16_cases,
    f32_random_case,
    f32_sweep_cases,
    isolated_cases,
    isolated_values,
    pow2,
    run_cases,
    table16_by_class,
)

# ------------------------------------------------------------------ literals

# (id, input dtype, input bits, multiplier bits, zero point,
#  (nearest_even, toward_zero, toward_positive, toward_negative)), by hand.
LITERALS = [
    # Specification: 15 x 0x3e99999a (0.300000011920928955078125) is exactly
    # 4.500000178813934...; binary32 spacing near 4.5 is 2^-21, so the
    # product rounds to 4.5 first: nearest-even 4, toward positive 5.
    ("spec-15x0.3", F32, 0x41700000, 0x3E99999A, 0, (4, 4, 5, 4)),
    ("spec-15x0.3-negative", F32, 0xC1700000, 0x3E99999A, 0, (-4, -4, -4, -5)),
    # Specification: 200 x 1.0 with zero point -100 is 100 (clipping 200 to
    # 127 before adding the zero point would give 27).
    ("spec-200-zp-100", F32, 0x43480000, 0x3F800000, -100, (100, 100, 100, 100)),
    ("-200-zp100", F32, 0xC3480000, 0x3F800000, 100, (-100, -100, -100, -100)),
    ("300-zp-128", F32, 0x43960000, 0x3F800000, -128, (127, 127, 127, 127)),       # 172 saturates
    ("-300-zp127", F32, 0xC3960000, 0x3F800000, 127, (-128, -128, -128, -128)),    # -173 saturates
    # Ties beyond the INT8 range pulled back in by the zero point.
    ("127.5-zp-1", F32, 0x42FF0000, 0x3F800000, -1, (127, 126, 127, 126)),         # 128 or 127, then -1
    ("-128.5-zp1", F32, 0xC3008000, 0x3F800000, 1, (-127, -127, -127, -128)),      # -128 or -129, then +1
    ("254.5-zp-128", F32, 0x437E8000, 0x3F800000, -128, (126, 126, 127, 126)),     # 254 / 255, then -128
    ("-254.5-zp127", F32, 0xC37E8000, 0x3F800000, 127, (-127, -127, -127, -128)),  # -254 / -255, then +127
    # Small ties and fractions.
    ("2.5", F32, 0x40200000, 0x3F800000, 0, (2, 2, 3, 2)),
    ("3.5", F32, 0x40600000, 0x3F800000, 0, (4, 3, 4, 3)),
    ("-2.5", F32, 0xC0200000, 0x3F800000, 0, (-2, -2, -2, -3)),
    ("0.5", F32, 0x3F000000, 0x3F800000, 0, (0, 0, 1, 0)),
    ("-0.5-zp7", F32, 0xBF000000, 0x3F800000, 7, (7, 7, 7, 6)),                    # -0 + 7 or -1 + 7
    ("2x0.3", F32, 0x40000000, 0x3E99999A, 0, (1, 0, 1, 0)),                       # 0.6000000238
    # (0.5 - 2^-25)(1 + 2^-23) = 0.5 + 2^-25 - 2^-48 lies below the midpoint
    # 0.5 + 2^-25 of the binary32 neighbours 0.5 and 0.5 + 2^-24: the product
    # is 0.5 and nearest-even gives 0 (the exact product would round to 1).
    ("double-rounding-0.5", F32, 0x3EFFFFFF, 0x3F800001, 0, (0, 0, 1, 0)),
    # Subnormal multipliers, inputs and products.
    ("multiplier-2^-149", F32, 0x3F800000, 0x00000001, -5, (-5, -5, -4, -5)),      # product 2^-149
    ("multiplier-2^-149-negative", F32, 0xBF800000, 0x00000001, 0, (0, 0, 0, -1)),
    ("input-2^-149-x-max", F32, 0x00000001, 0x7F7FFFFF, 0, (0, 0, 1, 0)),          # (2 - 2^-23) 2^-22
    ("max-subnormal-x-2^127", F32, 0x007FFFFF, pow2(127), 0, (2, 1, 2, 1)),        # 2 - 2^-22
    ("product-2^-127", F32, 0x00800000, 0x3F000000, 0, (0, 0, 1, 0)),              # 2^-126 x 0.5: subnormal
    ("product-minus-2^-127", F32, 0x80800000, 0x3F000000, 0, (0, 0, 0, -1)),
    ("bf16-2^-133-x-max", BF16, 0x0001, 0x7F7FFFFF, 0, (0, 0, 1, 0)),              # (2 - 2^-23) 2^-6
    ("bf16-2^-127-x-2^100", BF16, 0x0040, pow2(100), 0, (0, 0, 1, 0)),             # 2^-27
    ("bf16-tie-minus-128.5-zp1", BF16, 0xC300, 0x3F808000, 1, (-127, -127, -127, -128)),  # -128 x 257/256
    ("bf16-tie-128.5-zp-128", BF16, 0x4300, 0x3F808000, -128, (0, 0, 1, 0)),
    ("f16-2^-24-x-2^24", F16, 0x0001, pow2(24), 0, (1, 1, 1, 1)),
    ("f16-2^-24-x-2^23", F16, 0x0001, pow2(23), 0, (0, 0, 1, 0)),                  # 0.5
    ("f16-subnormal-negative", F16, 0x8003, pow2(23), 0, (-2, -1, -1, -2)),        # -1.5
    ("f16-max-subnormal-x-2^17", F16, 0x03FF, pow2(17), 0, (8, 7, 8, 7)),          # 1023/128
    ("f16-127.5-zp-1", F16, 0x57F8, 0x3F800000, -1, (127, 126, 127, 126)),
    ("f16-minus-128.5-zp1", F16, 0xD804, 0x3F800000, 1, (-127, -127, -127, -128)),
    ("f16-minus-257x0.5-zp127", F16, 0xDC04, pow2(-1), 127, (-1, -1, -1, -2)),     # -128.5 + 127
    # Overflow, NaNs, infinities, zeros.
    ("overflow", F32, 0x7F7FFFFF, 0x7F7FFFFF, -128, (127, 127, 127, 127)),         # +inf product
    ("overflow-negative", F32, 0xFF7FFFFF, 0x7F7FFFFF, 127, (-128, -128, -128, -128)),
    ("f32-nan", F32, 0xFFFFFFFF, 0x3E99999A, -100, (-100, -100, -100, -100)),
    ("f32-signaling-nan", F32, 0x7F800001, 0x7F7FFFFF, 5, (5, 5, 5, 5)),
    ("bf16-nan", BF16, 0x7FC1, 0x3F800000, 127, (127, 127, 127, 127)),
    ("f16-nan", F16, 0xFC01, 0x3F800000, -128, (-128, -128, -128, -128)),
    ("f32-minus-inf", F32, 0xFF800000, 0x3F800000, 127, (-128, -128, -128, -128)),
    ("f16-inf", F16, 0x7C00, 0x3F800000, -128, (127, 127, 127, 127)),
    ("bf16-minus-inf-subnormal-m", BF16, 0xFF80, 0x00000001, 100, (-128, -128, -128, -128)),
    ("f32-minus-zero", F32, 0x80000000, 0x3F800000, -128, (-128, -128, -128, -128)),
    ("bf16-minus-zero", BF16, 0x8000, 0x7F7FFFFF, 55, (55, 55, 55, 55)),
    ("f16-zero-x-max", F16, 0x0000, 0x7F7FFFFF, 3, (3, 3, 3, 3)),
]
LITERAL_IDS = [c[0] for c in LITERALS]


def test_literals_agree_with_oracle():
    """The hand-worked literals and the independent oracle tell the same story."""
    for name, dtype, bits, m, zp, expected in LITERALS:
        got = tuple(quant(bits, FORMAT[dtype], m, zp, mode) for mode in MODES)
        assert got == expected, f"{name}: oracle {got}, by hand {expected}"


def test_specification_products():
    """The specification's product rounding, through the oracle's binary32
    multiply: 15 x 0x3e99999a is 4.5 exactly after rounding."""
    assert multiply_binary32(0x41700000, 0x3E99999A) == 0x40900000          # 4.5
    assert multiply_binary32(0x3EFFFFFF, 0x3F800001) == 0x3F000000          # 0.5
    assert value_of(BINARY32, 0x3E99999A) * 15 != Fraction(9, 2)


@pytest.mark.parametrize("literal", LITERALS, ids=LITERAL_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_literals(route, literal):
    """Each literal, in each mode, as one element (the scalar tail), 48
    copies (three blocks: fast path or repair as the value dictates), 53
    elements holding it at lanes 0, 7, 16, 31, 33, 47 and in the tail among
    1.0 neighbours, and a stepped 19-element view (strided)."""
    _, dtype, bits, m, zp, expected = literal
    neighbours = {F32: 0x3F800000, BF16: 0x3F80, F16: 0x3C00}[dtype]   # 1.0
    cases = []
    for mode, want in zip(MODES, expected):
        one = quant(neighbours, FORMAT[dtype], m, zp, mode)
        mixed = np.full(53, neighbours, dtype=np.uint32)
        mixed[[0, 7, 16, 31, 33, 47, 50, 52]] = bits
        mixed_expected = np.where(mixed == bits, want, one)
        for shape, values, exp, in_strides, out_strides in (
            ((1,), [bits], [want], None, None),
            ((48,), [bits] * 48, [want] * 48, None, None),
            ((53,), mixed, mixed_expected, None, None),
            ((19,), [bits] * 19, [want] * 19, (3 * (4 if dtype is F32 else 2),), (2,)),
        ):
            cases.append(Case.make(route, shape, dtype, m, zp, mode, in_strides, out_strides,
                                   values=values, expected=exp, out_excess=7))
    fail_if(run_cases(cases))


# ------------------------------------------------------- exhaustive 16-bit


def test_profiles_reach_the_ties_they_are_named_for():
    """The tie profiles really put products on 127.5 and -128.5 (exact
    rational arithmetic on the oracle's decoded values)."""
    ties = [
        (BFLOAT16, 0x437F, "2^-1", Fraction(255, 2)),     # 255 x 0.5
        (BINARY16, 0x5BF8, "2^-1", Fraction(255, 2)),
        (BINARY16, 0xDC04, "2^-1", Fraction(-257, 2)),    # -257 x 0.5
        (BFLOAT16, 0xC300, "257/256", Fraction(-257, 2)),  # -128 x 257/256
        (BINARY16, 0xD800, "257/256", Fraction(-257, 2)),
        (BINARY16, 0x57F8, "1.0", Fraction(255, 2)),
        (BINARY16, 0xD804, "1.0", Fraction(-257, 2)),
        (BFLOAT16, 0x42FF, "1.0", Fraction(255, 2)),
    ]
    for fmt, bits, profile, product in ties:
        assert value_of(fmt, bits) * value_of(BINARY32, PROFILES[profile]) == product, (fmt.name, hex(bits))
    for name in ("sub-2^-127", "sub-min", "sub-max"):
        assert (PROFILES[name] >> 23) == 0 and PROFILES[name] != 0


def test_quick_slice_covers_every_profile_and_both_formats():
    assert set(QUICK16) == set(PROFILES)
    assert {d for d, _ in QUICK16.values()} == {BF16, F16}
    assert {z for _, z in QUICK16.values()} == {-128, 127}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_exhaustive_16bit_slice(route, profile):
    """Every pattern of one 16-bit format (alternating by profile), all
    four modes, one extreme zero point; dense, with forced repairs and
    strided (see ``arrangements16``)."""
    dtype, zp = QUICK16[profile]
    fail_if(run_cases(exhaustive16_cases(route, dtype, PROFILES[profile], [zp])))


@pytest.mark.slow
@pytest.mark.parametrize("input", ["bf16", "f16"])
@pytest.mark.parametrize("profile", CROSS_PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_exhaustive_16bit_cross(route, profile, input):
    """Every pattern x every profile (but the slice-only extras) x all
    modes x zero points -128, -100, 0, 127 (65,536 x 4 x 4 per test, three
    layouts each)."""
    cases = exhaustive16_cases(route, INPUTS[input], PROFILES[profile], ZERO_POINTS, by_class=True)
    fail_if(run_cases(cases))


CLASS_CHECKS = [(BF16, "0x3e99999a", -100, "nearest_even"), (F16, "2^-1", 0, "toward_negative"),
                (BF16, "257/256", 0, "toward_positive")]


@pytest.mark.parametrize("check", CLASS_CHECKS, ids=lambda c: f"{c[0].name}-{c[1]}-zp{c[2]}-{c[3]}")
def test_class_tables_agree_with_the_oracle(check):
    """``table16_by_class`` (used by the slow cross-product) equals direct
    oracle calls on a sample of patterns plus every special one."""
    dtype, profile, zp, mode = check
    m = PROFILES[profile]
    sample = np.random.default_rng(zp & 0xFF).choice(1 << 16, size=3000, replace=False)
    sample = np.concatenate([sample, [0x0000, 0x8000, 0x0001, 0x8001, 0x7F80, 0xFF80, 0x7C00, 0xFC00, 0x7FFF]])
    direct = np.array(quant_many(sample.tolist(), FORMAT[dtype], m, zp, mode), dtype=np.int8)
    by_class = table16_by_class(dtype, m, zp, mode)[sample]
    fail_if([mismatch_report(by_class, direct, sample.astype(np.uint16), f"class table {check}")])


# ------------------------------------------------------------------- FP32

F32_PROFILE_IDS = list(PROFILES)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_f32_exponent_classes(route, profile):
    """Every biased exponent 0..255 with 16 significands, both signs; all
    modes; one zero point per profile (rotating)."""
    zp = ZERO_POINTS[F32_PROFILE_IDS.index(profile) % 4]
    fail_if(run_cases(f32_sweep_cases(route, "classes", PROFILES[profile], zp)))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("route", ROUTES)
def test_f32_product_boundaries(route, profile):
    """Inputs whose products sit on or one/two ulps beside every k + 0.5
    and k for |k| <= 260, plus the specials; two zero points per profile."""
    i = F32_PROFILE_IDS.index(profile)
    cases = []
    for zp in (ZERO_POINTS[(i + 1) % 4], ZERO_POINTS[(i + 3) % 4]):
        cases += f32_sweep_cases(route, "boundaries", PROFILES[profile], zp, seed=i)
    fail_if(run_cases(cases))


def random_f32_reports(route, seed, count, m, zp):
    cases = []
    for mode in MODES:
        inputs, expected = f32_random_case(seed, count, m, zp, mode)
        cases.append(Case.make(route, inputs.shape, F32, m, zp, mode, values=inputs, expected=expected))
    return run_cases(cases)


@pytest.mark.parametrize("params", [(0x3E99999A, -100), (0x3DCCCCCD, 127)], ids=lambda p: f"m{p[0]:#010x}-zp{p[1]}")
@pytest.mark.parametrize("route", ROUTES)
def test_f32_random(route, params):
    fail_if(random_f32_reports(route, 11, 20_000 + 5, *params))


@pytest.mark.slow
@pytest.mark.parametrize("params", [(0x3E99999A, 0), (pow2(-126), -128)], ids=lambda p: f"m{p[0]:#010x}-zp{p[1]}")
@pytest.mark.parametrize("route", ROUTES)
def test_f32_random_large(route, params):
    """200,000 random patterns (half uniform bits, half useful values)."""
    fail_if(random_f32_reports(route, 12, 200_000 + 11, *params))


# ------------------------------------------------------- isolated lanes


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("input", INPUTS)
@pytest.mark.parametrize("route", ROUTES)
def test_isolated_exceptional_lanes(route, input, mode):
    """Every (input dtype, rounding) entry: one exceptional lane at each of
    the 16 positions of a block between normal blocks, for each kind
    (subnormal input, product underflow, products next to the smallest
    normal, NaN, infinity, zero), so one block repairs while its neighbours
    take the fast path; every lane against the oracle."""
    fail_if(run_cases(isolated_cases(route, INPUTS[input], mode)))


def test_every_entry_has_fast_and_repair_inputs():
    """The isolated-lane inputs give every input dtype blocks that must
    repair (by the specification's conditions, evaluated here on the
    oracle's exact values) and blocks that need not."""
    min_normal = Fraction(1, 2**126)
    for dtype, entries in ISOLATED.items():
        fmt = FORMAT[dtype]
        repair_blocks = fast_blocks = 0
        for m, kinds in entries:
            mv = value_of(BINARY32, m)
            for kind in kinds:
                values = isolated_values(dtype, m, kind)
                for b in range(len(values) // 16):
                    needs = False
                    for v in values[16 * b:16 * b + 16].tolist():
                        try:
                            x = value_of(fmt, v)
                        except ValueError:      # NaN, infinity
                            continue
                        if x != 0 and (abs(x) < min_normal or abs(x * mv) < min_normal):
                            needs = True
                    repair_blocks += needs
                    fast_blocks += not needs
        assert repair_blocks >= 16 and fast_blocks >= 32, (dtype.name, repair_blocks, fast_blocks)
