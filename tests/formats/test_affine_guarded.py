"""Guard pages for affine_quant and affine_dequant (tests/support/guarded.py):
every output / input type at lengths 0..33 and around the vector blocks and
the fused chunk, dense (packed for the sub-byte types: the last byte's
read-modify-write flush against the guard), every second element on the
storage port (one per byte for the sub-byte types) and on the float port
(staged with a packed port), both ports flush against an inaccessible page
at either end.  A stray access kills the child, which the parent names;
every byte of both regions is compared with its expected image."""
from __future__ import annotations

import numpy as np
import pytest

import simakernels as sk
from support import guarded
from support.formats_helpers import (BF16, DEQUANT_PARAMS, F16, F32, FLOAT_WORD, MODES, NAME, QUANT_OUT,
                                     QUANT_PARAMS, STORAGE_DTYPES, every16_with_tail, f32_samples, pack_image,
                                     patterns_of, quant_expected, dequant_expected, storage, word)
from support.helpers import ROUTES

LENGTHS = tuple(range(0, 34)) + (63, 64, 65, 1023, 1024, 1025)
# The quick child (one for every route and both operations: a child's
# start-up costs more than its cases): dense runs (packed for the sub-byte
# types) at these lengths, the strided layouts at QUICK_STRIDED.
QUICK_LENGTHS = (0, 1, 2, 3, 7, 8, 9, 15, 17, 31, 33, 63, 65, 1023, 1025)
QUICK_STRIDED = (1, 33)
SENTINEL, INPUT_FILL = 0xA5, 0x3C


def layouts(n: int, dtype, quick: bool = False):
    """(name, float strides, storage strides) in elements; storage strides
    None: packed (sub-byte) or C order."""
    out = [("dense", None, None)]
    if quick and n not in QUICK_STRIDED:
        return out
    out += [("float[::2]", (2,), None), ("int[::2]", None, (2,))]
    if dtype.sub_byte:
        out.append(("int one per byte", None, (1,)))
    return out


def _storage_image(size: int, at: int, dtype, strides, values) -> np.ndarray:
    """A region's expected bytes: the sentinel, with ``values`` stored at
    ``at`` (packed, keeping the sentinel's spare bits, or one word per
    element at ``strides`` bytes)."""
    image = np.full(size, SENTINEL, np.uint8)
    if strides is None and dtype.sub_byte:
        packed = pack_image(values, dtype, previous=SENTINEL)
        image[at:at + packed.size] = packed
    elif values.size:
        w = word(dtype)
        st = strides if strides is not None else (w.itemsize,)
        np.ndarray(values.shape, w, buffer=image, offset=at, strides=st)[...] = patterns_of(values, dtype)
    return image


def _storage_span(n: int, dtype, strides) -> int:
    if strides is None and dtype.sub_byte:
        return -(-n * dtype.bits // 8)
    w = word(dtype).itemsize
    return guarded.span((n,), strides or (w,), w)


def _spec(n, dtype, strides):
    return sk.TensorSpec((n,), dtype, sk.Contiguous() if strides is None else sk.Strided(strides))


def quant_cases(route, log, regions, lengths=LENGTHS, quick=False):
    k = 0
    for out in QUANT_OUT:
        m, zp = QUANT_PARAMS[out]
        pools = {F32: f32_samples(out, m, zp, count=128, seed=2), BF16: every16_with_tail(BF16),
                 F16: every16_with_tail(F16)}
        rng = np.random.default_rng(out.bits)
        for n in lengths:
            for name, f_el, i_el in layouts(n, out, quick):
                k += 1
                src, mode = (F32, BF16, F16)[k % 3], MODES[k % 4]
                fw = FLOAT_WORD[src].itemsize
                f_strides = None if f_el is None else tuple(s * fw for s in f_el)
                i_strides = None if i_el is None else tuple(s * word(out).itemsize for s in i_el)
                values = pools[src][rng.integers(0, pools[src].size, n)]
                expected = quant_expected(src, values, m, zp, mode, out)
                request = sk.ops.affine_quant.Request([_spec(n, src, f_strides)], [_spec(n, out, i_strides)],
                                                      sk.ops.affine_quant.Params.from_bits(m, zp, mode))
                what = f"affine_quant {route} {src.name}->{out.name} {mode} {name} n={n}"
                plan = sk.a65.affine_quant.check_inference(request, route=route)
                if isinstance(plan, sk.Error):
                    log.problem(f"{what}: refused: {plan}")
                    continue
                s_in = f_strides or (fw,)
                need = (guarded.span((n,), s_in, fw), _storage_span(n, out, i_strides))
                for flush in guarded.FLUSHES:
                    log.announce(f"{what} flush {flush}")
                    rin, rout = regions("in", need[0]), regions("out", need[1])
                    at_in, at_out = rin.offset(need[0], flush), rout.offset(need[1], flush)
                    rin.bytes[:] = INPUT_FILL
                    rin.words(at_in, FLOAT_WORD[src], (n,), s_in)[...] = values
                    input_image = rin.bytes.copy()
                    rout.bytes[:] = SENTINEL
                    status = sk.a65.affine_quant.execute(
                        plan, [sk.ConstHostBuffer.from_address(rin.start + at_in, need[0])],
                        [sk.HostBuffer.from_address(rout.start + at_out, need[1])])
                    if status is not None:
                        log.problem(f"{what} flush {flush}: execute returned {status}")
                        continue
                    image = _storage_image(rout.size, at_out, out, i_strides, expected)
                    log.problem(guarded.image_report(rout.bytes, image, f"{what} flush {flush}: output")
                                or guarded.image_report(rin.bytes, input_image, f"{what} flush {flush}: input"))


def dequant_cases(route, log, regions, lengths=LENGTHS, quick=False):
    k = 0
    for dtype in STORAGE_DTYPES:
        st = storage(dtype)
        scale, zp = DEQUANT_PARAMS[dtype][0]
        rng = np.random.default_rng(st.tag)
        for n in lengths:
            for name, f_el, i_el in layouts(n, dtype, quick):
                k += 1
                out = (F32, BF16)[k % 2]
                fw = FLOAT_WORD[out].itemsize
                f_strides = None if f_el is None else tuple(s * fw for s in f_el)
                i_strides = None if i_el is None else tuple(s * word(dtype).itemsize for s in i_el)
                values = rng.integers(st.lo, st.hi + 1, n, dtype=np.int64)
                expected = dequant_expected(dtype, values, scale, zp, NAME[out])
                request = sk.ops.affine_dequant.Request([_spec(n, dtype, i_strides)], [_spec(n, out, f_strides)],
                                                        sk.ops.affine_dequant.Params.from_bits(scale, zp))
                what = f"affine_dequant {route} {dtype.name}->{out.name} {name} n={n}"
                plan = sk.a65.affine_dequant.check_inference(request, route=route)
                if isinstance(plan, sk.Error):
                    log.problem(f"{what}: refused: {plan}")
                    continue
                s_out = f_strides or (fw,)
                need = (_storage_span(n, dtype, i_strides), guarded.span((n,), s_out, fw))
                for flush in guarded.FLUSHES:
                    log.announce(f"{what} flush {flush}")
                    rin, rout = regions("in", need[0]), regions("out", need[1])
                    at_in, at_out = rin.offset(need[0], flush), rout.offset(need[1], flush)
                    input_image = _storage_image(rin.size, at_in, dtype, i_strides, values)
                    rin.bytes[:] = input_image
                    rout.bytes[:] = SENTINEL
                    status = sk.a65.affine_dequant.execute(
                        plan, [sk.ConstHostBuffer.from_address(rin.start + at_in, need[0])],
                        [sk.HostBuffer.from_address(rout.start + at_out, need[1])])
                    if status is not None:
                        log.problem(f"{what} flush {flush}: execute returned {status}")
                        continue
                    image = np.full(rout.size, SENTINEL, np.uint8)
                    if n:
                        np.ndarray((n,), FLOAT_WORD[out], buffer=image, offset=at_out, strides=s_out)[...] = expected
                    log.problem(guarded.image_report(rout.bytes, image, f"{what} flush {flush}: output")
                                or guarded.image_report(rin.bytes, input_image, f"{what} flush {flush}: input"))


def guarded_main(routes, which: str) -> None:
    """Child process: on each of ``routes`` (a name or a list), every case
    of ``which`` ("quant" or "dequant"), or the quick cases of both
    ("quick")."""
    log, regions = guarded.Log(), guarded.Regions()
    for route in ([routes] if isinstance(routes, str) else routes):
        if which == "quick":
            quant_cases(route, log, regions, QUICK_LENGTHS, quick=True)
            dequant_cases(route, log, regions, QUICK_LENGTHS, quick=True)
        else:
            (quant_cases if which == "quant" else dequant_cases)(route, log, regions)
    log.finish()


def test_no_access_beyond_either_port():
    child = guarded.run_child(guarded.call("formats.test_affine_guarded", "guarded_main", list(ROUTES), "quick"))
    guarded.assert_child_clean(child, f"affine guard pages (quick) on {', '.join(ROUTES)}")


@pytest.mark.slow
@pytest.mark.parametrize("which", ("quant", "dequant"))
@pytest.mark.parametrize("route", ROUTES)
def test_no_access_beyond_either_port_every_length(route, which):
    child = guarded.run_child(guarded.call("formats.test_affine_guarded", "guarded_main", route, which))
    guarded.assert_child_clean(child, f"affine_{which} guard pages on {route}")
