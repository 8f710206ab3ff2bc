"""Every route runs its own staging (csrc/common/stage.h; a route that
borrows another's says so in its descriptor, ``sk_route_borrows``): a plan
forced to a route stages its non-packed runs with those moves only, and
the moves the walk chose are the ones the layout calls for.  A test build
counts the moves keyed by the staging code that made them
(``sk_stage_moves``); each case runs one Cast on one route, checks the
result bit for bit against the oracle with sentinel-filled gaps
(helpers.run_cast), and then that the counters of that route's staging,
and of no other, moved as the layout requires:

* input every third element: gathered (scalar: its strided leaf, no move);
* output every third element: scattered;
* input every other element: read in place by the route's every_other
  leaf where its kernel table has one (the few elements it leaves at the
  end of a run gathered), else gathered;
* transposed input or output: tiles, through the route's fused tile leaf
  where its kernel table has one, else the route's transposes;
* a transpose beyond the cache (the streaming threshold forced down):
  ordered tiles, transposed and copied out by the route's own moves (whose
  line copies stream where the route's staging can).

Exactness of every staging path over many layouts is in
test_staged_layouts.py, test_transposes.py and test_stride2_leaves.py,
which run on every route too."""
import re

import pytest

from support.helpers import BF16, F32, ROUTE_IDS, ROUTES, run_cast
from simakernels import _registry
from simakernels._ffi import ffi, lib

MOVES = {name: getattr(lib, f"SK_MOVE_{name.upper()}")
         for name in ("gather", "scatter", "transpose", "copy_lines", "every_other", "fused_tile")}
KIND = {(F32, BF16): lib.SK_CAST_F32_BF16, (BF16, F32): lib.SK_CAST_BF16_F32}


def counters():
    """{(staging route name, move): moves so far}; skips without a test build."""
    counts = {(route, move): lib.sk_stage_moves(rid, mid) for route, rid in ROUTE_IDS.items()
              for move, mid in MOVES.items()}
    if any(v < 0 for v in counts.values()):
        pytest.skip("this build counts no staging moves (not a test build)")
    return counts


def moved(run):
    before = counters()
    run()
    after = counters()
    return {key: after[key] - before[key] for key in after if after[key] != before[key]}


def expected_moves(route, layout, kind):
    """The moves a layout needs on a route, from its kernel table."""
    if route == "scalar":
        return set()  # the reference's strided leaf walks every run itself
    has = lambda leaf_kind: _registry.find(lib.SK_OP_CAST, ROUTE_IDS[route], kind, leaf_kind)  # noqa: E731
    return {
        "gather": {"gather"},
        "scatter": {"scatter"},
        "every_other": {"every_other"} if has(lib.SK_LEAF_EVERY_OTHER) else {"gather"},
        "transposed_in": {"fused_tile"} if has(lib.SK_LEAF_TILE) else {"transpose"},
        "transposed_out": {"fused_tile"} if has(lib.SK_LEAF_TILE) else {"transpose"},
        "streamed": {"transpose", "copy_lines"},
    }[layout]


def layout_case(layout, src, dst):
    """(shape, input strides, output strides) in bytes."""
    si, so = src.itemsize, dst.itemsize
    return {
        "gather": ((100,), (3 * si,), None),
        "scatter": ((100,), None, (3 * so,)),
        "every_other": ((100,), (2 * si,), None),
        "transposed_in": ((48, 40), (si, 48 * si), None),
        "transposed_out": ((48, 40), None, (so, 48 * so)),
        "streamed": ((64, 72), (si, 64 * si), None),
    }[layout]


@pytest.mark.parametrize("direction", [(F32, BF16), (BF16, F32)], ids=["f32_to_bf16", "bf16_to_f32"])
@pytest.mark.parametrize("layout", ["gather", "scatter", "every_other", "transposed_in", "transposed_out",
                                    "streamed"])
@pytest.mark.parametrize("route", ROUTES)
def test_a_forced_route_runs_its_own_staging(route, layout, direction):
    src, dst = direction
    shape, in_strides, out_strides = layout_case(layout, src, dst)
    if layout == "streamed":
        lib.sk_stream_override(1)  # every run streams where its staging can
    try:
        delta = moved(lambda: run_cast(route, shape, src, dst, in_strides, out_strides, seed=7))
    finally:
        lib.sk_stream_override(0)
    staging = ffi.string(lib.sk_route_name(lib.sk_route_borrows(ROUTE_IDS[route]))).decode()
    others = {key for key in delta if key[0] != staging}
    assert not others, f"{route} {layout}: staging other than {staging}'s ran: {sorted(others)}"
    ran = {move for (_, move) in delta}
    expected = expected_moves(route, layout, KIND[direction])
    if "every_other" in expected:
        ran.discard("gather")  # the end of a run the leaf leaves
    assert ran == expected, f"{route} {layout}: moves {sorted(ran)}, expected {sorted(expected)}"


def test_the_registry_has_a_dense_leaf_for_every_compiled_route_and_variant():
    """Every compiled route has a dense leaf for every variant of every
    operation (the variant counts from the public enums); a route this
    build did not compile has none; every symbol is a kernel's full name."""
    counts = {lib.SK_OP_CAST: 2, lib.SK_OP_DEQUANT: lib.SK_DEQUANT_VARIANTS, lib.SK_OP_QUANT: 12}
    for route, rid in ROUTE_IDS.items():
        for op, count in counts.items():
            blocks = [_registry.block(op, rid, v) for v in range(count)]
            if lib.sk_route_compiled(rid):
                assert all(b >= 1 for b in blocks), (route, op, blocks)
            else:
                assert blocks == [0] * count, (route, op, blocks)
        assert _registry.variants(lib.SK_OP_CAST) == tuple(range(2))
    for leaf in _registry.leaves():
        assert re.fullmatch(r"sk_[a-z0-9_]+__(neon|avx512|avx2|sse2|scalar)", leaf.symbol), leaf


def _native_cast_plan(route_id):
    """A native Cast plan of 64 packed FP32 -> BF16 elements on a route."""
    plan = ffi.new("sk_cast_plan *")
    plan.kind, plan.route = lib.SK_CAST_F32_BF16, route_id
    plan.binding.in_nbytes, plan.binding.in_alignment = 256, 4
    plan.binding.out_nbytes, plan.binding.out_alignment = 128, 2
    assert lib.sk_walk_prepare(1, ffi.new("int64_t[]", [64]), ffi.new("int64_t[]", [4]), ffi.new("int64_t[]", [2]),
                               4, 2, -1, ffi.addressof(plan, "walk")) == lib.SK_OK
    assert lib.sk_cast_prepare(plan) == (lib.SK_OK if lib.sk_route_compiled(route_id) else lib.SK_INVALID_OPERATION)
    return plan


@pytest.mark.parametrize("route", sorted(ROUTE_IDS))
def test_a_route_this_cpu_cannot_run_is_refused(route):
    """A plan naming a route that is not compiled, or compiled but not
    available on this CPU, is refused by execute before anything runs
    (INVALID_OPERATION, never an illegal instruction); the others run."""
    rid = ROUTE_IDS[route]
    src, dst = bytearray(256), bytearray(b"\xa5" * 128)
    status = lib.sk_cast_execute(_native_cast_plan(rid), ffi.from_buffer(src), 256, ffi.from_buffer(dst), 128)
    if lib.sk_route_compiled(rid) and lib.sk_route_available(rid):
        assert status == lib.SK_OK and dst == bytearray(128)  # +0.0 -> BF16 +0
        return
    assert status == lib.SK_INVALID_OPERATION and dst == bytearray(b"\xa5" * 128)
