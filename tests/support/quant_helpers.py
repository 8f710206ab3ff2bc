"""Quant test support: multiplier profiles, oracle expectations (cached),
input generators that reach every code path, and a case runner that checks
one execution bit for bit with every byte outside the logical elements
untouched.

Expected INT8 values come only from the independent oracle
(``tests/oracle/quant.py``), looked up by input pattern; nothing here calls
the code under test to compute an expectation.  The generators below only
choose *inputs* (NumPy and ml_dtypes conversions pick values near ties or
in a useful range); whatever they produce, the oracle decides the result.

Code paths of a dense run (see csrc/quant): on the SSE2 route, 16-element
blocks take a binary32 multiply ("fast") unless a lane is a nonzero
FP32/BF16 subnormal, a nonzero finite lane's product has a zero exponent
field, or the multiplier is subnormal ("repair": the exact integer path for
the whole block); fewer than 16 trailing elements and strided runs always
take the exact path.  The NEON route's fast path is exact without flushing
(its conversions give the contract's answers for every lane) and runs a
tail as one zero-padded block; under FZ a pair of blocks with a zero
exponent product repairs, tails take the exact path, and so does every
block of a subnormal multiplier.  The AVX2 route works in 32-element blocks
and the AVX-512 route (F/BW/VL/DQ/VBMI) in 64-element blocks of its own
leaves, for every input and rounding mode; both widen FP16 inputs exactly
with vcvtph2ps (F16C's on AVX2, its 512-bit AVX-512F form on AVX-512): no
AVX-512 FP16 instruction is used.  A block repairs when a product is NaN
or reaches 2^31 or -32768 in magnitude (tested per 1024-element chunk),
or, under FTZ/DAZ only, when a nonzero input lies below the multiplier's
low bound (test_quant_fast_paths covers those edges and the streaming
stores).  Tests assert nothing about which path ran; they make sure inputs
reach all of them.
"""
from __future__ import annotations

import contextlib
import functools
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import ml_dtypes
import numpy as np

from support import oracle_store
import simakernels as sk
from support.helpers import (BF16, F16, F32, I8, INPUT_FILL, ITEMSIZE, SENTINEL, UINT, Storage, fp_or_skip,
    mismatch_report, span, spec, untouched_report)
from oracle import BFLOAT16, BINARY16, BINARY32, quant_many, quant_table

Rounding = sk.ops.quant.Rounding
MODES: Tuple[str, ...] = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")
INPUTS: Dict[str, sk.DType] = {"f32": F32, "bf16": BF16, "f16": F16}
FORMAT = {F32: BINARY32, BF16: BFLOAT16, F16: BINARY16}
NUMPY_FLOAT = {F32: np.dtype(np.float32), BF16: np.dtype(ml_dtypes.bfloat16), F16: np.dtype(np.float16)}
ZERO_POINTS: Tuple[int, ...] = (-128, -100, 0, 127)
FTZ_DAZ = dict(flush_to_zero=True, denormals_are_zero=True)


def pow2(e: int) -> int:
    """binary32 bits of 2^e (normal or subnormal)."""
    if e >= -126:
        return (127 + e) << 23
    return 1 << (e + 149)


def f32_value(bits: int) -> float:
    """The binary32 value of ``bits`` as a Python float (exact; input generation only)."""
    return float(np.array(bits, dtype=np.uint32).view(np.float32))


# Multiplier profiles (binary32 bits).  Ties: with 2^-1, 255 -> 127.5 (BF16,
# FP16) and -257 -> -128.5 (FP16); with 257/256, -128 -> -128.5 (BF16, FP16);
# with 1.0, 127.5 and -128.5 themselves (FP16; BF16 has 127.5).
PROFILES: Dict[str, int] = {
    "1.0": 0x3F800000,
    "0x3e99999a": 0x3E99999A,       # the specification's double-rounding multiplier (~0.3)
    "0.1f": 0x3DCCCCCD,
    "2^-1": pow2(-1),
    "257/256": 0x3F808000,
    "2^-24": pow2(-24),
    "2^10": pow2(10),
    "2^100": pow2(100),
    "2^-126": pow2(-126),           # 0x00800000, smallest normal: FP16 products below 1 are subnormal
    "sub-2^-127": 0x00400000,       # subnormal multipliers: every block exact
    "sub-min": 0x00000001,
    "sub-max": 0x007FFFFF,
    "max-finite": 0x7F7FFFFF,       # products overflow to infinity
}
assert PROFILES["2^-126"] == 0x00800000 and PROFILES["sub-2^-127"] == pow2(-127)
# The slow exhaustive cross-product (every zero point) takes every profile but
# the two extras that only widen the non-slow slice.
CROSS_PROFILES: Tuple[str, ...] = tuple(p for p in PROFILES if p not in ("0.1f", "sub-max"))


# --------------------------------------------------------------------- oracle

_TABLES: Dict[tuple, np.ndarray] = {}


def _stored(what: str, size: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """An INT8 oracle result memoised on disk (oracle_store)."""
    return oracle_store.stored(what, np.int8, size, compute)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def table16(dtype: sk.DType, m: int, zp: int, mode: str) -> np.ndarray:
    """Oracle INT8 results for every pattern of a 16-bit input format,
    indexed by the pattern (one ``oracle.quant_table`` call, cached)."""
    key = (dtype, m, zp, mode)
    if key not in _TABLES:
        _TABLES[key] = _frozen(_stored(
            f"quant_table {FORMAT[dtype].name} {m:#010x} {zp} {mode}", 1 << 16,
            lambda: np.array(quant_table(FORMAT[dtype], m, zp, mode), dtype=np.int8)))
    return _TABLES[key]


def oracle_large(dtype: sk.DType, patterns: np.ndarray, m: int, zp: int, mode: str) -> np.ndarray:
    """:func:`oracle` for a large FP32 pattern set, memoised on disk by the
    patterns' digest."""
    flat = np.ascontiguousarray(patterns, dtype=UINT[dtype]).reshape(-1)
    what = f"quant_many {FORMAT[dtype].name} {oracle_store.digest(flat)} {m:#010x} {zp} {mode}"
    return _stored(what, flat.size, lambda: _by_pattern(dtype, flat, m, zp, mode)).reshape(np.shape(patterns))


@functools.lru_cache(maxsize=None)
def table16_by_class(dtype: sk.DType, m: int, zp: int, mode: str) -> np.ndarray:
    """:func:`table16` for any zero point in [-128, 127], evaluating the oracle
    on one representative pattern per class instead of all 65,536.

    The specification's steps 4-5 make the result ``saturate(I + zp)`` for an
    integer I (NaN and zeros: 0) or +-infinity.  The two extreme zero points
    determine ``saturate(I + zp)`` for every zero point in between:
    ``saturate(I - 128)`` gives I when it lies in [1, 254] and
    ``saturate(I + 127)`` when it lies in [-254, -1]; 127 from -128 means
    I >= 255, -128 from 127 means I <= -255 (saturating alike for every zero
    point), and (-128, 127) means I = 0.  Patterns with the same pair of
    extreme results therefore agree for every zero point, and the oracle's
    result for one of them is the oracle's result for all
    (``test_class_tables_agree_with_the_oracle`` checks this on samples)."""
    if zp in (-128, 127) or (dtype, m, zp, mode) in _TABLES:
        return table16(dtype, m, zp, mode)
    low = table16(dtype, m, -128, mode).astype(np.int32)
    high = table16(dtype, m, 127, mode).astype(np.int32)
    _, first, inverse = np.unique((low + 128) * 256 + (high + 128), return_index=True, return_inverse=True)
    values = np.array(quant_many(first.tolist(), FORMAT[dtype], m, zp, mode), dtype=np.int8)
    return _frozen(values[inverse.reshape(-1)])


# The oracle's result per (dtype, multiplier, zero point, mode) and input
# pattern, once computed in this process: the same inputs run on every
# route (five on x86-64), and under QEMU the oracle's exact arithmetic, not
# the kernels, was most of the suite's time.  Bounded per parameter set.
_RESULTS: Dict[Tuple[sk.DType, int, int, str], Dict[int, int]] = {}
_RESULTS_LIMIT = 1 << 21


def oracle(dtype: sk.DType, patterns, m: int, zp: int, mode: str) -> np.ndarray:
    """Oracle INT8 results (as int8) for an array of input patterns: a
    cached whole-format table for 16-bit inputs when one exists or the array
    is large; for FP32, the results memoised on disk when the array is large
    (oracle_large), else one oracle call per distinct pattern not yet seen
    with these parameters."""
    patterns = np.asarray(patterns)
    flat = patterns.reshape(-1).astype(UINT[dtype])
    if dtype is not F32 and ((dtype, m, zp, mode) in _TABLES or flat.size > 8192):
        return table16(dtype, m, zp, mode)[flat].reshape(patterns.shape)
    if flat.size >= LARGE:
        return oracle_large(dtype, flat, m, zp, mode).reshape(patterns.shape)
    return _by_pattern(dtype, flat, m, zp, mode).reshape(patterns.shape)


# FP32 pattern arrays from this size up go through the disk memo.
LARGE = 2048


def _by_pattern(dtype: sk.DType, flat: np.ndarray, m: int, zp: int, mode: str) -> np.ndarray:
    unique, inverse = np.unique(flat, return_inverse=True)
    seen = _RESULTS.setdefault((dtype, m, zp, mode), {})
    wanted = unique.tolist()
    missing = [p for p in wanted if p not in seen]
    if len(seen) + len(missing) > _RESULTS_LIMIT:
        seen.clear()
        missing = wanted
    seen.update(zip(missing, quant_many(missing, FORMAT[dtype], m, zp, mode)))
    values = np.array([seen[p] for p in wanted], dtype=np.int8)
    return values[inverse.reshape(-1)]


# --------------------------------------------------------------------- inputs

# Special patterns of each input format: signed zeros, subnormals (smallest,
# largest, middle), smallest normal, +-1, ties, largest finite, infinities
# and NaNs of both signs with several payloads.
SPECIALS: Dict[sk.DType, Tuple[int, ...]] = {
    F32: (
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00400000, 0x807FFFFF, 0x007FFFFF,
        0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000, 0x3FC00000,
        0x40200000, 0xC0200000, 0x42FF0000, 0xC3008000, 0x437F8000, 0xC3808000, 0x44000000,
        0x43FF8000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7F800001, 0xFF800001,
        0x7FC00000, 0xFFC00000, 0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FA5A5A5,
    ),
    BF16: (
        0x0000, 0x8000, 0x0001, 0x8001, 0x0040, 0x807F, 0x007F, 0x0080, 0x8080, 0x3F80, 0xBF80,
        0x3F00, 0xBF00, 0x3FC0, 0x4020, 0xC020, 0x42FF, 0xC300, 0x437F, 0x7F7F, 0xFF7F, 0x7F80,
        0xFF80, 0x7F81, 0xFF81, 0x7FC0, 0xFFC0, 0x7FFF, 0xFFFF,
    ),
    F16: (
        0x0000, 0x8000, 0x0001, 0x8001, 0x0200, 0x83FF, 0x03FF, 0x0400, 0x8400, 0x3C00, 0xBC00,
        0x3800, 0xB800, 0x3E00, 0x4100, 0xC100, 0x57F8, 0xD804, 0x5BFC, 0xDC04, 0x7BFF, 0xFBFF,
        0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7FFF, 0xFFFF,
    ),
}


def to_patterns(dtype: sk.DType, values) -> np.ndarray:
    """Input patterns of ``dtype`` nearest to float64 ``values`` (NumPy /
    ml_dtypes conversion; out-of-range values become infinities)."""
    with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        f = np.asarray(values, dtype=np.float64).astype(np.float32).astype(NUMPY_FLOAT[dtype])
    return np.ascontiguousarray(f).view(UINT[dtype])


def useful_values(dtype: sk.DType, count: int, seed: int, m: int) -> np.ndarray:
    """``count`` input patterns for multiplier ``m``: mostly values whose
    products land in [-300, 300] (so every rounding mode and the
    saturation bounds matter), products near k + 0.5 and their neighbours,
    random patterns and every special pattern (head first, so short tensors
    see some)."""
    rng = np.random.default_rng(seed)
    mv = f32_value(m)
    kind = rng.integers(0, 10, size=count)
    y = rng.uniform(-300.0, 300.0, size=count)
    y = np.where(kind < 2, np.round(y) + 0.5, y)          # near ties
    limit = 65504.0 if dtype is F16 else 3.38e38          # the largest finite values, about
    useful = to_patterns(dtype, np.clip(y / mv, -limit, limit)).astype(np.int64)
    nudge = rng.integers(-2, 3, size=count)
    finite = (useful & _exp_mask(dtype)) != _exp_mask(dtype)
    useful = np.where((kind < 3) & finite, useful + nudge, useful)   # ulps around the tie
    bits = 8 * ITEMSIZE[dtype]
    random_bits = rng.integers(0, 1 << bits, size=count, dtype=np.uint64).astype(np.int64)
    specials = np.array(SPECIALS[dtype], dtype=np.int64)
    pick = specials[rng.integers(0, len(specials), size=count)]
    out = np.where(kind < 7, useful, np.where(kind < 9, random_bits, pick))
    head = min(count, len(specials))
    out[:head] = np.roll(specials, -seed % len(specials))[:head]
    return (out & ((1 << bits) - 1)).astype(UINT[dtype])


def _exp_mask(dtype: sk.DType) -> int:
    return {F32: 0x7F800000, BF16: 0x7F80, F16: 0x7C00}[dtype]


def f32_random(seed: int, count: int, m: int) -> np.ndarray:
    """FP32 samples for multiplier ``m``: half uniformly random patterns
    (every class, including subnormals and NaNs, so some blocks repair), half
    :func:`useful_values`; shuffled."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, size=count - count // 2, dtype=np.uint64).astype(np.uint32)
    b = useful_values(F32, count // 2, seed + 1, m)
    out = np.concatenate([a, b])
    rng.shuffle(out)
    return out


@functools.lru_cache(maxsize=None)
def f32_random_case(seed: int, count: int, m: int, zp: int, mode: str) -> Tuple[np.ndarray, np.ndarray]:
    inputs = _frozen(f32_random(seed, count, m))
    return inputs, _frozen(oracle_large(F32, inputs, m, zp, mode))


# Significands tried with every biased exponent 0..255: zero, the smallest,
# the largest, the midpoints and their neighbours, alternating patterns.
F32_SIGNIFICANDS = (0x000000, 0x000001, 0x000002, 0x000003, 0x1FFFFF, 0x200000, 0x3FFFFF, 0x400000,
                    0x400001, 0x555555, 0x2AAAAA, 0x600000, 0x7FFFFE, 0x7FFFFF)


@functools.lru_cache(maxsize=1)
def f32_exponent_classes() -> np.ndarray:
    """Every biased exponent (0..255) x :data:`F32_SIGNIFICANDS` plus two
    random significands, both signs (8,192 patterns, exponent-major)."""
    rng = np.random.default_rng(0xE59)
    rows = []
    for e in range(256):
        sigs = list(F32_SIGNIFICANDS) + rng.integers(0, 1 << 23, size=2).tolist()
        for s in sigs:
            rows.append((e << 23) | s)
            rows.append(0x80000000 | (e << 23) | s)
    return _frozen(np.array(rows, dtype=np.uint32))


@functools.lru_cache(maxsize=None)
def f32_boundaries(m: int) -> np.ndarray:
    """FP32 inputs whose products with ``m`` are at or next to every
    k + 0.5 and every integer k for |k| <= 260 (the ties that decide
    nearest-even, the 127/-128 bounds, and the bounds shifted by extreme zero
    points), each with neighbours one and two ulps away, plus the specials."""
    mv = f32_value(m)
    k = np.arange(-260, 261, dtype=np.float64)
    centre = to_patterns(F32, np.concatenate([k + 0.5, k]) / mv).astype(np.int64)
    near = (centre[:, None] + np.arange(-2, 3)[None, :]).reshape(-1)
    near = near[(near & 0x7F800000) != 0x7F800000]       # keep finite centres' neighbours
    out = np.concatenate([near, np.array(SPECIALS[F32], dtype=np.int64)]) & 0xFFFFFFFF
    return _frozen(np.unique(out).astype(np.uint32))


# --------------------------------------------------------------------- cases


def quant_request(shape, src: sk.DType, m: int, zp: int = 0, mode: str = "nearest_even",
                  in_strides=None, out_strides=None) -> sk.ops.quant.Request:
    return sk.ops.quant.Request(
        [spec(shape, src, in_strides)], [spec(shape, I8, out_strides)], sk.ops.quant.Params.from_bits(m, zp, mode))


def quant_plan(req, route: str):
    """The A65 plan for a quant request on ``route``; fails the test on an Error."""
    plan = sk.a65.quant.check_inference(req, route=route)
    assert not isinstance(plan, sk.Error), f"unexpected rejection: {plan}"
    assert plan.route == route
    return plan


def describe(route, src, m, zp, mode, shape=None, in_strides=None, out_strides=None) -> str:
    text = f"{route} {src.name}->INT8 m={m:#010x} zp={zp} {mode}"
    if shape is not None:
        text += f" shape {tuple(shape)} in {in_strides} out {out_strides}"
    return text


@dataclass
class Case:
    """One execution: a plan, a framed input (``values`` in row-major
    logical order), a sentinel-filled INT8 output and the oracle's
    expectation, computed when the case is built (before any FP state is
    changed)."""

    what: str
    plan: object
    src: Storage
    dst: Storage
    values: np.ndarray
    expected: np.ndarray           # uint8 bytes
    early: List[str] = field(default_factory=list)   # problems found while building

    @classmethod
    def make(cls, route, shape, src_dtype, m, zp=0, mode="nearest_even", in_strides=None, out_strides=None,
             *, values=None, seed=0, in_excess=13, out_excess=29, src: Optional[Storage] = None,
             dst: Optional[Storage] = None, expected=None) -> "Case":
        """``src``/``dst``: storages to share between cases (``src`` already
        holding ``values``); ``expected``: the oracle's INT8 results when the
        caller has them (e.g. from a whole-format table)."""
        shape = tuple(shape)
        plan = quant_plan(quant_request(shape, src_dtype, m, zp, mode, in_strides, out_strides), route)
        if src is None:
            src = Storage.make(shape, src_dtype, in_strides, excess=in_excess, fill=INPUT_FILL)
            if values is None:
                values = useful_values(src_dtype, src.offsets.size, seed, m)
            values = np.asarray(values, dtype=UINT[src_dtype]).reshape(-1)
            src.write(values)
        if dst is None:
            dst = Storage.make(shape, I8, out_strides, excess=out_excess, fill=SENTINEL)
        if expected is None:
            expected = oracle(src_dtype, values, m, zp, mode)
        what = describe(route, src_dtype, m, zp, mode, shape, src.strides, dst.strides)
        problems = []
        expect_in = (sk.Requirement(span(shape, src.strides, src.itemsize), src.itemsize),)
        expect_out = (sk.Requirement(span(shape, dst.strides, 1), 1),)
        if plan.input_requirements() != expect_in or plan.output_requirements() != expect_out:
            problems.append(f"{what}: requirements {plan.input_requirements()} {plan.output_requirements()}, "
                            f"expected {expect_in} {expect_out}")
        expected = np.asarray(expected, dtype=np.int8).reshape(-1).view(np.uint8)
        return cls(what, plan, src, dst, values, expected, problems)

    def execute(self):
        return sk.a65.quant.execute(self.plan, [self.src.buf], [self.dst.buf])


def run_cases(cases: Sequence[Case], fenv: Optional[dict] = None, label: str = "") -> List[Optional[str]]:
    """Executes every case (inside ``sk.testing.fp_environment(**fenv)`` when
    given; the test is skipped where the CPU cannot hold that state) and
    returns one report (or None) per case.  Each output is reset to the
    sentinel just before its call and copied right after, so cases may share
    buffers; only the library and NumPy copies run inside the environment,
    every comparison happens after leaving it."""
    snapshots = [c.src.buf.copy() for c in cases]
    outcomes = []
    with (fp_or_skip(**fenv) if fenv else contextlib.nullcontext()):
        for case in cases:
            case.dst.reset()
            status = case.execute()
            outcomes.append((status, case.dst.buf.copy()))
    reports = []
    for case, before, (status, out) in zip(cases, snapshots, outcomes):
        reports.append(check_outcome(case, status, out, before, label))
    return reports


def check_outcome(case: Case, status, out: np.ndarray, before: np.ndarray, label: str = "") -> Optional[str]:
    what = case.what + (f" [{label}]" if label else "")
    problems = list(case.early)
    if status is not None:
        problems.append(f"{what}: execute returned {status}")
    else:
        got = out[case.dst.offsets]
        problems.append(mismatch_report(got, case.expected, case.values, what, shape=case.dst.shape or None))
        problems.append(untouched_report(out, SENTINEL, _gap_mask(case.dst), f"{what}: output"))
    if not np.array_equal(case.src.buf, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def _gap_mask(dst: Storage) -> np.ndarray:
    mask = np.ones(dst.buf.size, dtype=bool)
    mask[dst.offsets] = False
    return mask


def quant_report(route, shape, src_dtype, m, zp=0, mode="nearest_even", in_strides=None, out_strides=None,
                 *, fenv=None, **kwargs) -> Optional[str]:
    """Builds and runs one :class:`Case`; None or a report naming it."""
    return run_cases([Case.make(route, shape, src_dtype, m, zp, mode, in_strides, out_strides, **kwargs)], fenv)[0]


def all_modes_reports(route, shape, src_dtype, m, zp, in_strides=None, out_strides=None, *, values=None,
                      seed=0, fenv=None, modes: Iterable[str] = MODES, **kwargs) -> List[Optional[str]]:
    """The same input through each rounding mode (one plan each)."""
    cases = [Case.make(route, shape, src_dtype, m, zp, mode, in_strides, out_strides, values=values, seed=seed,
                       **kwargs) for mode in modes]
    return run_cases(cases, fenv)


# ------------------------------------------------------- exhaustive 16-bit

# The non-slow slice of the exhaustive 16-bit sweep: every profile once with
# all four modes, the input formats alternating and the zero point one of
# the extremes (their tables are the ones the slow cross-product reuses).
QUICK16: Dict[str, Tuple[sk.DType, int]] = {
    name: ((BF16, F16)[i % 2], (-128, 127)[(i // 2) % 2]) for i, name in enumerate(PROFILES)
}


@functools.lru_cache(maxsize=None)
def arrangements16(dtype: sk.DType):
    """Every pattern of a 16-bit format laid out three ways (name, shape,
    input strides, output strides, patterns in logical order):

    * ``dense``: patterns in order then 9 more (4,096 blocks and a tail);
      for BF16 the blocks holding subnormals repair, the others are fast;
    * ``lanes``: 15 patterns per block and one exceptional lane at a
      rotating position (BF16: a subnormal, so every block repairs; FP16: a
      shuffled dense order, FP16 having no input-subnormal trigger);
    * ``strided``: every second input word, every third output byte (the
      element-by-element exact path)."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    dense = np.concatenate([every, np.array(SPECIALS[dtype][:9], dtype=np.uint16)])
    if dtype is BF16:
        blocks = -(-len(every) // 15)
        body = np.zeros(blocks * 15, dtype=np.uint16)
        body[:len(every)] = every
        lanes = np.empty((blocks, 16), dtype=np.uint16)
        for b in range(blocks):
            p = b % 16
            row = body[15 * b:15 * b + 15]
            lanes[b] = np.concatenate([row[:p], [(0x0001, 0x8001, 0x007F)[b % 3]], row[p:]])
        lanes = lanes.reshape(-1)
    else:
        lanes = np.random.default_rng(16).permutation(every)
    return (
        ("dense", dense.shape, None, None, _frozen(dense)),
        ("lanes", lanes.shape, None, None, _frozen(lanes)),
        ("strided", every.shape, (4,), (3,), _frozen(every)),
    )


def exhaustive16_cases(route: str, dtype: sk.DType, m: int, zero_points: Iterable[int],
                       modes: Iterable[str] = MODES, by_class: bool = False) -> List[Case]:
    """Cases covering every pattern of ``dtype`` in each arrangement, for
    every zero point and mode; expectations from whole-format oracle tables
    (computed here, before anything runs)."""
    lookup = table16_by_class if by_class else table16
    cases = []
    for _, shape, in_strides, out_strides, patterns in arrangements16(dtype):
        src = Storage.make(shape, dtype, in_strides, excess=5, fill=INPUT_FILL)
        src.write(patterns)
        dst = Storage.make(shape, I8, out_strides, excess=11, fill=SENTINEL)
        for zp in zero_points:
            for mode in modes:
                cases.append(Case.make(route, shape, dtype, m, zp, mode, in_strides, out_strides, values=patterns,
                                       src=src, dst=dst, expected=lookup(dtype, m, zp, mode)[patterns]))
    return cases


# ------------------------------------------------------------ FP32 sweeps


@functools.lru_cache(maxsize=None)
def f32_expected(name: str, m: int, zp: int, mode: str) -> np.ndarray:
    """Oracle results for a named FP32 pattern set ("classes":
    :func:`f32_exponent_classes`, "boundaries": :func:`f32_boundaries`)."""
    return _frozen(oracle_large(F32, f32_patterns(name, m), m, zp, mode))


def f32_patterns(name: str, m: int) -> np.ndarray:
    return f32_exponent_classes() if name == "classes" else f32_boundaries(m)


def f32_sweep_cases(route: str, name: str, m: int, zp: int, modes: Iterable[str] = MODES,
                    seed: int = 0) -> List[Case]:
    """A named FP32 pattern set dense in its order (plus a 7-element tail),
    shuffled dense, and strided, for each mode."""
    patterns = f32_patterns(name, m)
    order = np.concatenate([np.arange(patterns.size), np.arange(7)])
    shuffled = np.random.default_rng(seed).permutation(patterns.size)
    layouts = ((order, None, None), (shuffled, None, None), (np.arange(patterns.size), (8,), (2,)))
    cases = []
    for mode in modes:
        expected = f32_expected(name, m, zp, mode)
        for index, in_strides, out_strides in layouts:
            case = Case.make(route, index.shape, F32, m, zp, mode, in_strides, out_strides,
                             values=patterns[index], expected=expected[index], out_excess=9)
            case.what += f" {name}"
            cases.append(case)
    return cases


# ------------------------------------------------------- isolated lanes

# Per input format: (multiplier, {kind: exceptional patterns}).  Each
# exceptional pattern forces the exact path for its block ("subnormal" FP32 /
# BF16 input, "underflow": a normal input whose product is subnormal,
# "edge": products next to the smallest normal) or is a special value that
# the fast path handles itself ("nan", "inf", "zero", FP16 "subnormal":
# normal in FP32).
ISOLATED: Dict[sk.DType, Tuple[Tuple[int, Dict[str, Tuple[int, ...]]], ...]] = {
    F32: (
        (0x3E99999A, {
            "subnormal": (0x00000001, 0x807FFFFF, 0x00400000, 0x80000003),
            "underflow": (0x00800000, 0x80C00000, 0x00FFFFFF, 0x01000000),
            "edge": (0x01555555, 0x01555556, 0x81555555, 0x81555556, 0x01555554, 0x81555557),
            "nan": (0x7FC00000, 0xFFFFFFFF, 0x7F800001, 0xFFA00000),
            "inf": (0x7F800000, 0xFF800000),
            "zero": (0x00000000, 0x80000000),
        }),
        (pow2(127), {"subnormal": (0x007FFFFF, 0x80400001, 0x00600000, 0x00000001, 0x80200000)}),
    ),
    BF16: (
        (0x3E99999A, {
            "subnormal": (0x0001, 0x807F, 0x0040, 0x8003),
            "underflow": (0x0080, 0x80C0, 0x00FF, 0x0100),
            "edge": (0x0155, 0x0156, 0x8155, 0x8156, 0x0154, 0x8157),
            "nan": (0x7FC0, 0xFFFF, 0x7F81, 0xFFA0),
            "inf": (0x7F80, 0xFF80),
            "zero": (0x0000, 0x8000),
        }),
        (pow2(127), {"subnormal": (0x007F, 0x8040, 0x0060, 0x0001, 0x8020)}),
    ),
    F16: (
        (pow2(-110), {
            "underflow": (0x0001, 0x80FF, 0x00C0, 0x8080),
            "edge": (0x0100, 0x80FF, 0x0101, 0x8100),
            "nan": (0x7E00, 0xFC01),
            "inf": (0x7C00, 0xFC00),
            "zero": (0x0000, 0x8000),
        }),
        (pow2(17), {"subnormal": (0x0001, 0x83FF, 0x0200, 0x8300, 0x0180, 0x0003)}),
    ),
}
ISOLATED_LENGTH = 48 * 16 + 5      # 16 x (normal block, block with the lane, normal block), a tail


def _finite_nonzero(dtype: sk.DType, p: np.ndarray) -> np.ndarray:
    e = p.astype(np.int64) & _exp_mask(dtype)
    return (e != _exp_mask(dtype)) & ((p.astype(np.int64) & ~(-1 << (8 * ITEMSIZE[dtype] - 1))) != 0)


def normal_neighbours(dtype: sk.DType, count: int, seed: int, m: int) -> np.ndarray:
    """Finite nonzero inputs that never send a block to the exact path:
    normal FP32 values (FP16: any finite nonzero) whose exact product with
    ``m`` is at least 2^-126 in magnitude.  Mostly products in [-300, 300]
    (ties included), topped up with random such patterns.  (Float64 holds
    the exact product of two binary32 values; it only selects inputs.)"""
    rng = np.random.default_rng(seed)
    mv = f32_value(m)
    bits = 8 * ITEMSIZE[dtype]
    out = np.empty(0, dtype=UINT[dtype])
    while out.size < count:
        y = rng.uniform(2.0, 300.0, size=4 * count) * rng.choice([-1.0, 1.0], size=4 * count)
        y[::3] = np.round(y[::3]) + 0.5
        limit = 65504.0 if dtype is F16 else 3.38e38
        a = to_patterns(dtype, np.clip(y / mv, -limit, limit))
        b = rng.integers(0, 1 << bits, size=4 * count, dtype=np.uint64).astype(UINT[dtype])
        cand = np.concatenate([a, b])
        ok = _finite_nonzero(dtype, cand)
        if dtype is not F16:
            ok &= (cand.astype(np.int64) & _exp_mask(dtype)) != 0
        with np.errstate(over="ignore", invalid="ignore"):
            value = np.ascontiguousarray(cand).view(NUMPY_FLOAT[dtype]).astype(np.float64)
            ok &= np.abs(value * mv) >= 2.0 ** -126
        keep = cand[ok]
        out = np.concatenate([out, keep[rng.permutation(keep.size)[: count - out.size + count // 2]]])
    return out[:count]


@functools.lru_cache(maxsize=None)
def isolated_values(dtype: sk.DType, m: int, kind: str) -> np.ndarray:
    """For each position p in 0..15, three blocks of normal neighbours, the
    middle one with lane p exceptional; then a 5-element tail holding one
    exceptional value too."""
    lanes = dict(next(k for mm, k in ISOLATED[dtype] if mm == m))[kind]
    values = normal_neighbours(dtype, ISOLATED_LENGTH, zlib.crc32(f"{m}:{kind}".encode()), m).copy()
    for p in range(16):
        values[(3 * p + 1) * 16 + p] = lanes[p % len(lanes)]
    values[-2] = lanes[-1]
    return _frozen(values)


def isolated_cases(route: str, dtype: sk.DType, mode: str, zp: int = -7) -> List[Case]:
    cases = []
    for m, kinds in ISOLATED[dtype]:
        for kind in kinds:
            values = isolated_values(dtype, m, kind)
            case = Case.make(route, values.shape, dtype, m, zp, mode, values=values, out_excess=17)
            case.what += f" isolated {kind}"
            cases.append(case)
    return cases
