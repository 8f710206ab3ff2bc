"""The native ``choose_qparams`` rule (csrc/qparams/rule.c, reached through
``qparams._from_keys``) against the oracle written from docs/qparams.md
(tests/oracle/qparams.py), field for field: scale bits, zero point,
multiplier bits, per channel, for range keys chosen where exact rounding is
hard: every binade, every 16-bit value, extreme exponent gaps, exact ties
of the scale, ranges where the check steps the scale, the empty range and
the least-scale clamp.  INT8's levels throughout; then every other storage
type's (the last part), in both modes where the type has them."""
from __future__ import annotations

import random
from fractions import Fraction
from typing import List, Sequence, Tuple

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from oracle import BFLOAT16, BINARY16, BINARY32, Format, round_to_format, value_of
from oracle import qparams as oracle
from simakernels._ffi import ffi, lib
from support import oracle_store

FORMATS = {"f32": (BINARY32, np.dtype(np.float32)), "bf16": (BFLOAT16, np.dtype(ml_dtypes.bfloat16)),
           "f16": (BINARY16, np.dtype(np.float16))}
MODES = [False, True]
MODE_IDS = ["asymmetric", "symmetric"]
SK_RULE_MAX_STEPS = 3  # csrc/qparams/rule.h: the bound its comment proves
SK_RULE_MAX_STEPS_2BIT = 4  # the same for the 2-bit types (a subnormal multiplier)
# Every storage type's levels (L, H), from the oracle's own table (the spec's ranges).
STORAGE = {name: oracle.storage_levels(name) for name in oracle.STORAGE}


def limit(fmt: Format) -> int:
    """The least non-finite magnitude (infinity's bits below the sign)."""
    return ((1 << fmt.exponent_bits) - 1) << fmt.fraction_bits


def magnitude(fmt: Format, value) -> int:
    """The magnitude bits of a value exactly representable in ``fmt``."""
    bits = round_to_format(fmt, Fraction(value))
    assert value_of(fmt, bits) == Fraction(value), f"{value} is not a {fmt.name} value"
    return bits & ((1 << (fmt.width - 1)) - 1)


def native(key: str, least: Sequence[int], greatest: Sequence[int], symmetric: bool, storage: str = "int8"):
    """(scale bits, zero points, multiplier bits) of the package's rule for
    the levels of ``storage``."""
    _, dtype = FORMATS[key]
    target = sk.qparams._check_storage(storage, symmetric)
    qp = sk.qparams._from_keys(np.array(least, np.int64), np.array(greatest, np.int64), dtype, symmetric, 0,
                               target=target)
    return qp.scale.view(np.uint32), qp.zero_point, qp.multiplier.view(np.uint32)


def oracle_rule(fmt: Format, least: Sequence[int], greatest: Sequence[int], symmetric: bool,
                storage: str = "int8") -> np.ndarray:
    """``oracle.choose_keys`` of every (least, greatest) pair, as rows
    (scale, zero point, multiplier, steps); large lists memoised on disk
    (support/oracle_store: a host run spares the emulated runs the exact
    arithmetic, the bulk of this module's time)."""
    levels = STORAGE[storage]

    def compute() -> np.ndarray:
        return np.array([(c.scale, c.zero_point, c.multiplier, c.steps) for c in
                         (oracle.choose_keys(fmt, int(lo), int(hi), symmetric, levels)
                          for lo, hi in zip(least, greatest))], np.int64).reshape(-1)

    if len(least) < 256:
        return compute().reshape(-1, 4)
    keys = np.array([least, greatest], np.int64)
    what = f"choose_keys {fmt.name} {symmetric} {oracle_store.digest(keys)}"
    if storage != "int8":  # INT8's names stay those stored before the other types came
        what += f" levels {levels}"
    return oracle_store.stored(what, np.int64, 4 * len(least), compute).reshape(-1, 4)


def check_rule(key: str, least: Sequence[int], greatest: Sequence[int], symmetric: bool,
               storage: str = "int8") -> np.ndarray:
    """The native rule equals the oracle on every channel (the levels of
    ``storage``); returns the oracle's rows (:func:`oracle_rule`)."""
    fmt, _ = FORMATS[key]
    scales, zero_points, multipliers = native(key, least, greatest, symmetric, storage)
    rows = oracle_rule(fmt, least, greatest, symmetric, storage)
    got = np.stack([np.asarray(scales, np.int64), np.asarray(zero_points, np.int64),
                    np.asarray(multipliers, np.int64)], axis=1).reshape(-1, 3)
    bad = np.flatnonzero((got != rows[:, :3]).any(axis=1))
    wrong = [f"keys ({int(least[i])}, {int(greatest[i])}): oracle {rows[i, 0]:#010x} {rows[i, 1]} {rows[i, 2]:#010x}, "
             f"native {got[i, 0]:#010x} {got[i, 1]} {got[i, 2]:#010x}" for i in bad[:8]]
    assert not wrong, f"{key} {storage} {MODE_IDS[symmetric]}: {bad.size} of {len(rows)} differ:\n" + "\n".join(wrong)
    low, high = STORAGE[storage]
    assert int(rows[:, 3].max(initial=0)) <= (SK_RULE_MAX_STEPS_2BIT if high - low == 3 else SK_RULE_MAX_STEPS)
    return rows


def assert_rule(key: str, least: Sequence[int], greatest: Sequence[int], symmetric: bool,
                storage: str = "int8") -> List[oracle.Chosen]:
    """:func:`check_rule`; returns the oracle's results (their step counts
    tell what was covered)."""
    return [oracle.Chosen(*(int(v) for v in row)) for row in check_rule(key, least, greatest, symmetric, storage)]


# ------------------------------------------------------------------ binades


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", FORMATS)
def test_random_ranges_in_every_binade(key, symmetric):
    """For every exponent field (subnormals included), ends with random
    fractions: one end in that binade, the other anywhere (or 0)."""
    fmt, _ = FORMATS[key]
    rng = random.Random(f"binades-{key}-{symmetric}")
    f = fmt.fraction_bits
    anywhere = lambda: rng.choice([0, rng.randrange(limit(fmt))])  # noqa: E731
    least, greatest = [], []
    for field in range((1 << fmt.exponent_bits) - 1):
        for _ in range(12):
            here = field << f | rng.getrandbits(f)
            other = anywhere()
            if rng.getrandbits(1):
                least.append(-other), greatest.append(here)
            else:
                least.append(-here), greatest.append(other)
    assert_rule(key, least, greatest, symmetric)


# ---------------------------------------------------------- 16-bit formats


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", ["bf16", "f16"])
def test_every_16_bit_value_with_zero(key, symmetric):
    """Every finite positive pattern as hi with lo = 0, and as -lo with hi = 0."""
    fmt, _ = FORMATS[key]
    every = list(range(limit(fmt)))
    check_rule(key, [0] * len(every), every, symmetric)
    check_rule(key, [-m for m in every], [0] * len(every), symmetric)


def others(fmt: Format) -> List[int]:
    """A few partners: the least subnormal, the greatest subnormal, 1.0, 3.0,
    the greatest finite."""
    return [1, (1 << fmt.fraction_bits) - 1, magnitude(fmt, 1), magnitude(fmt, 3), limit(fmt) - 1]


def pair_with_others(key: str, symmetric: bool, every: Sequence[int]) -> None:
    fmt, _ = FORMATS[key]
    for partner in others(fmt):
        check_rule(key, [-partner] * len(every), list(every), symmetric)
        check_rule(key, [-m for m in every], [partner] * len(every), symmetric)


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", ["bf16", "f16"])
def test_16_bit_values_with_others_sampled(key, symmetric):
    """Every 13th pattern against each of a few partners, on both sides."""
    fmt, _ = FORMATS[key]
    pair_with_others(key, symmetric, range(0, limit(fmt), 13))


@pytest.mark.slow
@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", ["bf16", "f16"])
def test_every_16_bit_value_with_others(key, symmetric):
    fmt, _ = FORMATS[key]
    pair_with_others(key, symmetric, range(limit(fmt)))


# ------------------------------------------------------------ exponent gaps


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", FORMATS)
def test_exponent_gap_extremes(key, symmetric):
    """The greatest finite against the least subnormal (the widest gap the
    exact sum meets, ~280 bits for binary32), both ways round."""
    fmt, _ = FORMATS[key]
    greatest = limit(fmt) - 1
    assert_rule(key, [-1, -greatest, -1, -greatest], [greatest, 1, 1, greatest], symmetric)


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", FORMATS)
def test_every_exponent_gap(key, symmetric):
    """A few large ends against a small end in every binade (its least, its
    greatest and a random significand): every alignment of the smaller term,
    from overlapping to wholly below the quotient's sticky bit."""
    fmt, _ = FORMATS[key]
    f = fmt.fraction_bits
    rng = random.Random(f"gaps-{key}")
    large = [limit(fmt) - 1, magnitude(fmt, 1), 1 << f, magnitude(fmt, 1) | ((1 << f) - 1)]
    small = [field << f | sig for field in range((1 << fmt.exponent_bits) - 1)
             for sig in (0 if field else 1, (1 << f) - 1, rng.getrandbits(f))]
    least = [-s for big in large for s in small] + [-big for big in large for s in small]
    greatest = [big for big in large for s in small] + [s for big in large for s in small]
    assert_rule(key, least, greatest, symmetric)


# ---------------------------------------------------------------- ties


def is_tie(span: Fraction) -> bool:
    """Whether an exact value lies halfway between two binary32 neighbours."""
    nearest = round_to_format(BINARY32, span)
    value = value_of(BINARY32, nearest)
    below = value_of(BINARY32, nearest - 1) if nearest > 1 else Fraction(0)
    above = value_of(BINARY32, nearest + 1)
    return span - below == value - span or above - span == span - value


def binary32_ties(rng: random.Random) -> List[Tuple[int, int]]:
    """Asymmetric binary32 ranges whose (hi - lo) / 254 is an exact tie:
    hi - lo = 127 (2k + 1) 2^q with 2^23 <= k < 2^24, split into a high
    part (hi) and its low 9 bits (-lo).  (No symmetric tie exists: a single
    24-bit value is not 127 times a 25-bit odd number.)  k even rounds
    down, odd up; k = 2^24 - 1 carries into the next binade."""
    pairs = []
    ks = [1 << 23, (1 << 23) + 1, (1 << 24) - 2, (1 << 24) - 1] + [rng.randrange(1 << 23, 1 << 24) for _ in range(60)]
    for k in ks:
        total = 127 * (2 * k + 1)
        for q in (-149, -140, -100, -31, -9, 0, 30, 90):
            unit = Fraction(2) ** q
            high, low = (total >> 9) << 9, total & 511
            pairs.append((-magnitude(BINARY32, low * unit), magnitude(BINARY32, high * unit)))
            pairs.append((-magnitude(BINARY32, high * unit), magnitude(BINARY32, low * unit)))
    return pairs


def narrow_ties(fmt: Format) -> List[Tuple[int, int]]:
    """Ranges of a 16-bit format whose (hi - lo) / 254 is an exact tie:
    A 2^s + B = 127 x (an odd number of 25 bits), A and B significands of
    the format (found by their residues mod 127)."""
    top = 1 << (fmt.fraction_bits + 1)
    pairs = []
    for a in range(1, top):
        for s in range(max(1, 30 - a.bit_length()), 33 - a.bit_length()):  # a 2^s near 127 2^24
            for b in range(-(a << s) % 127, top, 127):  # a 2^s + b divisible by 127
                total = (a << s) + b
                odd = total // 127
                if b and b & 1 and total % 127 == 0 and (1 << 24) <= odd < (1 << 25):
                    base = Fraction(1, 1 << 24) if fmt is BINARY16 else Fraction(1, 1 << 60)
                    pairs.append((-magnitude(fmt, b * base), magnitude(fmt, a * (1 << s) * base)))
    return pairs


@pytest.mark.parametrize("key", FORMATS)
def test_ties_of_the_scale_rounding(key):
    fmt, _ = FORMATS[key]
    pairs = binary32_ties(random.Random(254)) if fmt is BINARY32 else narrow_ties(fmt)
    ties = [(lo, hi) for lo, hi in pairs
            if is_tie((oracle.key_value(fmt, hi) - oracle.key_value(fmt, lo)) / 254)]
    assert len(ties) == len(pairs) and len(ties) >= 20, (len(ties), len(pairs))
    expected = assert_rule(key, [lo for lo, _ in ties], [hi for _, hi in ties], False)
    # both ways: ties go to the even significand, below the exact span and above it
    spans = [(oracle.key_value(fmt, hi) - oracle.key_value(fmt, lo)) / 254 for lo, hi in ties]
    downs = sum(value_of(BINARY32, e.scale - e.steps) < span for e, span in zip(expected, spans))
    assert 0 < downs < len(ties), downs
    # one unit more or less at the far end of the low part: no longer a tie
    near = [(lo - d, hi) for lo, hi in ties for d in (-1, 1) if -limit(fmt) < lo - d <= 0]
    assert_rule(key, [lo for lo, _ in near], [hi for _, hi in near], False)


# ---------------------------------------------------------------- steps


def stepping_candidates(fmt: Format, symmetric: bool, rng: random.Random, count: int) -> List[Tuple[int, int]]:
    """Ranges lo = -i t, hi = j t (i + j = 254; symmetric: i = 127), rounded
    to the format: the ends sit near whole levels, where the rounding of
    the scale, the multiplier or a product can push one past."""
    pairs = []
    while len(pairs) < count:
        low_exp = -20 if fmt is BINARY16 else -140
        high_exp = 5 if fmt is BINARY16 else 100
        t = Fraction(rng.getrandbits(50) | 1 << 50, 1 << 50) * Fraction(2) ** rng.randint(low_exp, high_exp)
        i = 127 if symmetric else rng.randint(0, 254)
        j = rng.choice([127, 0, rng.randint(0, 127)]) if symmetric else 254 - i
        lo, hi = round_to_format(fmt, i * t), round_to_format(fmt, j * t)
        if lo < limit(fmt) and hi < limit(fmt):
            pairs.append((-lo, hi))
    return pairs


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key", FORMATS)
def test_ranges_where_the_check_steps(key, symmetric):
    """Found by the oracle: ranges whose first scale fails the check.  They
    must exist (else this test proves nothing), and the native rule must
    step exactly as the oracle does."""
    fmt, _ = FORMATS[key]
    pairs = stepping_candidates(fmt, symmetric, random.Random(f"steps-{key}-{symmetric}"), 3000)
    expected = assert_rule(key, [lo for lo, _ in pairs], [hi for _, hi in pairs], symmetric)
    stepped = sum(e.steps > 0 for e in expected)
    assert stepped >= 1, f"no range of {len(pairs)} made the check step"


# ------------------------------------------------------- empty and clamped


@pytest.mark.parametrize("key", FORMATS)
def test_empty_range(key):
    for symmetric in MODES:
        scales, zero_points, multipliers = native(key, [0], [0], symmetric)
        assert (int(scales[0]), int(zero_points[0]), int(multipliers[0])) == (
            0x3F800000, 0 if symmetric else -128, 0x3F800000)
        assert_rule(key, [0], [0], symmetric)


def test_least_scale_constant():
    """csrc/qparams/rule.h's SK_RULE_LEAST_SCALE, (2^21 + 1) 2^-149, is the
    least binary32 with a finite reciprocal (the oracle's bisection): at
    2^21 2^-149 = 2^-128 the reciprocal 2^128 overflows."""
    assert oracle.least_scale_bits() == 0x00200001
    assert round_to_format(BINARY32, 1 / value_of(BINARY32, 0x00200000)) == 0x7F800000
    assert round_to_format(BINARY32, 1 / value_of(BINARY32, 0x00200001)) < 0x7F800000


@pytest.mark.parametrize("symmetric", MODES, ids=MODE_IDS)
def test_least_scale_clamp(symmetric):
    """Binary32 ranges whose first scale would be below the least scale are
    clamped to it, and its reciprocal is finite; the first ranges just past
    the clamp take their own scale."""
    threshold = value_of(BINARY32, 0x00200001) * (127 if symmetric else 254)  # spans up to it clamp
    edge = round_to_format(BINARY32, threshold)
    edge -= value_of(BINARY32, edge) > threshold  # the greatest hi whose span clamps
    tiny = list(range(1, 40)) + [1 << 20, (1 << 21) - 1] + list(range(edge - 40, edge + 40))
    expected = assert_rule("f32", [0] * len(tiny), tiny, symmetric)
    clamped = [e for e in expected if e.scale == 0x00200001]
    assert len(clamped) >= 40 and any(e.scale > 0x00200001 for e in expected)
    assert all(e.multiplier < 0x7F800000 for e in expected)
    scales, _, multipliers = native("f32", [0], [1], symmetric)
    assert int(scales[0]) == 0x00200001
    assert int(multipliers[0]) == oracle.choose_keys(BINARY32, 0, 1, symmetric).multiplier


# ------------------------------------------------------------- the entry


def call_entry(input_code, symmetric, least, greatest, count=None, storage=lib.SK_HURRAY_INT8):
    least, greatest = np.array(least, np.int64), np.array(greatest, np.int64)
    n = least.size if count is None else count
    out = [np.zeros(max(n, 1), t) for t in (np.uint32, np.int32, np.uint32)]
    status = lib.sk_qparams_rule(input_code, storage, symmetric, ffi.from_buffer("int64_t[]", least),
                                 ffi.from_buffer("int64_t[]", greatest), n,
                                 *(ffi.from_buffer(f"{c}[]", o, require_writable=True)
                                   for c, o in zip(("uint32_t", "int32_t", "uint32_t"), out)))
    return status, out


def test_the_entry_refuses_keys_out_of_range():
    ok = lib.SK_OK
    assert call_entry(lib.SK_QUANT_F32, 0, [-5], [7])[0] == ok
    assert call_entry(lib.SK_QUANT_F32, 0, [1], [7])[0] == lib.SK_INVALID_PARAMS        # lo > 0
    assert call_entry(lib.SK_QUANT_F32, 0, [-1], [-1])[0] == lib.SK_INVALID_PARAMS      # hi < 0
    assert call_entry(lib.SK_QUANT_F32, 0, [-0x7F800000], [0])[0] == lib.SK_INVALID_PARAMS  # -inf
    assert call_entry(lib.SK_QUANT_F32, 0, [0], [0x7F800000])[0] == lib.SK_INVALID_PARAMS   # inf
    assert call_entry(lib.SK_QUANT_F16, 1, [0], [0x7C00])[0] == lib.SK_INVALID_PARAMS
    assert call_entry(lib.SK_QUANT_BF16, 1, [-0x7F80], [0])[0] == lib.SK_INVALID_PARAMS
    assert call_entry(lib.SK_QUANT_F32, 0, [-(1 << 63)], [0])[0] == lib.SK_INVALID_PARAMS
    assert call_entry(lib.SK_QUANT_F32, 0, [0], [(1 << 63) - 1])[0] == lib.SK_INVALID_PARAMS
    assert call_entry(3, 0, [0], [0])[0] == lib.SK_UNSUPPORTED_DTYPE
    assert call_entry(-1, 0, [0], [0])[0] == lib.SK_UNSUPPORTED_DTYPE
    null = ffi.NULL
    i8 = lib.SK_HURRAY_INT8
    assert lib.sk_qparams_rule(lib.SK_QUANT_F32, i8, 0, null, null, 1, null, null, null) == lib.SK_INVALID_BINDING
    assert lib.sk_qparams_rule(lib.SK_QUANT_F32, i8, 0, null, null, 0, null, null, null) == ok


def test_from_keys_shapes():
    """Per tensor: NumPy binary32 scalars and an int; per axis: float32,
    int32 and float32 arrays."""
    qp = sk.qparams._from_keys(np.array([-0x3F800000], np.int64), np.array([0x40000000], np.int64),
                               np.dtype(np.float32), False, None)
    assert isinstance(qp.scale, np.float32) and isinstance(qp.multiplier, np.float32)
    assert type(qp.zero_point) is int and (qp.scale, qp.zero_point) == (np.float32(3) / np.float32(254), -43)
    qa = sk.qparams._from_keys(np.array([0, -1], np.int64), np.array([0, 1], np.int64), np.dtype(np.float16), True, 1)
    assert (qa.scale.dtype, qa.zero_point.dtype, qa.multiplier.dtype, qa.axis) == (np.float32, np.int32, np.float32, 1)
    empty = sk.qparams._from_keys(np.zeros(0, np.int64), np.zeros(0, np.int64), np.dtype(np.float32), False, 0)
    assert empty.scale.shape == empty.zero_point.shape == empty.multiplier.shape == (0,)


def test_misaligned_keys_are_taken():
    """Keys merged by Dask can sit in a misaligned buffer (the sanitizer
    build reports a misaligned load if they reach C as they are)."""
    low, high = np.int64([-5, 0, -(1 << 20)]), np.int64([7, 1 << 22, 0])
    raw = np.zeros(2 * 8 * 3 + 1, np.uint8)
    odd_low = np.frombuffer(raw.data, np.int64, 3, offset=1)
    odd_high = np.frombuffer(raw.data, np.int64, 3, offset=1 + 8 * 3)
    raw[1:25], raw[25:49] = low.view(np.uint8), high.view(np.uint8)
    assert not odd_low.flags.aligned and not odd_high.flags.aligned
    got = sk.qparams._from_keys(odd_low, odd_high, np.dtype(np.float32), False, 0)
    want = sk.qparams._from_keys(low, high, np.dtype(np.float32), False, 0)
    for field in ("scale", "zero_point", "multiplier"):
        assert np.array_equal(getattr(got, field), getattr(want, field)), field


# ------------------------------------------------ every other storage type

# (storage type, symmetric): symmetric only for the signed types.
STORAGE_CASES = [(name, symmetric) for name in STORAGE for symmetric in MODES
                 if name != "int8" and (not symmetric or STORAGE[name][0] < 0)]
STORAGE_IDS = [f"{name}-{MODE_IDS[symmetric]}" for name, symmetric in STORAGE_CASES]


def divisor(storage: str, symmetric: bool) -> int:
    """The first scale's divisor the docs give: H - L - 1, or H symmetric."""
    low, high = STORAGE[storage]
    return high if symmetric else high - low - 1


def storage_ranges(fmt: Format, storage: str, symmetric: bool, rng: random.Random, count: int) -> List[Tuple[int, int]]:
    """Range keys for one type and mode: the empty range; tiny, subnormal
    and huge ends; the widest exponent gaps; ends in every binade against
    anything; and ends near whole levels of this type's divisor (lo = -i t,
    hi = j t with i + j = D, or i = D symmetric), where the check steps."""
    f, top = fmt.fraction_bits, limit(fmt) - 1
    pairs = [(0, 0), (0, 1), (-1, 0), (-1, 1), (-top, top), (-1, top), (-top, 1), (0, top), (-top, 0),
             (-((1 << f) - 1), (1 << f) - 1), (-(1 << f), 3)]
    fields = (1 << fmt.exponent_bits) - 1
    while len(pairs) < count // 2:
        here = rng.randrange(fields) << f | rng.getrandbits(f)
        other = rng.choice([0, 1, rng.randrange(1 << f), rng.randrange(limit(fmt)), top])
        pairs.append((-other, here) if rng.getrandbits(1) else (-here, other))
    d = divisor(storage, symmetric)
    low_exp, high_exp = (-24, 13) if fmt is BINARY16 else (-145, 124)
    while len(pairs) < count:
        t = Fraction(rng.getrandbits(50) | 1 << 50, 1 << 50) * Fraction(2) ** rng.randint(low_exp, high_exp) / d
        i = d if symmetric else rng.randint(0, d)
        j = rng.choice([d, 0, rng.randint(0, d)]) if symmetric else d - i
        lo, hi = round_to_format(fmt, i * t), round_to_format(fmt, j * t)
        if lo < limit(fmt) and hi < limit(fmt):
            pairs.append((-lo, hi) if rng.getrandbits(1) or symmetric else (-hi, lo))
    return pairs


@pytest.mark.parametrize("key", FORMATS)
@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_every_storage_type_against_the_oracle(storage, symmetric, key):
    """Field for field, for the type's levels: a few hundred ranges of
    every kind (:func:`storage_ranges`)."""
    fmt, _ = FORMATS[key]
    pairs = storage_ranges(fmt, storage, symmetric, random.Random(f"storage-{storage}-{symmetric}-{key}"), 300)
    expected = assert_rule(key, [lo for lo, _ in pairs], [hi for _, hi in pairs], symmetric, storage)
    low, high = STORAGE[storage]
    assert all(low <= e.zero_point <= high and (e.zero_point == 0 or not symmetric) for e in expected)


@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_every_storage_type_steps_as_the_oracle(storage, symmetric):
    """Binary32 ranges near whole levels: some must make the check step
    (else the comparison proves nothing about stepping)."""
    pairs = storage_ranges(BINARY32, storage, symmetric, random.Random(f"steps-{storage}-{symmetric}"), 1200)[600:]
    expected = assert_rule("f32", [lo for lo, _ in pairs], [hi for _, hi in pairs], symmetric, storage)
    if divisor(storage, symmetric) > 2:  # the 2-bit types step only with a subnormal multiplier (the next test)
        assert sum(e.steps > 0 for e in expected) >= 1, f"no range of {len(pairs)} made the check step"


@pytest.mark.parametrize("storage,symmetric", [("int2", True), ("uint2", False), ("int2", False)],
                         ids=["int2-symmetric", "uint2-asymmetric", "int2-asymmetric"])
def test_two_bit_scales_with_a_subnormal_multiplier(storage, symmetric):
    """The 2-bit types' scales reach 2^126..2^128, where the multiplier is
    subnormal and the check steps up to 3 times (rule.c argues at most 4):
    ranges there, the largest finite included, both ends equal (asymmetric:
    the case that steps) or one end small."""
    rng = random.Random(f"subnormal-multiplier-{storage}-{symmetric}")
    top = limit(BINARY32) - 1
    ends = [top, top - 1, top - 3, top - 4, top - 5, 0x7E800000, 0x7F000000] + \
        [rng.randrange(0x7E800000, limit(BINARY32)) for _ in range(700)]
    pairs = [(-e, e) for e in ends] + [(-e, 0x3F800000) for e in ends[:100]] + [(-1, e) for e in ends[100:200]]
    expected = assert_rule("f32", [lo for lo, _ in pairs], [hi for _, hi in pairs], symmetric, storage)
    assert max(e.steps for e in expected) >= 3  # the deepest seen (over every symmetric one)
    assert all(e.scale < 0x7F800000 for e in expected)
    assert sum(0 < e.multiplier < 0x00800000 for e in expected) >= 500  # subnormal


def test_unsigned_and_signed_twins():
    """Asymmetric, an unsigned type and the signed type of its width have
    the same divisor and the same check: the same scale and multiplier, the
    zero point 2^(b-1) apart."""
    rng = random.Random("twins")
    least = [-rng.randrange(limit(BINARY32)) for _ in range(500)] + [0, -1, 0]
    greatest = [rng.choice([0, rng.randrange(limit(BINARY32))]) for _ in range(500)] + [0, 0, 7]
    for unsigned, signed in (("uint8", "int8"), ("uint16", "int16"), ("uint4", "int4"), ("uint2", "int2")):
        u_scale, u_zero, u_mult = native("f32", least, greatest, False, unsigned)
        s_scale, s_zero, s_mult = native("f32", least, greatest, False, signed)
        assert np.array_equal(u_scale, s_scale) and np.array_equal(u_mult, s_mult), unsigned
        assert np.array_equal(u_zero.astype(np.int64) - s_zero, np.full(len(least), -STORAGE[signed][0])), unsigned


def test_storage_codes_at_the_entry():
    """sk_qparams_rule's storage argument: the eight quantization outputs
    taken (symmetric for the signed ones), INT32, UINT32 and unknown codes
    UNSUPPORTED_DTYPE, symmetric with an unsigned type INVALID_PARAMS;
    the input format first, then the storage type, then the binding."""
    ok, codes = lib.SK_OK, {name: getattr(lib, f"SK_HURRAY_{name.upper()}") for name in STORAGE}
    for name, code in codes.items():
        status, out = call_entry(lib.SK_QUANT_F32, 0, [-magnitude(BINARY32, 1)], [magnitude(BINARY32, 2)],
                                 storage=code)
        assert status == ok and int(out[1][0]) == oracle.choose(-1, 2, False, STORAGE[name]).zero_point, name
        signed = STORAGE[name][0] < 0
        assert call_entry(lib.SK_QUANT_F32, 1, [-5], [7], storage=code)[0] == (ok if signed else lib.SK_INVALID_PARAMS)
    for code in (lib.SK_HURRAY_INT32, lib.SK_HURRAY_UINT32, lib.SK_HURRAY_STORAGE_COUNT, -1, 99):
        assert call_entry(lib.SK_QUANT_F32, 0, [-5], [7], storage=code)[0] == lib.SK_UNSUPPORTED_DTYPE, code
    null = ffi.NULL
    assert call_entry(3, 1, [0], [0], storage=codes["uint8"])[0] == lib.SK_UNSUPPORTED_DTYPE  # the input first
    assert lib.sk_qparams_rule(lib.SK_QUANT_F32, lib.SK_HURRAY_INT32, 0, null, null, 1, null, null, null) == \
        lib.SK_UNSUPPORTED_DTYPE
    assert lib.sk_qparams_rule(lib.SK_QUANT_F32, codes["uint4"], 1, null, null, 1, null, null, null) == \
        lib.SK_INVALID_PARAMS
    assert lib.sk_qparams_rule(lib.SK_QUANT_F32, codes["uint4"], 0, null, null, 1, null, null, null) == \
        lib.SK_INVALID_BINDING


def test_storage_codes_at_the_fused_entry():
    """sk_qparams_choose checks the storage type and mode before the range
    pass: a null layout is not even looked at."""
    null = ffi.NULL
    for code, symmetric, status in ((lib.SK_HURRAY_INT32, 0, lib.SK_UNSUPPORTED_DTYPE),
                                    (lib.SK_HURRAY_UINT16, 1, lib.SK_INVALID_PARAMS)):
        assert lib.sk_qparams_choose(lib.SK_QUANT_F32, 0, code, symmetric, null, -1, 0, null, 0, null, 0, null, null,
                                     null) == status


@pytest.mark.slow
@pytest.mark.parametrize("key", FORMATS)
@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_every_storage_type_against_the_oracle_sweep(storage, symmetric, key):
    """As the quick test, with many more ranges."""
    fmt, _ = FORMATS[key]
    pairs = storage_ranges(fmt, storage, symmetric, random.Random(f"sweep-{storage}-{symmetric}-{key}"), 12000)
    assert_rule(key, [lo for lo, _ in pairs], [hi for _, hi in pairs], symmetric, storage)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["bf16", "f16"])
@pytest.mark.parametrize("storage,symmetric", STORAGE_CASES, ids=STORAGE_IDS)
def test_every_storage_type_every_16_bit_value_with_zero(storage, symmetric, key):
    """Every finite positive pattern as hi with lo = 0, and as -lo with hi = 0."""
    fmt, _ = FORMATS[key]
    every = list(range(0, limit(fmt), 3))
    check_rule(key, [0] * len(every), every, symmetric, storage)
    check_rule(key, [-m for m in every], [0] * len(every), symmetric, storage)
