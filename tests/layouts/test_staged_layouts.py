"""Staged strided runs and tiled transposes (csrc/common/walk.c, stage.c).

The vector routes convert non-packed runs by gathering them in chunks of
2048 elements into scratch (a vector path for every second element, blocks
of 32 bytes (AVX2) then 16 bytes taken only while another element follows),
converting with the
dense leaf and scattering back; transposes go tile by tile (64 elements
across, up to 256 along the leaf's lines; test_transposes.py sits on those
edges) through in-register blocks of 16 and 32 bytes.  These cases sit on each of those boundaries, for every operation
and every route (the scalar route, which walks element by element, is the
control), with the oracle's bits expected and every byte between and
after the output elements checked untouched.  Inputs that read an address
twice (which admission refuses) are run below admission, and guard pages
around each port prove that no block reaches past either end (the
harness is tests/support/guarded.py, tested in tests/reliability/test_guard_pages.py)."""
import numpy as np
import pytest

from support import guarded, guarded_cases
from support.helpers import (
    BF16,
    F16,
    F32,
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    Storage,
    a65_module,
    contiguous_strides,
    dequant_report,
    dequant_request,
    draw_values,
    element_offsets,
    fail_if,
    mismatch_report,
    ok_plan,
    oracle_bf16_to_f32,
    oracle_dequant,
    oracle_f32_to_bf16,
    random_int8,
    request,
    run_cast,
    span,
    stream_override,
)
from support.quant_helpers import MODES, quant_report, quant_request, useful_values
from support.quant_helpers import oracle as quant_oracle
from simakernels._ffi import ffi, lib

CHUNK = 2048         # elements per staged chunk (walk.c SK_STAGE_CHUNK)
CROSS = 64           # a tile's extent across the transposed port's lines
DEQUANT_PARAMS = [(0x4037CED9, -123), (0x3E000000, 5), (0x40800000, 16777088)]
QUANT_PARAMS = [(0x3E99999A, -3), (0x3F800000, 127), (0x00400000, 17)]


def _cast(src, dst):
    def report(route, shape, in_strides, out_strides, seed, same):
        inputs, expected = draw_values(src, int(same.max(initial=-1)) + 1, seed)
        run_cast(route, shape, src, dst, in_strides, out_strides,
                 values=(inputs[same], expected[same]))  # fails the test itself
        return None
    return src, dst, report


def _dequant(dst):
    def report(route, shape, in_strides, out_strides, seed, same):
        scale, zp = DEQUANT_PARAMS[seed % len(DEQUANT_PARAMS)]
        values = random_int8(int(same.max(initial=-1)) + 1, seed)[same]
        return dequant_report(route, shape, dst, scale, zp, in_strides, out_strides, values=values)
    return I8, dst, report


def _quant(src):
    def report(route, shape, in_strides, out_strides, seed, same):
        m, zp = QUANT_PARAMS[seed % len(QUANT_PARAMS)]
        values = useful_values(src, int(same.max(initial=-1)) + 1, seed, m)[same]
        return quant_report(route, shape, src, m, zp, MODES[seed % len(MODES)], in_strides, out_strides,
                            values=values)
    return src, I8, report


OPS = {
    "cast_f32_bf16": _cast(F32, BF16),
    "cast_bf16_f32": _cast(BF16, F32),
    "dequant_i8_f32": _dequant(F32),
    "dequant_i8_bf16": _dequant(BF16),
    "quant_f32_i8": _quant(F32),
    "quant_bf16_i8": _quant(BF16),
    "quant_f16_i8": _quant(F16),
}


def run(op, route, shape, in_el=None, out_el=None, seed=0):
    """One case with strides given in elements of each port (None: packed);
    returns None or a report.  Elements that share an input address (zero
    or overlapping strides) get the same input value."""
    src, dst, report = OPS[op]
    shape = tuple(shape)
    in_strides = None if in_el is None else tuple(s * ITEMSIZE[src] for s in in_el)
    out_strides = None if out_el is None else tuple(s * ITEMSIZE[dst] for s in out_el)
    offsets = element_offsets(shape, in_strides or contiguous_strides(shape, ITEMSIZE[src]))
    same = np.unique(offsets, return_inverse=True)[1].reshape(-1)
    return report(route, shape, in_strides, out_strides, seed, same)


op_param = pytest.mark.parametrize("op", OPS)
route_param = pytest.mark.parametrize("route", ROUTES)

# ------------------------------------------------------------ 1-D staging

CHUNK_LENGTHS = [1, 2, 3, 5, 16, 17, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK, 2 * CHUNK + 1,
                 3 * CHUNK + 7]
# (id, input step, output step) in elements; None = packed.
STEPS = [
    ("in2", 2, None),
    ("in3", 3, None),
    ("in-large", 67, None),
    ("out2", None, 2),
    ("out5", None, 5),
    ("both", 2, 3),
]


@pytest.mark.parametrize("steps", STEPS, ids=[s[0] for s in STEPS])
@op_param
@route_param
def test_stepped_runs_around_the_chunk(route, op, steps):
    """Runs of one chunk less, exactly, one more, several and a partial
    last one: every chunk starts where the previous one stopped."""
    _, si, so = steps
    fail_if(run(op, route, (n,), None if si is None else (si,), None if so is None else (so,), seed=n)
            for n in CHUNK_LENGTHS)


@op_param
@route_param
def test_every_other_element_lengths(route, op):
    """a[::2] at every length up to 100 and a few long ones: the vector
    blocks (AVX2: 8, 16 or 32 elements, then SSE2: 4, 8 or 16, each reading
    the gap after its last element) stop while another element follows, the
    rest goes one by one."""
    lengths = list(range(1, 101)) + [CHUNK + 8, CHUNK + 9, 1000]
    fail_if(run(op, route, (n,), (2,), None, seed=n) for n in lengths)


@op_param
@route_param
def test_every_other_column_of_rows(route, op):
    """The issue's "strided" layout: a[:, ::2] of a C-contiguous (rows,
    2*cols) array into a C-contiguous (rows, cols) output (one coalesced
    run), and with the rows padded, so that the runs do not coalesce."""
    reports = []
    for rows, cols in [(3, 5), (4, 255), (5, 256), (2, 513), (33, 40)]:
        reports.append(run(op, route, (rows, cols), (2 * cols, 2), None, seed=rows))
        reports.append(run(op, route, (rows, cols), (2 * cols + 3, 2), (cols + 1, 1), seed=cols))
    fail_if(reports)


# ------------------------------------------------------------- transposes

EDGES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 70]


def _sample_shapes():
    """Shapes (rows, cols) from 1..70 x 1..70: both extents on an edge of a
    16-byte block or of a tile, and random ones."""
    rng = np.random.default_rng(0x7A11)
    shapes = [(r, c) for r in EDGES for c in (1, 9, 64, 70)] + [(r, c) for r in (2, 16, 65) for c in EDGES]
    shapes += [tuple(int(v) for v in rng.integers(1, 71, size=2)) for _ in range(16)]
    return sorted(set(shapes))


TRANSPOSE_SHAPES = _sample_shapes()
BIG_TRANSPOSES = [(129, 130), (200, 257), (513, 67)]


def _transpose_reports(op, route, shapes):
    for k, (rows, cols) in enumerate(shapes):
        # Input a.T of a C-contiguous (cols, rows) array, packed output.
        yield run(op, route, (rows, cols), (1, rows), None, seed=k)
        # Packed input, output the transpose of a C-contiguous array.
        yield run(op, route, (rows, cols), None, (1, rows), seed=k + 1)
        # Padded pitches: gaps after every output row (every other shape).
        if k % 2 == 0:
            yield run(op, route, (rows, cols), (1, rows + 3), (cols + 2, 1), seed=k + 2)
            yield run(op, route, (rows, cols), (cols + 1, 1), (1, rows + 5), seed=k + 3)


@op_param
@route_param
def test_transposes_small(route, op):
    fail_if(_transpose_reports(op, route, TRANSPOSE_SHAPES))


@op_param
@route_param
def test_transposes_big(route, op):
    """Several tiles in each direction, the last ones partial."""
    fail_if(_transpose_reports(op, route, BIG_TRANSPOSES))


# (id, shape, input strides, output strides) in elements, None = packed.
PERMUTED = [
    # A transpose in the inner two axes, carried over an outer one.
    ("batch-of-transposes", (3, 37, 70), (37 * 70, 1, 37), None),
    ("batch-of-transposes-out", (3, 70, 37), None, (70 * 37, 1, 70)),
    ("batch-outer-in-middle", (37, 3, 70), (1, 37 * 70, 37), None),
    ("rank4-transposes", (2, 3, 65, 66), (3 * 65 * 66, 65 * 66, 1, 65), None),
    ("rank4-padded", (2, 2, 33, 70), (2 * 2800, 2800, 1, 40), (2 * 33 * 71, 33 * 71, 71, 1)),
    # Three-axis permutations: the fastest input axis is the slowest output one.
    ("perm-201", (20, 30, 40), (1, 40 * 20, 20), None),
    ("perm-120", (20, 30, 40), (30, 1, 600), None),
    ("perm-both", (20, 30, 40), (30, 1, 600), (1, 20 * 40, 20)),
    ("perm-stepped", (10, 20, 30), (2, 20 * 30 * 2, 20 * 2), None),
]


@pytest.mark.parametrize("case", PERMUTED, ids=[c[0] for c in PERMUTED])
@op_param
@route_param
def test_permutations(route, op, case):
    _, shape, in_el, out_el = case
    fail_if([run(op, route, shape, in_el, out_el, seed=len(shape))])


# ------------------------------------------------------------- broadcast
# Admission refuses inputs that read an address twice, but the walk
# promises to handle them (they reach it from other callers): these cases
# admit a packed stand-in, then prepare the plan's walk and input binding
# for the real strides, below admission.


def _expected(op, values, seed):
    """(request builder (shape, input strides, output strides), oracle
    output bits for input ``values``)."""
    src, dst, _ = OPS[op]
    if op.startswith("cast"):
        return (lambda shape, inp, out: request(shape, src, dst, inp, out)), (
            oracle_f32_to_bf16(values) if src is F32 else oracle_bf16_to_f32(values))
    if op.startswith("dequant"):
        scale, zp = DEQUANT_PARAMS[seed % len(DEQUANT_PARAMS)]
        return (lambda shape, inp, out: dequant_request(shape, dst, scale, zp, inp, out)), (
            oracle_dequant(values, dst, scale, zp))
    m, zp = QUANT_PARAMS[seed % len(QUANT_PARAMS)]
    mode = MODES[seed % len(MODES)]
    return (lambda shape, inp, out: quant_request(shape, src, m, zp, mode, inp, out)), (
        quant_oracle(src, values, m, zp, mode).view(np.uint8))


def run_below_admission(op, route, shape, in_el, out_el, seed):
    src_dtype, dst_dtype, _ = OPS[op]
    si, so = ITEMSIZE[src_dtype], ITEMSIZE[dst_dtype]
    in_strides = tuple(s * si for s in in_el)
    out_strides = None if out_el is None else tuple(s * so for s in out_el)
    src = Storage.make(shape, src_dtype, in_strides, excess=11, fill=INPUT_FILL)
    dst = Storage.make(shape, dst_dtype, out_strides, excess=17, fill=SENTINEL)
    same = np.unique(src.offsets, return_inverse=True)[1].reshape(-1)
    count = int(same.max()) + 1
    if src_dtype is I8:
        values = random_int8(count, seed)[same]
    elif op.startswith("quant"):
        values = useful_values(src_dtype, count, seed, QUANT_PARAMS[seed % len(QUANT_PARAMS)][0])[same]
    else:
        values = draw_values(src_dtype, count, seed)[0][same]
    make_request, expected = _expected(op, values, seed)
    plan = ok_plan(make_request(shape, None, out_strides), route)
    native = plan._native
    status = lib.sk_walk_prepare(len(shape), ffi.new("int64_t[]", list(shape)),
                                 ffi.new("int64_t[]", list(in_strides)),
                                 ffi.new("int64_t[]", list(dst.strides)), si, so, -1,
                                 ffi.addressof(native, "walk"))
    assert status == lib.SK_OK
    native_prepare = getattr(lib, "sk_" + op.split("_")[0] + "_prepare")  # decides how the new walk runs
    assert native_prepare(native) == lib.SK_OK
    native.binding.in_nbytes = span(shape, in_strides, si)
    src.write(values)
    before = src.buf.copy()
    what = f"{route} {op} shape {shape} in {in_strides} out {dst.strides}"
    status = a65_module(make_request(shape, None, out_strides)).execute(plan, [src.buf], [dst.buf])
    if status is not None:
        return f"{what}: execute returned {status}"
    problems = [mismatch_report(dst.read(), expected, values, what, shape=shape),
                dst.gaps_report(f"{what}: output")]
    if not np.array_equal(src.buf, before):
        problems.append(f"{what}: input buffer modified")
    found = [p for p in problems if p]
    return "\n".join(found) if found else None


BROADCAST = [
    ("one-element-everywhere", (700,), (0,), None),
    ("row-repeated", (3, 600), (0, 1), None),
    ("column-repeated", (600, 3), (1, 0), None),
    ("column-repeated-transposed-out", (70, 65), (1, 0), (1, 70)),
    ("rows-stepped-and-repeated", (40, 70), (0, 2), (71, 1)),
    ("all-zero-2d", (70, 70), (0, 0), None),
    ("overlapping-windows", (65, 70), (1, 1), None),
    ("overlapping-windows-out-transposed", (65, 70), (1, 1), (1, 65)),
]


@pytest.mark.parametrize("case", BROADCAST, ids=[c[0] for c in BROADCAST])
@op_param
@route_param
def test_zero_and_overlapping_input_strides(route, op, case):
    """Inputs read more than once (zero strides, overlapping windows): the
    output still gets every element and nothing else."""
    _, shape, in_el, out_el = case
    fail_if([run_below_admission(op, route, shape, in_el, out_el, seed=shape[0])])


# ------------------------------------------------------------ guard pages


# (shape, input strides, output strides) in elements: both ports end right
# before, then start right after, a page that faults on any access.
# Every other element (the vector routes' every_other leaves) at the lengths
# around their blocks (8 to 64 elements) and the staging chunk.
EVERY_OTHER_GUARDED = list(range(1, 72)) + [95, 96, 97, 127, 128, 129, 192, 193, 256, 257,
                                            CHUNK, CHUNK + 7, CHUNK + 8, 2 * CHUNK, 2 * CHUNK + 1]
GUARDED = ([((n,), (2,), None) for n in EVERY_OTHER_GUARDED]
           + [((r, c), (2 * c, 2), None) for r, c in [(3, 64), (64, 64), (5, 33)]]
           + [((r, c), (2 * c + 1, 2), None) for r, c in [(3, 64), (4, 65)]]
           + [((n,), None, (2,)) for n in (1, 17, CHUNK + 1)]
           + [((r, c), (1, r), None) for r, c in [(3, 5), (16, 16), (17, 9), (64, 65), (65, 70), (8, 129),
                                                  (257, 70), (70, 257), (130, 129)]]
           + [((r, c), None, (1, r)) for r, c in [(3, 5), (17, 9), (65, 70), (129, 8), (257, 70), (70, 257)]])


def guarded_main():
    """Child process: every GUARDED case of every op (its first parameter
    set) and route, both ports flush against guard pages at either end,
    results checked bit for bit (a stray access faults, killing the
    process; tests/support/guarded.py)."""
    log, regions = guarded.Log(), guarded.Regions()
    cases = [("staged", shape, in_el, out_el) for shape, in_el, out_el in GUARDED]
    # The transposes once more with every output streamed (tiles converted
    # in scratch and copied out in whole lines).
    streamed = [("streamed", shape, in_el, out_el) for _, shape, in_el, out_el in cases if len(shape) > 1]
    for stream, chosen in ((0, cases), (1, streamed)):
        with stream_override(stream):
            for op in OPS:
                variants = guarded_cases.OPERATIONS[op].variants()[:1]
                for route in ROUTES:
                    guarded_cases.run_a65(op, route, chosen, log, regions, variants)
    log.finish()


def test_no_access_beyond_either_port():
    """Stepped and transposed inputs and outputs that end right before (or
    start right after) an inaccessible page, on every op and route: a
    block that loads or stores one element too far faults.  Runs in a
    child process so that a fault fails this test, naming the case,
    instead of killing the suite."""
    child = guarded.run_child(guarded.call("layouts.test_staged_layouts", "guarded_main"))
    guarded.assert_child_clean(child, "staged layouts")
