"""Per-axis plans as objects: pickling (loading re-admits the request and
prepares again on the same route; the loaded plan gives the same bits),
reuse with new buffers, the parameter workspace living exactly as long as
the plan (through the Python API only: nothing else keeps it), large
channel counts (tables whose period is the count itself), threads sharing
one plan, and what the plan reports."""
import gc
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import simakernels as sk
from support.axis_helpers import (
    DEQUANT_SETS,
    QUANT_SETS,
    axis_period,
    byte_strides,
    channels,
    dequant_params,
    draw,
    expected,
    make_case,
    module_of,
    plan_for,
    quant_params,
    request,
    run_cases,
)
from support.helpers import BF16, F16, F32, I8, ROUTES, Storage, fail_if

OPS = {"dequant-f32": (I8, F32, None), "dequant-bf16": (I8, BF16, None), "quant-f32": (F32, I8, "toward_positive"),
       "quant-bf16": (BF16, I8, "nearest_even"), "quant-f16": (F16, I8, "toward_negative")}
# (name, shape, axis, input strides, output strides) in elements.
ARRANGEMENTS = [
    ("inner", (40, 17), -1, None, None),
    ("outer", (17, 40), 0, (41, 1), None),
    ("middle-transposed", (3, 17, 40), 1, (1, 3 * 40, 3), None),
]


def params_of(src, count):
    return channels(DEQUANT_SETS["extremes"] + DEQUANT_SETS["forms"] if src is I8
                    else QUANT_SETS["tiny"] + QUANT_SETS["ties"], count)


def every_plan(route):
    """(what, plan, src dtype, dst dtype, shape, axis, params, mode, in, out)."""
    out = []
    for op, (src, dst, mode) in OPS.items():
        for name, shape, axis, in_el, out_el in ARRANGEMENTS:
            params = params_of(src, shape[axis])
            ins, outs = byte_strides(in_el, src), byte_strides(out_el, dst)
            plan = plan_for(route, shape, src, dst, axis, params, mode, ins, outs)
            out.append((f"{op} {name}", plan, src, dst, shape, axis, params, mode, ins, outs))
    return out


@pytest.mark.parametrize("route", ROUTES)
def test_pickled_plans_give_the_same_bits(route):
    cases = []
    for what, plan, src, dst, shape, axis, params, mode, ins, outs in every_plan(route):
        for protocol in (0, pickle.HIGHEST_PROTOCOL):
            loaded = pickle.loads(pickle.dumps(plan, protocol))
            assert type(loaded) is type(plan) and loaded is not plan
            assert loaded.route == route and loaded.shape == plan.shape
            assert loaded.input_requirements() == plan.input_requirements()
            assert loaded.output_requirements() == plan.output_requirements()
            lp, pp = loaded.shared.params, plan.shared.params
            bits = "scale_bits" if src is I8 else "multiplier_bits"
            assert type(lp) is type(pp) and lp.axis == pp.axis
            assert np.array_equal(getattr(lp, bits), getattr(pp, bits))
            assert np.array_equal(np.asarray(lp.zero_points), np.asarray(pp.zero_points))
            if src is I8:
                assert loaded.form == plan.form == "per_channel"
            else:
                assert lp.rounding is pp.rounding
        for p in (plan, loaded):
            case = make_case(route, shape, src, dst, axis, params, mode, ins, outs, plan=p, seed=len(cases))
            case.what += f" {what} {'loaded' if p is loaded else 'original'}"
            cases.append(case)
    fail_if(run_cases(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_pickled_shared_plans_prepare_again(route):
    """The backend-neutral plan pickles too; each route prepares the loaded one."""
    for _what, plan, src, dst, shape, axis, params, mode, ins, outs in every_plan(route)[::3]:
        shared = pickle.loads(pickle.dumps(plan.shared))
        again = module_of(src).prepare(shared, route=route)
        assert not isinstance(again, sk.Error), again
        fail_if(run_cases([make_case(route, shape, src, dst, axis, params, mode, ins, outs, plan=again)]))


def test_loading_readmits_the_request():
    """A pickle whose parameters no longer fit (tampered after admission)
    is refused on loading: KernelError INVALID_PARAMS naming the entry;
    nothing is prepared from unchecked parameters."""
    for src, dst, mode in OPS.values():
        p = (dequant_params(1, channels(DEQUANT_SETS["forms"], 4)) if src is I8
             else quant_params(1, channels(QUANT_SETS["ties"], 4), mode))
        plan = module_of(src).check_inference(request((2, 4), src, dst, p))
        assert not isinstance(plan, sk.Error), plan
        bits_name = "scale_bits" if src is I8 else "multiplier_bits"
        tampered = np.array([0x3F800000, 0x3F800000, 0x7FC00000, 0x3F800000], np.uint32)
        object.__setattr__(plan.shared.request.params, bits_name, tampered)
        data = pickle.dumps(plan)
        with pytest.raises(sk.KernelError) as info:
            pickle.loads(data)
        assert info.value.code is sk.ErrorCode.INVALID_PARAMS
        assert "[2]" in str(info.value) and "0x7fc00000" in str(info.value)


@pytest.mark.parametrize("route", ROUTES)
def test_plan_reused_with_new_buffers(route):
    """One plan, several inputs and outputs (different data, capacity and
    alignment): each result exact, nothing else written."""
    cases = []
    for what, plan, src, dst, shape, axis, params, mode, ins, outs in every_plan(route):
        for k, (in_excess, out_excess) in enumerate(((0, 0), (1, 3), (64, 17))):
            case = make_case(route, shape, src, dst, axis, params, mode, ins, outs, plan=plan, seed=100 + k,
                             in_excess=in_excess, out_excess=out_excess)
            case.what += f" {what} reuse {k}"
            cases.append(case)
    fail_if(run_cases(cases))


def _plan_alone(route, src, dst, shape, axis, params, mode):
    """A plan built from temporaries the caller never sees again."""
    values = np.array([v for v, _ in params], np.uint32).view(np.float32).copy()
    zps = np.array([z for _, z in params], np.int64)
    cls = sk.ops.dequant.AxisParams if src is I8 else sk.ops.quant.AxisParams
    p = cls(axis, values, zps) if src is I8 else cls(axis, values, zps, mode)
    plan = module_of(src).check_inference(request(shape, src, dst, p), route=route)
    values[:] = np.float32(7.0)        # the caller's arrays change afterwards
    zps[:] = 1
    return plan


@pytest.mark.parametrize("route", ROUTES)
def test_workspace_lives_with_the_plan(route):
    """The native plan points into a workspace that only the plan keeps:
    after every other reference is gone and the garbage collector ran (and
    new allocations reused freed memory), the plan still gives the
    oracle's bits with its own parameters."""
    built = []
    for op, (src, dst, mode) in OPS.items():
        for _name, shape, axis, _, _ in ARRANGEMENTS[:2]:
            params = params_of(src, shape[axis])
            built.append((op, src, dst, shape, axis, params, mode,
                          _plan_alone(route, src, dst, shape, axis, params, mode)))
    gc.collect()
    clutter = [np.full(1 << 12, 0x5A, np.uint8) for _ in range(256)]   # reuse freed blocks
    cases = []
    for op, src, dst, shape, axis, params, mode, plan in built:
        case = make_case(route, shape, src, dst, axis, params, mode, plan=plan, seed=7)
        case.what += f" {op} after gc"
        cases.append(case)
    del clutter
    fail_if(run_cases(cases))


# Channel counts whose table period is the count itself (lcm(C, 16) above
# 64K positions) or exactly 64K, inner and outer.
LARGE_COUNTS = (4096, 4097, 65537)


@pytest.mark.parametrize("route", ROUTES)
def test_large_channel_counts(route):
    assert [axis_period(c) for c in LARGE_COUNTS] == [4096, 4097, 65537]
    cases = []
    for k, count in enumerate(LARGE_COUNTS):
        for _op, (src, dst, mode) in OPS.items():
            params = params_of(src, count)
            for shape, axis in (((2, count), 1), ((count, 2), 0)):
                cases.append(make_case(route, shape, src, dst, axis, params, mode, seed=k, in_excess=1,
                                       out_excess=1))
    fail_if(run_cases(cases))


@pytest.mark.parametrize("route", ROUTES)
def test_threads_share_a_plan(route):
    """Four threads, one plan each per operation, their own buffers, many
    calls: every result exact (the walk's table position is per call)."""
    jobs = []
    for what, plan, src, dst, shape, axis, params, mode, ins, outs in every_plan(route)[::2]:
        values = draw(src, shape, np.random.default_rng(3))
        want = expected(src, dst, values, axis, params, mode)
        jobs.append((what, plan, src, dst, shape, ins, outs, values, want))

    def worker(t):
        problems = []
        for what, plan, src, dst, shape, ins, outs, values, want in jobs:
            s = Storage.make(shape, src, ins, excess=t)
            s.write(values.reshape(-1))
            d = Storage.make(shape, dst, outs, excess=2 * t)
            for _ in range(10):
                d.reset()
                status = module_of(src).execute(plan, [s.buf], [d.buf])
                if status is not None:
                    problems.append(f"{what} thread {t}: {status}")
                    break
                if not np.array_equal(d.read(), want.reshape(-1)) or d.gaps_report() is not None:
                    problems.append(f"{what} thread {t}: wrong result or gap written")
                    break
        return problems

    with ThreadPoolExecutor(4) as pool:
        problems = [p for found in pool.map(worker, range(4)) for p in found]
    assert not problems, problems[:5]
