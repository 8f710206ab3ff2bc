"""The range pass through the walk: strided, transposed, every-other and
padded views whose gaps hold sentinels (huge finite values that would be
the extremes if read), ranks 0-6, per tensor and per axis (first, middle,
last, negative; 1 to 65537 channels), layouts the native pass refuses
(read from a copy), guard pages, and the native entry's refusals."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simakernels as sk
from simakernels._ffi import ffi, lib
from support.helpers import ROUTE_IDS
from support.range_helpers import FORMATS, ROUTES, check, from_bits

NAMES = tuple(FORMATS)
# Sentinels: the greatest and least finite values of each format.
SENTINEL = {"f32": (0x7F7FFFFF, 0xFF7FFFFF), "bf16": (0x7F7F, 0xFF7F), "f16": (0x7BFF, 0xFBFF)}
SMALL = {"f32": (0x3F800000, 0xBF000000, 0x00000001), "bf16": (0x3F80, 0xBF00, 0x0001), "f16": (0x3C00, 0xB800, 0x0001)}


def storage(name, shape, rng):
    """A buffer of sentinels (alternating signs) of `shape`, and small values
    to write into the views cut from it."""
    hi, lo = SENTINEL[name]
    buf = np.where(np.arange(int(np.prod(shape))) % 2 == 0, hi, lo).astype(np.uint64).reshape(shape)
    return from_bits(buf, name).copy()


def fill(view, name, rng):
    bits = rng.choice(np.array(SMALL[name] + (SMALL[name][0] + 5, SMALL[name][1] + 3), np.uint64), size=view.shape)
    view[...] = from_bits(bits, name)


def views(name, rng):
    """(description, view) pairs whose gaps hold sentinels."""
    out = []
    for shape, cut in [
        ((64, 2 * 37), np.s_[:, ::2]),                 # every other element
        ((3000,), np.s_[::2]), ((3000,), np.s_[1::3]),
        ((17, 1100), np.s_[:, :1037]),                 # padded rows
        ((5, 8, 40), np.s_[:, 1:7, 3:33]),
        ((2, 3, 4, 5, 6, 7), np.s_[:, :, 1:, :4, ::2, 1:6]),   # rank 6
        ((1100, 9), np.s_[:, 2:7]),
    ]:
        base = storage(name, shape, rng)
        view = base[cut]
        fill(view, name, rng)
        out += [(f"{shape}{cut}", view), (f"{shape}{cut}.T", view.T)]
    base = storage(name, (530, 2 * 530), rng)[:, ::2]
    fill(base, name, rng)
    out.append(("transposed every-other", base.T[3:, 1:]))
    scalar = storage(name, (4,), rng)[1:2].reshape(())
    fill(scalar, name, rng)
    out.append(("rank 0", scalar))
    return out


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_strided_views_every_axis(route, name):
    rng = np.random.default_rng(3)
    for _what, view in views(name, rng):
        for axis in [None] + list(range(view.ndim)) + ([-1] if view.ndim else []):
            check(view, axis, route)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", NAMES)
def test_channel_counts(route, name):
    rng = np.random.default_rng(9)
    word = FORMATS[name][1]
    for count in (1, 2, 3, 15, 16, 17, 31, 33, 255, 257, 4097, 65537):
        for shape, axis in [((count, 3), 0), ((3, count), 1), ((2, count, 2), 1), ((count,), -1), ((2, count), -1)]:
            bits = rng.integers(0, np.iinfo(word).max, size=shape, dtype=np.uint64, endpoint=True)
            x = from_bits(bits, name)
            check(x, axis, route)
            if x.ndim == 2:
                check(np.asfortranarray(x), axis, route)   # the channel axis packed, or the other


@pytest.mark.parametrize("route", ROUTES)
def test_refused_layouts_read_from_a_copy(route):
    rng = np.random.default_rng(4)
    x = from_bits(rng.integers(0, 1 << 32, size=(6, 50), dtype=np.uint64), "f32")
    raw = np.zeros(4 * 300 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, np.float32, 300, offset=1).reshape(6, 50)
    misaligned.view(np.uint32)[...] = x.view(np.uint32)   # (frombuffer views are read-only: write through raw)
    for view in (x[::-1], x[:, ::-3], np.broadcast_to(x[:1], (4, 50)), np.broadcast_to(x[:, :1], (6, 9)),
                 np.lib.stride_tricks.sliding_window_view(x[0], 7),
                 misaligned):
        for axis in (None, 0, 1, -1):
            check(view, axis, route)


def test_route_errors_and_dtypes(monkeypatch):
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", "vax")
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.float32([1.0]))
    assert info.value.error.code is sk.ErrorCode.UNSUPPORTED_ENVIRONMENT
    monkeypatch.delenv("SIMAKERNELS_FORCE_ROUTE")
    with pytest.raises(sk.KernelError) as info:
        sk.choose_qparams(np.float64([1.0]))
    assert info.value.error.code is sk.ErrorCode.UNSUPPORTED_DTYPE


def layout(shape, strides, item):
    lay = ffi.new("sk_layout *")
    lay.rank, lay.item, lay.extent, lay.stride = len(shape), item, shape, strides
    return lay


@pytest.mark.parametrize("route", ROUTES)
def test_native_refusals(route):
    r = ROUTE_IDS[route]
    x = np.arange(64, dtype=np.float32)
    least, greatest = ffi.new("int64_t[64]"), ffi.new("int64_t[64]")
    src = ffi.from_buffer(x)
    dense = layout((64,), (4,), 4)
    assert lib.sk_range_execute(0, r, dense, -1, 0, src, 256, ffi.NULL, 0, least, greatest) == lib.SK_OK
    assert (least[0], greatest[0]) == (0, 0x427C0000)  # 63.0
    assert lib.sk_range_execute(7, r, dense, -1, 0, src, 256, ffi.NULL, 0, least, greatest) == lib.SK_INVALID_OPERATION
    assert lib.sk_range_execute(0, 99, dense, -1, 0, src, 256, ffi.NULL, 0, least, greatest) == lib.SK_INVALID_OPERATION
    assert lib.sk_range_execute(0, r, dense, 1, 0, src, 256, ffi.NULL, 0, least, greatest) == lib.SK_INVALID_OPERATION
    assert lib.sk_range_execute(0, r, dense, -1, 0, src, 255, ffi.NULL, 0, least, greatest) == lib.SK_INVALID_BINDING
    assert lib.sk_range_execute(0, r, dense, -1, 0, ffi.NULL, 256, ffi.NULL, 0, least, greatest) == \
        lib.SK_INVALID_BINDING
    assert lib.sk_range_execute(0, r, layout((64,), (-4,), 4), -1, 0, src, 256, ffi.NULL, 0, least,
                                greatest) == lib.SK_UNSUPPORTED_LAYOUT
    assert lib.sk_range_execute(0, r, layout((8, 8), (4, 4), 4), -1, 0, src, 256, ffi.NULL, 0, least,
                                greatest) == lib.SK_UNSUPPORTED_LAYOUT
    need = lib.sk_range_space(0, dense, 0, 0)
    assert need >= 2 * 64 * 4
    space = np.zeros(need + 64, np.uint8)
    start = -space.ctypes.data % 64
    buf = ffi.from_buffer(space[start:start + need])
    assert lib.sk_range_execute(0, r, dense, 0, 0, src, 256, buf, need - 1, least, greatest) == lib.SK_INVALID_OPERATION
    assert lib.sk_range_execute(0, r, dense, 0, 0, src, 256, ffi.NULL, need, least, greatest) == \
        lib.SK_INVALID_OPERATION
    misaligned = ffi.from_buffer(space[start + 4:start + 4 + need - 4])
    assert lib.sk_range_execute(0, r, dense, 0, 0, src, 256, misaligned, need, least, greatest) == \
        lib.SK_INVALID_OPERATION
    assert lib.sk_range_execute(0, r, dense, 0, 0, src, 256, buf, need, least, greatest) == lib.SK_OK
    assert [greatest[i] for i in range(64)] == x.view(np.uint32).tolist()


GUARDED = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from support.guarded import GuardedRegion, FLUSHES
    from support.range_helpers import FORMATS, check, from_bits, blocks
    route = {route!r}
    rng = np.random.default_rng(1)
    region = GuardedRegion(1 << 20)
    for name, (dtype, word, *_rest) in FORMATS.items():
        item = np.dtype(word).itemsize
        iteration, check_block, _ = blocks(route, name)
        sizes = sorted({{1, 2, 15, 16, 17, iteration - 1, iteration + 1, check_block - 1, check_block + 1,
                         2 * check_block + iteration + 3, 4099}} - {{0, -1}})
        for n in sizes:
            for flush in FLUSHES:
                for shape, strides in [((n,), (item,)), ((n,), (2 * item,)), ((3, n), (n * item, item)),
                                       ((n, 3), (item, n * item))]:
                    span = item + sum((e - 1) * s for e, s in zip(shape, strides))
                    region.bytes[:] = 0xFF   # NaN-like fill around the tensor
                    x = region.words(region.offset(span, flush), dtype, shape, strides)
                    x.view(word)[...] = rng.integers(0, 1 << (8 * item), size=shape, dtype=np.uint64).astype(word)
                    print(name, n, flush, shape, strides, flush=True)
                    for axis in (None, 0, -1):
                        check(x, axis, route)
    print("done")
""")


@pytest.mark.parametrize("route", ROUTES)
def test_guard_pages(route):
    import os
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-P", "-c", GUARDED.format(tests=tests, route=route)], capture_output=True,
                          text=True, timeout=600)
    last = done.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    assert done.returncode == 0 and last == ["done"], f"child died (status {done.returncode}) after {last}: " \
                                                      f"{done.stderr[-2000:]}"
