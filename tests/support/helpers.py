"""Shared test support: sentinel-filled storage with exact element offsets,
oracle-backed input pools and bit-exact comparisons that report in hex.

Expected values come only from the independent oracle (``tests/oracle``) or
from literals worked out by hand; nothing here calls the code under test to
compute an expectation.  Offsets, spans and masks are derived here from the
shape and byte strides alone.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import os
import platform
import random
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple
from unittest import mock

import numpy as np
import pytest
from hypothesis import strategies as st

import simakernels as sk
from simakernels import _registry, _split
from simakernels._ffi import ffi, lib
from support import oracle_store
from oracle import bf16_to_f32_table, dequant_bf16_table, dequant_f32_table, f32_to_bf16

F32 = sk.DType.FLOAT32
BF16 = sk.DType.BFLOAT16
I8 = sk.DType.INT8
F16 = sk.DType.FLOAT16

# The routes the route-parametrised tests run: every available one, or the
# subset SIMAKERNELS_TEST_ROUTES names (comma-separated).  The emulated
# cortex-a76 run takes the NEON route alone: the portable scalar route's
# numerics run under emulation on cortex-a53 (exhaustive numerics, FP
# environments, dense leaves, selftest), and its layouts go through the
# same C walker as on the host, element by element, with no staging.
_ONLY = {r for r in os.environ.get("SIMAKERNELS_TEST_ROUTES", "").split(",") if r}
ROUTES: Tuple[str, ...] = tuple(r for r in sk.a65.available_routes() if not _ONLY or r in _ONLY)
# Route name -> the C enum value (csrc/include/simakernels.h).
ROUTE_IDS = {ffi.string(lib.sk_route_name(r)).decode(): r for r in range(lib.SK_ROUTE_COUNT)}


def block_edges(operation: int, route: str, variant: int) -> Tuple[int, ...]:
    """Run lengths at and around one, two and three vector blocks of a
    kernel table entry (its dense leaf's registry row: elements per
    iteration of the main loop), so that tests follow the registry, not a
    constant."""
    block = _registry.block(operation, ROUTE_IDS[route], variant)
    assert block >= 1, f"no kernel table entry for operation {operation}, route {route}, variant {variant}"
    return tuple(sorted({n for k in (1, 2, 3) for n in (k * block - 1, k * block, k * block + 1) if n >= 1}))

SENTINEL = 0xA5      # every output byte before execution
INPUT_FILL = 0x3C    # input gap bytes (checked unchanged as well)

ITEMSIZE = {F32: 4, BF16: 2, F16: 2, I8: 1}
# Storage words: every port is read and written as unsigned bit patterns.
UINT = {
    F32: np.dtype(np.uint32), BF16: np.dtype(np.uint16), F16: np.dtype(np.uint16), I8: np.dtype(np.uint8),
}

# The two conversions, as (input dtype, output dtype), by test id.
DIRECTIONS = {"f32_to_bf16": (F32, BF16), "bf16_to_f32": (BF16, F32)}
DIRECTION_IDS = tuple(DIRECTIONS)


# --------------------------------------------------------------------- oracle


@functools.lru_cache(maxsize=1)
def bf16_table() -> np.ndarray:
    """Oracle FP32 bits for every BF16 pattern, indexed by the pattern."""
    return np.array(bf16_to_f32_table(), dtype=np.uint32)


def oracle_f32_to_bf16(bits32: np.ndarray) -> np.ndarray:
    """Oracle BF16 bits of an array of FP32 bit patterns (one oracle call
    each; large arrays memoised on disk, oracle_store)."""
    flat = np.asarray(bits32, dtype=np.uint32).reshape(-1)

    def compute() -> np.ndarray:
        return np.array([f32_to_bf16(b) for b in flat.tolist()], dtype=np.uint16)

    if flat.size >= 2048:
        return oracle_store.stored(f"f32_to_bf16 {oracle_store.digest(flat)}", np.uint16, flat.size,
                                   compute).reshape(np.shape(bits32))
    return compute().reshape(np.shape(bits32))


def oracle_bf16_to_f32(bits16: np.ndarray) -> np.ndarray:
    return bf16_table()[np.asarray(bits16, dtype=np.uint16)]


# FP32 patterns worth having in every input pool: each special class.
SPECIAL_F32 = (
    0x00000000, 0x80000000,                          # signed zeros
    0x00000001, 0x80000001, 0x00007FFF, 0x00008000,  # tiny subnormals, tie at zero
    0x00008001, 0x00018000, 0x007FFFFF, 0x807FFFFF,  # subnormal ties, max subnormal
    0x00800000, 0x80800000, 0x3F800000, 0xBF800000,  # min normal, +-1
    0x3F808000, 0x3F818000, 0x3F807FFF, 0x3F808001,  # ties to even / nearest
    0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0xFF7FFFFF,  # max finite, rounding to infinity
    0x7F800000, 0xFF800000,                          # infinities
    0x7F800001, 0x7F807FFF, 0x7F808000, 0x7F808001,  # signaling NaNs (some -> infinity)
    0x7FC00000, 0xFFC00000, 0x7FBFFFFF, 0x7FFF7FFF,  # quiet NaNs, high payloads
    0x7FFF8000, 0x7FFFFFFF, 0xFF800001, 0xFFFF7FFF,  # payloads that carry / wrap
    0xFFFF8000, 0xFFFFFFFF,
)


@functools.lru_cache(maxsize=1)
def f32_pool() -> Tuple[np.ndarray, np.ndarray]:
    """FP32 inputs (specials + random patterns) and their oracle BF16 bits."""
    rng = np.random.default_rng(0x5EED)
    random = rng.integers(0, 1 << 32, size=4096 - len(SPECIAL_F32), dtype=np.uint64).astype(np.uint32)
    inputs = np.concatenate([np.array(SPECIAL_F32, dtype=np.uint32), random])
    return inputs, oracle_f32_to_bf16(inputs)


@functools.lru_cache(maxsize=1)
def bf16_pool() -> Tuple[np.ndarray, np.ndarray]:
    """Every BF16 pattern and its oracle FP32 bits."""
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    return inputs, bf16_table()


def pool(src_dtype: sk.DType) -> Tuple[np.ndarray, np.ndarray]:
    return f32_pool() if src_dtype is F32 else bf16_pool()


def draw_values(src_dtype: sk.DType, count: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """``count`` input patterns from the pool and their oracle results; the
    pool's special patterns come first so that small tensors still see them."""
    inputs, expected = pool(src_dtype)
    rng = np.random.default_rng(seed)
    index = rng.integers(0, len(inputs), size=count)
    if src_dtype is F32:
        head = min(count, len(SPECIAL_F32))
        index[:head] = (np.arange(head) + seed) % len(SPECIAL_F32)
    return inputs[index], expected[index]


# --------------------------------------------------------------------- layout


def contiguous_strides(shape: Sequence[int], itemsize: int) -> Tuple[int, ...]:
    strides = []
    step = itemsize
    for extent in reversed(tuple(shape)):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def element_offsets(shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """Byte offset of every logical element, in row-major logical order."""
    shape = tuple(shape)
    if 0 in shape:
        return np.zeros(0, dtype=np.int64)
    offsets = np.zeros((), dtype=np.int64)
    for extent, stride in zip(shape, strides):
        offsets = offsets[..., None] + np.arange(extent, dtype=np.int64) * stride
    return offsets.reshape(-1)


def span(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> int:
    """Bytes from element 0 through the end of the farthest element (0 if empty)."""
    if 0 in tuple(shape):
        return 0
    return itemsize + sum((e - 1) * s for e, s in zip(shape, strides))


def aligned_bytes(nbytes: int, fill: int, align: int = 64) -> np.ndarray:
    """A uint8 array of ``nbytes`` filled with ``fill`` whose address is
    ``align``-aligned."""
    raw = np.empty(nbytes + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    out = raw[start:start + nbytes]
    out[...] = fill
    assert nbytes == 0 or out.ctypes.data % align == 0
    return out


def spec(shape, dtype, strides: Optional[Sequence[int]] = None) -> sk.TensorSpec:
    layout = sk.Contiguous() if strides is None else sk.Strided(strides)
    return sk.TensorSpec(shape, dtype, layout)


def request(shape, src_dtype, dst_dtype, in_strides=None, out_strides=None) -> sk.ops.cast.Request:
    return sk.ops.cast.Request([spec(shape, src_dtype, in_strides)], [spec(shape, dst_dtype, out_strides)])


@dataclass
class Storage:
    """A sentinel-filled byte buffer holding one port's tensor.

    ``buf`` is exactly ``nbytes + excess`` bytes (``nbytes`` normally being the
    plan's requirement), aligned to 64 bytes; ``offsets`` are the byte offsets
    of the logical elements."""

    shape: Tuple[int, ...]
    dtype: sk.DType
    strides: Tuple[int, ...]
    buf: np.ndarray
    offsets: np.ndarray
    fill: int

    @classmethod
    def make(cls, shape, dtype, strides=None, nbytes=None, excess=0, fill=SENTINEL) -> "Storage":
        shape = tuple(shape)
        item = ITEMSIZE[dtype]
        strides = contiguous_strides(shape, item) if strides is None else tuple(strides)
        offsets = element_offsets(shape, strides)
        needed = span(shape, strides, item)
        if nbytes is None:
            nbytes = needed
        assert nbytes >= needed, "test storage smaller than the tensor it holds"
        return cls(shape, dtype, strides, aligned_bytes(nbytes + excess, fill), offsets, fill)

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    def _byte_index(self) -> np.ndarray:
        return self.offsets[:, None] + np.arange(self.itemsize, dtype=np.int64)

    def write(self, values: np.ndarray) -> None:
        values = np.ascontiguousarray(values, dtype=UINT[self.dtype]).reshape(-1)
        assert values.size == self.offsets.size
        self.buf[self._byte_index()] = values.view(np.uint8).reshape(-1, self.itemsize)

    def read(self) -> np.ndarray:
        raw = np.ascontiguousarray(self.buf[self._byte_index()]).reshape(-1)
        return raw.view(UINT[self.dtype]).copy()

    def element_mask(self) -> np.ndarray:
        mask = np.zeros(self.buf.size, dtype=bool)
        mask[self._byte_index().reshape(-1)] = True
        return mask

    def reset(self) -> None:
        self.buf[...] = self.fill

    def gaps_report(self, what: str = "output") -> Optional[str]:
        return untouched_report(self.buf, self.fill, ~self.element_mask(), what)

    def assert_gaps_untouched(self, what: str = "output") -> None:
        assert_untouched(self.buf, self.fill, ~self.element_mask(), what)


# ----------------------------------------------------------------- assertions


def _hex(value: int, width: int) -> str:
    return f"0x{int(value):0{width}x}"


def mismatch_report(got, expected, inputs, what: str = "", shape=None, limit: int = 10) -> Optional[str]:
    """None when ``got`` equals ``expected`` bit for bit, else a report listing
    index, input, expected and got in hex (for tests that gather several
    comparisons before failing)."""
    got = np.asarray(got).reshape(-1)
    expected = np.asarray(expected).reshape(-1)
    inputs = np.asarray(inputs).reshape(-1)
    assert got.shape == expected.shape == inputs.shape, (got.shape, expected.shape, inputs.shape)
    bad = np.flatnonzero(got != expected)
    if bad.size == 0:
        return None
    wi, wo = inputs.dtype.itemsize * 2, expected.dtype.itemsize * 2
    lines = []
    for i in bad[:limit]:
        where = f"{int(i)}" if not shape else f"{int(i)} {tuple(int(k) for k in np.unravel_index(int(i), shape))}"
        lines.append(
            f"  index {where}: input {_hex(inputs[i], wi)} expected {_hex(expected[i], wo)} "
            f"got {_hex(got[i], wo)}"
        )
    return f"{what}: {bad.size} of {got.size} elements differ\n" + "\n".join(lines)


def assert_bits_equal(got, expected, inputs, what: str = "", shape=None, limit: int = 10) -> None:
    """Bit-for-bit comparison; a failure lists index, input, expected and got in hex."""
    report = mismatch_report(got, expected, inputs, what, shape, limit)
    if report is not None:
        pytest.fail(report, pytrace=False)


def untouched_report(
    buf: np.ndarray, fill: int, mask: Optional[np.ndarray] = None, what: str = "buffer"
) -> Optional[str]:
    """None when every byte of ``buf`` (where ``mask`` is true) still holds
    ``fill``, else a report of the changed bytes."""
    changed = buf != fill
    if mask is not None:
        changed &= mask
    bad = np.flatnonzero(changed)
    if bad.size == 0:
        return None
    shown = ", ".join(f"byte {int(i):#x}: {int(buf[i]):#04x}" for i in bad[:12])
    return (
        f"{what}: {bad.size} byte(s) outside the logical elements changed "
        f"(expected {fill:#04x}): {shown}"
    )


def assert_untouched(buf: np.ndarray, fill: int, mask: Optional[np.ndarray] = None, what: str = "buffer") -> None:
    """Every byte of ``buf`` (where ``mask`` is true) still holds ``fill``."""
    report = untouched_report(buf, fill, mask, what)
    if report is not None:
        pytest.fail(report, pytrace=False)


def a65_module(req):
    """The A65 module of a request's operation (``sk.ops.dequant.Request`` ->
    ``sk.a65.dequant``; anything else is treated as a cast request)."""
    operation = type(req).__module__.rsplit(".", 1)[-1]
    return getattr(sk.a65, operation, sk.a65.cast)


def ok_plan(req, route: str):
    """The A65 plan for ``req`` on ``route``; fails the test on an Error."""
    plan = a65_module(req).check_inference(req, route=route)
    assert not isinstance(plan, sk.Error), f"unexpected rejection: {plan}"
    assert plan.route == route
    return plan


def run_cast(
    route: str,
    shape,
    src_dtype: sk.DType,
    dst_dtype: sk.DType,
    in_strides=None,
    out_strides=None,
    *,
    seed: int = 0,
    in_excess: int = 13,
    out_excess: int = 29,
    values: Optional[Tuple[np.ndarray, np.ndarray]] = None,
) -> None:
    """Builds, binds and executes one cast, then checks: the requirements are
    exactly the independent spans, every logical output element equals the
    oracle, every other output byte (gaps, excess capacity) still holds the
    sentinel, and the input buffer is unchanged."""
    shape = tuple(shape)
    plan = ok_plan(request(shape, src_dtype, dst_dtype, in_strides, out_strides), route)
    src = Storage.make(shape, src_dtype, in_strides, excess=in_excess, fill=INPUT_FILL)
    dst = Storage.make(shape, dst_dtype, out_strides, excess=out_excess, fill=SENTINEL)
    expect_in = sk.Requirement(span(shape, src.strides, src.itemsize), src.itemsize)
    expect_out = sk.Requirement(span(shape, dst.strides, dst.itemsize), dst.itemsize)
    assert plan.input_requirements() == (expect_in,)
    assert plan.output_requirements() == (expect_out,)
    if values is None:
        values = draw_values(src_dtype, src.offsets.size, seed)
    inputs, expected = values
    src.write(inputs)
    before = src.buf.copy()
    status = sk.a65.cast.execute(plan, [src.buf], [dst.buf])
    assert status is None, f"execute failed: {status}"
    what = f"{route} {src_dtype.name}->{dst_dtype.name} shape {shape} in {src.strides} out {dst.strides}"
    assert_bits_equal(dst.read(), expected, inputs, what, shape=shape)
    dst.assert_gaps_untouched(f"{what}: output")
    assert np.array_equal(src.buf, before), f"{what}: input buffer modified"


@contextlib.contextmanager
def stream_override(nbytes: int):
    """The streaming-store threshold at ``nbytes`` for the body (1: every run
    streams; 0: the default), restored afterwards whatever happens.  Plans
    decide whether their walks stream when prepared, so prepare them inside;
    the array layer's cached plans are dropped on entry and exit."""
    sk.arrays.clear_plans()
    lib.sk_stream_override(nbytes)
    try:
        yield
    finally:
        lib.sk_stream_override(0)
        sk.arrays.clear_plans()


@contextlib.contextmanager
def fp_or_skip(**state):
    """``sk.testing.fp_environment(**state)``; skips the test only when this CPU
    cannot hold the state (``UnsupportedFPState``, e.g. trap enables on many
    Arm cores)."""
    with contextlib.ExitStack() as stack:
        try:
            entered = stack.enter_context(sk.testing.fp_environment(**state))
        except sk.testing.UnsupportedFPState as exc:
            pytest.skip(f"UnsupportedFPState: {exc}")
        yield entered



@contextlib.contextmanager
def split_freely():
    """``workers=N`` without its bounds (slab minimum, usable CPUs): a small
    tensor splits into min(N, outermost extent) slabs, so tests exercise the
    slab machinery cheaply and on any machine."""
    with mock.patch.object(_split, "MIN_SLAB_ELEMENTS", 1), mock.patch.object(_split, "usable_cpus", lambda: 64):
        yield

# ------------------------------------------------------------------ FP states
# One generator of FP states for every FP-environment test (the matrix in
# test_fp_state_matrix.py and the per-operation files), and the contract's
# rule for which states each operation must accept, written from the documented policy ("FP
# environment") and the specification, never from the library's admission.

Rounding, Trap = sk.fenv.Rounding, sk.fenv.Trap
AARCH64 = platform.machine().lower() in {"aarch64", "arm64"}
DEFAULT_STATE = sk.fenv.State(Rounding.NEAREST, False, False, frozenset())

NEAREST, GRADUAL_UNDERFLOW, NO_TRAPS = "nearest rounding", "gradual underflow", "no traps"
FP_CONTRACT = {
    # 003: representation bits only, no FP arithmetic: any state.
    "cast": frozenset(),
    # 000: "Nonempty execution requires nearest rounding, gradual FP32
    # underflow and masked FP traps."
    "dequant": frozenset({NEAREST, GRADUAL_UNDERFLOW, NO_TRAPS}),
    # 001 and the documented policy: the product needs round-to-nearest-even and no trap may
    # fire; flush-to-zero and denormals-are-zero are repaired exactly.
    "quant": frozenset({NEAREST, NO_TRAPS}),
    # Hurray (002): the same binary32 conversion and product as Dequant.
    "hurray": frozenset({NEAREST, GRADUAL_UNDERFLOW, NO_TRAPS}),
    # The EV74 is another processor with its own FP environment: the host
    # model's results never depend on the submitting thread's state.
    "ev74": frozenset(),
}


def fp_state(rounding=Rounding.NEAREST, flush_to_zero=False, denormals_are_zero=False, traps=()) -> dict:
    """``fp_environment`` arguments naming every field (traps sorted)."""
    return dict(rounding=rounding, flush_to_zero=flush_to_zero, denormals_are_zero=denormals_are_zero,
                traps=tuple(sorted(traps, key=lambda t: t.name)))


def fp_state_value(state: dict) -> "sk.fenv.State":
    """What ``sk.fenv.query()`` reads inside ``fp_environment(**state)``."""
    return sk.fenv.State(state["rounding"], state["flush_to_zero"], state["denormals_are_zero"],
                         frozenset(state["traps"]))


def fp_state_id(state: dict) -> str:
    """A readable id: ``nearest``, ``upward+ftz+daz+traps=INEXACT,INVALID``."""
    parts = [state["rounding"].name.lower()]
    parts += [flag for flag, on in (("ftz", state["flush_to_zero"]), ("daz", state["denormals_are_zero"])) if on]
    if state["traps"]:
        parts.append("traps=" + ",".join(t.name for t in state["traps"]))
    return "+".join(parts)


def all_fp_states() -> Tuple[dict, ...]:
    """Every state this platform can express: 4 rounding modes x FTZ x DAZ
    (one FZ bit on AArch64: both or neither) x every subset of the
    enableable traps (``sk.fenv.Trap``)."""
    flushes = ((False, False), (True, True)) if AARCH64 else tuple(itertools.product((False, True), repeat=2))
    trap_sets = [c for k in range(len(Trap) + 1) for c in itertools.combinations(list(Trap), k)]
    return tuple(fp_state(r, ftz, daz, traps) for r in Rounding for ftz, daz in flushes for traps in trap_sets)


def single_feature_states() -> Tuple[dict, ...]:
    """The default state, each feature alone (each non-nearest rounding mode,
    FTZ, DAZ, each trap), both flush bits, every trap, and everything at once."""
    states = [fp_state()]
    states += [fp_state(rounding=r) for r in Rounding if r is not Rounding.NEAREST]
    if AARCH64:
        states.append(fp_state(flush_to_zero=True, denormals_are_zero=True))
    else:
        states += [fp_state(flush_to_zero=True), fp_state(denormals_are_zero=True),
                   fp_state(flush_to_zero=True, denormals_are_zero=True)]
    states += [fp_state(traps=[t]) for t in Trap]
    states.append(fp_state(traps=list(Trap)))
    states.append(fp_state(Rounding.UPWARD, True, True, list(Trap)))
    return tuple(states)


def sampled_fp_states(fraction: float = 0.1, seed: int = 0x5EED) -> Tuple[dict, ...]:
    """:func:`single_feature_states` plus a seeded random ``fraction`` of the
    other states of :func:`all_fp_states` (the quick subset)."""
    singles = single_feature_states()
    ids = {fp_state_id(s) for s in singles}
    rest = [s for s in all_fp_states() if fp_state_id(s) not in ids]
    return singles + tuple(random.Random(seed).sample(rest, round(fraction * len(rest))))


def unmet_requirements(operation: str, state: dict) -> frozenset:
    """The contract's requirements (of :data:`FP_CONTRACT`) that ``state``
    fails for nonempty work of ``operation``."""
    failed = set()
    if state["rounding"] is not Rounding.NEAREST:
        failed.add(NEAREST)
    if state["flush_to_zero"] or state["denormals_are_zero"]:
        failed.add(GRADUAL_UNDERFLOW)
    if state["traps"]:
        failed.add(NO_TRAPS)
    return frozenset(failed) & FP_CONTRACT[operation]


def environment_message_report(message: str, state: dict, unmet: frozenset) -> Optional[str]:
    """None when an UNSUPPORTED_ENVIRONMENT message names exactly what is
    unmet: the rounding mode, the flush modes, the enabled traps by name;
    nothing that is met."""
    text = message.lower()
    problems = []
    named = {NEAREST: "rounding" in text and state["rounding"].name.lower() in text,
             GRADUAL_UNDERFLOW: "flush-to-zero" in text or "denormals-are-zero" in text,
             NO_TRAPS: "trap" in text and all(t.name.lower() in text for t in state["traps"])}
    mentioned = {NEAREST: "rounding" in text, GRADUAL_UNDERFLOW: "flush" in text, NO_TRAPS: "trap" in text}
    for need in (NEAREST, GRADUAL_UNDERFLOW, NO_TRAPS):
        if need in unmet and not named[need]:
            problems.append(f"does not name the unmet requirement {need!r}")
        if need not in unmet and mentioned[need]:
            problems.append(f"names {need!r}, which the state meets")
    return f"message {message!r}: " + "; ".join(problems) if problems else None


def fail_if(reports) -> None:
    """Fails with every non-None report joined (tests that sweep parameters
    gather all mismatches before failing)."""
    found = [r for r in reports if r]
    if found:
        pytest.fail(f"{len(found)} failing case(s)\n" + "\n".join(found), pytrace=False)


# --------------------------------------------------------------------- dequant
# Expected bits come from tests/oracle/dequant.py (staged binary32 arithmetic
# on exact rationals), looked up by the input's byte pattern.


@functools.lru_cache(maxsize=None)
def dequant_tables(scale_bits: int, zero_point: int) -> Tuple[np.ndarray, np.ndarray]:
    """Oracle FP32 and BF16 bits for all 256 INT8 inputs, indexed by the
    input byte (``table[x.view(numpy.uint8)]``); memoised on disk
    (oracle_store: the emulated runs read what the host run computed)."""
    what = f"dequant_table {scale_bits:#010x} {zero_point}"
    f32 = oracle_store.stored(f"{what} f32", np.uint32, 256,
                              lambda: np.array(dequant_f32_table(scale_bits, zero_point), dtype=np.uint32))
    bf16 = oracle_store.stored(f"{what} bf16", np.uint16, 256,
                               lambda: np.array(dequant_bf16_table(scale_bits, zero_point), dtype=np.uint16))
    f32.flags.writeable = bf16.flags.writeable = False
    return f32, bf16


def oracle_dequant(q_bytes, dst_dtype: sk.DType, scale_bits: int, zero_point: int) -> np.ndarray:
    """Oracle output bits for INT8 inputs given as bytes (uint8 or int8 array)."""
    f32, bf16 = dequant_tables(scale_bits, zero_point)
    table = f32 if dst_dtype is F32 else bf16
    return table[np.asarray(q_bytes).view(np.uint8)]


def random_int8(count: int, seed: int) -> np.ndarray:
    """``count`` random INT8 values as their byte patterns (uint8)."""
    return np.random.default_rng(seed).integers(0, 256, size=count, dtype=np.uint16).astype(np.uint8)


def scale_bits_of(value) -> int:
    """binary32 bits of ``numpy.float32(value)`` (the documented scale conversion)."""
    return int(np.array(np.float32(value), dtype=np.float32).view(np.uint32))


def dequant_request(shape, dst_dtype, scale_bits: int, zero_point: int, in_strides=None, out_strides=None):
    return sk.ops.dequant.Request(
        [spec(shape, I8, in_strides)],
        [spec(shape, dst_dtype, out_strides)],
        sk.ops.dequant.Params.from_bits(scale_bits, zero_point),
    )


def plan_form(scale_bits: int, zero_point: int) -> str:
    """The arithmetic form the core chooses for these parameters: for tests
    that check their parameter sets reach every leaf (the choice itself is
    tested against the specification's table in test_dequant_numerics)."""
    return ok_plan(dequant_request((1,), F32, scale_bits, zero_point), "scalar").form


def dequant_report(
    route: str,
    shape,
    dst_dtype: sk.DType,
    scale_bits: int,
    zero_point: int,
    in_strides=None,
    out_strides=None,
    *,
    values: Optional[np.ndarray] = None,
    seed: int = 0,
    in_excess: int = 13,
    out_excess: int = 29,
) -> Optional[str]:
    """Builds, binds and executes one dequant and checks it like
    :func:`run_cast`: exact requirements, every logical output element equal
    to the oracle, every other output byte (gaps, excess capacity) still the
    sentinel, the input unchanged.  ``values``
    are the INT8 inputs as bytes in row-major logical order.  Returns None or
    a report naming the case."""
    shape = tuple(shape)
    req = dequant_request(shape, dst_dtype, scale_bits, zero_point, in_strides, out_strides)
    plan = ok_plan(req, route)
    src = Storage.make(shape, I8, in_strides, excess=in_excess, fill=INPUT_FILL)
    dst = Storage.make(shape, dst_dtype, out_strides, excess=out_excess, fill=SENTINEL)
    what = (
        f"{route} INT8->{dst_dtype.name} scale {scale_bits:#010x} zero point {zero_point} "
        f"form {plan.form} shape {shape} in {src.strides} out {dst.strides}"
    )
    problems = []
    expect_in = (sk.Requirement(span(shape, src.strides, 1), 1),)
    expect_out = (sk.Requirement(span(shape, dst.strides, dst.itemsize), dst.itemsize),)
    if plan.input_requirements() != expect_in or plan.output_requirements() != expect_out:
        problems.append(
            f"{what}: requirements {plan.input_requirements()} {plan.output_requirements()}, "
            f"expected {expect_in} {expect_out}"
        )
    if values is None:
        values = random_int8(src.offsets.size, seed)
    values = np.asarray(values).view(np.uint8).reshape(-1)
    src.write(values)
    before = src.buf.copy()
    status = sk.a65.dequant.execute(plan, [src.buf], [dst.buf])
    if status is not None:
        return f"{what}: execute returned {status}"
    expected = oracle_dequant(values, dst_dtype, scale_bits, zero_point)
    problems.append(mismatch_report(dst.read(), expected, values, what, shape=shape))
    problems.append(dst.gaps_report(f"{what}: output"))
    if not np.array_equal(src.buf, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def run_dequant(*args, **kwargs) -> None:
    """:func:`dequant_report`, failing the test on any problem."""
    fail_if([dequant_report(*args, **kwargs)])


# ----------------------------------------------------------------- strategies


@st.composite
def admissible_strides(draw, shape, itemsize):
    """Byte strides a sorted-axis proof admits: axes in a random physical order
    (fastest first), each stride clearing the span of the faster axes plus a
    random pad; singleton and empty axes get arbitrary strides, zero included.
    Sometimes Contiguous() (None)."""
    if draw(st.integers(0, 4)) == 0:
        return None
    order = draw(st.permutations(range(len(shape))))
    strides = [0] * len(shape)
    covered = itemsize
    for axis in order:
        extent = shape[axis]
        if extent <= 1:
            strides[axis] = itemsize * draw(st.sampled_from([0, 0, 1, 3, 7, 1000]))
            continue
        pad = itemsize * draw(st.sampled_from([0, 0, 0, 1, 2, 5]))
        strides[axis] = covered + pad
        covered += (extent - 1) * strides[axis]
    return tuple(strides)


@st.composite
def small_shapes(draw, max_rank: int = 6):
    """Shapes of rank 0..max_rank with small extents, sometimes empty."""
    rank = draw(st.integers(0, max_rank))
    shape = draw(st.lists(st.sampled_from([1, 1, 2, 2, 3, 4, 5]), min_size=rank, max_size=rank))
    if rank and draw(st.integers(0, 9)) == 0:
        shape[draw(st.integers(0, rank - 1))] = 0
    return tuple(shape)


def in_sanitizer_process() -> bool:
    """Whether this process runs the ASan/UBSan build (make sanitize
    preloads the runtimes): a test of code that build does not compile skips there."""
    return "libasan" in os.environ.get("LD_PRELOAD", "")
