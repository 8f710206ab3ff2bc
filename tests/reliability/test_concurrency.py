"""Threads: plans are immutable and safe to share between threads, and
``execute`` releases the GIL while computing (a documented promise).

Eight threads start together (a barrier) and share the same prepared plans
- every parameter set of an operation, dense and every-second-column, on
every route - each on buffers of its own, for a fixed number of
iterations with new data each time; every output is checked bit for bit
against the oracle (tests/support/oracle_pools.py).  The same for the array layer
(its plan cache shared), the Hurray kernels and the EV74 host device model
(one Device, one relocatable packet bound by every thread to regions of
its own).  How much two threads overlap is measured by
``python -m simakernels.bench.threads`` (docs/RELIABILITY.md); here the
GIL release is shown without timing: another thread sees the output of a
running call half written."""
import threading
from typing import Callable, List

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import ROUTES
from support.oracle_pools import (BF16, DEQUANT_PARAMS, F16, F32, H, HURRAY_SCALES, I8, OPERATIONS, QUANT_PARAMS, WORD,
                          hurray_descriptor, hurray_pack, hurray_pool, rng)
from support.oracle_pools import spec as tensor_spec

THREADS = 8
ITERATIONS = 6
ROWS, COLS = 32, 515         # 16480 elements: several vector blocks and a tail in every row
SENTINEL = 0xA5


def run_threads(work: Callable[[int], List[str]]) -> List[str]:
    """``work(thread index)`` on THREADS threads released together; the
    problems they report, and any exception, as text."""
    barrier = threading.Barrier(THREADS)
    problems: List[str] = []

    def body(t: int) -> None:
        try:
            barrier.wait(timeout=120)
            problems.extend(work(t))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            problems.append(f"thread {t}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=body, args=(t,), name=f"sk-test-{t}") for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    problems += [f"{thread.name} did not finish" for thread in threads if thread.is_alive()]
    return problems


def mismatch(got: np.ndarray, expected: np.ndarray, what: str) -> List[str]:
    bad = np.flatnonzero(got.reshape(-1) != expected.reshape(-1))
    if bad.size == 0:
        return []
    i = int(bad[0])
    return [f"{what}: {bad.size} elements differ, first at {i}: expected {int(expected.reshape(-1)[i]):#x} "
            f"got {int(got.reshape(-1)[i]):#x}"]


# ------------------------------------------------------------ contract layer


@pytest.mark.parametrize("name", OPERATIONS)
def test_threads_share_prepared_plans(name):
    op = OPERATIONS[name]
    si = op.src.itemsize
    plans = []
    for variant in op.variants():
        for strided in (False, True):
            in_strides = (2 * COLS * si, 2 * si) if strided else None
            for route in ROUTES:
                plan = op.module.check_inference(variant.request((ROWS, COLS), in_strides, None), route=route)
                assert not isinstance(plan, sk.Error), plan
                what = f"{name} {variant.label} {'x[:, ::2]' if strided else 'dense'} {route}"
                plans.append((what, variant, plan, strided))

    def work(t: int) -> List[str]:
        draws = rng(f"{name} thread {t}")
        backing = np.empty((ROWS, 2 * COLS), WORD[op.src])   # the strided input is backing[:, ::2]
        dense = np.empty((ROWS, COLS), WORD[op.src])
        out = np.empty((ROWS, COLS), WORD[op.dst])
        problems = []
        for i in range(ITERATIONS):
            for what, variant, plan, strided in plans:
                values, expected = variant.draw(draws, (ROWS, COLS), tame=i % 2 == 0)
                src = backing if strided else dense
                (backing[:, ::2] if strided else dense)[...] = values
                out.fill(SENTINEL)
                status = op.module.execute(plan, [src], [out])
                if status is not None:
                    problems.append(f"thread {t} iteration {i} {what}: {status}")
                else:
                    problems += mismatch(out, expected, f"thread {t} iteration {i} {what}")
        return problems

    problems = run_threads(work)
    assert not problems, "\n".join(problems[:20])


# --------------------------------------------------------------- array layer

NUMPY_VIEW = {F32: np.float32, BF16: ml_dtypes.bfloat16, F16: np.float16, I8: np.int8}


def _array_call(name: str, variant_index: int):
    """The array-layer call of an operation's parameter set (for
    :func:`test_array_layer_from_threads`)."""
    if name.startswith("cast"):
        dst = OPERATIONS[name].dst
        return lambda x, out: sk.cast(x, NUMPY_VIEW[dst], out=out)
    if name.startswith("dequant"):
        scale, zp = DEQUANT_PARAMS[variant_index]
        scale = np.uint32(scale).view(np.float32)
        dtype = OPERATIONS[name].dst
        return lambda x, out: sk.dequantize(x, scale, zp, dtype=dtype, out=out)
    m, zp, mode = QUANT_PARAMS[variant_index]
    m = np.uint32(m).view(np.float32)
    return lambda x, out: sk.quantize(x, m, zp, rounding=mode, out=out)


def test_array_layer_from_threads():
    """sk.cast / sk.dequantize / sk.quantize from eight threads at once,
    every operation and parameter set, dense and strided views: the plan
    cache is shared (plans made by one thread run in the others)."""
    calls = [(name, variant, _array_call(name, k))
             for name, op in OPERATIONS.items() for k, variant in enumerate(op.variants())]

    def work(t: int) -> List[str]:
        draws = rng(f"array layer thread {t}")
        problems = []
        for i in range(ITERATIONS):
            for name, variant, call in calls:
                op = OPERATIONS[name]
                backing = np.empty((ROWS, 2 * COLS), WORD[op.src])
                values, expected = variant.draw(draws, (ROWS, COLS), tame=i % 2 == 0)
                backing[:, ::2] = values
                x = backing.view(NUMPY_VIEW[op.src])[:, ::2] if (t + i) % 2 else np.ascontiguousarray(
                    backing[:, ::2]).view(NUMPY_VIEW[op.src])
                out = np.full((ROWS, COLS), SENTINEL, WORD[op.dst]).view(NUMPY_VIEW[op.dst])
                call(x, out)
                what = f"thread {t} iteration {i} {name} {variant.label}"
                problems += mismatch(out.view(WORD[op.dst]), expected, what)
        return problems

    problems = run_threads(work)
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------- Hurray


def test_hurray_from_threads():
    """Every storage type and scale sign from eight threads (INT8 with a
    positive scale shares the array layer's cached Dequant plan)."""
    tables = [(storage, scale, hurray_descriptor(storage, scale), *hurray_pool(storage, scale))
              for storage in H.StorageType for scale in HURRAY_SCALES]
    n = ROWS * COLS

    def work(t: int) -> List[str]:
        draws = rng(f"hurray thread {t}")
        problems = []
        out = np.empty(n, np.float32)
        for i in range(ITERATIONS):
            for storage, scale, desc, pool, expected in tables:
                pick = draws.integers(0, pool.size, n)
                out.view(np.uint32).fill(0xA5A5A5A5)
                H.dequantize(hurray_pack(pool[pick], storage.bits), desc, storage, count=n, out=out)
                problems += mismatch(out.view(np.uint32), expected[pick],
                                     f"thread {t} iteration {i} {storage.name} scale={scale:#010x}")
        return problems

    problems = run_threads(work)
    assert not problems, "\n".join(problems[:20])


# ------------------------------------------------------------------ EV74


def test_ev74_one_packet_bound_by_every_thread():
    """One Device, one plan and one relocatable packet per input format:
    each thread allocates regions of its own, binds the shared packet to
    them and submits (packets are never mutated; the Device's allocation is
    locked and its queue takes submissions from any thread)."""
    m, zp, mode = 0x3E99999A, -3, "toward_negative"
    jobs = []
    for name in ("quant_f32_i8", "quant_bf16_i8", "quant_f16_i8"):
        op = OPERATIONS[name]
        variant = next(v for v in op.variants() if v.label == f"{mode} m={m:#010x} zp={zp}")
        request = sk.ops.quant.Request([tensor_spec((ROWS, COLS), op.src)], [tensor_spec((ROWS, COLS), I8)],
                                       sk.ops.quant.Params.from_bits(m, zp, mode))
        plan = sk.ev74.quant.check_inference(request)
        packet = sk.ev74.quant.encode_relocatable(plan)
        assert not isinstance(plan, sk.Error) and not isinstance(packet, sk.Error), (plan, packet)
        jobs.append((name, op, variant, plan, packet))

    with sk.ev74.Device(size=1 << 23) as device:
        def work(t: int) -> List[str]:
            draws = rng(f"ev74 thread {t}")
            problems = []
            regions = [(device.allocate(plan.input_requirements()[0].nbytes),
                        device.allocate(plan.output_requirements()[0].nbytes)) for _, _, _, plan, _ in jobs]
            for i in range(ITERATIONS):
                for (name, _op, variant, plan, packet), (src, dst) in zip(jobs, regions):
                    values, expected = variant.draw(draws, (ROWS, COLS), tame=i % 2 == 0)
                    device.write(src, values)
                    device.write(dst, bytes([SENTINEL]) * dst.capacity)
                    bound = sk.ev74.quant.bind(packet, plan, [src], [dst])
                    done = device.submit(bound).result(timeout=600)
                    what = f"thread {t} iteration {i} {name}"
                    if isinstance(done, sk.Error) or isinstance(bound, sk.Error):
                        problems.append(f"{what}: {bound if isinstance(bound, sk.Error) else done}")
                        continue
                    got = np.frombuffer(device.read(dst), np.uint8)
                    problems += mismatch(got, expected, what)
            return problems

        problems = run_threads(work)
    assert not problems, "\n".join(problems[:20])


# ------------------------------------------------------------ the GIL


def test_another_thread_runs_during_a_call():
    """A scalar-route Quant of 2^20 elements writes its output from the
    first element to the last; a second thread polls the first and the
    last output byte.  Seeing the first written while the last still holds
    the sentinel means Python ran in the middle of the native call, which
    is only possible if the call released the GIL.  (Not timed: the call
    lasts milliseconds, the poll microseconds; a few attempts allow for a
    machine so busy that the poller is not scheduled during one call.)"""
    n = 1 << 20
    x = np.asarray(rng("gil").uniform(-300.0, 300.0, n), np.float32)
    request = sk.ops.quant.Request([tensor_spec((n,), F32)], [tensor_spec((n,), I8)],
                                   sk.ops.quant.Params.from_bits(0x3E99999A, -3, "nearest_even"))
    plan = sk.a65.quant.check_inference(request, route="scalar")
    out = bytearray(n)
    seen = []
    for _ in range(5):
        out[:] = bytes([SENTINEL]) * n
        finished = threading.Event()

        def poll(finished: threading.Event = finished) -> None:
            while not finished.is_set():
                if out[0] != SENTINEL and out[-1] == SENTINEL:
                    seen.append(True)
                    return

        poller = threading.Thread(target=poll)
        poller.start()
        status = sk.a65.quant.execute(plan, [x], [out])
        finished.set()
        poller.join()
        assert status is None, status
        if seen:
            break
    assert seen, "no other thread ran while execute was converting (the GIL was held?)"


def test_the_overlap_measurement_reports_every_row():
    """``python -m simakernels.bench.threads`` on a tiny size: one row per
    route and op plus the memcpy reference, each with its overlap and
    cores-busy figures (their values are the benchmark's, never asserted)."""
    import io

    from simakernels.bench import cases, threads

    text = io.StringIO()
    threads.run(["scalar"], [cases.OPS[0], cases.OPS[4]], 4096, 2, 1, out=text)
    rows = [line.split() for line in text.getvalue().splitlines()[3:]]
    assert [r[0] for r in rows] == ["scalar", "memcpy", "scalar", "memcpy"], text.getvalue()
    assert all(r[-2].endswith("x") and float(r[-2][:-1]) > 0 and float(r[-1]) > 0 for r in rows), text.getvalue()
    with pytest.raises(SystemExit):
        threads.main(["--routes", "no-such-route"])
