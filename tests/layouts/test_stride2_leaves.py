"""Inputs that take every other element (a[::2], a[:, ::2]) into packed
outputs: the AVX2, AVX-512 and NEON routes read them in place with
every_other leaves (csrc/common/kernel.h; NEON by de-interleaving LD2
loads; the walk stages what a leaf leaves), the others stage them.  Every
op, dtype and rounding mode on every route, bit for bit against the oracle:

* run lengths 1..80 and around the leaves' blocks (8/16/32/64 elements),
  the staging chunk (2048) and 4096, with the input buffer ending at the
  last element;
* every INT8, BF16 and FP16 bit pattern, and the FP32 pool;
* 2-D views: a[:, ::2] of C-contiguous rows (one coalesced run), of padded
  rows (one run per row) and a[:, 1::2] (odd first element);
* output addresses off the 32/64-byte boundaries the leaves align to;
* the skipped elements poisoned with NaNs, infinities, huge and subnormal
  values that must not influence any result, the output framed by
  sentinel bytes that must stay untouched.

Quant's FP-state edges (FTZ/DAZ low test, high test, repaired chunks,
streaming) run through the same leaves in test_quant_fast_paths.py (step 2),
and guard pages after the last element in test_staged_layouts.py."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    F16,
    F32,
    I8,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    UINT,
    dequant_request,
    draw_values,
    fail_if,
    mismatch_report,
    ok_plan,
    oracle_bf16_to_f32,
    oracle_dequant,
    random_int8,
    request,
    untouched_report,
)
from support.quant_helpers import MODES, oracle as quant_oracle, quant_request, table16, useful_values

# Skipped-element values per input dtype.  "loud": quiet and signalling
# NaNs, infinities, the largest finite values, subnormals (they must not
# influence any result: not even send a block to Quant's exact path, which
# would hide a wrong load); "plain": ordinary values (1.0, 2.5, -7, 100,
# 0.3), whose results differ from the elements', so that a load that takes
# them shows.
POISON = {
    "loud": {F32: (0x7FC00001, 0x7F800001, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0x807FFFFF),
             BF16: (0x7FC1, 0x7F81, 0xFF80, 0x7F7F, 0x0001, 0x807F),
             F16: (0x7E01, 0x7C01, 0xFC00, 0x7BFF, 0x0001, 0x83FF),
             I8: (0x80, 0x7F, 0xFF, 0x01, 0x55)},
    "plain": {F32: (0x3F800000, 0x40200000, 0xC0E00000, 0x42C80000, 0x3E99999A),
              BF16: (0x3F80, 0x4020, 0xC0E0, 0x42C8, 0x3E9A),
              F16: (0x3C00, 0x4100, 0xC700, 0x5640, 0x34CD),
              I8: (0x05, 0xF9, 0x64, 0x9C, 0x2A)},
}
POISONS = tuple(POISON)
DEQUANT_PARAMS = [(0x4037CED9, -123), (0x3E000000, 5), (0x40800000, 16777088), (0x3F800000, 1 << 20),
                  (0x3C23D70A, 300000)]   # narrow, narrow_pow2, wide_pow2, wide_unit, wide
QUANT_PARAMS = [(0x3E99999A, -3), (0x3F800000, 127), (0x41AC0000, 0)]


class Op:
    """One operation: its dtypes, a request builder and the oracle."""

    def __init__(self, kind, src, dst, mode=None):
        self.kind, self.src, self.dst, self.mode = kind, src, dst, mode
        self.name = f"{kind}_{src.name}_{dst.name}".lower() + (f"_{mode}" if mode else "")

    def params(self, seed):
        table = DEQUANT_PARAMS if self.kind == "dequant" else QUANT_PARAMS
        return table[seed % len(table)]

    def request(self, shape, in_strides, seed):
        if self.kind == "cast":
            return request(shape, self.src, self.dst, in_strides)
        a, b = self.params(seed)
        if self.kind == "dequant":
            return dequant_request(shape, self.dst, a, b, in_strides)
        return quant_request(shape, self.src, a, b, self.mode, in_strides)

    def values(self, count, seed):
        """Input patterns and their oracle output patterns."""
        if self.kind == "cast":
            return draw_values(self.src, count, seed)
        if self.kind == "dequant":
            values = random_int8(count, seed).view(np.uint8)
            return values, self.expected(values, seed)
        values = useful_values(self.src, count, seed, self.params(seed)[0])
        return values, self.expected(values, seed)

    def expected(self, values, seed):
        if self.kind == "cast":
            assert self.src is BF16, "only BF16 -> FP32 is small enough to be exhaustive"
            return oracle_bf16_to_f32(values)
        a, b = self.params(seed)
        if self.kind == "dequant":
            return oracle_dequant(values, self.dst, a, b)
        if self.src is F32:
            return quant_oracle(self.src, values, a, b, self.mode).view(np.uint8)
        return table16(self.src, a, b, self.mode)[values].view(np.uint8)

    def execute(self, plan, src, dst):
        return getattr(sk.a65, self.kind).execute(plan, [src], [dst])


OPS = ([Op("cast", F32, BF16), Op("cast", BF16, F32), Op("dequant", I8, F32), Op("dequant", I8, BF16)]
       + [Op("quant", src, I8, mode) for src in (F32, BF16, F16) for mode in MODES])
OP_IDS = [op.name for op in OPS]


def run(op, route, shape, values, expected, seed=0, pitch=None, in_offset=3, out_offset=0, poison="loud"):
    """``values`` (row-major) as every other element of rows ``pitch``
    elements apart (None: 2 x columns, i.e. rows that follow each other) in
    a poisoned buffer that starts ``in_offset`` elements past a 64-byte
    boundary and ends at the last element; the output ``out_offset``
    elements past one, framed by sentinels.  A report or None."""
    shape = tuple(shape)
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    pitch = 2 * cols if pitch is None else pitch
    si, so = ITEMSIZE[op.src], ITEMSIZE[op.dst]
    in_strides = (2 * si,) if len(shape) == 1 else (pitch * si, 2 * si)
    plan = ok_plan(op.request(shape, in_strides, seed), route)
    index = (np.arange(rows)[:, None] * pitch + 2 * np.arange(cols)[None, :]).reshape(-1)
    src = np.resize(np.array(POISON[poison][op.src], dtype=UINT[op.src]), int(index[-1]) + 1 + 64)
    start = (-src.ctypes.data // si) % (64 // si) + in_offset
    src = src[start: start + int(index[-1]) + 1]       # ends at the last element
    src[index] = values
    before = src.copy()
    n = rows * cols
    frame = np.full((n + 96) * so, SENTINEL, dtype=np.uint8)
    base = (-frame.ctypes.data) % 64 + out_offset * so
    status = op.execute(plan, src, frame[base: base + n * so])
    what = f"{route} {op.name} shape {shape} pitch {pitch} in+{in_offset} out+{out_offset} {poison} gaps"
    if status is not None:
        return f"{what}: execute returned {status}"
    gaps = np.ones(frame.size, dtype=bool)
    gaps[base: base + n * so] = False
    got = frame[base: base + n * so].view(UINT[op.dst])
    problems = [mismatch_report(got, np.asarray(expected, dtype=UINT[op.dst]), values, what),
                untouched_report(frame, SENTINEL, gaps, f"{what}: output frame")]
    if not np.array_equal(src, before):
        problems.append(f"{what}: input modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


op_param = pytest.mark.parametrize("op", OPS, ids=OP_IDS)
route_param = pytest.mark.parametrize("route", ROUTES)

# Around every block of the every_other leaves (Cast 16/32, Dequant 8/16/32,
# the AVX-512 table 64, Quant 32/64) and their "another element follows"
# stop, the staging chunk (2048) and 4096.
LENGTHS = (list(range(1, 81)) + [95, 96, 97, 127, 128, 129, 191, 192, 193, 255, 256, 257]
           + [2047, 2048, 2049, 4095, 4096, 4097, 4096 + 65])


@pytest.mark.parametrize("poison", POISONS)
@op_param
@route_param
def test_lengths(route, op, poison):
    seed = len(op.name)
    values, expected = op.values(max(LENGTHS), seed)
    fail_if(run(op, route, (n,), values[:n], expected[:n], seed, out_offset=n % 5, poison=poison)
            for n in LENGTHS)


SHAPES = [(3, 5), (4, 64), (5, 65), (2, 513), (33, 40), (64, 64), (7, 129)]


@pytest.mark.parametrize("poison", POISONS)
@op_param
@route_param
def test_rows(route, op, poison):
    """a[:, ::2] of C-contiguous rows (runs that coalesce into one), of rows
    padded by 1 and 3 elements (a run per row, an odd pitch putting every
    other row off its alignment), the input at several offsets from a
    64-byte boundary (a[:, 1::2] is one of them)."""
    reports = []
    for k, (rows, cols) in enumerate(SHAPES):
        values, expected = op.values(rows * cols, seed=k)
        for pitch, in_offset in ((None, 0), (2 * cols + 1, 3), (2 * cols + 3, 1), (None, 1), (None, 7)):
            reports.append(run(op, route, (rows, cols), values, expected, seed=k, pitch=pitch,
                               in_offset=in_offset, out_offset=k, poison=poison))
    fail_if(reports)


@pytest.mark.parametrize("out_offset", [0, 1, 3, 8, 15, 16, 31])
@op_param
@route_param
def test_output_offsets(route, op, out_offset):
    """Output addresses off the 32- and 64-byte boundaries the leaves align
    their stores to, on runs long enough for several blocks."""
    values, expected = op.values(300, seed=out_offset)
    fail_if([run(op, route, (300,), values, expected, seed=out_offset, out_offset=out_offset, poison="plain"),
             run(op, route, (6, 50), values, expected, seed=out_offset, out_offset=out_offset)])


# ------------------------------------------------------------ exhaustive

EXHAUSTIVE = [op for op in OPS if op.src in (BF16, F16, I8)]


@pytest.mark.parametrize("op", EXHAUSTIVE, ids=[op.name for op in EXHAUSTIVE])
@route_param
def test_every_pattern(route, op):
    """Every INT8, BF16 and FP16 pattern, shuffled, as a[:, ::2] (Dequant
    and Quant for each of their parameter sets)."""
    bits = 8 * ITEMSIZE[op.src]
    patterns = np.random.default_rng(bits).permutation(1 << bits).astype(UINT[op.src])
    shape = (256, 256) if bits == 16 else (16, 16)
    seeds = range(len(DEQUANT_PARAMS) if op.kind == "dequant" else len(QUANT_PARAMS) if op.kind == "quant" else 1)
    fail_if(run(op, route, shape, patterns, op.expected(patterns, seed), seed=seed, poison=POISONS[seed % 2])
            for seed in seeds)


@route_param
def test_fp32_pool(route):
    """FP32 -> BF16 and Quant FP32 over the pool of FP32 patterns (specials,
    rounding ties, every exponent) in one long a[::2] run."""
    reports = []
    for op in OPS:
        if op.src is F32:
            values, expected = op.values(20011, seed=11)
            reports += [run(op, route, (20011,), values, expected, seed=11, out_offset=5, poison=p) for p in POISONS]
    fail_if(reports)
