"""Scales and multipliers become binary32 bits by integer arithmetic from
their representation (``simakernels._binary32.bits_of``): the oracle's exact
nearest-even rounding of the value every format encodes, for every pattern of
the 8- and 16-bit formats and samples of the wider ones, and the same bits
with every trap enabled and in every rounding mode (no FP operation runs)."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import formats as of
from simakernels import _binary32
from support.helpers import single_feature_states, fp_state_id

FP8_E4M3 = of.Format("float8_e4m3fn", exponent_bits=4, fraction_bits=3, bias=7)
FP8_E5M2 = of.Format("float8_e5m2", exponent_bits=5, fraction_bits=2, bias=15)
BINARY64 = of.Format("binary64", exponent_bits=11, fraction_bits=52, bias=1023)


def expected(fmt, bits, e4m3=False):
    """The oracle's binary32 bits of the value ``bits`` encode in ``fmt``
    (NaN: the quiet NaN of its sign, as the parameter rules then refuse it)."""
    sign = bits >> (fmt.exponent_bits + fmt.fraction_bits)
    top = (bits >> fmt.fraction_bits) & ((1 << fmt.exponent_bits) - 1) == (1 << fmt.exponent_bits) - 1
    magnitude = bits & ((1 << (fmt.exponent_bits + fmt.fraction_bits)) - 1)
    if e4m3:  # no infinities: only the all-ones magnitude is NaN
        if magnitude == (1 << (fmt.exponent_bits + fmt.fraction_bits)) - 1:
            return (sign << 31) | 0x7FC00000
        value = of.value_of(FP8_E4M3_FINITE, magnitude)
        return of.round_to_format(of.BINARY32, -value if sign else value, sign)
    if top:
        return (sign << 31) | (0x7FC00000 if bits & ((1 << fmt.fraction_bits) - 1) else 0x7F800000)
    return of.round_to_format(of.BINARY32, of.value_of(fmt, bits), sign)


# e4m3fn's all-ones exponent holds finite values: decoded as a format with
# one more exponent step (value_of reads it as an ordinary binade).
FP8_E4M3_FINITE = of.Format("e4m3 finite", exponent_bits=5, fraction_bits=3, bias=7)


@pytest.mark.parametrize("dtype,fmt,view", [
    (np.float16, of.BINARY16, np.uint16), (ml_dtypes.bfloat16, of.BFLOAT16, np.uint16),
    (ml_dtypes.float8_e5m2, FP8_E5M2, np.uint8)], ids=["float16", "bfloat16", "float8_e5m2"])
def test_every_pattern_of_the_narrow_formats(dtype, fmt, view):
    patterns = np.arange(1 << (8 * np.dtype(view).itemsize), dtype=np.int64).astype(view)
    values = patterns.view(dtype)
    wrong = [(hex(int(p)), hex(_binary32.bits_of(v)), hex(expected(fmt, int(p))))
             for p, v in zip(patterns, values) if _binary32.bits_of(v) != expected(fmt, int(p))]
    assert not wrong, wrong[:10]


def test_every_float8_e4m3fn_pattern():
    values = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    wrong = [p for p in range(256) if _binary32.bits_of(values[p]) != expected(FP8_E4M3, p, e4m3=True)]
    assert not wrong


def doubles():
    rng = np.random.default_rng(2026_12_03)
    patterns = rng.integers(0, 1 << 64, 20000, dtype=np.uint64, endpoint=False)
    # near binary32 ties and the subnormal/overflow edges: bits around halfway points
    ties = [(Fraction(k) + Fraction(1, 2)) * Fraction(2) ** e
            for k in (1 << 23, (1 << 24) - 1) for e in (-149, -23, 0, 104)]
    edges = [2.0 ** -150, 2.0 ** -149 * 1.5, 3.4028235677973366e38, 3.402823669209385e38, -0.0, 1e-320]
    extra = np.array([float(t) for t in ties] + edges, np.float64).view(np.uint64)
    return np.concatenate([patterns, extra])


def test_doubles_python_and_numpy():
    patterns = doubles()
    wrong = []
    for p, v in zip(patterns.tolist(), patterns.view(np.float64)):
        want = expected(BINARY64, p)
        for value in (v, float(v)):
            if _binary32.bits_of(value) != want:
                wrong.append((hex(p), type(value).__name__))
    assert not wrong, wrong[:10]


def test_integers_and_fractions_round_once():
    values = [0, 1, -1, (1 << 24) + 1, (1 << 53) + 1, (1 << 64) + (1 << 40) + 1, -(1 << 127) * 3, 1 << 130,
              Fraction(1, 3), Fraction(-2, 7), Fraction(1, 1 << 150), Fraction(3, 1 << 151)]
    # 2**53 + 1 + 2**29 * k lies between doubles: converting through float would round twice
    values += [(1 << 53) + (1 << 29) + 1, np.int64((1 << 62) + (1 << 38) + 1), np.uint64((1 << 64) - 1)]
    for v in values:
        exact = Fraction(int(v)) if isinstance(v, (int, np.integer)) else v
        assert _binary32.bits_of(v) == of.round_to_format(of.BINARY32, exact), v


def test_long_double_samples():
    for text in ("2.0", "-0.1", "1e-46", "3e-45", "3.4028235e38", "1e39", "-7.25e-3"):
        value = np.longdouble(text)
        with np.errstate(all="ignore"):
            assert _binary32.bits_of(value) == int(np.array(np.float32(value)).view(np.uint32)), text


STATES = single_feature_states()[1:]


@pytest.mark.parametrize("state", STATES, ids=[fp_state_id(s) for s in STATES])
def test_the_same_bits_in_every_state(state):
    values = [0.37, -1e-40, 1e39, float("nan"), np.float16(6e-8), ml_dtypes.bfloat16(3.0), np.float64(0.1),
              Fraction(1, 3), (1 << 53) + 1, np.longdouble("0.1"), np.float32(1e-41)]
    want = [_binary32.bits_of(v) for v in values]
    got = []
    try:
        with sk.testing.fp_environment(**state):
            for v in values:
                got.append(_binary32.bits_of(v))
    except sk.testing.UnsupportedFPState as exc:
        pytest.skip(str(exc))
    assert got == want
