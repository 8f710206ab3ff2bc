"""Self-tests of the oracle against things independent of it.

* literals from the specification's worked examples;
* boundary literals computed by hand (the working is in the comments);
* a definition-level rounding check (nearest representable value by search);
* NumPy / ml_dtypes where their results are known to be correctly rounded:
  float32 multiply and subtract, double -> float32, float32 -> bfloat16 for
  non-NaN values, float16 / bfloat16 decoding.

The package under test is not imported here.
"""

from __future__ import annotations

import bisect
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from . import (
    BFLOAT16,
    BINARY16,
    BINARY32,
    ROUNDING_MODES,
    Kind,
    bf16_to_f32,
    bf16_to_f32_table,
    decode,
    decompose,
    dequant_bf16,
    dequant_bf16_table,
    dequant_f32,
    dequant_f32_table,
    f32_to_bf16,
    f32_to_bf16_many,
    hurray_dequant,
    hurray_difference,
    int32_to_binary32,
    is_inf,
    is_nan,
    is_subnormal,
    is_zero,
    quant,
    quant_many,
    quant_table,
    round_to_format,
    round_to_integer,
    to_bits,
    value_of,
    wrap_signed,
)

F = Fraction
ONE32 = 0x3F800000
NE, TZ, TP, TN = ROUNDING_MODES  # nearest_even, toward_zero, toward_positive, toward_negative


def p2(e: int) -> Fraction:
    return Fraction(2) ** e


def hexes(values) -> list[str]:
    return [f"{int(v):#x}" for v in values]


def assert_same_bits(expected, got, inputs, what):
    """Bit-for-bit comparison reporting the first mismatching inputs in hex."""
    expected = [int(x) for x in expected]
    got = [int(x) for x in got]
    assert len(expected) == len(got), f"{what}: {len(expected)} references, {len(got)} results"
    bad = [i for i, (e, g) in enumerate(zip(expected, got, strict=True)) if e != g]
    if bad:
        shown = ", ".join(
            f"[{i}] input {inputs[i]!r}: reference {expected[i]:#x}, oracle {got[i]:#x}"
            for i in bad[:8]
        )
        pytest.fail(f"{what}: {len(bad)} mismatches: {shown}")


def is_finite_nonzero(bits32: int) -> bool:
    return decompose(BINARY32, bits32)[0] is Kind.FINITE and bits32 & 0x7FFFFFFF != 0


def f32_patterns(n: int, rng: random.Random, exponent_fields=range(0, 255)) -> list[int]:
    """Random finite binary32 encodings: random sign, exponent field, fraction."""
    exponent_fields = list(exponent_fields)
    return [
        (rng.getrandbits(1) << 31) | (rng.choice(exponent_fields) << 23) | rng.getrandbits(23)
        for _ in range(n)
    ]


# --------------------------------------------------------------------------- formats


def test_format_constants():
    assert (BINARY32.width, BINARY32.emax, BINARY32.emin) == (32, 127, -126)
    assert (BFLOAT16.width, BFLOAT16.emax, BFLOAT16.emin) == (16, 127, -126)
    assert (BINARY16.width, BINARY16.emax, BINARY16.emin) == (16, 15, -14)
    assert BINARY32.max_finite == (2 - p2(-23)) * p2(127)
    assert BINARY16.max_finite == 65504
    assert BINARY32.min_subnormal == p2(-149)
    assert BFLOAT16.min_subnormal == p2(-133)
    assert BINARY16.min_subnormal == p2(-24)


def test_decode_literals():
    assert value_of(BINARY32, 0x7F7FFFFF) == (2 - p2(-23)) * p2(127)
    assert value_of(BINARY32, 0x00000001) == p2(-149)
    assert value_of(BINARY32, 0x00800000) == p2(-126)
    assert value_of(BINARY32, 0x007FFFFF) == (1 - p2(-23)) * p2(-126)
    assert value_of(BINARY32, 0xBFC00000) == F(-3, 2)
    assert value_of(BFLOAT16, 0x0001) == p2(-133)
    assert value_of(BFLOAT16, 0x7F7F) == (2 - p2(-7)) * p2(127)
    assert value_of(BINARY16, 0x7BFF) == 65504
    assert value_of(BINARY16, 0x0001) == p2(-24)
    assert value_of(BINARY16, 0x0400) == p2(-14)
    assert value_of(BINARY16, 0xC000) == -2
    # Signed zeros are distinguishable.
    pz, nz = decode(BINARY32, 0x00000000), decode(BINARY32, 0x80000000)
    assert pz.exact == nz.exact == 0 and not pz.negative and nz.negative and pz != nz
    assert pz.is_zero and nz.is_zero and is_zero(BINARY32, 0x80000000)
    # Infinities and NaNs (payload kept).
    inf = decode(BINARY32, 0xFF800000)
    assert inf.kind is Kind.INFINITE and inf.negative and inf.exact is None
    nan = decode(BINARY32, 0x7FC00001)
    assert nan.kind is Kind.NAN and nan.bits == 0x7FC00001 and nan.exact is None
    assert is_nan(BFLOAT16, 0xFF81) and not is_nan(BFLOAT16, 0xFF80) and is_inf(BFLOAT16, 0xFF80)
    assert is_subnormal(BINARY16, 0x03FF) and not is_subnormal(BINARY16, 0x0400)
    with pytest.raises(ValueError):
        value_of(BINARY32, 0x7F800000)
    with pytest.raises(ValueError):
        decode(BINARY16, 0x10000)


@pytest.mark.parametrize(
    "x, expected",
    [
        (F(1), 0x3F800000),
        (F(-3, 2), 0xBFC00000),
        (F(1, 3), 0x3EAAAAAB),  # 0x2aaaaa.aaa... rounds up
        (F(1, 10), 0x3DCCCCCD),  # 0x4ccccc.ccc... rounds up
        (1 + p2(-24), 0x3F800000),  # tie between 1 and 1+2^-23: even (fraction 0)
        (1 + 3 * p2(-24), 0x3F800002),  # tie between fraction 1 and 2: even 2
        (1 + p2(-24) + p2(-80), 0x3F800001),  # just above the tie
        (1 - p2(-25), 0x3F800000),  # tie between 1-2^-24 (odd) and 1: 1
        ((2 - p2(-23)) * p2(127), 0x7F7FFFFF),  # max finite
        ((2 - p2(-24)) * p2(127), 0x7F800000),  # overflow threshold: tie goes to 2^128 -> inf
        ((2 - p2(-24)) * p2(127) - p2(50), 0x7F7FFFFF),  # just below the threshold
        (-(2 - p2(-24)) * p2(127), 0xFF800000),
        (p2(128), 0x7F800000),
        (p2(1000), 0x7F800000),
        (p2(-126), 0x00800000),  # min normal
        (p2(-149), 0x00000001),  # min subnormal
        (p2(-150), 0x00000000),  # half the min subnormal: tie with 0, 0 is even
        (-p2(-150), 0x80000000),  # underflow keeps the sign
        (p2(-150) + p2(-300), 0x00000001),
        (p2(-1000), 0x00000000),
        (3 * p2(-150), 0x00000002),  # 1.5 quanta: tie, even 2
        (5 * p2(-150), 0x00000002),  # 2.5 quanta: tie, even 2
        (7 * p2(-150), 0x00000004),  # 3.5 quanta: tie, even 4
        ((2**23 - F(1, 2)) * p2(-149), 0x00800000),  # max subnormal + half: up to min normal
        ((2**23 - F(3, 2)) * p2(-149), 0x007FFFFE),  # tie between 0x7ffffe and 0x7fffff
        ((2**23 - 1) * p2(-149), 0x007FFFFF),  # max subnormal
    ],
)
def test_round_binary32_literals(x, expected):
    assert round_to_format(BINARY32, x) == expected


@pytest.mark.parametrize(
    "fmt, x, expected",
    [
        (BFLOAT16, (2 - p2(-7)) * p2(127), 0x7F7F),
        (BFLOAT16, (2 - p2(-8)) * p2(127), 0x7F80),
        (BFLOAT16, p2(-133), 0x0001),
        (BFLOAT16, p2(-134), 0x0000),
        (BFLOAT16, -3 * p2(-134), 0x8002),
        (BFLOAT16, 1 + p2(-8), 0x3F80),
        (BFLOAT16, 1 + 3 * p2(-8), 0x3F82),
        (BINARY16, F(65504), 0x7BFF),
        (BINARY16, F(65519), 0x7BFF),
        (BINARY16, F(65520), 0x7C00),  # (2 - 2^-11) * 2^15: tie to 2^16 -> inf
        (BINARY16, F(-65520), 0xFC00),
        (BINARY16, p2(-24), 0x0001),
        (BINARY16, p2(-25), 0x0000),
        (BINARY16, 3 * p2(-25), 0x0002),
        (BINARY16, F(1, 3), 0x3555),
    ],
)
def test_round_16bit_literals(fmt, x, expected):
    assert round_to_format(fmt, x) == expected


def test_exact_zero_takes_caller_sign():
    assert round_to_format(BINARY32, 0) == 0
    assert round_to_format(BINARY32, 0, sign_of_zero=True) == 0x80000000
    assert round_to_format(BFLOAT16, F(0), sign_of_zero=1) == 0x8000
    # A nonzero value that underflows keeps its own sign, whatever is passed.
    assert round_to_format(BINARY32, -p2(-200), sign_of_zero=False) == 0x80000000
    assert round_to_format(BINARY32, p2(-200), sign_of_zero=True) == 0


def _nearest_by_search(fmt):
    """Rounding written as its definition: search the sorted finite values."""
    pairs = sorted(
        (decode(fmt, b).exact, b)
        for b in range(1 << (fmt.width - 1))  # nonnegative encodings
        if decompose(fmt, b)[0] is Kind.FINITE
    )
    values = [v for v, _ in pairs]
    codes = [b for _, b in pairs]
    threshold = fmt.max_finite + p2(fmt.emax - fmt.fraction_bits) / 2  # max + half its ulp

    def nearest(x: Fraction) -> int:
        a = abs(x)
        sign = fmt.sign_mask if x < 0 else 0
        if a >= threshold:
            return sign | (fmt.exponent_all_ones << fmt.fraction_bits)
        i = bisect.bisect_left(values, a)
        if i == len(values):  # between max and the threshold
            return sign | codes[-1]
        if values[i] == a:
            return sign | codes[i]
        lo, hi = i - 1, i
        dlo, dhi = a - values[lo], values[hi] - a
        if dlo != dhi:
            return sign | codes[lo if dlo < dhi else hi]
        return sign | codes[lo if codes[lo] % 2 == 0 else hi]  # tie: even significand

    return values, nearest


@pytest.mark.parametrize("fmt", [BINARY16, BFLOAT16])
def test_rounding_matches_nearest_by_search(fmt):
    values, nearest = _nearest_by_search(fmt)
    rng = random.Random(20240516 + fmt.width + fmt.fraction_bits)
    xs = []
    for _ in range(3000):  # random rationals over the whole range and beyond
        e = rng.randint(fmt.emin - fmt.fraction_bits - 3, fmt.emax + 2)
        x = F(rng.randint(1, 10**9), rng.randint(1, 10**9)) * p2(e)
        xs.append(-x if rng.getrandbits(1) else x)
    for _ in range(3000):  # exact midpoints and their neighbourhoods
        i = rng.randrange(len(values) - 1)
        mid = (values[i] + values[i + 1]) / 2
        tiny = (values[i + 1] - values[i]) / 2**40
        xs += [mid, -mid, mid + tiny, mid - tiny]
    top = fmt.max_finite
    ulp_top = top - values[-2]
    xs += [top + ulp_top / 2, top + ulp_top / 2 - p2(-200), top + ulp_top, fmt.min_subnormal / 2]
    for x in xs:
        assert round_to_format(fmt, x) == nearest(x), f"{fmt.name} {x}"


def test_binary32_product_matches_numpy():
    """numpy float32 multiply is IEEE correctly rounded (nearest-even, subnormals)."""
    rng = random.Random(1)
    a_bits = f32_patterns(6000, rng)
    b_bits = []
    for a in a_bits:  # steer half of the products into the normal/subnormal range
        if rng.getrandbits(1):
            ea = (a >> 23) & 0xFF
            eb = min(max(rng.randint(-155 + 127, 130 + 127) - ea + 127, 0), 254)
            b_bits.append((rng.getrandbits(1) << 31) | (eb << 23) | rng.getrandbits(23))
        else:
            b_bits.append(f32_patterns(1, rng)[0])
    a_bits += [0, 0x80000000, 0x00000001, 0x3F800000]
    b_bits += [0x80000001, 0x3F800000, 0x3F000000, 0x80000000]
    a = np.array(a_bits, dtype=np.uint32).view(np.float32)
    b = np.array(b_bits, dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        reference = (a * b).view(np.uint32)
    got = []
    for x, y in zip(a_bits, b_bits, strict=True):
        vx, vy = decode(BINARY32, x), decode(BINARY32, y)
        got.append(
            round_to_format(BINARY32, vx.exact * vy.exact, sign_of_zero=vx.negative != vy.negative)
        )
    assert_same_bits(
        reference, got, list(zip(hexes(a_bits), hexes(b_bits), strict=True)), "binary32 product"
    )


def test_binary32_difference_matches_numpy():
    """numpy float32 subtraction is correctly rounded; x - x is +0."""
    rng = random.Random(2)
    a_bits = f32_patterns(4000, rng, range(1, 255))
    b_bits = []
    for a in a_bits:
        choice = rng.randrange(3)
        if choice == 0:  # cancellation: nearby value of the same sign
            b_bits.append(a ^ rng.getrandbits(rng.randint(0, 25)))
        elif choice == 1:  # nearby exponent
            b_bits.append(
                (a & 0x80000000)
                | (min(max(((a >> 23) & 0xFF) + rng.randint(-26, 26), 1), 254) << 23)
                | rng.getrandbits(23)
            )
        else:
            b_bits.append(a)
    b_bits = [b if is_finite_nonzero(b) else 0x3F800000 for b in b_bits]
    a = np.array(a_bits, dtype=np.uint32).view(np.float32)
    b = np.array(b_bits, dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        reference = (a - b).view(np.uint32)
    got = [
        round_to_format(BINARY32, value_of(BINARY32, x) - value_of(BINARY32, y))
        for x, y in zip(a_bits, b_bits, strict=True)
    ]
    assert_same_bits(
        reference, got, list(zip(hexes(a_bits), hexes(b_bits), strict=True)), "binary32 difference"
    )


def test_to_bits_matches_numpy_double_to_float32():
    """numpy's binary64 -> binary32 conversion is one correctly rounded step."""
    rng = random.Random(3)
    doubles = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-160, 130) for _ in range(4000)]
    doubles += [
        0.1,
        -0.0,
        0.0,
        3.4028235677973366e38,
        3.4028234663852886e38,
        2.0**-150,
        -(2.0**-150),
        1e-46,
    ]
    with np.errstate(all="ignore"):
        reference = np.array(doubles, dtype=np.float64).astype(np.float32).view(np.uint32)
    got = [to_bits(BINARY32, d) for d in doubles]
    assert_same_bits(reference, got, doubles, "double -> binary32")
    assert to_bits(BINARY32, 0.1) == 0x3DCCCCCD
    assert to_bits(BINARY32, -0.0) == 0x80000000
    assert to_bits(BINARY32, float("-inf")) == 0xFF800000
    assert to_bits(BINARY16, "65520") == 0x7C00
    with pytest.raises(ValueError):
        to_bits(BINARY32, float("nan"))


def test_binary16_decode_matches_numpy_exhaustive():
    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    halves = patterns.view(np.float16)
    as_double = halves.astype(np.float64).tolist()  # exact widening
    signs = np.signbit(halves).tolist()
    for b in range(1 << 16):
        v = decode(BINARY16, b)
        assert v.negative == signs[b]
        if v.kind is Kind.NAN:
            assert np.isnan(halves[b])
        elif v.kind is Kind.INFINITE:
            assert as_double[b] == (float("-inf") if v.negative else float("inf"))
        else:
            assert v.exact == F(as_double[b]), hex(b)


def test_bfloat16_decode_matches_ml_dtypes_exhaustive():
    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        as_double = patterns.view(ml_dtypes.bfloat16).astype(np.float64).tolist()
    for b in range(1 << 16):
        v = decode(BFLOAT16, b)
        if v.kind is Kind.FINITE:
            assert v.exact == F(as_double[b]) and v.negative == (b >> 15 == 1), hex(b)
        elif v.kind is Kind.INFINITE:
            assert as_double[b] == (float("-inf") if v.negative else float("inf"))
        else:
            assert as_double[b] != as_double[b]


# --------------------------------------------------------------------------- integers


@pytest.mark.parametrize(
    "num, den, expected",  # expected in ROUNDING_MODES order: NE, TZ, TP, TN
    [
        (5, 2, (2, 2, 3, 2)),
        (-5, 2, (-2, -2, -2, -3)),
        (7, 2, (4, 3, 4, 3)),
        (-7, 2, (-4, -3, -3, -4)),
        (1, 3, (0, 0, 1, 0)),
        (-1, 3, (0, 0, 0, -1)),
        (2, 3, (1, 0, 1, 0)),
        (-2, 3, (-1, 0, 0, -1)),
        (1, 2, (0, 0, 1, 0)),
        (-1, 2, (0, 0, 0, -1)),
        (6, 3, (2, 2, 2, 2)),
        (0, 7, (0, 0, 0, 0)),
    ],
)
def test_round_to_integer(num, den, expected):
    assert tuple(round_to_integer(num, den, m) for m in ROUNDING_MODES) == expected


def test_wrap_signed():
    assert wrap_signed(2**31, 32) == -(2**31)
    assert wrap_signed(-(2**31) - 1, 32) == 2**31 - 1
    assert wrap_signed(2**32 - 1, 32) == -1
    assert wrap_signed(-5, 32) == -5


# --------------------------------------------------------------------------- cast


@pytest.mark.parametrize(
    "bits32, expected",
    [
        # NaN payloads, worked as round-half-even of u / 2^16, then mod 2^16:
        (0x7F800001, 0x7F80),  # 0x7f80 + 1/65536: down; a signalling NaN becomes +inf
        (0xFFFFFFFF, 0x0000),  # 0xffff + 65535/65536: up to 0x10000, wraps to +0
        (0x7FC00000, 0x7FC0),  # exact
        (0xFFC00001, 0xFFC0),
        (0xFF800001, 0xFF80),  # -> -inf
        (0x7FFF8000, 0x8000),  # 0x7fff + 1/2, odd: up to 0x8000 (= -0)
        (0x7FFFFFFF, 0x8000),
        (0xFFFF8000, 0x0000),  # 0xffff + 1/2, odd: up, wraps
        (0xFFFE8000, 0xFFFE),  # 0xfffe + 1/2, even: down
        (0x7F808000, 0x7F80),  # 0x7f80 + 1/2, even: down to +inf
        (0x7F818000, 0x7F82),  # 0x7f81 + 1/2, odd: up
        (0x7F807FFF, 0x7F80),
        # Infinities.
        (0x7F800000, 0x7F80),
        (0xFF800000, 0xFF80),
        # Finite values rounded by value.
        (0x00000000, 0x0000),
        (0x80000000, 0x8000),
        (0x3F800000, 0x3F80),
        (0x3F808000, 0x3F80),  # 1 + 2^-8: tie, even
        (0x3F818000, 0x3F82),  # 1 + 3*2^-8: tie, even
        (0x3F808001, 0x3F81),
        (0x7F7F7FFF, 0x7F7F),
        (0x7F7F8000, 0x7F80),  # (2 - 2^-8) * 2^127: BF16 overflow threshold
        (0x7F7FFFFF, 0x7F80),  # FP32 max overflows BF16
        (0xFF7FFFFF, 0xFF80),
        (0x00000001, 0x0000),  # 2^-149 underflows BF16 (min 2^-133)
        (0x80000001, 0x8000),
        (0x00008000, 0x0000),  # 2^-134: half the BF16 quantum, tie to 0
        (0x00018000, 0x0002),  # 3 * 2^-134: tie, even 2
        (0x00010000, 0x0001),  # BF16 subnormals are not flushed
        (0x007FFFFF, 0x0080),  # largest FP32 subnormal rounds to BF16 min normal
    ],
)
def test_f32_to_bf16_literals(bits32, expected):
    assert f32_to_bf16(bits32) == expected


def test_f32_to_bf16_finite_matches_ml_dtypes():
    """ml_dtypes rounds finite float32 (and infinities) to bfloat16 nearest-even."""
    rng = random.Random(4)
    patterns = f32_patterns(60000, rng)
    patterns += [(rng.getrandbits(16) << 16) | 0x8000 for _ in range(20000)]  # ties
    patterns = [p for p in patterns if not is_nan(BINARY32, p)]
    patterns += [0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x00008000, 0x80018000]
    reference = (
        np.array(patterns, dtype=np.uint32)
        .view(np.float32)
        .astype(ml_dtypes.bfloat16)
        .view(np.uint16)
    )
    assert_same_bits(reference, f32_to_bf16_many(patterns), hexes(patterns), "FP32 -> BF16")


def test_f32_to_bf16_value_rounding_equals_unsigned_rounding():
    """Spec: the unsigned bit rule "For finite inputs ... rounds to nearest, ties
    to even". The oracle rounds finite values by value; check that they agree
    with integer rounding of the unsigned representation on every class."""
    rng = random.Random(5)
    patterns = [rng.getrandbits(32) for _ in range(40000)]
    patterns += [
        (rng.getrandbits(16) << 16) | rng.choice((0x7FFF, 0x8000, 0x8001)) for _ in range(20000)
    ]
    for p in patterns:
        assert f32_to_bf16(p) == round_to_integer(p, 1 << 16, NE) % (1 << 16), hex(p)


@pytest.mark.parametrize(
    "bits16, expected",
    [
        (0x0000, 0x00000000),
        (0x8000, 0x80000000),
        (0x0001, 0x00010000),
        (0x3F80, 0x3F800000),
        (0x7F80, 0x7F800000),
        (0xFF80, 0xFF800000),
        (0x7FC1, 0x7FC10000),
        (0xFF81, 0xFF810000),
    ],
)
def test_bf16_to_f32_literals(bits16, expected):
    assert bf16_to_f32(bits16) == expected


def test_bf16_to_f32_table_is_upper_half_placement():
    """Spec: "BF16 -> FP32 places the input word in the upper 16 bits and sets
    the lower bits to zero" -- the oracle derives it by value instead."""
    table = bf16_to_f32_table()
    assert len(table) == 1 << 16
    assert all(table[b] == b << 16 for b in range(1 << 16))


def test_bf16_round_trip():
    table = bf16_to_f32_table()
    for b in range(0, 1 << 16, 7):
        assert f32_to_bf16(table[b]) == b, hex(b)


# --------------------------------------------------------------------------- dequant


def test_dequant_seed_720_not_716():
    # 127 - (-123) = 250; 250 * 0x4037ced9 rounds to binary32 718.0 (0x44338000);
    # 718 lies midway between BF16 716 (odd 179*4) and 720 (even 180*4).
    assert dequant_f32(127, 0x4037CED9, -123) == 0x44338000
    assert dequant_bf16(127, 0x4037CED9, -123) == 0x4434
    exact = 250 * value_of(BINARY32, 0x4037CED9)
    assert round_to_format(BFLOAT16, exact) == 0x4433  # the wrong, direct answer


def test_dequant_seed_wide_zero_point():
    # 16777217 converts to 16777216; 1 - 16777216 = -16777215 (exact in binary32).
    assert int32_to_binary32(16777217) == 0x4B800000
    assert dequant_f32(1, ONE32, 16777217) == 0xCB7FFFFF
    assert value_of(BINARY32, dequant_f32(1, ONE32, 16777217)) == -16777215


@pytest.mark.parametrize(
    "q, scale_bits, zero_point, f32, bf16",
    [
        (0, ONE32, 0, 0x00000000, 0x0000),
        (5, 0x40490FDB, 5, 0x00000000, 0x0000),  # q == zp: +0
        (-128, ONE32, 127, 0xC37F0000, 0xC37F),  # -255
        (127, 0x7F7FFFFF, -128, 0x7F800000, 0x7F80),  # 255 * max: overflow
        (-128, 0x7F7FFFFF, 127, 0xFF800000, 0xFF80),
        (1, 0x00000001, 0, 0x00000001, 0x0000),  # 2^-149, below BF16's 2^-133
        (-1, 0x00000001, 0, 0x80000001, 0x8000),  # signed zero preserved
        (1, 0x00008000, 0, 0x00008000, 0x0000),  # 2^-134: BF16 tie to 0
        (3, 0x00008000, 0, 0x00018000, 0x0002),  # 3 * 2^-134: BF16 tie, even 2
        (-3, 0x00008000, 0, 0x80018000, 0x8002),
        (1, 0x00010000, 0, 0x00010000, 0x0001),  # BF16 subnormal, not flushed
        # zp 2^31-1 -> 2^31; -128 - 2^31 is a tie between 2^31 and 2^31+256: even 2^31.
        (-128, ONE32, 2**31 - 1, 0xCF000000, 0xCF00),
        # 127 - 2^31 = -(2^31 - 127): nearest multiple of 128 is 2^31 - 128.
        (127, ONE32, 2**31 - 1, 0xCEFFFFFF, 0xCF00),
        # zp -2^31 exact; 127 + 2^31 rounds to 2^31, times 0.5 = 2^30.
        (127, 0x3F000000, -(2**31), 0x4E800000, 0x4E80),
        (-3, 0x3E800000, -3, 0x00000000, 0x0000),  # API example params, q == zp
        (1, 0x3E800000, -3, 0x3F800000, 0x3F80),  # (1 + 3) * 0.25
    ],
)
def test_dequant_literals(q, scale_bits, zero_point, f32, bf16):
    assert dequant_f32(q, scale_bits, zero_point) == f32
    assert dequant_bf16(q, scale_bits, zero_point) == bf16


def test_dequant_rejects_inadmissible_parameters():
    for scale in (0x00000000, 0x80000000, 0xBF800000, 0x7F800000, 0x7FC00000):
        with pytest.raises(ValueError):
            dequant_f32(1, scale, 0)
    with pytest.raises(ValueError):
        dequant_f32(128, ONE32, 0)
    with pytest.raises(ValueError):
        dequant_f32(1, ONE32, 2**31)


def test_dequant_tables_match_numpy_staged_float32():
    """(float32(q) - float32(zp)) * scale with numpy's correctly rounded float32
    operations is the specification's staged expression; ml_dtypes narrows."""
    rng = random.Random(6)
    scales = [
        0x3F800000,
        0x4037CED9,
        0x3D800000,
        0x00000001,
        0x00000003,
        0x007FFFFF,
        0x7F7FFFFF,
        0x3E99999A,
    ]
    scales += f32_patterns(12, rng, range(0, 255))
    scales = [s & 0x7FFFFFFF or 1 for s in scales]
    zero_points = [0, -123, 127, -128, 16777217, -16777217, 2**31 - 1, -(2**31), 33554435, -1000001]
    zero_points += [rng.randint(-(2**31), 2**31 - 1) for _ in range(4)]
    q = np.arange(256, dtype=np.uint16).astype(np.uint8).view(np.int8)
    for s in scales:
        scale = np.array([s], dtype=np.uint32).view(np.float32)[0]
        for zp in zero_points:
            zp32 = np.array([zp], dtype=np.int32).astype(np.float32)[0]
            with np.errstate(all="ignore"):
                ref32 = ((q.astype(np.float32) - zp32) * scale).astype(np.float32)
            ref16 = ref32.astype(ml_dtypes.bfloat16).view(np.uint16)
            what = f"scale {s:#010x} zero point {zp}"
            assert_same_bits(
                ref32.view(np.uint32), dequant_f32_table(s, zp), q.tolist(), "FP32 " + what
            )
            assert_same_bits(ref16, dequant_bf16_table(s, zp), q.tolist(), "BF16 " + what)


def test_dequant_table_index_is_byte_pattern():
    table = dequant_f32_table(ONE32, 0)
    assert table[0x7F] == 0x42FE0000  # 127
    assert table[0x80] == 0xC3000000  # -128
    assert table[0xFF] == 0xBF800000  # -1


# --------------------------------------------------------------------------- quant

FP32_15, BF16_15, FP16_15 = 0x41700000, 0x4170, 0x4B80
FP32_200, BF16_200, FP16_200 = 0x43480000, 0x4348, 0x5A40


@pytest.mark.parametrize(
    "fmt, bits", [(BINARY32, FP32_15), (BFLOAT16, BF16_15), (BINARY16, FP16_15)]
)
def test_quant_seed_product_rounds_first(fmt, bits):
    # 15 * 0x3e99999a = 4.50000017881393...; the binary32 quantum on [4, 8) is
    # 2^-21 = 4.77e-7, so the product rounds to exactly 4.5 before step 3.
    assert value_of(BINARY32, round_to_format(BINARY32, 15 * value_of(BINARY32, 0x3E99999A))) == F(
        9, 2
    )
    assert quant(bits, fmt, 0x3E99999A, 0, NE) == 4
    assert quant(bits, fmt, 0x3E99999A, 0, TZ) == 4
    assert quant(bits, fmt, 0x3E99999A, 0, TP) == 5
    assert quant(bits, fmt, 0x3E99999A, 0, TN) == 4


@pytest.mark.parametrize(
    "fmt, bits", [(BINARY32, FP32_200), (BFLOAT16, BF16_200), (BINARY16, FP16_200)]
)
def test_quant_seed_zero_point_before_saturation(fmt, bits):
    assert quant(bits, fmt, ONE32, -100, NE) == 100
    assert quant(bits, fmt, ONE32, 0, NE) == 127
    negative = bits | fmt.sign_mask
    assert quant(negative, fmt, ONE32, 100, NE) == -100
    assert quant(negative, fmt, ONE32, 0, NE) == -128


@pytest.mark.parametrize(
    "fmt, bits",
    [
        (BINARY32, 0x7FC00000),
        (BINARY32, 0xFFC00000),
        (BINARY32, 0x7F800001),
        (BINARY32, 0xFFFFFFFF),
        (BFLOAT16, 0x7FC0),
        (BFLOAT16, 0xFF81),
        (BINARY16, 0x7E00),
        (BINARY16, 0xFC01),
    ],
)
@pytest.mark.parametrize("mode", ROUNDING_MODES)
def test_quant_nan_maps_to_zero_point(fmt, bits, mode):
    assert quant(bits, fmt, ONE32, -7, mode) == -7
    assert quant(bits, fmt, 0x7F7FFFFF, 127, mode) == 127


@pytest.mark.parametrize("fmt", [BINARY32, BFLOAT16, BINARY16])
@pytest.mark.parametrize("mode", ROUNDING_MODES)
def test_quant_infinities_and_zeros(fmt, mode):
    pos_inf = fmt.exponent_all_ones << fmt.fraction_bits
    neg_inf = pos_inf | fmt.sign_mask
    for zp in (-128, 0, 127):
        assert quant(pos_inf, fmt, 0x00000001, zp, mode) == 127
        assert quant(neg_inf, fmt, 0x00000001, zp, mode) == -128
        assert quant(0, fmt, 0x7F7FFFFF, zp, mode) == zp
        assert quant(fmt.sign_mask, fmt, 0x7F7FFFFF, zp, mode) == zp


@pytest.mark.parametrize(
    "bits, multiplier, zp, expected",  # expected in NE, TZ, TP, TN order
    [
        (0x40200000, ONE32, 0, (2, 2, 3, 2)),  # 2.5
        (0xC0200000, ONE32, 0, (-2, -2, -2, -3)),  # -2.5
        (0x40600000, ONE32, 0, (4, 3, 4, 3)),  # 3.5
        (0xBF000000, ONE32, 0, (0, 0, 0, -1)),  # -0.5
        (0x3F400000, ONE32, 0, (1, 0, 1, 0)),  # 0.75
        (0x40200000, ONE32, 10, (12, 12, 13, 12)),
        (0x42FF0000, ONE32, 0, (127, 127, 127, 127)),  # 127.5 -> 128 saturates, 127
        (0x42FF0000, ONE32, -1, (127, 126, 127, 126)),  # 128 - 1 and 127 - 1
        (0xC3008000, ONE32, 0, (-128, -128, -128, -128)),  # -128.5
        (0xC3008000, ONE32, 1, (-127, -127, -127, -128)),  # -128 + 1, -129 + 1
        # Overflowing product saturates by sign whatever the zero point.
        (0x7F7FFFFF, 0x40000000, -128, (127, 127, 127, 127)),
        (0xFF7FFFFF, 0x40000000, 127, (-128, -128, -128, -128)),
        (0x7F7FFFFF, ONE32, -128, (127, 127, 127, 127)),  # huge finite product
        # Subnormal product 2^-149: step 3 sees the nonzero binary32 value.
        (0x00000001, ONE32, 0, (0, 0, 1, 0)),
        (0x80000001, ONE32, 0, (0, 0, 0, -1)),
        # 2^-149 * 0.5 = 2^-150 ties to +0 in step 2: every mode then gives 0.
        (0x00000001, 0x3F000000, 0, (0, 0, 0, 0)),
        (0x80000001, 0x3F000000, 0, (0, 0, 0, 0)),
        # 2^-149 * (0.5 + 2^-24) is above the tie: rounds to 2^-149.
        (0x00000001, 0x3F000001, 0, (0, 0, 1, 0)),
        # Subnormal multiplier 2^-127 times 2^127: exactly 1.
        (0x7F000000, 0x00400000, 5, (6, 6, 6, 6)),
        # 2^126 * 2^-149 = 2^-23.
        (0x7E800000, 0x00000001, 0, (0, 0, 1, 0)),
    ],
)
def test_quant_fp32_literals(bits, multiplier, zp, expected):
    assert tuple(quant(bits, BINARY32, multiplier, zp, m) for m in ROUNDING_MODES) == expected


def test_quant_fp16_subnormal_input_literals():
    assert [quant(0x0001, BINARY16, 0x4B800000, 0, m) for m in ROUNDING_MODES] == [
        1,
        1,
        1,
        1,
    ]  # 2^-24 * 2^24
    assert [quant(0x0003, BINARY16, 0x4B000000, 0, m) for m in ROUNDING_MODES] == [
        2,
        1,
        2,
        1,
    ]  # 3 * 2^-24 * 2^23
    assert [quant(0x8003, BINARY16, 0x4B000000, 0, m) for m in ROUNDING_MODES] == [-2, -1, -1, -2]


def test_quant_accepts_enum_like_rounding_and_rejects_bad_parameters():
    class Rounding:
        name = "TOWARD_POSITIVE"

    assert quant(FP32_15, BINARY32, 0x3E99999A, 0, Rounding()) == 5
    with pytest.raises(ValueError):
        quant(FP32_15, BINARY32, 0x3E99999A, 0, "nearest")
    for m in (0, 0x80000000, 0xBF800000, 0x7F800000, 0x7FC00000):
        with pytest.raises(ValueError):
            quant(FP32_15, BINARY32, m, 0, NE)
    with pytest.raises(ValueError):
        quant_table(BINARY32, ONE32)


def _numpy_quant(x32: np.ndarray, multiplier_bits: int, zp: int, mode: str) -> np.ndarray:
    """The ordered contract with numpy's correctly rounded float32 multiply and
    exact float64 integer rounding functions."""
    m = np.array([multiplier_bits], dtype=np.uint32).view(np.float32)[0]
    with np.errstate(all="ignore"):
        product = (x32 * m).astype(np.float32).astype(np.float64)
        integral = {NE: np.rint, TZ: np.trunc, TP: np.ceil, TN: np.floor}[mode](product)
        result = np.clip(integral + zp, -128, 127)
    result[np.isnan(product)] = zp
    return result.astype(np.int64)


@pytest.mark.parametrize(
    "fmt, multiplier, zp, modes",
    [
        (BFLOAT16, 0x3E99999A, 0, ROUNDING_MODES),
        (BINARY16, 0x3E99999A, -3, ROUNDING_MODES),
        (BFLOAT16, 0x00000005, 7, (TP, NE)),  # subnormal multiplier
        (BINARY16, 0x3B800001, 127, (NE,)),
        (BINARY16, 0x47000000, -128, (TN,)),  # 32768: overflows INT8 often
        (BFLOAT16, 0x7F000000, 0, (TZ,)),  # 2^127: overflows binary32 often
    ],
)
def test_quant_tables_match_numpy_exhaustive(fmt, multiplier, zp, modes):
    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    source = patterns.view(ml_dtypes.bfloat16 if fmt is BFLOAT16 else np.float16)
    x32 = source.astype(np.float32)  # exact widening
    for mode in modes:
        reference = _numpy_quant(x32, multiplier, zp, mode)
        table = quant_table(fmt, multiplier, zp, mode)
        assert_same_bits(
            reference, table, hexes(range(1 << 16)), f"{fmt.name} x {multiplier:#x} zp {zp} {mode}"
        )


def test_quant_fp32_matches_numpy():
    rng = random.Random(7)
    patterns = f32_patterns(8000, rng, range(0, 255))
    patterns += f32_patterns(8000, rng, range(100, 160))  # products near INT8 range
    patterns += [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFFFFFFF, 0, 0x80000000]
    x32 = np.array(patterns, dtype=np.uint32).view(np.float32)
    for multiplier, zp, mode in [
        (0x3E99999A, 0, NE),
        (0x3C23D70A, -5, TZ),
        (0x00000007, 3, TP),
        (0x4B800000, 100, TN),
    ]:
        reference = _numpy_quant(x32, multiplier, zp, mode)
        got = quant_many(patterns, BINARY32, multiplier, zp, mode)
        assert_same_bits(reference, got, hexes(patterns), f"FP32 x {multiplier:#x} zp {zp} {mode}")


def test_quant_table_is_cached():
    assert quant_table(BFLOAT16, 0x3E99999A, 0, NE) is quant_table(
        BFLOAT16, 0x3E99999A, 0, "NEAREST_EVEN"
    )


# --------------------------------------------------------------------------- hurray


@pytest.mark.parametrize(
    "q, scale_bits, zero_point, expected",
    [
        (0, ONE32, 0, 0x00000000),
        (0, 0xBF800000, 0, 0x80000000),  # +0 difference times negative scale: -0
        (3, 0xBF000000, 1, 0xBF800000),  # (3 - 1) * -0.5 = -1
        (-128, 0x3F000000, 0, 0xC2800000),  # -64
        # -128 - (2^31 - 1) = -2^31 - 127 wraps to 2^31 - 127 = 2147483521, whose
        # nearest binary32 (quantum 128 on [2^30, 2^31)) is 2^31 - 128.
        (-128, ONE32, 2**31 - 1, 0x4EFFFFFF),
        (2**32 - 1, ONE32, 0, 0xBF800000),  # uint32 0xffffffff - 0 wraps to -1
        (2**31, ONE32, 0, 0xCF000000),  # uint32 2^31 is INT32 -2^31
        (16777217, ONE32, 0, 0x4B800000),  # conversion rounds: 2^24 + 1 -> 2^24
        (1, 0x00000001, 0, 0x00000001),
        (-1, 0x00000001, 0, 0x80000001),
        (255, 0x7F7FFFFF, 0, 0x7F800000),  # overflow
        (255, 0xFF7FFFFF, 0, 0xFF800000),
    ],
)
def test_hurray_literals(q, scale_bits, zero_point, expected):
    assert hurray_dequant(q, scale_bits, zero_point) == expected


def test_hurray_difference_wraps():
    assert hurray_difference(-128, 2**31 - 1) == 2**31 - 127
    assert hurray_difference(127, -(2**31)) == -(2**31) + 127
    assert hurray_difference(0, -(2**31)) == -(2**31)


def test_hurray_rejects_bad_scale():
    for scale in (0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000):
        with pytest.raises(ValueError):
            hurray_dequant(1, scale, 0)


def test_hurray_matches_numpy():
    rng = random.Random(8)
    qs = [rng.randint(-128, 127) for _ in range(1000)] + [
        rng.randint(0, 2**32 - 1) for _ in range(1000)
    ]
    qs += [rng.randint(-(2**31), 2**31 - 1) for _ in range(1000)] + [
        rng.randint(-8, 15) for _ in range(500)
    ]
    zps = [
        rng.choice((0, 1, -1, 2**31 - 1, -(2**31), rng.randint(-(2**31), 2**31 - 1))) for _ in qs
    ]
    scales = [
        s if s & 0x7FFFFFFF else 0x3F800000 for s in f32_patterns(len(qs), rng, range(100, 150))
    ]
    difference = (np.array(qs, dtype=np.int64) - np.array(zps, dtype=np.int64)).astype(np.uint64)
    difference = (difference & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    scale = np.array(scales, dtype=np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        reference = (difference.astype(np.float32) * scale).view(np.uint32)
    got = [hurray_dequant(q, s, z) for q, s, z in zip(qs, scales, zps, strict=True)]
    assert_same_bits(reference, got, list(zip(qs, hexes(scales), zps, strict=True)), "Hurray")


# ---- the choose_qparams rule for every storage type (oracle.qparams)


def test_qparams_levels_of_every_storage_type():
    """The ranges API.md states: signed b bits -2^(b-1) .. 2^(b-1) - 1,
    unsigned 0 .. 2^b - 1."""
    from .qparams import INT8_LEVELS, storage_levels

    assert INT8_LEVELS == (-128, 127)
    assert [storage_levels(n) for n in ("int8", "uint8", "int16", "uint16", "int4", "uint4", "int2", "uint2")] == [
        (-128, 127), (0, 255), (-32768, 32767), (0, 65535), (-8, 7), (0, 15), (-2, 1), (0, 3)]


def test_qparams_hand_computed_uint4_and_int2():
    """uint4 of [-1, 2]: scale fl32(3/14), multiplier fl32(14/3) =
    4.66666651 (0x40955555), a = floor(-4.66666651) = -5, b =
    ceil(fl32(2 x 4.66666651) = 9.33333302) = 10, b - a = 15: no step, zero
    point 0 - (-5) = 5.  int2 symmetric of [0, largest finite]: scale the
    largest finite itself (divisor 1), multiplier 1/(2^128 - 2^104) rounded
    to the subnormal 2^-128 (0x00200000), b = ceil(1 - 2^-24) = 1: no step."""
    from .qparams import choose, storage_levels

    chosen = choose(F(-1), F(2), False, storage_levels("uint4"))
    assert (chosen.scale, chosen.zero_point, chosen.multiplier, chosen.steps) == (
        round_to_format(BINARY32, F(3, 14)), 5, 0x40955555, 0)
    top = value_of(BINARY32, 0x7F7FFFFF)
    chosen = choose(F(0), top, True, storage_levels("int2"))
    assert (chosen.scale, chosen.zero_point, chosen.multiplier, chosen.steps) == (0x7F7FFFFF, 0, 0x00200000, 0)
    # uint8 asymmetric is int8's (the same divisor and check), the zero point 128 up
    assert choose(F(-1), F(2), False, storage_levels("uint8")).zero_point == choose(F(-1), F(2), False).zero_point + 128
    with pytest.raises(ValueError):
        choose(F(-1), F(2), True, storage_levels("uint8"))  # no symmetric levels around 0


def test_qparams_quantized_is_quant_before_saturation():
    """``quantized`` is Quant's order without the clamp: equal to the INT8
    Quant wherever that does not saturate."""
    from .qparams import quantized

    rng = random.Random(32)
    for _ in range(300):
        bits = rng.choice([rng.getrandbits(32) & 0xBF7FFFFF, rng.randrange(0x3F000000, 0x43000000) | (
            rng.getrandbits(1) << 31)])
        if not is_finite32(bits):
            continue
        multiplier = rng.randrange(0x3E000000, 0x42000000)
        zero_point, mode = rng.randint(-128, 127), rng.choice(ROUNDING_MODES)
        got = quantized(value_of(BINARY32, bits), multiplier, zero_point, mode)
        if -128 < got < 127:
            assert got == quant(bits, BINARY32, multiplier, zero_point, mode), (hex(bits), hex(multiplier), mode)


def is_finite32(bits: int) -> bool:
    return bits & 0x7F800000 != 0x7F800000
