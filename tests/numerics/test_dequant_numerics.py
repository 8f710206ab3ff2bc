"""Dequant numerics, bit for bit, on every route: all 256 INT8 inputs for
every scale and zero point of the issue's grid and both outputs, through the
vector blocks, the 16-element block, the scalar tail and the strided leaf;
BF16 ties of both kept-word parities in every form that can round; the
arithmetic form each (scale, zero point) selects; the specification's worked
examples and other boundary cases as hand-checked literals.

Expected bits come from the independent oracle (tests/oracle/dequant.py) or
from the literals below, worked by hand from the staged expression
``zp = float(zero_point); d = float(q) - zp; r = d * scale`` (each step
binary32 nearest-even) and BF16 narrowing of ``r`` nearest-even.
"""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    F32,
    I8,
    INPUT_FILL,
    ROUTES,
    SENTINEL,
    Storage,
    dequant_report,
    dequant_request,
    dequant_tables,
    plan_form,
    fail_if,
    mismatch_report,
    ok_plan,
    run_dequant,
)
from oracle import dequant_bf16, dequant_f32


def pow2(e: int) -> int:
    """binary32 bits of 2^e for a normal exponent."""
    return (127 + e) << 23


# ------------------------------------------------------------------ the grid

SCALES = {}
for _e in range(-4, 5):
    SCALES[f"2^{_e}"] = pow2(_e)
    SCALES[f"2^{_e}-ulp"] = pow2(_e) - 1
    SCALES[f"2^{_e}+ulp"] = pow2(_e) + 1
SCALES.update({
    "2^-20": pow2(-20),
    "2^20": pow2(20),
    "2^-126": pow2(-126),           # smallest normal
    "2^127": pow2(127),             # largest power of two
    "2^-5": pow2(-5),               # just outside the specialised exponents
    "2^5": pow2(5),
    "min-subnormal": 0x00000001,
    "max-subnormal": 0x007FFFFF,
    "seed-0x4037ced9": 0x4037CED9,  # the specification's BF16 double-rounding example
    "max-finite": 0x7F7FFFFF,       # products overflow to infinity
    "0.1f": 0x3DCCCCCD,
})
_rng = np.random.default_rng(0xDE0)
for _i, _bits in enumerate(_rng.integers(1, 0x7F7FFFFF, size=4, endpoint=True).tolist()):
    SCALES[f"random{_i}-{_bits:#010x}"] = int(_bits)
assert SCALES["2^0"] == 0x3F800000  # scale 1.0 is in the grid

ZERO_POINTS = (
    0, -128, 127, -123,                 # INT8 range
    128, -129,                          # just outside it
    16777088, -16777089,                # bounds of the wide power-of-two range
    16777089, -16777090,                # just outside it
    16777217, 16777216, -16777217,      # conversion rounds (2^24 + 1) / is exact (2^24)
    2**31 - 1, -(2**31),                # INT32 limits
)
OUTPUTS = {"f32": F32, "bf16": BF16}


def test_grid_exercises_every_form():
    forms = {plan_form(s, z) for s in SCALES.values() for z in ZERO_POINTS}
    assert forms == {"narrow", "narrow_pow2", "wide_pow2", "wide_unit", "wide"}


def exhaustive_reports(route, dst, scale_bits, zero_point):
    """All 256 inputs through each code path of a leaf:

    * dense 1-D, 287 elements: every input in the two-block loop (first 256),
      then one 16-element block and a 15-element scalar tail;
    * 18 padded rows of 31: each row is one dense run of one block plus a
      15-element tail, every input appears in both parts;
    * stepped input and output: the strided (non-packed) leaf.
    """
    item = 4 if dst is F32 else 2
    permuted = np.random.default_rng(scale_bits ^ (zero_point & 0xFFFF)).permutation(256).astype(np.uint8)
    dense = np.concatenate([permuted, np.arange(31, dtype=np.uint8)])
    rows = np.empty((18, 31), dtype=np.uint8)
    rows[:, :16] = (np.arange(18 * 16) % 256).reshape(18, 16)
    rows[:, 16:] = ((np.arange(18 * 15) + 128) % 256).reshape(18, 15)
    stepped = np.arange(256, dtype=np.uint8)
    return [
        dequant_report(route, (287,), dst, scale_bits, zero_point, values=dense, out_excess=7),
        dequant_report(route, (18, 31), dst, scale_bits, zero_point, None, (33 * item, item),
                       values=rows, out_excess=5),
        dequant_report(route, (256,), dst, scale_bits, zero_point, (3,), (2 * item,),
                       values=stepped, out_excess=3),
    ]


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("scale", SCALES, ids=list(SCALES))
@pytest.mark.parametrize("route", ROUTES)
def test_exhaustive_int8(route, scale, output):
    """Every INT8 input x every zero point of the grid, for one scale: each
    case is checked against the oracle, its form against the route table,
    and every byte outside the logical elements against the sentinel."""
    reports = []
    for zero_point in ZERO_POINTS:
        reports += exhaustive_reports(route, OUTPUTS[output], SCALES[scale], zero_point)
    fail_if(reports)


# ------------------------------------------------------------------ BF16 ties

# FP32 results exactly halfway between two BF16 words (low half 0x8000) are
# where nearest-even differs from rounding half up or down; the grid above
# hardly produces them (small differences are exact in BF16).  These
# parameters do, in every form whose BF16 result can round at all
# (narrow_pow2 results have at most 8 significant bits, always exact):
# scales 1 + 2^-8 and 1 + 2^-7 + 2^-8 times powers of two; differences
# q - zp in [512, 768) (ulp 2^-14 of the BF16 significand: every d = 2 mod 4
# is a tie) scaled by powers of two; 2^24 + 2^16 and 2^24 + 3 * 2^16 reached
# through the rounded wide zero point.
TIE_PARAMS = [
    (0x3F808000, 0, "narrow"),          # ties with even kept words
    (0x3F818000, 0, "narrow"),          # ties with odd kept words
    (0x4037CED9, -123, "narrow"),       # the specification's 718.0
    (pow2(-2), -640, "wide_pow2"),
    (pow2(3), 640, "wide_pow2"),
    (pow2(5), -640, "wide"),
    (pow2(-5), 640, "wide"),
    (0x3F800000, -16842752, "wide_unit"),
    (0x3F800000, -16973824, "wide_unit"),
]


def tie_parities(scale_bits, zero_point):
    """Kept-word parities of the oracle's FP32 results that are BF16 ties."""
    f32, _ = dequant_tables(scale_bits, zero_point)
    ties = f32[(f32 & 0xFFFF) == 0x8000]
    return set(((ties >> 16) & 1).tolist())


def test_tie_params_produce_ties_of_both_parities_in_every_rounding_form():
    """A precondition of the next test, decided by the oracle alone."""
    by_form = {}
    for scale_bits, zero_point, form in TIE_PARAMS:
        assert plan_form(scale_bits, zero_point) == form
        parities = tie_parities(scale_bits, zero_point)
        assert parities, f"no BF16 tie for scale {scale_bits:#010x} zero point {zero_point}"
        by_form.setdefault(form, set()).update(parities)
    assert by_form == {f: {0, 1} for f in ("narrow", "wide_pow2", "wide_unit", "wide")}, by_form


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "scale_bits, zero_point, form", TIE_PARAMS, ids=[f"{s:#010x}-zp{z}-{f}" for s, z, f in TIE_PARAMS])
def test_bf16_ties_round_to_even(route, scale_bits, zero_point, form):
    """All 256 inputs, ties included, through the vector blocks, the tail and
    the strided leaf (FP32 too, for the same inputs)."""
    fail_if(exhaustive_reports(route, BF16, scale_bits, zero_point)
            + exhaustive_reports(route, F32, scale_bits, zero_point))


# ------------------------------------------------------------------ forms

# (scale bits, zero point, form): the A65 route table of the specification.
FORM_CASES = [
    (pow2(-3), 0, "narrow_pow2"),
    (pow2(-3), -128, "narrow_pow2"),
    (pow2(-3), 127, "narrow_pow2"),
    (pow2(-4), -123, "narrow_pow2"),
    (pow2(4), 5, "narrow_pow2"),
    (0x3F800000, 0, "narrow_pow2"),           # 2^0: conversion only
    (0x4037CED9, -123, "narrow"),
    (0x4037CED9, 127, "narrow"),
    (pow2(5), 0, "narrow"),                   # exponent 5 is outside the specialisation
    (pow2(-5), 0, "narrow"),
    (pow2(-3) + 1, 0, "narrow"),              # one ulp away from a power of two
    (0x00000001, 0, "narrow"),                # subnormal scales are never powers of two here
    (0x007FFFFF, -7, "narrow"),
    (0x00400000, 3, "narrow"),                # 2^-127, a subnormal power of two
    (pow2(2), 16777088, "wide_pow2"),
    (pow2(2), -16777089, "wide_pow2"),
    (pow2(-4), 128, "wide_pow2"),
    (pow2(4), -129, "wide_pow2"),
    (0x3F800000, 16777088, "wide_pow2"),
    (pow2(2), 16777089, "wide"),
    (pow2(2), -16777090, "wide"),
    (pow2(5), 128, "wide"),
    (0x4037CED9, 128, "wide"),
    (pow2(-3), 2**31 - 1, "wide"),
    (0x3F800000, 16777089, "wide_unit"),
    (0x3F800000, 16777217, "wide_unit"),
    (0x3F800000, -(2**31), "wide_unit"),
    (0x3F800001, 16777217, "wide"),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "scale_bits, zero_point, form", FORM_CASES, ids=[f"{s:#010x}-zp{z}-{f}" for s, z, f in FORM_CASES])
def test_form_selection(route, scale_bits, zero_point, form):
    """The form is chosen at preparation from the zero point and scale bits,
    identically for both outputs and every route; and it computes the oracle's
    bits (one call with a vector body and a tail)."""
    for dst in (F32, BF16):
        plan = ok_plan(dequant_request((4,), dst, scale_bits, zero_point), route)
        assert plan.form == form, f"{route} {dst.name} scale {scale_bits:#010x} zp {zero_point}: {plan.form}"
        run_dequant(route, (256 + 16 + 5,), dst, scale_bits, zero_point,
                    values=np.arange(256 + 16 + 5, dtype=np.uint16).astype(np.uint8))


def test_prepare_picks_the_form_once_for_all_routes():
    shared = sk.ops.dequant.check_inference(dequant_request((8,), F32, pow2(2), 16777088))
    assert [sk.a65.dequant.prepare(shared, route=r).form for r in ROUTES] == ["wide_pow2"] * len(ROUTES)


# ------------------------------------------------------------------ literals

# (input, scale bits, zero point, FP32 bits, BF16 bits), each worked by hand.
LITERALS = [
    # Specification: the staged FP32 product is 718.0 = 0x44338000; narrowing
    # that BF16 midpoint (odd kept word 0x4433) gives 720 = 0x4434, whereas
    # rounding the exact product (250 * 2.87199998 = 717.99999...) would give
    # 716 = 0x4433.
    (127, 0x4037CED9, -123, 0x44338000, 0x4434),
    # Specification: float(16777217) = 16777216, 1 - 16777216 = -16777215
    # (exact); integer subtraction first would give -16777216.  BF16 rounds
    # 0xcb7fffff up to 0xcb80 (-16777216).
    (1, 0x3F800000, 16777217, 0xCB7FFFFF, 0xCB80),
    (1, 0x3F800000, 16777216, 0xCB7FFFFF, 0xCB80),   # same zp after conversion
    # float(-16777217) = -16777216; 1 + 16777216 = 16777217 rounds to even
    # 16777216 = 0x4b800000 (integer subtraction would give 16777218).
    (1, 0x3F800000, -16777217, 0x4B800000, 0x4B80),
    # q == zp: x - x is +0, +0 * scale is +0 (never -0).
    (-3, 0x3E800000, -3, 0x00000000, 0x0000),
    (100, 0x4037CED9, 100, 0x00000000, 0x0000),
    # The specification's C++ example parameters, scale 0.25, zero point -3.
    (-128, 0x3E800000, -3, 0xC1FA0000, 0xC1FA),       # -125 * 0.25 = -31.25
    (127, 0x3E800000, -3, 0x42020000, 0x4202),        # 130 * 0.25 = 32.5
    # BF16 ties (FP32 low half 0x8000): even kept word stays, odd rounds up.
    (1, 0x3F808000, 0, 0x3F808000, 0x3F80),           # 1 + 2^-8
    (-128, 0x3F808000, 0, 0xC3008000, 0xC300),        # -(2^7 + 2^-1)
    (1, 0x3F818000, 0, 0x3F818000, 0x3F82),           # 1 + 2^-7 + 2^-8
    (2, 0x3E800000, -640, 0x43208000, 0x4320),        # 642 / 4 = 160.5 -> 160
    (6, 0x3E800000, -640, 0x43218000, 0x4322),        # 646 / 4 = 161.5 -> 162
    # float(-16842752) is exact; 1 + 16842752 = 2^24 + 2^16 + 1 ties to the
    # even 2^24 + 2^16 = 0x4b808000, itself a BF16 tie with an even word.
    (1, 0x3F800000, -16842752, 0x4B808000, 0x4B80),
    # Overflow to infinity with a finite scale; BF16 keeps it.
    (127, 0x7F7FFFFF, 0, 0x7F800000, 0x7F80),
    (-128, 0x7F7FFFFF, 0, 0xFF800000, 0xFF80),
    (1, 0x7F7FFFFF, 0, 0x7F7FFFFF, 0x7F80),           # FP32 max finite narrows to +inf
    (2, 0x7F000000, 0, 0x7F800000, 0x7F80),           # 2 * 2^127 = 2^128
    (1, 0x7F000000, 0, 0x7F000000, 0x7F00),
    # Subnormal results are kept in FP32; BF16 narrows them to signed zeros.
    (1, 0x00000001, 0, 0x00000001, 0x0000),
    (-1, 0x00000001, 0, 0x80000001, 0x8000),
    (127, 0x00000001, 0, 0x0000007F, 0x0000),
    # A normal result from a subnormal scale: -255 * 0x007fffff is
    # -(255 * 0x7fffff) * 2^-149 = -0x7f7fff01 * 2^-149; keeping 24 bits,
    # 0x7f7fff01 = 0xfefffe * 2^7 + 1 rounds down to 0xfefffe * 2^-142, i.e.
    # 2^-119 (biased 8) with fraction 0x7efffe: 0x847efffe; BF16 low half
    # 0xfffe > 0x8000 rounds up to 0x847f.
    (-128, 0x007FFFFF, 127, 0x847EFFFE, 0x847F),
]


def test_literals_agree_with_oracle():
    for q, scale_bits, zp, f32_bits, bf16_bits in LITERALS:
        assert dequant_f32(q, scale_bits, zp) == f32_bits, (q, hex(scale_bits), zp)
        assert dequant_bf16(q, scale_bits, zp) == bf16_bits, (q, hex(scale_bits), zp)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("literal", LITERALS, ids=[f"q{q}-{s:#010x}-zp{z}" for q, s, z, _, _ in LITERALS])
def test_literals(route, literal):
    """Each literal as a single element (scalar tail), 48 copies (two-block
    loop and one block) and a stepped 19-element view (strided leaf)."""
    q, scale_bits, zp, f32_bits, bf16_bits = literal
    reports = []
    for dst, expected in ((F32, f32_bits), (BF16, bf16_bits)):
        for shape, in_strides, out_strides in (((1,), None, None), ((48,), None, None),
                                               ((19,), (2,), (3 * (4 if dst is F32 else 2),))):
            plan = ok_plan(dequant_request(shape, dst, scale_bits, zp, in_strides, out_strides), route)
            n = int(np.prod(shape))
            values = np.full(n, q, dtype=np.int8).view(np.uint8)
            src = Storage.make(shape, I8, in_strides, fill=INPUT_FILL)
            src.write(values)
            out = Storage.make(shape, dst, out_strides, excess=6, fill=SENTINEL)
            assert sk.a65.dequant.execute(plan, [src.buf], [out.buf]) is None
            what = f"{route} {dst.name} q={q} scale {scale_bits:#010x} zp {zp} shape {shape}"
            reports.append(mismatch_report(out.read(), np.full(n, expected, out.read().dtype), values, what))
            reports.append(out.gaps_report(what))
    fail_if(reports)
