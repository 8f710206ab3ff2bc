"""Per-axis (per-channel) Dequant and Quant test support: channel parameter
sets, requests, expected bits from the independent oracle
(``tests/oracle/axis.py``, fed with the suite's cached per-tensor tables),
seeded layouts, and a case runner that checks every output element bit for
bit and every other output byte (gaps, excess capacity) untouched.

Nothing here calls the code under test to compute an expectation: the
oracle gives every expected value; the parameter sets only choose inputs.

Implementation facts the sets and sizes aim at (csrc/common/walk.c,
csrc/common/axis.h, csrc/*/_axis.c): a channel axis outside the walk's
inner run gives each run its channel's kernel entry and context (Dequant
chooses a form per channel); a channel axis that is the inner run (also
merged with slower axes: the channel is then the flat index mod C) runs
parameter-vector leaves of 16 lanes with a scalar tail over a parameter
table that repeats every ``axis_period(C)`` positions; non-packed runs are
staged in chunks of 2048 elements.
"""
from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

import simakernels as sk
from oracle import axis as oracle_axis
from oracle.formats import BFLOAT16, BINARY16, BINARY32
from support.helpers import (BF16, F16, F32, I8, INPUT_FILL, ITEMSIZE, SENTINEL, UINT, Storage, fp_or_skip,
    mismatch_report, spec, span, untouched_report)
from support.quant_helpers import PROFILES, SPECIALS, table16_by_class, useful_values
from support.quant_helpers import oracle as quant_oracle, oracle_large as quant_oracle_large

__all__ = [
    "AxisCase", "DEQUANT_SETS", "QUANT_SETS", "CHUNK", "axis_period", "channels", "dequant_params",
    "quant_params", "expected", "make_case", "run_cases", "random_layout", "value_pool",
]

FORMAT = {F32: BINARY32, BF16: BFLOAT16, F16: BINARY16}
DTYPE_OF = {BINARY32: F32, BFLOAT16: BF16, BINARY16: F16}
CHUNK = 2048          # SK_STAGE_CHUNK: non-packed runs are staged in chunks of this many elements
LANES = 16            # SK_AXIS_LANES


def axis_period(count: int) -> int:
    """The parameter table's period for ``count`` channels, restated from
    csrc/common/axis.h (only to choose run lengths at and around it)."""
    lcm = count * LANES // math.gcd(count, LANES)
    base = lcm if lcm <= 65536 else count
    return base * -(-256 // base)


# ------------------------------------------------------------ parameter sets
# (value bits, zero point) per channel.  Dequant: one of every per-channel
# form (narrow, narrow_pow2 with 2^-4..2^4, wide_pow2, wide_unit, wide), a
# subnormal scale, a scale whose products overflow to infinity, INT32 zero
# points that convert inexactly.  Quant: ties, the specification's
# double-rounding multiplier, subnormal multipliers (every block exact),
# 2^-126 (FP16 products below 1 subnormal), overflowing products; zero
# points -128, 0, 127 and between.

DEQUANT_SETS: Dict[str, Tuple[Tuple[int, int], ...]] = {
    "forms": (
        (0x3D800000, -128),         # 2^-4: narrow_pow2
        (0x41800000, 127),          # 2^4: narrow_pow2
        (0x3F800000, 40000),        # 1.0, zero point in the power-of-two range: wide_pow2
        (0x4037CED9, -123),         # narrow (the specification's BF16 double rounding)
        (0x3E99999A, 40000),        # wide
        (0x40800000, 16777088),     # 2^2: wide_pow2
        (0x00000001, 5),            # smallest subnormal scale
        (0x7F7FFFFF, 3),            # products overflow to +-inf
        (0x3F800000, -16777217),    # 1.0, zero point converts to -16777216: wide_unit
    ),
    "extremes": (
        (0x3D800000, -1000001),     # 2^-4: wide_pow2
        (0x42000000, 0),            # 2^5: outside the specialised exponents
        (0x007FFFFF, -7),           # largest subnormal scale
        (0x3F800000, 0),            # 1.0, narrow zero point
        (0x00800000, -(2**31)),     # smallest normal scale, INT32 minimum
        (0x7F000000, 2**31 - 1),    # 2^127, INT32 maximum: every product overflows
        (0x3E99999A, 16777217),     # zero point converts to 16777216
        (0x3DCCCCCD, 127),          # 0.1f
    ),
}

QUANT_SETS: Dict[str, Tuple[Tuple[int, int], ...]] = {
    "ties": (
        (PROFILES["1.0"], -128),
        (PROFILES["0x3e99999a"], 0),
        (PROFILES["2^-1"], 127),
        (PROFILES["257/256"], -100),
        (PROFILES["1.0"], 17),
        (PROFILES["2^-1"], -1),
    ),
    "tiny": (
        (PROFILES["sub-2^-127"], 0),
        (PROFILES["2^-126"], 127),
        (PROFILES["sub-min"], -128),
        (PROFILES["2^-24"], 5),
        (PROFILES["max-finite"], 0),
        (PROFILES["2^100"], -7),
        (PROFILES["1.0"], 127),
    ),
}


def channels(params: Sequence[Tuple[int, int]], count: int) -> Tuple[Tuple[int, int], ...]:
    """``count`` channels taking the set's parameters cyclically."""
    return tuple(params[c % len(params)] for c in range(count))


def dequant_params(axis: int, params: Sequence[Tuple[int, int]], shared_zp: Optional[int] = None
                   ) -> sk.ops.dequant.AxisParams:
    bits = np.array([s for s, _ in params], dtype=np.uint32)
    zps = shared_zp if shared_zp is not None else [z for _, z in params]
    return sk.ops.dequant.AxisParams(axis, bits.view(np.float32), zps)


def quant_params(axis: int, params: Sequence[Tuple[int, int]], mode: str, shared_zp: Optional[int] = None
                 ) -> sk.ops.quant.AxisParams:
    bits = np.array([m for m, _ in params], dtype=np.uint32)
    zps = shared_zp if shared_zp is not None else [z for _, z in params]
    return sk.ops.quant.AxisParams(axis, bits.view(np.float32), zps, mode)


def with_zp(params, shared_zp):
    return params if shared_zp is None else tuple((v, shared_zp) for v, _ in params)


# ------------------------------------------------------------------- oracle


def _table(fmt, m: int, zp: int, mode: str) -> np.ndarray:
    """Whole-format per-tensor results, cached (on disk for the extreme
    zero points, by class for the others: quant_helpers)."""
    return table16_by_class(DTYPE_OF[fmt], m, zp, mode)


@functools.lru_cache(maxsize=None)
def _pool_results(dtype: sk.DType, m: int, zp: int, mode: str) -> np.ndarray:
    """The per-tensor results for every pattern of :func:`value_pool`
    (memoised on disk, so emulated runs reuse the host's)."""
    return quant_oracle_large(dtype, value_pool(dtype), m, zp, mode).reshape(-1)


def _many(patterns: np.ndarray, fmt, m: int, zp: int, mode: str) -> np.ndarray:
    """Per-tensor results of ``patterns``: looked up in the pool's results
    when every pattern is in the pool, else computed for the distinct
    patterns (memoised: quant_helpers.oracle)."""
    dtype = DTYPE_OF[fmt]
    unique, inverse = np.unique(np.asarray(patterns, dtype=UINT[dtype]), return_inverse=True)
    inverse = inverse.reshape(-1)
    pool = value_pool(dtype)
    at = np.minimum(np.searchsorted(pool, unique), pool.size - 1)
    if np.array_equal(pool[at], unique):
        return _pool_results(dtype, m, zp, mode)[at][inverse]
    return quant_oracle(dtype, unique, m, zp, mode).reshape(-1)[inverse]


def expected(src_dtype: sk.DType, dst_dtype: sk.DType, values: np.ndarray, axis: int,
             params: Sequence[Tuple[int, int]], mode: Optional[str] = None) -> np.ndarray:
    """The oracle's output bits (as the output's unsigned words) for input
    patterns ``values`` in logical shape."""
    values = np.asarray(values)
    bits = [v for v, _ in params]
    zps = [z for _, z in params]
    if src_dtype is I8:
        out = oracle_axis.dequant_axis(values.astype(np.uint8), axis, bits, zps,
                                       "float32" if dst_dtype is F32 else "bfloat16")
        return out.astype(UINT[dst_dtype])
    hooks = dict(table=_table) if src_dtype is not F32 and values.size >= WHOLE_TABLES else dict(many=_many)
    out = oracle_axis.quant_axis(values, FORMAT[src_dtype], axis, bits, zps, mode, **hooks)
    return out.view(np.uint8)


# 16-bit inputs from this many elements up take whole-format tables (cached
# on disk); smaller ones the pool's results or the per-tensor oracle per
# distinct pattern.
WHOLE_TABLES = 1 << 14


# -------------------------------------------------------------------- inputs


MULTIPLIERS: Tuple[int, ...] = tuple(sorted({m for params in QUANT_SETS.values() for m, _ in params}))


@functools.lru_cache(maxsize=None)
def value_pool(dtype: sk.DType) -> np.ndarray:
    """Input patterns to draw from (sorted, distinct, read-only): INT8 every
    byte; float formats their special patterns, values whose products with
    each multiplier of the Quant sets lie in [-300, 300] (ties and their
    neighbours included) and random patterns (every class)."""
    if dtype is I8:
        pool = np.arange(256, dtype=np.uint8)
    else:
        rng = np.random.default_rng(0xA515)
        parts = [np.array(SPECIALS[dtype], dtype=UINT[dtype])]
        for k, m in enumerate(MULTIPLIERS):
            parts.append(useful_values(dtype, 192, 7 + k, m))
        bits = 8 * ITEMSIZE[dtype]
        parts.append(rng.integers(0, 1 << bits, size=512, dtype=np.uint64).astype(UINT[dtype]))
        pool = np.unique(np.concatenate(parts))
    pool.flags.writeable = False
    return pool


def draw(dtype: sk.DType, shape: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """Patterns of ``shape`` drawn from :func:`value_pool`."""
    pool = value_pool(dtype)
    return pool[rng.integers(0, pool.size, size=tuple(shape))]


# ------------------------------------------------------------------- layouts


def random_layout(rng: np.random.Generator, shape: Sequence[int], itemsize: int) -> Optional[Tuple[int, ...]]:
    """Byte strides of a random admissible layout: sometimes Contiguous()
    (None); otherwise the axes in a random physical order (transposes), the
    fastest one packed, every other element (x[..., ::2]) or every third,
    and padding between slower axes.  No zero or overlapping strides on
    axes longer than 1."""
    if rng.integers(0, 5) == 0:
        return None
    order = rng.permutation(len(shape))
    strides = [0] * len(shape)
    covered = itemsize                  # bytes spanned by the faster axes
    first = True
    for axis in order:                  # fastest first
        extent = shape[axis]
        if extent <= 1:
            strides[axis] = itemsize * int(rng.choice([1, 3, 1000]))
            continue
        pad = itemsize * int(rng.choice([0, 0, 1, 1, 2] if first else [0, 0, 1, 5]))
        first = False
        strides[axis] = covered + pad
        covered += (extent - 1) * strides[axis]
    return tuple(strides)


def byte_strides(elements: Optional[Sequence[int]], dtype: sk.DType) -> Optional[Tuple[int, ...]]:
    return None if elements is None else tuple(int(s) * ITEMSIZE[dtype] for s in elements)


# --------------------------------------------------------------------- cases


def request(shape, src_dtype: sk.DType, dst_dtype: sk.DType, params, in_strides=None, out_strides=None):
    ops = sk.ops.dequant if src_dtype is I8 else sk.ops.quant
    return ops.Request([spec(tuple(shape), src_dtype, in_strides)], [spec(tuple(shape), dst_dtype, out_strides)],
                       params)


def module_of(src_dtype: sk.DType):
    return sk.a65.dequant if src_dtype is I8 else sk.a65.quant


def plan_for(route: str, shape, src_dtype, dst_dtype, axis, params, mode=None, in_strides=None, out_strides=None,
             shared_zp=None):
    """The A65 plan of a per-axis request on ``route`` (AssertionError on
    an Error)."""
    p = (dequant_params(axis, params, shared_zp) if src_dtype is I8
         else quant_params(axis, params, mode, shared_zp))
    plan = module_of(src_dtype).check_inference(request(shape, src_dtype, dst_dtype, p, in_strides, out_strides),
                                                route=route)
    assert not isinstance(plan, sk.Error), f"unexpected rejection: {plan}"
    assert plan.route == route
    return plan


def describe(route, src_dtype, dst_dtype, shape, axis, params, mode, src: Storage, dst: Storage) -> str:
    values = sorted(set(params))
    shown = ", ".join(f"({v:#010x}, {z})" for v, z in values[:6]) + (", ..." if len(values) > 6 else "")
    return (f"{route} {src_dtype.name}->{dst_dtype.name}{' ' + mode if mode else ''} shape {tuple(shape)} "
            f"axis {axis} C={len(params)} in {src.strides} out {dst.strides} params [{shown}]")


@dataclass
class AxisCase:
    """One execution of a per-axis plan: framed input (``values`` in
    row-major logical order), sentinel-filled output and the oracle's
    output words, all computed when the case is built (before any FP
    state changes)."""

    what: str
    plan: object
    src: Storage
    dst: Storage
    values: np.ndarray
    expected: np.ndarray
    early: List[str] = field(default_factory=list)

    def execute(self):
        return module_of(self.src.dtype).execute(self.plan, [self.src.buf], [self.dst.buf])


def make_case(route: str, shape, src_dtype: sk.DType, dst_dtype: sk.DType, axis: int,
              params: Sequence[Tuple[int, int]], mode: Optional[str] = None, in_strides=None, out_strides=None, *,
              values: Optional[np.ndarray] = None, seed: int = 0, shared_zp: Optional[int] = None,
              src: Optional[Storage] = None, dst: Optional[Storage] = None, want: Optional[np.ndarray] = None,
              in_excess: int = 13, out_excess: int = 29, plan=None) -> AxisCase:
    """A case; ``src``/``dst`` may be shared between cases (``src`` already
    holding ``values``), ``want`` the oracle's words when the caller has
    them.  ``values`` are in logical shape (or flat, row-major)."""
    shape = tuple(shape)
    params = tuple(params)
    if plan is None:
        plan = plan_for(route, shape, src_dtype, dst_dtype, axis, params, mode, in_strides, out_strides, shared_zp)
    eff = with_zp(params, shared_zp)
    if src is None:
        src = Storage.make(shape, src_dtype, in_strides, excess=in_excess, fill=INPUT_FILL)
        if values is None:
            values = draw(src_dtype, shape, np.random.default_rng(seed))
        src.write(np.asarray(values, dtype=UINT[src_dtype]).reshape(-1))
    values = np.asarray(values, dtype=UINT[src_dtype]).reshape(shape)
    if dst is None:
        dst = Storage.make(shape, dst_dtype, out_strides, excess=out_excess, fill=SENTINEL)
    if want is None:
        want = expected(src_dtype, dst_dtype, values, axis, eff, mode)
    what = describe(route, src_dtype, dst_dtype, shape, axis, eff, mode, src, dst)
    early = requirement_faults(what, plan, shape, src, dst)
    return AxisCase(what, plan, src, dst, values.reshape(-1), np.asarray(want, UINT[dst_dtype]).reshape(-1), early)


def requirement_faults(what: str, plan, shape, src: Storage, dst: Storage) -> list:
    """The plan's input and output requirements against the spans of the
    case's storages: [] or one message naming both."""
    need_in = (sk.Requirement(span(shape, src.strides, src.itemsize), src.itemsize),)
    need_out = (sk.Requirement(span(shape, dst.strides, dst.itemsize), dst.itemsize),)
    if plan.input_requirements() == need_in and plan.output_requirements() == need_out:
        return []
    return [f"{what}: requirements {plan.input_requirements()} {plan.output_requirements()}, "
            f"expected {need_in} {need_out}"]


def _elements(buf: np.ndarray, storage: Storage) -> np.ndarray:
    item = storage.itemsize
    index = storage.offsets[:, None] + np.arange(item, dtype=np.int64)
    return np.ascontiguousarray(buf[index]).reshape(-1).view(UINT[storage.dtype])


def _gaps(storage: Storage) -> np.ndarray:
    mask = np.ones(storage.buf.size, dtype=bool)
    item = storage.itemsize
    mask[(storage.offsets[:, None] + np.arange(item, dtype=np.int64)).reshape(-1)] = False
    return mask


def check(case: AxisCase, status, out: np.ndarray, before: np.ndarray, label: str = "") -> Optional[str]:
    what = case.what + (f" [{label}]" if label else "")
    problems = list(case.early)
    if status is not None:
        problems.append(f"{what}: execute returned {status}")
    else:
        problems.append(mismatch_report(_elements(out, case.dst), case.expected, case.values, what,
                                        shape=case.dst.shape or None))
        problems.append(untouched_report(out, SENTINEL, _gaps(case.dst), f"{what}: output"))
    if not np.array_equal(case.src.buf, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def run_cases(cases: Sequence[AxisCase], fenv: Optional[dict] = None, label: str = "") -> List[Optional[str]]:
    """Executes every case (inside ``fp_environment(**fenv)`` when given;
    skipped where the CPU cannot hold that state), resetting each output to
    the sentinel just before its call and copying it right after (cases may
    share storages); compares after leaving the environment.  One report
    (or None) per case."""
    snapshots = [c.src.buf.copy() for c in cases]
    outcomes = []
    with (fp_or_skip(**fenv) if fenv else contextlib.nullcontext()):
        for case in cases:
            case.dst.reset()
            status = case.execute()
            outcomes.append((status, case.dst.buf.copy()))
    return [check(c, s, o, b, label) for c, b, (s, o) in zip(cases, snapshots, outcomes)]
