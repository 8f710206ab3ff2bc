"""The EV74 kernel's vector expressions (csrc/ev74/lanes.h) compiled as host
C through clang's vector types (tests/ev74/host/lanes_check.c), against the
independent oracle, as the specification's host check asks:

* every BF16 and FP16 pattern, for multiplier profiles (subnormal, power of
  two, ties, large, largest) in all four modes with extreme zero points;
* FP32 exponent boundaries: every exponent field with edge significands;
* isolated exceptional lanes: one NaN, infinity, zero, subnormal or
  underflowing lane at each position of an otherwise normal block, which
  must send exactly the subnormal and underflow blocks down the exact path;
* normal-product underflow: inputs whose product lands just below and
  just above 2^-126;
* each repeated on x86 with FTZ and DAZ set around the block expression
  only, the expected values computed beforehand by the oracle.

Not EV instruction validation: the same expressions, another compiler.
Skipped without clang 15 (make test installs it).
"""
import platform
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from oracle.formats import BFLOAT16, BINARY16, BINARY32, round_to_format, value_of
from oracle.quant import quant_many, quant_table
from support.oracle_store import digest, stored
from support.helpers import in_sanitizer_process

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(__file__).resolve().parent / "host" / "lanes_check.c"
INPUT = {"f32": 0, "bf16": 1, "f16": 2}
FORMAT = {"f32": BINARY32, "bf16": BFLOAT16, "f16": BINARY16}
MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")
# (multiplier bits, zero point): every multiplier class, the zero point
# at its extremes or inside.
PROFILES = (
    (0x3E99999A, -3),     # ~0.3: products spread with fractions
    (0x00000001, 127),    # 2^-149, the smallest subnormal: every block exact
    (0x007FFFFF, -128),   # the largest subnormal
    (0x00800000, 0),      # 2^-126: many products underflow
    (0x3F000000, -1),     # 0.5: quarter grids land on ties
    (0x4B000000, 127),    # 2^23: saturation but near zero
    (0x7F7FFFFF, -128),   # the largest: products overflow to infinity
)
FTZ = (0, 1) if platform.machine() in ("x86_64", "AMD64") else (0,)


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    if in_sanitizer_process():
        pytest.skip("the host check compiles the kernel's expressions itself; nothing of the sanitized build runs")
    clang = shutil.which("clang-15") or shutil.which("clang")
    if clang is None or not (ROOT / "csrc" / "ev74" / "lanes.h").is_file():
        pytest.skip("the host check needs clang 15 and the source tree (make test installs clang-15)")
    binary = tmp_path_factory.mktemp("lanes") / "lanes_check"
    subprocess.run([clang, "-std=c11", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-psabi",
                    "-o", str(binary), str(SOURCE)], check=True)
    return binary


def run(binary, dtype, mode, multiplier, zero_point, ftz, patterns):
    """(results as int8, per-block exact-path flags)."""
    patterns = np.asarray(patterns, np.uint32)
    assert patterns.size % 16 == 0
    head = np.array([INPUT[dtype], MODES.index(mode), multiplier, zero_point & 0xFFFFFFFF, ftz, patterns.size],
                    np.uint32)
    out = subprocess.run([str(binary)], input=head.tobytes() + patterns.tobytes(), capture_output=True,
                         check=True).stdout
    n = patterns.size
    assert len(out) == n + n // 16
    return np.frombuffer(out[:n], np.int8), np.frombuffer(out[n:], np.uint8)


def expected(dtype, patterns, multiplier, zero_point, mode):
    patterns = np.asarray(patterns, np.uint32)
    fmt = FORMAT[dtype]
    if dtype != "f32" and patterns.size == 1 << 16:
        return stored(f"quant_table {fmt.name} {multiplier:#x} {zero_point} {mode}", np.int8, patterns.size,
                      lambda: quant_table(fmt, multiplier, zero_point, mode))
    return stored(f"quant_many {fmt.name} {multiplier:#x} {zero_point} {mode} {digest(patterns)}", np.int8,
                  patterns.size, lambda: quant_many(patterns.tolist(), fmt, multiplier, zero_point, mode))


def assert_same(got, want, patterns, what):
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{what}: {bad.size} lanes differ, e.g. "
                           + ", ".join(f"{int(patterns[i]):#x}: got {int(got[i])} want {int(want[i])}"
                                       for i in bad[:5]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_every_16bit_pattern(checker, dtype, mode):
    patterns = np.arange(1 << 16, dtype=np.uint32)
    for multiplier, zero_point in PROFILES:
        want = expected(dtype, patterns, multiplier, zero_point, mode)
        for ftz in FTZ:
            got, exact = run(checker, dtype, mode, multiplier, zero_point, ftz, patterns)
            assert_same(got, want, patterns, f"{dtype} {mode} m={multiplier:#x} zp={zero_point} ftz={ftz}")
            if multiplier < 0x00800000:  # a subnormal multiplier: every block exact
                assert exact.all()


def fp32_boundaries():
    """Every exponent field with edge significands (0, 1, 2, half, max-1,
    max) and two random ones, both signs: 4,096 patterns."""
    rng = np.random.default_rng(0xB32)
    exponent = np.repeat(np.arange(256, dtype=np.uint32), 8)
    fraction = np.tile(np.array([0, 1, 2, 1 << 22, (1 << 23) - 2, (1 << 23) - 1, 0, 0], np.uint32), 256)
    fraction[6::8] = rng.integers(0, 1 << 23, 256, dtype=np.uint32)
    fraction[7::8] = rng.integers(0, 1 << 23, 256, dtype=np.uint32)
    positive = (exponent << 23) | fraction
    return np.concatenate([positive, positive | 0x80000000])


@pytest.mark.parametrize("mode", MODES)
def test_fp32_exponent_boundaries(checker, mode):
    patterns = fp32_boundaries()
    for multiplier, zero_point in PROFILES:
        want = expected("f32", patterns, multiplier, zero_point, mode)
        for ftz in FTZ:
            got, _ = run(checker, "f32", mode, multiplier, zero_point, ftz, patterns)
            assert_same(got, want, patterns, f"f32 {mode} m={multiplier:#x} zp={zero_point} ftz={ftz}")


# One exceptional value per (input, kind), in an otherwise normal block of
# products well inside the normal range (multiplier 0.3).
NORMAL = {"f32": 0x41200000, "bf16": 0x4120, "f16": 0x4900}          # 10
EXCEPTIONAL = {
    "f32": {"nan": 0x7FC00001, "inf": 0xFF800000, "zero": 0x80000000, "subnormal": 0x00000003,
            "underflow": 0x00800001},      # the smallest normal: 0.3 x it is subnormal
    "bf16": {"nan": 0xFFC1, "inf": 0x7F80, "zero": 0x8000, "subnormal": 0x0001, "underflow": 0x0081},
    "f16": {"nan": 0x7E01, "inf": 0xFC00, "zero": 0x8000},             # no FP16 value underflows here
}
# The block must take the exact path for these kinds (FP16 has no FP32
# subnormal inputs, and at 0.3 none of its products underflow).
EXACT_KINDS = {"subnormal", "underflow"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
def test_isolated_exceptional_lanes(checker, dtype, mode):
    multiplier, zero_point = 0x3E99999A, 5
    rng = np.random.default_rng(INPUT[dtype])
    normal = NORMAL[dtype] + rng.integers(0, 64, 16 * 16 * len(EXCEPTIONAL[dtype]), dtype=np.uint32)
    blocks = normal.reshape(-1, 16).copy()
    kinds = []
    for k, (kind, bits) in enumerate(EXCEPTIONAL[dtype].items()):
        for lane in range(16):
            blocks[k * 16 + lane, lane] = bits
            kinds.append(kind)
    patterns = blocks.reshape(-1)
    want = expected(dtype, patterns, multiplier, zero_point, mode)
    for ftz in FTZ:
        got, exact = run(checker, dtype, mode, multiplier, zero_point, ftz, patterns)
        assert_same(got, want, patterns, f"{dtype} {mode} ftz={ftz}")
        took = {kind for kind, flag in zip(kinds, exact) if flag}
        assert took == EXACT_KINDS & set(EXCEPTIONAL[dtype]), f"blocks with {took} took the exact path"


def first_normal_product(fmt, multiplier):
    """The smallest positive pattern whose product, rounded to binary32 by
    the oracle, is normal (magnitudes are monotone in the patterns)."""
    m = value_of(BINARY32, multiplier)
    lo, hi = 1, ((1 << fmt.exponent_bits) - 1) << fmt.fraction_bits   # up to the infinity
    while lo < hi:
        mid = (lo + hi) // 2
        if (round_to_format(BINARY32, value_of(fmt, mid) * m) >> 23) & 0xFF:
            hi = mid
        else:
            lo = mid + 1
    return lo


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
def test_normal_product_underflow(checker, dtype, mode):
    """Inputs around the one whose product reaches 2^-126 (multiplier 2^-10
    x 1.5 for FP32 and BF16; 2^-120 for FP16, whose values start at 2^-24):
    the blocks below it take the exact path, those above the normal one
    (with FTZ the first block above may be repaired too: its products that
    round up to 2^-126 are flushed), all equal to the oracle."""
    fmt = FORMAT[dtype]
    multiplier = {"f16": 0x03800000, "f32": 0x3AC00000, "bf16": 0x3AC00000}[dtype]   # 2^-120; 1.5 x 2^-10
    threshold = first_normal_product(fmt, multiplier)
    below = np.arange(threshold - 48, threshold, dtype=np.uint32)
    above = np.arange(threshold, threshold + 48, dtype=np.uint32)
    sign = np.uint32(1 << (fmt.width - 1))
    patterns = np.concatenate([below, above, below | sign, above | sign])
    want = expected(dtype, patterns, multiplier, 0, mode)
    for ftz in FTZ:
        got, exact = run(checker, dtype, mode, multiplier, 0, ftz, patterns)
        assert_same(got, want, patterns, f"{dtype} {mode} ftz={ftz}")
        if ftz:  # x86 flushes tiny products before rounding: a block just above may be repaired too
            assert exact[[0, 1, 2, 6, 7, 8]].all() and not exact[[5, 11]].any(), exact
        else:
            assert exact.tolist() == [1, 1, 1, 0, 0, 0] * 2, exact
