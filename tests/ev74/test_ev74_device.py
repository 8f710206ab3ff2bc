"""Encode -> bind -> submit on the host EV74 device model, compared with the
independent oracle for all 12 numerical entries (3 input dtypes x 4
roundings) at the scalar/vector/DMA boundaries, for scatter, padded-row and
rank-6 layouts, and for repeated invocation.

Every run (ev74_helpers.run_on_device) fills a device window with the 0xA5
sentinel, checks every logical output byte against the oracle, every other
byte of the window unchanged (input, gaps, excess capacity, guards), and the
Completion's work units: each logical element covered exactly once with the
matching input element, no unit touching a gap, unit kinds from the common
contiguous suffix, one unit -> CPU0 alone, otherwise the ring (4 by default)
in the order 1, 2, 3, 0 with unit 0 on CPU0, units split in logical order,
DMA units alternating ping-pong slots and never exceeding the block.
"""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import simakernels as sk
from support.ev74_helpers import (
    BF16,
    DMA_BLOCK,
    DTYPES,
    ENTRIES,
    ENTRY_IDS,
    F16,
    F32,
    FORMAT,
    ITEM,
    MODES,
    UINT,
    DeviceRegion,
    common_suffix,
    contiguous_strides,
    draw,
    ev,
    ENGINES,
    ev_plan,
    expected_unit_count,
    ok,
    open_device,
    oracle_bytes,
    run_on_device,
    untouched_problems,
)
from oracle import quant

MULTIPLIER, ZERO_POINT = 0x3E99999A, -3          # ~0.3: pool products cover INT8 with fractions


@pytest.fixture(scope="module", params=ENGINES)
def device(request):
    """The host model and the kernel on OpenCL: every test that takes the
    fixture runs on both, each checked against the oracle."""
    with open_device(request.param, size=1 << 22) as d:
        yield d


# ------------------------------------------------------------- hand-worked literals
# (input dtype, input bits, multiplier bits, zero point, rounding, expected INT8)
LITERALS = []
for _d, _fifteen, _neg, _two_hundred in (("f32", 0x41700000, 0xC1700000, 0x43480000),
                                         ("bf16", 0x4170, 0xC170, 0x4348),
                                         ("f16", 0x4B80, 0xCB80, 0x5A40)):
    # 15 * 0x3e99999a rounds to binary32 4.5 first (specification example).
    LITERALS += [(_d, _fifteen, 0x3E99999A, 0, "nearest_even", 4), (_d, _fifteen, 0x3E99999A, 0, "toward_zero", 4),
                 (_d, _fifteen, 0x3E99999A, 0, "toward_positive", 5),
                 (_d, _fifteen, 0x3E99999A, 0, "toward_negative", 4),
                 (_d, _neg, 0x3E99999A, 0, "nearest_even", -4), (_d, _neg, 0x3E99999A, 0, "toward_zero", -4),
                 (_d, _neg, 0x3E99999A, 0, "toward_positive", -4), (_d, _neg, 0x3E99999A, 0, "toward_negative", -5),
                 # 200 with zero point -100 is 100: no clipping before the zero point.
                 (_d, _two_hundred, 0x3F800000, -100, "nearest_even", 100),
                 (_d, _two_hundred, 0x3F800000, 100, "toward_zero", 127),
                 (_d, _neg, 0x3F800000, -120, "toward_positive", -128)]
LITERALS += [
    ("f32", 0x7FC00000, 0x3F800000, -7, "toward_negative", -7),      # NaN -> zero point
    ("bf16", 0xFFC1, 0x3F800000, 9, "nearest_even", 9),
    ("f16", 0x7C01, 0x3F800000, 127, "toward_zero", 127),
    ("f32", 0x7F800000, 0x00000001, 0, "toward_negative", 127),      # +inf saturates even with a tiny multiplier
    ("f16", 0xFC00, 0x3F800000, 100, "toward_positive", -128),
    ("bf16", 0x8000, 0x7F7FFFFF, -5, "toward_positive", -5),         # -0 -> zero point
    ("f32", 0x3F000000, 0x3F800000, 0, "nearest_even", 0),           # 0.5 -> 0 (even)
    ("f32", 0x3FC00000, 0x3F800000, 0, "nearest_even", 2),           # 1.5 -> 2
    ("f16", 0x4100, 0x3F800000, 0, "nearest_even", 2),               # 2.5 -> 2
    ("f16", 0xC100, 0x3F800000, 0, "toward_zero", -2),
    ("f32", 0x00000001, 0x3F800000, 0, "toward_positive", 1),        # smallest subnormal rounds up
    ("f32", 0x80000001, 0x3F800000, 0, "toward_negative", -1),
    ("f16", 0x0001, 0x3F800000, 0, "toward_positive", 1),            # 2^-24 > 0
    ("f32", 0x3F800000, 0x00000001, 0, "toward_positive", 1),        # 1 * 2^-149 > 0
    ("f32", 0x3F800000, 0x00000001, 0, "nearest_even", 0),
    ("f32", 0x7F7FFFFF, 0x7F7FFFFF, 0, "toward_zero", 127),          # product overflows to +inf
]


@pytest.mark.parametrize("dtype_id,bits,multiplier,zp,mode,expected", LITERALS,
                         ids=[f"{d}-{b:#x}-{m:#x}-zp{z}-{r}" for d, b, m, z, r, _ in LITERALS])
def test_literals(device, dtype_id, bits, multiplier, zp, mode, expected):
    """Hand-worked values through the scalar (rank 0) and a 16-element
    vector row (the value at index 15, after specials)."""
    dtype = DTYPES[dtype_id]
    want = np.array([expected & 0xFF], dtype=np.uint8)
    run_on_device(device, (), dtype, multiplier_bits=multiplier, zero_point=zp, mode=mode,
                  values=(np.array([bits], dtype=UINT[dtype]), want), expect_units=1)
    inputs, expect = draw(dtype, 16, 0, multiplier, zp, mode)
    inputs[15], expect[15] = bits, expected & 0xFF
    run_on_device(device, (16,), dtype, multiplier_bits=multiplier, zero_point=zp, mode=mode,
                  values=(inputs, expect), expect_units=1)


def test_oracle_agrees_with_the_literals():
    for d, bits, m, zp, mode, expected in LITERALS:
        assert quant(bits, FORMAT[DTYPES[d]], m, zp, mode) == expected, (d, hex(bits), hex(m), zp, mode)


# ------------------------------------------------------ all 12 entries x boundaries

COUNTS = [1, 15, 16, 127, 128, 4095, 4096, 4097, 8193]


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)
def test_entries_at_boundaries(device, entry, n):
    """Contiguous 1-D: <16 scatter, 16..127 one vector unit, >=128 DMA
    blocks of 4096 (FP32) / 8192 (BF16, FP16) elements.  Port phases vary
    (input by whole elements, output by bytes)."""
    dtype_id, mode = entry
    dtype = DTYPES[dtype_id]
    k = COUNTS.index(n)
    run = run_on_device(device, (n,), dtype, multiplier_bits=MULTIPLIER, zero_point=ZERO_POINT, mode=mode,
                        seed=n, in_phase=ITEM[dtype] * (k % 3), out_phase=k % 4,
                        expect_units=expected_unit_count(n, n, dtype))
    kinds = {u.kind for u in run.completion.units}
    assert kinds == {"scatter" if n < 16 else "vector" if n < 128 else "dma"}


PROFILES = {   # multiplier bits, zero point
    "unit": (0x3F800000, 0),
    "subnormal": (0x00000400, 5),       # 2^-139: every product is tiny or underflows
    "subnormal-min": (0x00000001, -128),
    "large": (0x4B000000, 127),         # 2^23: saturation everywhere but near zero
    "tie-heavy": (0x3F000000, -1),      # 0.5: quarter-grid inputs land on halves
}


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)
def test_entries_multiplier_profiles(device, entry, profile):
    dtype_id, mode = entry
    dtype = DTYPES[dtype_id]
    m, zp = PROFILES[profile]
    run_on_device(device, (5, 900), dtype, (903 * ITEM[dtype], ITEM[dtype]), None, multiplier_bits=m,
                  zero_point=zp, mode=mode, seed=7, expect_units=5)
    run_on_device(device, (37,), dtype, multiplier_bits=m, zero_point=zp, mode=mode, seed=8, out_phase=1)


# ----------------------------------------------------------------- layouts
# (id, shape, input strides, output strides in elements (None = contiguous),
#  expected unit kind, expected units (FP32, 16-bit)); worked by hand from
#  the common contiguous suffix.  Multi-unit layouts use at least four units
#  (2 or 3 units are covered by test_unit_zero_stays_on_cpu0_...).
LAYOUTS = [
    ("transposed-in", (16, 24), (1, 16), None, "scatter", (384, 384)),
    ("transposed-out", (24, 16), None, (1, 24), "scatter", (384, 384)),
    ("every-other-in", (300,), (2,), None, "scatter", (300, 300)),
    ("every-third-out", (130,), None, (3,), "scatter", (130, 130)),
    ("padded-rows-short", (5, 15), (17, 1), (16, 1), "scatter", (75, 75)),
    ("padded-rows-16", (5, 16), (20, 1), (17, 1), "vector", (5, 5)),
    ("padded-rows-40", (5, 40), (48, 1), (45, 1), "vector", (5, 5)),
    ("padded-rows-127", (4, 127), (130, 1), None, "vector", (4, 4)),
    ("padded-rows-128", (4, 128), None, (131, 1), "dma", (4, 4)),
    ("padded-rows-300", (12, 300), (304, 1), (301, 1), "dma", (12, 12)),
    ("padded-rows-5000", (4, 5000), (5003, 1), (5001, 1), "dma", (8, 4)),
    ("padded-rows-9000", (2, 9000), (9001, 1), None, "dma", (6, 4)),
    ("coalesced-inner", (5, 4, 40), (200, 40, 1), (170, 40, 1), "dma", (5, 5)),
    ("padded-inner-vector", (2, 3, 20), (80, 24, 1), (60, 20, 1), "vector", (6, 6)),
    ("stepped-rows", (4, 50), (120, 2), (50, 1), "scatter", (200, 200)),
    ("rank6-singletons", (1, 3, 1, 1, 7, 20), None, None, "dma", (1, 1)),
    ("rank6-singletons-padded", (2, 1, 3, 1, 4, 20), (300, 77, 100, 5, 24, 1), None, "vector", (24, 24)),
    ("rank6-singletons-odd-strides", (1, 2, 1, 3, 1, 40), (9, 130, 1, 41, 3, 1), (1, 120, 7, 40, 1, 1), "vector",
     (6, 6)),
    ("rank6-scatter", (2, 2, 1, 3, 2, 2), (1, 2, 0, 4, 12, 24), None, "scatter", (48, 48)),
    ("rank6-dense", (2, 2, 2, 2, 2, 65), None, None, "dma", (1, 1)),
    ("permuted-both", (3, 4, 5), (1, 15, 3), (1, 15, 3), None, None),
]


def _bytes(strides, item):
    return None if strides is None else tuple(s * item for s in strides)


@pytest.mark.parametrize("dtype_id", list(DTYPES))
@pytest.mark.parametrize("layout", LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_layouts(device, layout, dtype_id):
    name, shape, si, so, kind, units = layout
    dtype = DTYPES[dtype_id]
    k = LAYOUTS.index(layout)
    mode = MODES[(k + list(DTYPES).index(dtype_id)) % 4]
    run = run_on_device(device, shape, dtype, _bytes(si, ITEM[dtype]), _bytes(so, 1), mode=mode, seed=k,
                        in_phase=ITEM[dtype] * (k % 2), out_phase=k % 3,
                        expect_units=None if units is None else units[0 if dtype is F32 else 1],
                        expect_kind=kind is not None)
    if kind is not None:
        assert {u.kind for u in run.completion.units} == {kind}


def test_layout_table_matches_the_suffix_rule():
    """The hand-written kinds agree with the independent suffix rule."""
    for name, shape, si, so, kind, units in LAYOUTS:
        if kind is None:
            continue
        run = common_suffix(shape, si or contiguous_strides(shape, 1), so or contiguous_strides(shape, 1), 1)
        got = "dma" if run >= 128 else "vector" if run >= 16 else "scatter"
        assert got == kind, (name, run)
        count = int(np.prod(shape))
        for dtype, n in zip((F32, BF16), units):
            assert expected_unit_count(count, run, dtype) == n, (name, dtype)


# --------------------------------------------------------------- dispatch


def _contiguous(device, n, dtype=F32, **kw):
    return run_on_device(device, (n,), dtype, **kw)


@pytest.mark.parametrize("n,dtype", [(1, F32), (16, BF16), (127, F16), (128, F32), (4096, F32), (8192, BF16)],
                         ids=["scalar-unit", "vector-16", "vector-127", "dma-128", "dma-4096", "dma-8192"])
def test_single_unit_runs_on_cpu0_alone(device, n, dtype):
    c = _contiguous(device, n, dtype).completion
    assert len(c.units) == 1
    assert c.workgroups == 1 and c.units[0].cpu == 0


@pytest.mark.parametrize("n,dtype,units", [(4097, F32, 2), (8193, BF16, 2), (8193, F32, 3), (16385, F16, 3),
                                           (2, F32, 2), (3, F32, 3)],
                         ids=["f32-2-dma", "bf16-2-dma", "f32-3-dma", "f16-3-dma", "2-scatter", "3-scatter"])
def test_unit_zero_stays_on_cpu0_with_fewer_units_than_cpus(device, n, dtype, units):
    """With 2 or 3 units the complete ring (4) still launches and unit 0
    (the one holding logical element 0) still belongs to CPU0."""
    c = _contiguous(device, n, dtype, expect_units=units).completion
    assert c.workgroups == 4
    first = [u for u in c.units if u.output_address == min(v.output_address for v in c.units)][0]
    assert first.cpu == 0, f"unit 0 ran on cpu {first.cpu}: {[(u.cpu, u.kind, u.count) for u in c.units]}"


def test_ring_order_and_ping_pong(device):
    """12 DMA rows on a ring of 4: 3 units per CPU, CPUs 1, 2, 3 then 0,
    each CPU's slots 0, 1, 0."""
    c = run_on_device(device, (12, 300), F32, (304 * 4, 4), (301, 1), expect_units=12).completion
    assert c.workgroups == 4
    assert [u.cpu for u in c.units] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0]
    assert [u.slot for u in c.units] == [0, 1, 0] * 4
    assert all(u.kind == "dma" and u.count == 300 for u in c.units)


@pytest.mark.parametrize("workgroups,ring", [(1, 1), (2, 2), (3, 3), (4, 4), (8, 4)])
@pytest.mark.parametrize("engine", ENGINES)
def test_configured_ring(workgroups, ring, engine):
    """The complete configured ring starts, capped at four."""
    with open_device(engine, size=1 << 20, workgroups=workgroups) as d:
        cases = (((40,), (4,), None, 40), ((5, 200), (210 * 2, 2), None, 5), ((16,), None, None, 1))
        for shape, si, so, units in cases:
            c = run_on_device(d, shape, BF16, si, so, expect_units=units).completion
            assert c.workgroups == (1 if units == 1 else ring)
            order = [u.cpu for u in c.units]
            assert order[-1] == 0 or ring == 1
            assert set(order) <= set(range(ring))


def test_dma_counts_never_exceed_the_block(device):
    for dtype, n in ((F32, 3 * 4096 + 5), (BF16, 4 * 8192 + 1)):
        c = _contiguous(device, n, dtype).completion
        block = DMA_BLOCK[dtype]
        counts = sorted(u.count for u in c.units)
        assert max(counts) == block and sum(counts) == n
        assert counts.count(block) == n // block


# ------------------------------------------------------- repeated invocation


def test_same_bound_packet_twice(device):
    first = run_on_device(device, (5, 300), BF16, (310 * 2, 2), (305, 1), mode="toward_positive", expect_units=5)
    # Restore the submitted image (inputs + sentinel) and submit again.
    first.arena.write(first.arena.start, first.before)
    second = device.submit(first.bound).result(timeout=600)
    after = first.arena.read()
    assert np.array_equal(after, first.after), "second submission wrote different bytes"
    assert second == first.completion
    # Without restoring: a third run rewrites the same values, nothing else.
    third = device.submit(first.bound).result(timeout=600)
    assert np.array_equal(first.arena.read(), first.after)
    assert third == first.completion


def test_packet_rebound_to_other_regions(device):
    plan = ev_plan((5, 40), F16, (48 * 2, 2), None, multiplier_bits=MULTIPLIER, zero_point=ZERO_POINT,
                   rounding="toward_negative")
    packet = ok(ev.encode_relocatable(plan))
    original = bytes(packet.descriptor)
    a = run_on_device(device, (5, 40), F16, (48 * 2, 2), None, mode="toward_negative", plan=plan, packet=packet,
                      seed=1, arena_offset=0x100)
    b = run_on_device(device, (5, 40), F16, (48 * 2, 2), None, mode="toward_negative", plan=plan, packet=packet,
                      seed=2, in_phase=2, out_phase=3, arena_offset=0x4000)
    assert packet.descriptor == original, "binding changed the relocatable packet"
    assert a.bound.descriptor != b.bound.descriptor
    # The first binding still describes (and only touches) the first regions.
    assert not untouched_problems(a.after, a.arena.read(), a.arena.start)
    c = device.submit(a.bound).result(timeout=600)
    assert c == a.completion
    assert not untouched_problems(b.after, b.arena.read(), b.arena.start), "re-running A touched B's regions"


def test_concurrent_submissions_complete_in_order(device):
    """Several queued futures all complete with their own results."""
    runs = [run_on_device(device, (200,), F32, seed=s, arena_offset=0x100 + 0x1000 * s) for s in range(4)]
    for r in runs:
        r.arena.write(r.arena.start, r.before)
    futures = [device.submit(r.bound) for r in runs]
    for r, f in zip(runs, futures):
        assert f.result(timeout=600) == r.completion
        assert np.array_equal(r.arena.read(), r.after)


# ---------------------------------------------------------- random layouts


@st.composite
def device_layouts(draw, max_inner=300, max_count=40000):
    rank = draw(st.integers(0, 6))
    shape = [draw(st.integers(1, 3)) for _ in range(rank)]
    if rank:
        shape[-1] = draw(st.sampled_from([1, 2, 5, 15, 16, 17, 40, 127, 128, 129, max_inner]))
    shape = tuple(shape)
    assume(int(np.prod(shape)) <= max_count)
    dtype = draw(st.sampled_from([F32, BF16, F16]))

    def strides(item):
        if draw(st.booleans()):
            return None
        order = list(range(rank))
        if draw(st.booleans()):
            order = draw(st.permutations(order))
        result = [0] * rank
        step = item
        for axis in reversed(order):
            if shape[axis] == 1:
                result[axis] = item * draw(st.integers(0, 9))
                continue
            step += item * draw(st.sampled_from([0, 0, 1, 3]))
            result[axis] = step
            step *= shape[axis]
        return tuple(result)

    return shape, dtype, strides(ITEM[dtype]), strides(1), draw(st.sampled_from(MODES)), draw(st.integers(0, 3))


@settings(max_examples=25)
@given(device_layouts())
def test_random_layouts(device, layout):
    shape, dtype, si, so, mode, phase = layout
    run_on_device(device, shape, dtype, si, so, mode=mode, seed=phase, in_phase=ITEM[dtype] * phase,
                  out_phase=phase, expect_kind=False)


@pytest.mark.slow
@settings(max_examples=300)
@given(device_layouts(max_inner=5000))
def test_random_layouts_many(device, layout):
    shape, dtype, si, so, mode, phase = layout
    run_on_device(device, shape, dtype, si, so, mode=mode, seed=phase, in_phase=ITEM[dtype] * phase,
                  out_phase=phase, expect_kind=False)


# -------------------------------------------------------------- slow sweeps

SLOW_COUNTS = [2, 17, 31, 32, 33, 126, 129, 255, 256, 257, 4094, 8191, 8192, 12287, 12288, 12289, 16383,
               16384, 16385, 32769]


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)
def test_entries_count_sweep(device, entry):
    dtype_id, mode = entry
    dtype = DTYPES[dtype_id]
    for k, n in enumerate(SLOW_COUNTS):
        run_on_device(device, (n,), dtype, mode=mode, seed=n, in_phase=ITEM[dtype] * (k % 2), out_phase=k % 4,
                      expect_units=expected_unit_count(n, n, dtype))


@pytest.mark.parametrize("route", sk.a65.available_routes())
def test_the_model_runs_the_route_it_is_given(route):
    """The device model takes a route as the A65 backend does; every
    route's model gives the oracle's bytes (scatter, vector unit and DMA
    block runs of each input dtype)."""
    with sk.ev74.Device(size=1 << 20, route=route) as d:
        assert d.route == route
        for dtype_id, mode in ENTRIES[::3]:
            for n in (15, 100, 300):
                run_on_device(d, (n,), DTYPES[dtype_id], multiplier_bits=MULTIPLIER, zero_point=ZERO_POINT,
                              mode=mode, seed=n, expect_units=expected_unit_count(n, n, DTYPES[dtype_id]))


def test_the_model_refuses_an_unknown_route():
    with pytest.raises(ValueError, match="available"):
        sk.ev74.Device(size=1 << 16, route="vliw")


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype_id", ["bf16", "f16"])
def test_every_16bit_pattern(device, dtype_id, mode):
    """All 65,536 patterns as one DMA tensor (8 blocks) and as padded rows
    of 256 (vector/DMA boundary), against the oracle's exhaustive table."""
    dtype = DTYPES[dtype_id]
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for m, zp in ((0x3E99999A, -3), (0x00000400, 5)):
        expected = oracle_bytes(dtype, bits, m, zp, mode)
        run_on_device(device, (1 << 16,), dtype, multiplier_bits=m, zero_point=zp, mode=mode,
                      values=(bits, expected), expect_units=8)
    m, zp = 0x3F800000, -128
    expected = oracle_bytes(dtype, bits, m, zp, mode)
    run_on_device(device, (256, 256), dtype, (258 * 2, 2), (257, 1), multiplier_bits=m, zero_point=zp, mode=mode,
                  values=(bits, expected), expect_units=256)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_fp32_exponent_classes(device, mode):
    """Every FP32 exponent field with edge and random significands, both
    signs, as a 5-block DMA tensor."""
    rng = np.random.default_rng(0xF32)
    exps = np.repeat(np.arange(256, dtype=np.uint32), 80)
    sig = rng.integers(0, 1 << 23, size=exps.size, dtype=np.uint32)
    sig[0::80], sig[1::80], sig[2::80] = 0, 1, (1 << 23) - 1
    sign = (rng.integers(0, 2, size=exps.size, dtype=np.uint32)) << 31
    bits = (sign | (exps << 23) | sig).astype(np.uint32)
    for m, zp in ((0x3E99999A, -3), (0x00000001, 0), (0x7F7FFFFF, 127)):
        expected = oracle_bytes(F32, bits, m, zp, mode)
        run_on_device(device, (bits.size,), F32, multiplier_bits=m, zero_point=zp, mode=mode,
                      values=(bits, expected), expect_units=5)


# ------------------------------------------------------------ the model itself


def test_device_memory_must_fit_the_domain():
    """The model's memory lies in the 32-bit domain, above address 0
    (small sizes only: a wrongly accepted Device allocates its memory)."""
    accepted = []
    for base, size in ((0, 1 << 16), (2**32 - 4096, 1 << 16), (2**32, 4096), (2**40, 4096)):
        try:
            d = sk.ev74.Device(size=size, base=base)
        except ValueError:
            continue
        d.close()
        accepted.append(f"base {base:#x} size {size:#x}")
    assert not accepted, f"Device accepted memory outside (0, 2^32): {accepted}"


def test_device_read_write_and_allocate():
    with sk.ev74.Device(size=1 << 16) as d:
        r = d.allocate(100, alignment=64)
        assert isinstance(r, DeviceRegion) and r.address % 64 == 0 and r.capacity == 100
        s = d.allocate(10, alignment=4096)
        assert s.address % 4096 == 0 and s.address >= r.address + 100
        d.write(r, b"\x01\x02\x03")
        assert d.read(r.address, 3) == b"\x01\x02\x03"
        with pytest.raises(ValueError):
            d.read(d.base + d.size - 2, 4)
        with pytest.raises(MemoryError):
            d.allocate(1 << 17)


def test_device_regions_bound_reads_and_writes():
    """A region is written and read within its capacity only: a write one
    byte too long is refused and leaves the next region as it was."""
    with sk.ev74.Device(size=1 << 16) as d:
        a, b = d.allocate(6, alignment=1), d.allocate(8, alignment=1)
        assert b.address == a.address + 6
        d.write(b, b"B" * 8)
        with pytest.raises(ValueError, match="7 bytes do not fit the region of 6 bytes"):
            d.write(a, b"A" * 7)
        assert d.read(b) == b"B" * 8 and d.read(a) == bytes(6)
        d.write(a, b"A" * 6)
        assert d.read(a) == b"A" * 6 and d.read(b) == b"B" * 8
        assert d.read(a, 2) == b"AA"
        with pytest.raises(ValueError, match="9 bytes exceed the region of 8 bytes"):
            d.read(b, 9)
        with pytest.raises(ValueError, match="nbytes must be given"):
            d.read(a.address)


@pytest.mark.parametrize("nbytes, alignment", [(-5, 64), (1.5, 64), (True, 64), ("8", 64), (8, 0), (8, 3), (8, 2.0)])
def test_device_allocate_refuses_bad_sizes(nbytes, alignment):
    with sk.ev74.Device(size=1 << 16) as d:
        with pytest.raises(ValueError, match="allocate: "):
            d.allocate(nbytes, alignment)
        assert d.allocate(8).address == d.base  # nothing was reserved


def test_an_earlier_error_comes_through_unchanged():
    """bind, encode_relocatable, encode and submit hand back an Error given
    in place of a plan, packet or bound packet: the first failure is the
    one reported."""
    too_short = ev.bind(ev.encode_relocatable(ev_plan((2, 3), F32)), ev_plan((2, 3), F32),
                        [DeviceRegion(0x1000_0000, 24)], [DeviceRegion(0x1000_1000, 5)])
    assert isinstance(too_short, sk.Error) and too_short.code is sk.ErrorCode.INVALID_BINDING
    refused = sk.ev74.quant.check_inference(sk.ops.quant.Request(
        [sk.TensorSpec((2, 3), sk.DType.FLOAT32)], [sk.TensorSpec((2, 4), sk.DType.INT8)], sk.ops.quant.Params(1.0)))
    assert isinstance(refused, sk.Error) and refused.code is sk.ErrorCode.INVALID_SHAPE
    regions = [DeviceRegion(0x1000_0000, 24)], [DeviceRegion(0x1000_1000, 6)]
    assert ev.encode_relocatable(refused) is refused
    assert ev.encode(refused, *regions) is refused
    assert ev.bind(too_short, ev_plan((2, 3), F32), *regions) is too_short
    assert ev.bind(ev.encode_relocatable(ev_plan((2, 3), F32)), refused, *regions) is refused
    with sk.ev74.Device() as d:
        assert d.submit(too_short).result() is too_short


def test_device_memory_from_the_caller():
    """``memory=`` backs device memory with the caller's bytes (the guard-page
    tests put it between inaccessible pages); it must be writable and
    exactly ``size`` bytes."""
    backing = bytearray(1 << 12)
    with sk.ev74.Device(size=1 << 12, base=0x2000_0000, memory=backing) as d:
        d.write(0x2000_0010, b"\x07\x08")
        assert backing[0x10:0x12] == b"\x07\x08"
        backing[0x20] = 9
        assert d.read(0x2000_0020, 1) == b"\x09"
    for wrong in (bytearray(1 << 11), bytes(1 << 12)):
        with pytest.raises(ValueError, match="writable buffer of 4096 bytes"):
            sk.ev74.Device(size=1 << 12, memory=wrong)
