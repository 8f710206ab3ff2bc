"""What the guard-page children run (tests/test_guard_pages.py starts them):
every operation at every length 0..80, dense and strided, with its input
and its output flush against a guard page (both ends in turn), each result
checked bit for bit against the oracle and every other byte of both
regions checked unchanged.

One child per operation and route (``main``), one for the EV74 device
model (``ev74_main``), and the deliberate faults that prove the harness
catches a one-element overrun (``deliberate_fault``).  Expected values
come from ``tests/oracle`` through small input pools (each case draws its
inputs from the pool, so the oracle runs once per pool entry).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

import numpy as np

import oracle
import simakernels as sk
from guarded import FLUSHES, GuardedRegion, Log, Regions, c_strides, image_report, span

F32, BF16, F16, I8 = sk.DType.FLOAT32, sk.DType.BFLOAT16, sk.DType.FLOAT16, sk.DType.INT8
WORD = {F32: np.dtype("<u4"), BF16: np.dtype("<u2"), F16: np.dtype("<u2"), I8: np.dtype("u1")}
FORMAT = {F32: oracle.BINARY32, BF16: oracle.BFLOAT16, F16: oracle.BINARY16}
SENTINEL = 0xA5      # output region bytes before a run
INPUT_FILL = 0x3C    # input region bytes around the elements
MODES = ("nearest_even", "toward_zero", "toward_positive", "toward_negative")
LENGTHS = range(0, 81)
H = sk.formats.hurray

Case = Tuple[str, Tuple[int, ...], Optional[Tuple[int, ...]], Optional[Tuple[int, ...]]]


def layouts(n: int) -> List[Case]:
    """(name, shape, input strides, output strides), strides in elements of
    each port (None: C order): dense, every second element (x[::2]) and
    every second column (x[:, ::2]) on either port, and transposes (x.T of
    a C-ordered array) on either port."""
    return [
        ("dense", (n,), None, None),
        ("in[::2]", (n,), (2,), None),
        ("out[::2]", (n,), None, (2,)),
        ("in[:, ::2]", (3, n), (2 * n, 2), None),
        ("out[:, ::2]", (3, n), None, (2 * n, 2)),
        ("in.T", (n, 3), (1, n), None),
        ("out.T", (n, 3), None, (1, n)),
    ]


def length_cases(lengths: Iterable[int] = LENGTHS) -> List[Case]:
    return [case for n in lengths for case in layouts(n)]


# ------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class Variant:
    """One set of parameters of an operation, with an input pool and the
    oracle's output for every pool entry.  ``tame`` leading entries keep
    the vector routes on their fast paths (no NaN, infinity or subnormal);
    cases of odd length draw from the whole pool."""

    label: str
    request: Callable[[Sequence[int], Optional[tuple], Optional[tuple]], Any]
    pool: np.ndarray
    expected: np.ndarray
    tame: int


@dataclass(frozen=True)
class Operation:
    src: sk.DType
    dst: sk.DType
    module: Any                      # sk.a65.cast / dequant / quant
    variants: Callable[[], List[Variant]]


def _spec(shape, dtype, strides):
    return sk.TensorSpec(tuple(shape), dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def _f32_bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def _pool(dtype: sk.DType, name: str) -> Tuple[np.ndarray, int]:
    """(patterns, tame count): 192 values in [-1000, 1000] (products with
    the multipliers below stay finite and normal), then random patterns
    and the special classes (zeros, subnormals, infinities, NaNs)."""
    rng = _rng(name)
    tame_f32 = _f32_bits(rng.uniform(-1000.0, 1000.0, 192))
    if dtype is F32:
        tame = tame_f32
        wild = rng.integers(0, 1 << 32, 56, dtype=np.uint64).astype(np.uint32)
        special = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800001],
                           np.uint32)
    else:
        tame = (tame_f32 >> 16).astype(np.uint16) if dtype is BF16 else (
            np.asarray(rng.uniform(-1000.0, 1000.0, 192), np.float16).view(np.uint16))
        wild = rng.integers(0, 1 << 16, 56, dtype=np.uint32).astype(np.uint16)
        special = np.array([0, 0x8000, 1, 0x8001, 0x7F80 if dtype is BF16 else 0x7C00, 0xFFFF, 0x7FC0, 0x83FF],
                           np.uint16)
    return np.concatenate([tame, wild, special]), tame.size


def _cast_variants(src: sk.DType, dst: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        if src is F32:
            pool, tame = _pool(F32, "cast")
            expected = np.array(oracle.f32_to_bf16_many(pool.tolist()), np.uint16)
        else:
            pool = _rng("cast16").integers(0, 1 << 16, 256, dtype=np.uint32).astype(np.uint16)
            tame = pool.size
            expected = np.array([oracle.bf16_to_f32(int(b)) for b in pool], np.uint32)
        return [Variant("", lambda shape, si, so: sk.ops.cast.Request([_spec(shape, src, si)], [_spec(shape, dst, so)]),
                        pool, expected, tame)]
    return variants


# (scale bits, zero point): one per arithmetic form of the route table
# (narrow power of two, narrow, wide power of two, wide unit scale, wide).
DEQUANT_PARAMS = ((0x3E000000, 5), (0x4037CED9, -123), (0x40800000, 16777088), (0x3F800000, -70000),
                  (0x3E99999A, 100000))


def _dequant_variants(dst: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        pool = np.arange(256, dtype=np.uint8)
        out = []
        for scale, zp in DEQUANT_PARAMS:
            table = oracle.dequant_f32_table(scale, zp) if dst is F32 else oracle.dequant_bf16_table(scale, zp)
            params = sk.ops.dequant.Params.from_bits(scale, zp)
            out.append(Variant(
                f"scale={scale:#010x} zp={zp}",
                lambda shape, si, so, params=params: sk.ops.dequant.Request(
                    [_spec(shape, I8, si)], [_spec(shape, dst, so)], params),
                pool, np.array(table, WORD[dst].type), pool.size))
        return out
    return variants


# (multiplier bits, zero point, mode): every mode, and a subnormal
# multiplier (every block takes the exact path).
QUANT_PARAMS = tuple((0x3E99999A, -3, mode) for mode in MODES) + ((0x00400000, 17, "nearest_even"),)


def _quant_variants(src: sk.DType) -> Callable[[], List[Variant]]:
    def variants() -> List[Variant]:
        pool, tame = _pool(src, f"quant-{src.name}")
        out = []
        for m, zp, mode in QUANT_PARAMS:
            expected = np.array(oracle.quant_many(pool.tolist(), FORMAT[src], m, zp, mode), np.int8).view(np.uint8)
            params = sk.ops.quant.Params.from_bits(m, zp, mode)
            out.append(Variant(
                f"{mode} m={m:#010x} zp={zp}",
                lambda shape, si, so, params=params: sk.ops.quant.Request(
                    [_spec(shape, src, si)], [_spec(shape, I8, so)], params),
                pool, expected, tame))
        return out
    return variants


OPERATIONS = {
    "cast_f32_bf16": Operation(F32, BF16, sk.a65.cast, _cast_variants(F32, BF16)),
    "cast_bf16_f32": Operation(BF16, F32, sk.a65.cast, _cast_variants(BF16, F32)),
    "dequant_i8_f32": Operation(I8, F32, sk.a65.dequant, _dequant_variants(F32)),
    "dequant_i8_bf16": Operation(I8, BF16, sk.a65.dequant, _dequant_variants(BF16)),
    "quant_f32_i8": Operation(F32, I8, sk.a65.quant, _quant_variants(F32)),
    "quant_bf16_i8": Operation(BF16, I8, sk.a65.quant, _quant_variants(BF16)),
    "quant_f16_i8": Operation(F16, I8, sk.a65.quant, _quant_variants(F16)),
}


# ----------------------------------------------------------------- A65 runs


def _byte_strides(el: Optional[tuple], itemsize: int) -> Optional[tuple]:
    return None if el is None else tuple(s * itemsize for s in el)


def run_a65(name: str, route: str, cases: Sequence[Case], log: Log, regions: Regions,
            variants: Optional[Sequence[Variant]] = None) -> None:
    """Every case of operation ``name`` on ``route`` for each variant, at
    both flush positions (input and output guarded in the same run)."""
    op = OPERATIONS[name]
    si, so = op.src.itemsize, op.dst.itemsize
    rng = _rng(f"{name} {route}")
    for variant in variants if variants is not None else op.variants():
        for layout, shape, in_el, out_el in cases:
            in_strides, out_strides = _byte_strides(in_el, si), _byte_strides(out_el, so)
            s_in = in_strides or c_strides(shape, si)
            s_out = out_strides or c_strides(shape, so)
            what = f"{name} {route} {variant.label} {layout} shape {shape} in {s_in} out {s_out}".replace("  ", " ")
            plan = op.module.check_inference(variant.request(shape, in_strides, out_strides), route=route)
            if isinstance(plan, sk.Error):
                log.problem(f"{what}: refused: {plan}")
                continue
            need = (span(shape, s_in, si), span(shape, s_out, so))
            got = (plan.input_requirements()[0].nbytes, plan.output_requirements()[0].nbytes)
            if got != need:
                log.problem(f"{what}: the plan requires {got} bytes, the layouts span {need}")
                continue
            count = int(np.prod(shape))
            pick = rng.integers(0, variant.tame if count % 2 == 0 else variant.pool.size, count)
            values, expected = variant.pool[pick].reshape(shape), variant.expected[pick].reshape(shape)
            for flush in FLUSHES:
                log.announce(f"{what} flush {flush}")
                log.problem(_run_placed(op, plan, regions, flush, shape, s_in, s_out, need, values, expected,
                                        f"{what} flush {flush}"))


def _run_placed(op: Operation, plan, regions: Regions, flush: str, shape, s_in, s_out, need, values, expected,
                what: str) -> Optional[str]:
    rin, rout = regions("in", need[0]), regions("out", need[1])
    at_in, at_out = rin.offset(need[0], flush), rout.offset(need[1], flush)
    rin.bytes[:] = INPUT_FILL
    rin.words(at_in, WORD[op.src], shape, s_in)[...] = values
    input_image = rin.bytes.copy()
    rout.bytes[:] = SENTINEL
    status = op.module.execute(plan, [sk.ConstHostBuffer.from_address(rin.start + at_in, need[0])],
                               [sk.HostBuffer.from_address(rout.start + at_out, need[1])])
    if status is not None:
        return f"{what}: execute returned {status}"
    image = np.full(rout.size, SENTINEL, np.uint8)
    np.ndarray(shape, WORD[op.dst], buffer=image, offset=at_out, strides=s_out)[...] = expected
    elements = lambda: _element_mask(rout.size, at_out, shape, s_out, WORD[op.dst])  # noqa: E731
    return (image_report(rout.bytes, image, f"{what}: output", elements)
            or image_report(rin.bytes, input_image, f"{what}: input changed"))


def _element_mask(size: int, offset: int, shape, strides, word: np.dtype) -> np.ndarray:
    """True for the bytes of the logical elements (for failure reports)."""
    mark = np.zeros(size, np.uint8)
    np.ndarray(shape, word, buffer=mark, offset=offset, strides=strides)[...] = np.iinfo(word).max
    return mark != 0


# ------------------------------------------------------------------- Hurray

HURRAY_SCALES = (0x3E99999A, 0xBE000000)   # INT8 with a positive scale runs through the A65 Dequant


def _hurray_pool(storage: "H.StorageType") -> np.ndarray:
    low, high = storage.range.start, storage.range.stop - 1
    if storage.bits <= 8:
        return np.arange(low, high + 1, dtype=np.int64)
    rng = _rng(storage.name)
    return np.concatenate([[low, high, 0, -1 if low < 0 else 1],
                           rng.integers(low, high + 1, 252, dtype=np.int64)])


def _pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Little-endian storage bytes; sub-byte fields little-end first."""
    fields = values.astype(np.int64) & ((1 << bits) - 1)
    if bits >= 8:
        return fields.astype(f"<u{bits // 8}").view(np.uint8)
    per = 8 // bits
    padded = np.zeros(-(-fields.size // per) * per, np.int64)
    padded[:fields.size] = fields
    return (padded.reshape(-1, per) << (bits * np.arange(per))).sum(axis=1).astype(np.uint8)


def run_hurray(route: str, log: Log, regions: Regions, lengths: Iterable[int] = LENGTHS) -> None:
    """Every storage type, both scale signs, every length, the packed input
    and the float32 output each flush against a guard."""
    rng = _rng(f"hurray {route}")
    lengths = list(lengths)
    for storage in H.StorageType:
        pool = _hurray_pool(storage)
        zp = -1 if storage.signed else 1
        for scale in HURRAY_SCALES:
            desc = H.PerTensorAffine(np.array(scale, np.uint32).view(np.float32)[()], zp)
            expected = np.array([oracle.hurray_dequant(int(q), scale, zp) for q in pool], np.uint32)
            for n in lengths:
                pick = rng.integers(0, pool.size, n)
                packed = _pack(pool[pick], storage.bits)
                for flush in FLUSHES:
                    what = f"hurray {route} {storage.name} scale={scale:#010x} zp={zp} n={n} flush {flush}"
                    log.announce(what)
                    rin, rout = regions("in", packed.size), regions("out", 4 * n)
                    at_in, at_out = rin.offset(packed.size, flush), rout.offset(4 * n, flush)
                    rin.bytes[:] = INPUT_FILL
                    rin.bytes[at_in:at_in + packed.size] = packed
                    input_image = rin.bytes.copy()
                    rout.bytes[:] = SENTINEL
                    H.dequantize(rin.bytes[at_in:at_in + packed.size], desc, storage, count=n,
                                 out=rout.words(at_out, np.float32, (n,)))
                    image = np.full(rout.size, SENTINEL, np.uint8)
                    image[at_out:at_out + 4 * n] = expected[pick].view(np.uint8)
                    log.problem(image_report(rout.bytes, image, f"{what}: output")
                                or image_report(rin.bytes, input_image, f"{what}: input changed"))


# ----------------------------------------------------------- EV74 device model

EV74_EXTRA = (127, 128, 4103)   # dense only: the last direct-vector run, DMA blocks
EV74_BASE = 0x1000_0000


def run_ev74(log: Log, lengths: Iterable[int] = LENGTHS, extra: Iterable[int] = EV74_EXTRA) -> None:
    """Bound Quant packets on a host Device whose memory lies between guard
    pages: the input at the start of device memory and the output at its
    end, then the other way round; every input format and layout, the
    rounding mode changing with the length."""
    cases = length_cases(lengths) + [("dense", (n,), None, None) for n in extra]
    memory = GuardedRegion(8 * 4096)
    ev = sk.ev74.quant
    with sk.ev74.Device(size=memory.size, base=EV74_BASE, memory=memory.bytes) as device:
        for src in (F32, BF16, F16):
            pool, tame = _pool(src, f"ev74-{src.name}")
            m, zp = 0x3E99999A, -3
            expected_by_mode = {mode: np.array(oracle.quant_many(pool.tolist(), FORMAT[src], m, zp, mode),
                                               np.int8).view(np.uint8) for mode in MODES}
            rng = _rng(f"ev74 {src.name}")
            for layout, shape, in_el, out_el in cases:
                mode = MODES[int(np.prod(shape[-1:])) % 4]
                in_strides, out_strides = _byte_strides(in_el, src.itemsize), _byte_strides(out_el, 1)
                s_in, s_out = in_strides or c_strides(shape, src.itemsize), out_strides or c_strides(shape, 1)
                request = sk.ops.quant.Request([_spec(shape, src, in_strides)], [_spec(shape, I8, out_strides)],
                                               sk.ops.quant.Params.from_bits(m, zp, mode))
                plan = ev.check_inference(request)
                what = f"ev74 {src.name} {mode} {layout} shape {shape} in {s_in} out {s_out}"
                if isinstance(plan, sk.Error):
                    log.problem(f"{what}: refused: {plan}")
                    continue
                need_in, need_out = span(shape, s_in, src.itemsize), span(shape, s_out, 1)
                count = int(np.prod(shape))
                pick = rng.integers(0, tame if count % 2 == 0 else pool.size, count)
                for input_first in (True, False):
                    at_in = 0 if input_first else memory.size - need_in
                    at_out = memory.size - need_out if input_first else 0
                    where = f"{what} input {'lower' if input_first else 'upper'} output {'upper' if input_first else 'lower'}"
                    log.announce(where)
                    memory.bytes[:] = SENTINEL
                    memory.words(at_in, WORD[src], shape, s_in)[...] = pool[pick].reshape(shape)
                    image = memory.bytes.copy()
                    np.ndarray(shape, np.uint8, buffer=image, offset=at_out, strides=s_out)[...] = (
                        expected_by_mode[mode][pick].reshape(shape))
                    bound = ev.encode(plan, [sk.ev74.DeviceRegion(EV74_BASE + at_in, need_in)],
                                      [sk.ev74.DeviceRegion(EV74_BASE + at_out, need_out)])
                    if isinstance(bound, sk.Error):
                        log.problem(f"{where}: encode: {bound}")
                        continue
                    done = device.submit(bound).result(timeout=600)
                    if isinstance(done, sk.Error):
                        log.problem(f"{where}: submit: {done}")
                        continue
                    log.problem(image_report(memory.bytes, image, f"{where}: device memory"))


# ----------------------------------------------------------- child entries


def main(name: str, route: str) -> None:
    """Child: every length case of operation ``name`` ("hurray" for the
    Hurray kernels) on ``route``."""
    log, regions = Log(), Regions()
    if name == "hurray":
        run_hurray(route, log, regions)
    else:
        run_a65(name, route, length_cases(), log, regions)
    log.finish()


def ev74_main() -> None:
    log = Log()
    run_ev74(log)
    log.finish()


DELIBERATE = ("read past the input's end", "write past the output's end", "read before the input's start")


def deliberate_fault(kind: str) -> None:
    """Child: one clean FP32 -> BF16 cast, then the same kernel with a view
    that claims one element more than lies before the guard (or starts one
    element inside the lower guard).  The child must die on the second
    case, and the parent must name it."""
    log, regions = Log(), Regions()
    variant = OPERATIONS["cast_f32_bf16"].variants()
    run_a65("cast_f32_bf16", sk.a65.available_routes()[0], [("dense", (37,), None, None)], log, regions, variant)
    n = 37
    rin, rout = regions("in", 4 * (n + 1)), regions("out", 2 * (n + 1))
    rin.bytes[:] = INPUT_FILL
    grow = 0 if kind == DELIBERATE[2] else 1
    plan = sk.a65.cast.check_inference(variant[0].request((n + grow,), None, None))
    if kind == DELIBERATE[0]:      # input: n elements before the upper guard, the view claims n + 1
        src, dst = rin.start + rin.size - 4 * n, rout.start
    elif kind == DELIBERATE[1]:    # output: n elements before the upper guard, the view claims n + 1
        src, dst = rin.start, rout.start + rout.size - 2 * n
    else:                          # input: its first element inside the lower guard
        src, dst = rin.start - 4, rout.start
    log.announce(f"deliberate fault: {kind}")
    sk.a65.cast.execute(plan, [sk.ConstHostBuffer.from_address(src, 4 * (n + grow))],
                        [sk.HostBuffer.from_address(dst, 2 * (n + grow))])
    log.finish()
