"""Tiled transposes (csrc/common/walk.c cached_plane/ordered_plane/tile_run,
stage.c).

A transpose in cache is walked in tiles: SK_TILE_CROSS (64) elements along
the transposed port's lines, and along the leaf's lines as many as the
scratch for the transposed port holds: 32 KiB where the input is transposed
(512 elements of a 1-byte input, 256 of a 2-byte one), 16 KiB where the
output is (256 of a 1-byte output, 128 of a 2-byte one).  Walks of more than 8 MiB and streamed
outputs take square tiles of 128 (256 for 1-byte outputs), each converted
in scratch and copied out in whole lines, in strips of input lines, with
the next tile's input prefetched.  The first tile along an axis is
shortened so that the other edges fall on 64-byte lines of the tensor, so where the
tensors start matters too: each case here runs at several starting offsets
inside a sentinel-filled buffer.  Every element is checked against the
oracle bit for bit, and every other byte of both buffers (before, between
and after the elements) untouched.  Transposes are only taken by vector
routes; the scalar route (element by element) is the control."""
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    a65_module,
    aligned_bytes,
    contiguous_strides,
    draw_values,
    element_offsets,
    fail_if,
    mismatch_report,
    ok_plan,
    random_int8,
    span,
    untouched_report,
    stream_override,
)
from support import isolated
from support.quant_helpers import useful_values
from layouts.test_staged_layouts import OPS, QUANT_PARAMS, _expected

# Kernels on raw addresses with transposed and tiled strides: each test in a
# forked child (run_at announces each case), so a wild access fails that
# test only, naming its case.
pytestmark = pytest.mark.in_child

CROSS = 64                       # walk.c SK_TILE_CROSS
TILE_IN_BYTES = 32768            # walk.c SK_TILE_IN_BYTES (the input transposed)
TILE_OUT_BYTES = 16384           # SK_TILE_OUT_BYTES (the output transposed)
STREAM_TILE = 128                # walk.c SK_ORDERED_SIDE
STREAM_TILE_BYTE_OUT = 256       # SK_ORDERED_SIDE_BYTE_OUT (1-byte outputs)


def _values(op, count, seed):
    src = OPS[op][0]
    if src is I8:
        return random_int8(count, seed)
    if op.startswith("quant"):
        return useful_values(src, count, seed, QUANT_PARAMS[seed % len(QUANT_PARAMS)][0])
    return draw_values(src, count, seed)[0]


def _placed(shape, dtype, strides, offset, fill):
    """A Storage whose tensor starts ``offset`` bytes into a 64-byte aligned,
    ``fill``-filled buffer (``raw``, 64 spare bytes after the tensor)."""
    item = ITEMSIZE[dtype]
    strides = contiguous_strides(shape, item) if strides is None else strides
    nbytes = span(shape, strides, item)
    raw = aligned_bytes(offset + nbytes + 64, fill)
    return raw, Storage(tuple(shape), dtype, tuple(strides), raw[offset:], element_offsets(shape, strides), fill)


def run_at(op, route, shape, in_el=None, out_el=None, in_off=0, out_off=0, seed=0):
    """One case, strides in elements (None: packed), each port starting the
    given number of bytes past a 64-byte line; None or a report."""
    src_dtype, dst_dtype, _ = OPS[op]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    in_strides = None if in_el is None else tuple(s * si for s in in_el)
    out_strides = None if out_el is None else tuple(s * so for s in out_el)
    raw_in, src = _placed(shape, src_dtype, in_strides, in_off, INPUT_FILL)
    raw_out, dst = _placed(shape, dst_dtype, out_strides, out_off, SENTINEL)
    values = _values(op, src.offsets.size, seed)
    src.write(values)
    before = raw_in.copy()
    make_request, expected = _expected(op, values, seed)
    req = make_request(shape, in_strides, out_strides)
    plan = ok_plan(req, route)
    (need_in,), (need_out,) = plan.input_requirements(), plan.output_requirements()
    what = f"{route} {op} shape {shape} in {in_el}@{in_off} out {out_el}@{out_off}"
    isolated.announce(what)
    status = a65_module(req).execute(
        plan, [sk.ConstHostBuffer.from_address(src.buf.ctypes.data, need_in.nbytes, keepalive=raw_in)],
        [sk.HostBuffer.from_address(dst.buf.ctypes.data, need_out.nbytes, keepalive=raw_out)])
    if status is not None:
        return f"{what}: execute returned {status}"
    problems = [mismatch_report(dst.read(), expected, values, what, shape=shape),
                dst.gaps_report(f"{what}: output"),
                untouched_report(raw_out[:out_off], SENTINEL, what=f"{what}: bytes before the output")]
    if not np.array_equal(raw_in, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


def offsets(op, k):
    """Starting offsets (input, output) in bytes for the k-th case: on a
    line, one element past it, 16 bytes past it (large NumPy arrays), one
    element before the next line."""
    si, so = (ITEMSIZE[d] for d in OPS[op][:2])
    choices = [(0, 0), (si, 16), (16, so), (64 - si, 64 - so), (16, 16)]
    return choices[k % len(choices)]


def _transposes(op, route, shapes, seed=0):
    """Both transposed-port cases of each (rows, cols): the input a.T of a
    C-contiguous (cols, rows) array into a packed output, and a packed input
    into the transpose of a C-contiguous output; every third shape also
    with padded pitches on both ports."""
    for k, (rows, cols) in enumerate(shapes):
        k += seed
        yield run_at(op, route, (rows, cols), (1, rows), None, *offsets(op, k), seed=k)
        yield run_at(op, route, (rows, cols), None, (1, rows), *offsets(op, k + 1), seed=k + 1)
        if k % 3 == 0:
            yield run_at(op, route, (rows, cols), (1, rows + 3), (cols + 2, 1), *offsets(op, k + 2), seed=k + 2)
            yield run_at(op, route, (rows, cols), (cols + 1, 1), (1, rows + 5), *offsets(op, k + 3), seed=k + 3)


def _edges(n):
    return [1, 2, 3, n - 1, n, n + 1]


def _leaf_line(in_size, out_size):
    """A tile's length along the leaf's lines: the port with the smaller
    elements is the one transposed (the input on a tie)."""
    if in_size <= out_size:
        return TILE_IN_BYTES // (CROSS * in_size)
    return TILE_OUT_BYTES // (CROSS * out_size)


def tile_shapes(op):
    """(rows, cols) on every edge of this op's tiles: 1..3, a tile -1/0/+1
    and two tiles +1, in each direction (the leaf's lines run along either
    axis, depending on which port is transposed), and non-square."""
    src, dst, _ = OPS[op]
    along = _leaf_line(ITEMSIZE[src], ITEMSIZE[dst])
    sizes = sorted(set(_edges(CROSS) + _edges(along) + [2 * CROSS + 1]))
    shapes = [(r, c) for r in sizes for c in (3, CROSS + 1, along + 1)]
    shapes += [(r, c) for r in (2, CROSS - 1, along) for c in sizes]
    return sorted(set(shapes))


op_param = pytest.mark.parametrize("op", OPS)
route_param = pytest.mark.parametrize("route", ROUTES)


@op_param
@route_param
def test_tile_edges(route, op):
    fail_if(_transposes(op, route, tile_shapes(op)))


def _Streamed():
    """Every run streams."""
    return stream_override(1)


# Around one and two ordered tiles on either axis, and the 16-row prefetch
# groups of a transposed input.
STREAM_SHAPES = [(r, c) for r in (1, 3, 17, STREAM_TILE - 1, STREAM_TILE, STREAM_TILE + 1, 2 * STREAM_TILE + 1)
                 for c in (2, 17, STREAM_TILE, STREAM_TILE + 1, 2 * STREAM_TILE + 2)] + [(200, 77)]
# 1-byte outputs: around one and two tiles (either axis).
BYTE_OUT_SHAPES = [(r, c) for r in (3, STREAM_TILE_BYTE_OUT + 1)
                   for c in (STREAM_TILE_BYTE_OUT - 1, STREAM_TILE_BYTE_OUT, STREAM_TILE_BYTE_OUT + 1,
                             2 * STREAM_TILE_BYTE_OUT + 1)]
BYTE_OUT_SHAPES += [(c, r) for r, c in BYTE_OUT_SHAPES]


def stream_shapes(op):
    return STREAM_SHAPES + (BYTE_OUT_SHAPES if ITEMSIZE[OPS[op][1]] == 1 else [])


@op_param
@route_param
def test_streamed_tile_edges(route, op):
    """Outputs beyond the cache: 128 x 128 tiles (256 x 256 for 1-byte
    outputs) converted in scratch, copied out in whole non-temporal lines (partial
    lines through the cache)."""
    with _Streamed():
        fail_if(_transposes(op, route, stream_shapes(op), seed=3))


# (id, shape, input strides, output strides) in elements, None = packed.
BATCHED = [
    ("inner-pair-in", (3, 129, 70), (129 * 70, 1, 129), None),
    ("inner-pair-out", (3, 70, 129), None, (70 * 129, 1, 70)),
    ("outer-batch-in-middle", (65, 3, 257), (1, 65 * 257, 65), None),
    ("outer-batch-in-middle-out", (65, 3, 257), None, (1, 65 * 257, 65)),
    ("pair-outermost", (130, 66, 2), (2, 130 * 2, 1), None),
    ("padded-both", (2, 67, 131), (67 * 140, 1, 70), (131 * 70, 131 + 2, 1)),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["cached", "streamed"])
@pytest.mark.parametrize("case", BATCHED, ids=[c[0] for c in BATCHED])
@op_param
@route_param
def test_batched_transposes(route, op, case, streamed):
    """Rank 3: the transposed pair inner or outer, carried over a batch
    axis; the tile grid starts again on every plane."""
    _, shape, in_el, out_el = case
    reports = []
    for k in range(2):
        if streamed:
            with _Streamed():
                reports.append(run_at(op, route, shape, in_el, out_el, *offsets(op, k + 2), seed=k))
        else:
            reports.append(run_at(op, route, shape, in_el, out_el, *offsets(op, k), seed=k))
    fail_if(reports)


# One op per tile shape (transposed port 1 or 2 bytes, input or output);
# FP32 inputs are left out only for the oracle's time.
BIG_OPS = ["cast_bf16_f32", "dequant_i8_bf16", "quant_f16_i8"]


@pytest.mark.parametrize("op", BIG_OPS)
@pytest.mark.parametrize("route", [r for r in ROUTES if r != "scalar"])
def test_walks_beyond_the_big_tile_threshold(route, op):
    """More than 8 MiB over both ports: the ordered tiles of large walks
    (those of the streamed tests, copied out through the cache), both
    transposed-port cases (once each, misaligned)."""
    src, dst, _ = OPS[op]
    elements = (8 << 20) // (ITEMSIZE[src] + ITEMSIZE[dst]) + 4096
    rows = 1031
    cols = elements // rows + 1
    fail_if([run_at(op, route, (rows, cols), (1, rows), None, 16, 16, seed=1),
             run_at(op, route, (cols, rows), None, (1, cols), ITEMSIZE[src], 16, seed=2)])
