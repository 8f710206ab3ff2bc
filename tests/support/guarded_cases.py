"""What the guard-page children run (tests/reliability/test_guard_pages.py starts them):
every operation at every length 0..80, dense and strided, with its input
and its output flush against a guard page (both ends in turn), each result
checked bit for bit against the oracle and every other byte of both
regions checked unchanged.

One child per operation and route (``main``), one for the EV74 device
model (``ev74_main``), and the deliberate faults that prove the harness
catches a one-element overrun (``deliberate_fault``).  Expected values
come from ``tests/oracle`` through the input pools of tests/support/oracle_pools.py.
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

import numpy as np

import oracle
import simakernels as sk
from support.guarded import FLUSHES, GuardedRegion, Log, Regions, c_strides, image_report, span
from support.oracle_pools import (BF16, F16, F32, FORMAT, H, HURRAY_SCALES, I8, MODES, OPERATIONS, WORD, Operation,
                                  Variant, float_pool, hurray_descriptor, hurray_pack, hurray_pool, rng, spec)

SENTINEL = 0xA5      # output region bytes before a run
INPUT_FILL = 0x3C    # input region bytes around the elements
LENGTHS = range(0, 81)

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


# ----------------------------------------------------------------- A65 runs


def _byte_strides(el: Optional[tuple], itemsize: int) -> Optional[tuple]:
    return None if el is None else tuple(s * itemsize for s in el)


def run_a65(name: str, route: str, cases: Sequence[Case], log: Log, regions: Regions,
            variants: Optional[Sequence[Variant]] = None) -> None:
    """Every case of operation ``name`` on ``route`` for each variant, at
    both flush positions (input and output guarded in the same run).
    Even-sized cases draw tame inputs (the vector fast paths), odd-sized
    ones the whole pool."""
    op = OPERATIONS[name]
    si, so = op.src.itemsize, op.dst.itemsize
    draws = rng(f"{name} {route}")
    for variant in variants if variants is not None else op.variants():
        for layout, shape, in_el, out_el in cases:
            in_strides, out_strides = _byte_strides(in_el, si), _byte_strides(out_el, so)
            s_in = in_strides or c_strides(shape, si)
            s_out = out_strides or c_strides(shape, so)
            what = " ".join(f"{name} {route} {variant.label} {layout} shape {shape} in {s_in} out {s_out}".split())
            plan = op.module.check_inference(variant.request(shape, in_strides, out_strides), route=route)
            if isinstance(plan, sk.Error):
                log.problem(f"{what}: refused: {plan}")
                continue
            need = (span(shape, s_in, si), span(shape, s_out, so))
            got = (plan.input_requirements()[0].nbytes, plan.output_requirements()[0].nbytes)
            if got != need:
                log.problem(f"{what}: the plan requires {got} bytes, the layouts span {need}")
                continue
            values, expected = variant.draw(draws, shape, tame=int(np.prod(shape)) % 2 == 0)
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


def run_hurray(route: str, log: Log, regions: Regions, lengths: Iterable[int] = LENGTHS) -> None:
    """Every storage type, both scale signs (INT8 with a positive scale
    runs the A65 Dequant of the forced route), every length, the packed
    input and the float32 output flush against a guard."""
    draws = rng(f"hurray {route}")
    for storage in H.StorageType:
        for scale in HURRAY_SCALES:
            pool, expected = hurray_pool(storage, scale)
            desc = hurray_descriptor(storage, scale)
            for n in lengths:
                pick = draws.integers(0, pool.size, n)
                packed = hurray_pack(pool[pick], storage.bits)
                for flush in FLUSHES:
                    what = f"hurray {route} {storage.name} scale={scale:#010x} zp={desc.zero_point} n={n} flush {flush}"
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

EV74_EXTRA = (127, 128, 4103)   # dense only: the longest direct-vector run, DMA blocks
EV74_BASE = 0x1000_0000
EV74_PARAMS = (0x3E99999A, -3)


def run_ev74(log: Log, lengths: Iterable[int] = LENGTHS, extra: Iterable[int] = EV74_EXTRA) -> None:
    """Bound Quant packets on a host Device whose memory lies between guard
    pages: the input at the start of device memory and the output at its
    end, then the other way round; every input format and layout, the
    rounding mode changing with the length."""
    cases = [(n, case) for n in lengths for case in layouts(n)] + [(n, ("dense", (n,), None, None)) for n in extra]
    memory = GuardedRegion(8 * 4096)
    ev = sk.ev74.quant
    m, zp = EV74_PARAMS
    with sk.ev74.Device(size=memory.size, base=EV74_BASE, memory=memory.bytes) as device:
        for src in (F32, BF16, F16):
            pool, tame = float_pool(src, f"ev74-{src.name}")
            expected_by_mode = {mode: np.array(oracle.quant_many(pool.tolist(), FORMAT[src], m, zp, mode),
                                               np.int8).view(np.uint8) for mode in MODES}
            draws = rng(f"ev74 {src.name}")
            for n, (layout, shape, in_el, out_el) in cases:
                mode = MODES[n % len(MODES)]
                in_strides, out_strides = _byte_strides(in_el, src.itemsize), _byte_strides(out_el, 1)
                s_in, s_out = in_strides or c_strides(shape, src.itemsize), out_strides or c_strides(shape, 1)
                request = sk.ops.quant.Request([spec(shape, src, in_strides)], [spec(shape, I8, out_strides)],
                                               sk.ops.quant.Params.from_bits(m, zp, mode))
                plan = ev.check_inference(request)
                what = f"ev74 {src.name} {mode} {layout} shape {shape} in {s_in} out {s_out}"
                if isinstance(plan, sk.Error):
                    log.problem(f"{what}: refused: {plan}")
                    continue
                need_in, need_out = span(shape, s_in, src.itemsize), span(shape, s_out, 1)
                count = int(np.prod(shape))
                pick = draws.integers(0, tame if count % 2 == 0 else pool.size, count)
                for input_first in (True, False):
                    at_in = 0 if input_first else memory.size - need_in
                    at_out = memory.size - need_out if input_first else 0
                    lower, upper = ("lower", "upper") if input_first else ("upper", "lower")
                    where = f"{what} input {lower} output {upper}"
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
    n = 37
    log, regions = Log(), Regions()
    variants = OPERATIONS["cast_f32_bf16"].variants()
    run_a65("cast_f32_bf16", sk.a65.available_routes()[0], [("dense", (n,), None, None)], log, regions, variants)
    rin, rout = regions("in", 4 * (n + 1)), regions("out", 2 * (n + 1))
    grow = 0 if kind == DELIBERATE[2] else 1
    plan = sk.a65.cast.check_inference(variants[0].request((n + grow,), None, None))
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
