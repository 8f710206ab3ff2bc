"""The bridge between Hurray INT8 storage and the A65 Dequant operation.

* ``to_dequant_params`` gives ``Params.from_bits(scale bits, zero point)`` for
  INT8 storage with a positive scale and refuses (HurrayFormatError) a
  negative scale and every other storage type.
* Oracle only, exhaustive: the Hurray formula (int32 difference, then binary32)
  and Dequant's staged formula (binary32 zero point, binary32 difference,
  product) agree for every INT8 value x every INT8 zero point x every scale
  below.  Each formula is evaluated for all 65,536 pairs through the oracle's
  own stages, memoised on the stage inputs (pure functions), and anchored to
  ``hurray_dequant`` / ``dequant_f32`` themselves; the slow test calls those
  two for every pair.
* ``hurray.dequantize`` on INT8 storage with a positive scale gives bits
  identical to ``sk.dequantize`` with the bridged parameters and to the
  oracle, on every route; a negative scale matches the oracle.
"""
import functools

import numpy as np
import pytest

import simakernels as sk
from support.hurray_helpers import (
    ALL_STORAGE,
    NEGATIVE_SCALES,
    ST,
    H,
    bits_of,
    descriptor,
    f32,
    fail_if,
    report,
    small_table,
)
from oracle import (
    BINARY32,
    dequant_f32,
    dequant_f32_table,
    hurray_dequant,
    hurray_difference,
    int32_to_binary32,
    multiply_binary32,
    round_to_format,
    value_of,
)

ROUTES = tuple(sk.a65.available_routes())
INT8 = range(-128, 128)
# Positive scales: unit, powers of two inside and just outside Dequant's
# 2^-4 .. 2^4 specialisation, values whose products round, subnormals, the
# largest finite (overflow to infinity).
BRIDGE_SCALES = {
    "1.0": 0x3F800000,
    "0.5": 0x3F000000,
    "2^-4": 0x3D800000,
    "2^4": 0x41800000,
    "2^5": 0x42000000,
    "0x4037ced9": 0x4037CED9,
    "0.1": 0x3DCCCCCD,
    "subnormal": 0x00400001,
    "min-subnormal": 0x00000001,
    "max": 0x7F7FFFFF,
}
BRIDGE_IDS = tuple(BRIDGE_SCALES)


# ------------------------------------------------------------------ params
@pytest.mark.parametrize("scale", BRIDGE_IDS)
@pytest.mark.parametrize("zero_point", [-128, -1, 0, 1, 37, 127])
def test_params_for_int8_with_a_positive_scale(scale, zero_point):
    bits = BRIDGE_SCALES[scale]
    d = descriptor(bits, zero_point)
    want = sk.ops.dequant.Params.from_bits(bits, zero_point)
    for params in (d.to_dequant_params(), d.to_dequant_params(ST.INT8), d.to_dequant_params(0x10)):
        assert isinstance(params, sk.ops.dequant.Params)
        assert params == want
        assert params.scale_bits == bits and params.zero_point == zero_point


@pytest.mark.parametrize("scale", list(NEGATIVE_SCALES), ids=list(NEGATIVE_SCALES))
def test_params_refused_for_a_negative_scale(scale):
    with pytest.raises(H.HurrayFormatError, match="scale"):
        descriptor(NEGATIVE_SCALES[scale], 0).to_dequant_params(ST.INT8)


@pytest.mark.parametrize("storage", [s for s in ALL_STORAGE if s is not ST.INT8],
                         ids=[s.name for s in ALL_STORAGE if s is not ST.INT8])
def test_params_refused_for_every_other_storage_type(storage):
    with pytest.raises(H.HurrayFormatError):
        descriptor(0x3F800000, 0).to_dequant_params(storage)
    with pytest.raises(H.HurrayFormatError):
        descriptor(0x3F800000, 0).to_dequant_params(int(storage))


@pytest.mark.parametrize("storage", [0x00, 0x16, 0x4C, "INT8", None])
def test_params_refused_for_a_storage_type_not_in_the_list(storage):
    with pytest.raises(H.HurrayFormatError):
        descriptor(0x3F800000, 0).to_dequant_params(storage)


INVALID_FOR_INT8 = [
    (0x3F800000, 128), (0x3F800000, -129), (0x3F800000, 16777217), (0x00000000, 0), (0x7FC00000, 0),
    (0x7F800000, 0),
]


def test_params_refused_for_a_descriptor_invalid_for_int8_storage():
    """A descriptor an INT8 reader must reject (zero point outside [-128,
    127]; zero, NaN or infinite scale) has no equivalent Dequant parameters:
    with zero point 16777217 the formulas even differ (Hurray: 1 - 16777217 =
    -16777216 exactly; Dequant rounds the zero point to binary32 first)."""
    assert hurray_dequant(1, 0x3F800000, 16777217) == 0xCB800000  # -16777216
    assert dequant_f32(1, 0x3F800000, 16777217) == 0xCB7FFFFF     # -16777215
    bridged = []
    for scale, zero_point in INVALID_FOR_INT8:
        try:
            params = H.PerTensorAffine(f32(scale), zero_point).to_dequant_params(ST.INT8)
        except H.HurrayFormatError:
            continue
        bridged.append(f"scale bits {scale:#010x} zero point {zero_point}: bridged to {params!r}")
    assert not bridged, "invalid INT8 descriptors bridged instead of refused:\n" + "\n".join(bridged)


# ------------------------------------------- the two formulas, oracle only
# (no call of the package: host_only, as tests/oracle, which the emulated
# runs leave out)
@functools.lru_cache(maxsize=1)
def pair_stages():
    """For every (zero point, q) pair, rows zero point -128..127 and columns
    q -128..127, the binary32 bits each formula multiplies by the scale:

    * Hurray: ``int32_to_binary32(hurray_difference(q, zp))``;
    * Dequant: ``round_to_format(value(int32_to_binary32(q)) -
      value(int32_to_binary32(zp)))`` (float(q) - float(zero_point), rounded).

    The rational arithmetic runs for every pair; the conversions are
    memoised on their (exact) arguments."""
    convert = functools.lru_cache(maxsize=None)(int32_to_binary32)
    as_float = {v: value_of(BINARY32, convert(v)) for v in INT8}
    round_diff = functools.lru_cache(maxsize=None)(lambda x: round_to_format(BINARY32, x, sign_of_zero=False))
    hurray = np.empty((256, 256), dtype=np.uint32)
    dequant = np.empty((256, 256), dtype=np.uint32)
    for i, zp in enumerate(INT8):
        zpf = as_float[zp]
        hurray[i] = [convert(hurray_difference(q, zp)) for q in INT8]
        dequant[i] = [round_diff(as_float[q] - zpf) for q in INT8]
    hurray.flags.writeable = dequant.flags.writeable = False
    return hurray, dequant


def products(stage_bits: np.ndarray, scale_bits: int) -> np.ndarray:
    """``multiply_binary32(b, scale)`` for every element (once per distinct b)."""
    unique, inverse = np.unique(stage_bits, return_inverse=True)
    table = np.array([multiply_binary32(int(b), scale_bits) for b in unique], dtype=np.uint32)
    return table[inverse].reshape(stage_bits.shape)


@pytest.mark.host_only
def test_difference_stages_agree_for_every_pair():
    hurray, dequant = pair_stages()
    bad = np.argwhere(hurray != dequant)
    assert bad.size == 0, [(int(i) - 128, int(j) - 128) for i, j in bad[:8]]


@pytest.mark.host_only
@pytest.mark.parametrize("scale", BRIDGE_IDS)
def test_formulas_agree_for_every_int8_value_and_zero_point(scale):
    bits = BRIDGE_SCALES[scale]
    hurray_stage, dequant_stage = pair_stages()
    hurray = products(hurray_stage, bits)
    dequant = products(dequant_stage, bits)
    bad = np.argwhere(hurray != dequant)
    assert bad.size == 0, "\n".join(
        f"q {int(j) - 128} zp {int(i) - 128}: Hurray {int(hurray[i, j]):#010x} Dequant {int(dequant[i, j]):#010x}"
        for i, j in bad[:8])
    # Anchors: the staged evaluation is the oracle's, on whole rows and on
    # random pairs (corners included).
    problems = []
    for zp in (-128, 0, 127):
        row = np.array(dequant_f32_table(bits, zp), dtype=np.uint32)  # indexed by q's byte pattern
        by_q = row[np.arange(-128, 128) & 0xFF]
        if not np.array_equal(by_q, dequant[zp + 128]):
            problems.append(f"dequant_f32_table row zp {zp} differs from the staged evaluation")
    rng = np.random.default_rng(bits)
    pairs = [(-128, -128), (-128, 127), (127, -128), (127, 127)] + [
        tuple(p) for p in rng.integers(-128, 128, (60, 2)).tolist()]
    for q, zp in pairs:
        if hurray_dequant(q, bits, zp) != int(hurray[zp + 128, q + 128]):
            problems.append(f"hurray_dequant({q}, {bits:#010x}, {zp}) differs from the staged evaluation")
        if dequant_f32(q, bits, zp) != int(dequant[zp + 128, q + 128]):
            problems.append(f"dequant_f32({q}, {bits:#010x}, {zp}) differs from the staged evaluation")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.host_only
@pytest.mark.parametrize("scale", ["0x4037ced9"])
def test_formulas_agree_for_every_pair_by_direct_oracle_calls(scale):
    bits = BRIDGE_SCALES[scale]
    bad = []
    for zp in INT8:
        row = dequant_f32_table(bits, zp)
        for q in INT8:
            h, d = hurray_dequant(q, bits, zp), row[q & 0xFF]
            if h != d:
                bad.append(f"q {q} zp {zp}: Hurray {h:#010x} Dequant {d:#010x}")
    assert not bad, "\n".join(bad[:8])


# --------------------------------------------------- through the library
ALL_Q = np.arange(-128, 128, dtype=np.int8)


@pytest.mark.parametrize("scale", BRIDGE_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_int8_positive_scale_equals_sk_dequantize_and_the_oracle(route, scale, monkeypatch):
    monkeypatch.setenv(sk.a65.FORCE_ROUTE_ENV, route)
    bits = BRIDGE_SCALES[scale]
    q = ALL_Q.astype(np.int64)
    reports = []
    for zp in INT8:
        d = descriptor(bits, zp)
        params = d.to_dequant_params()
        got = H.dequantize(ALL_Q.tobytes(), d, ST.INT8)
        via_dequant = sk.dequantize(ALL_Q, params.scale, params.zero_point)
        want = small_table(bits)[q - zp + 255]
        what = f"{route} scale {bits:#010x} zp {zp}"
        reports.append(report(bits_of(got), want, q, f"{what} hurray.dequantize vs oracle"))
        reports.append(report(bits_of(got), bits_of(via_dequant), q, f"{what} hurray.dequantize vs sk.dequantize"))
    fail_if(reports)


@pytest.mark.parametrize("scale", list(NEGATIVE_SCALES), ids=list(NEGATIVE_SCALES))
def test_int8_negative_scale_matches_the_oracle(scale):
    bits = NEGATIVE_SCALES[scale]
    q = ALL_Q.astype(np.int64)
    reports = []
    for zp in INT8:
        got = H.dequantize(ALL_Q, descriptor(bits, zp), ST.INT8)
        want = np.array([hurray_dequant(int(v), bits, zp) for v in (-128, zp, 127)], dtype=np.uint32)
        reports.append(report(bits_of(got), small_table(bits)[q - zp + 255], q, f"scale {bits:#010x} zp {zp}"))
        reports.append(report(bits_of(got)[[0, zp + 128, 255]], want, np.array([-128, zp, 127]),
                              f"scale {bits:#010x} zp {zp} (direct oracle calls)"))
    fail_if(reports)


def test_plan_follows_the_forced_route(monkeypatch):
    """hurray.dequantize's cached affine_dequant plan is keyed by
    SIMAKERNELS_FORCE_ROUTE, as the array layer's are: forcing another route
    after a call takes effect instead of reusing the first route's plan."""
    from support.helpers import ROUTES

    sk.arrays.clear_plans()
    data, d = bytes(range(16)), descriptor(0x3F800000, 3)
    for route in ROUTES:
        monkeypatch.setenv(sk.a65.FORCE_ROUTE_ENV, route)
        H.dequantize(data, d, ST.INT8)
    cached = {plan.route for key, plan in sk.arrays._PLANS.items() if key[0] == "hurray"}
    sk.arrays.clear_plans()
    assert cached == set(ROUTES)
