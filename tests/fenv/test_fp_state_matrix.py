"""Every operation under every FP state (issue 9, "FP state").

The states are those :func:`helpers.all_fp_states` generates: 4 rounding
modes x FTZ x DAZ x every subset of the enableable traps (1,024 on x86-64,
512 on AArch64 where one FZ bit serves both flush fields).  Each state runs
every operation on every route: Cast both ways, Dequant to FP32 and BF16,
Quant from FP32/BF16/FP16 in each of the four rounding modes, the Hurray
kernels (every storage type; INT8 both through the Dequant bridge and the
native kernel), EV74 device-model execution, and the array layer
(``sk.cast`` / ``sk.dequantize`` / ``sk.quantize``, on one thread and with
``workers=2``).

The expected outcome of each (operation, state) is the contract's rule
(:data:`helpers.FP_CONTRACT`, written from the documented FP policy and the specification),
never the library's own admission: either the exact result, or
UNSUPPORTED_ENVIRONMENT naming exactly what is unmet, with every output byte
still holding its sentinel.  Expected bits come from the oracle
(``tests/oracle``), computed in the default state before any state is
entered.  Inputs hold the hard values: NaNs (signaling too), infinities,
subnormals, the largest finite values, -0, products that tie or round
differently in each mode, underflow and overflow.  Outputs are padded rows
with sentinel gaps and excess capacity.  ``sk.fenv.query()`` must read the
entered state before and after every call, and the default state after.

Each (operation, route) batch runs in a forked child that prints every case
before running it: an FP trap firing inside the library (SIGFPE) kills the
child only, and the test fails naming the state and call.  States the CPU
cannot hold (``UnsupportedFPState``: traps under QEMU and on many Arm cores)
are counted and skipped.  The quick subset (single-feature states plus a
seeded 10% of the rest) always runs; the full matrix is marked slow.

Bodies inside a state only call into the library: no NumPy and no Python
float arithmetic between entering and leaving it.
"""
from __future__ import annotations

import gc
import os
import pickle
import signal
from typing import Any, Callable, List, Optional, Sequence

import ml_dtypes
import numpy as np
import pytest

import simakernels as sk
from support.helpers import (
    BF16,
    DEFAULT_STATE,
    F16,
    F32,
    I8,
    INPUT_FILL,
    ITEMSIZE,
    ROUTES,
    SENTINEL,
    SPECIAL_F32,
    split_freely,
    UINT,
    Storage,
    all_fp_states,
    bf16_table,
    dequant_request,
    environment_message_report,
    f32_pool,
    fp_state_id,
    fp_state_value,
    mismatch_report,
    ok_plan,
    oracle_dequant,
    oracle_f32_to_bf16,
    request,
    sampled_fp_states,
    scale_bits_of,
    unmet_requirements,
    untouched_report,
)
from support.quant_helpers import MODES, oracle, pow2, quant_request, useful_values

H = sk.formats.hurray
ST = H.StorageType
UNSUPPORTED = sk.ErrorCode.UNSUPPORTED_ENVIRONMENT
SHAPE = (2, 40)                  # two rows: vector blocks and a tail each
GUARD = 0xA5A5A5A5               # Hurray output guard words


def padded(shape, dtype):
    """Byte strides of an output whose rows are padded by 3 elements (sentinel gaps)."""
    item = ITEMSIZE[dtype]
    return ((shape[1] + 3) * item, item)
ROUTE_ENV = sk.a65.FORCE_ROUTE_ENV


# --------------------------------------------------------------------- calls


class Call:
    """One library call on prepared buffers.  ``run`` is all that happens
    inside a state (library calls only); the checks run after it is left."""

    label: str
    operation: str

    def run(self) -> Optional[sk.Error]:
        raise NotImplementedError

    def reset(self) -> None:
        """Every output byte back to its sentinel."""
        raise NotImplementedError

    def result_report(self) -> Optional[str]:
        """None when the output holds exactly the expected bits (gaps and
        excess untouched, the input unchanged)."""
        raise NotImplementedError

    def untouched_report(self) -> Optional[str]:
        """None when no output byte was written and the input is unchanged."""
        raise NotImplementedError


class StorageCall(Call):
    """An A65 execute (or an array-layer call) on sentinel-filled Storage."""

    def __init__(self, label, operation, run, src: Storage, out: Storage, values, expected):
        self.label, self.operation, self._run = label, operation, run
        self.src, self.out, self.values, self.expected = src, out, values, expected
        self.src_before = src.buf.copy()
        # Worked out once (the matrix checks every call): the logical
        # elements as words of the buffer, and the gap and excess bytes.
        self._elements = out.offsets // out.itemsize
        self._gaps = ~out.element_mask()

    def run(self):
        return self._run()

    def reset(self):
        self.out.reset()

    def _input_report(self):
        return None if np.array_equal(self.src.buf, self.src_before) else f"{self.label}: input changed"

    def result_report(self):
        words = self.out.buf.view(UINT[self.out.dtype])[self._elements]
        found = [mismatch_report(words, self.expected, self.values, self.label),
                 untouched_report(self.out.buf, self.out.fill, self._gaps, f"{self.label}: output gaps"),
                 self._input_report()]
        return "\n".join(f for f in found if f) or None

    def untouched_report(self):
        changed = np.flatnonzero(self.out.buf != self.out.fill)
        found = [f"{self.label}: {changed.size} output byte(s) written, first at {changed[:6].tolist()}"
                 if changed.size else None, self._input_report()]
        return "\n".join(f for f in found if f) or None


def raised_error(fn: Callable[[], Any]) -> Callable[[], Optional[sk.Error]]:
    """``fn`` as a status: None, or the Error of the KernelError it raises."""
    def run():
        try:
            fn()
        except sk.KernelError as exc:
            return exc.error
        return None
    return run


def a65_calls(operation: str, route: str) -> List[Call]:
    calls: List[Call] = []
    kind = "quant" if operation.startswith("quant") else operation
    module = getattr(sk.a65, kind)

    def add(label, req, src_dtype, dst_dtype, values, expected, shape=SHAPE):
        plan = ok_plan(req, route)
        src = Storage.make(shape, src_dtype, fill=INPUT_FILL)
        src.write(values)
        out = Storage.make(shape, dst_dtype, padded(shape, dst_dtype), excess=24)
        bindings = ([src.buf], [out.buf])
        calls.append(StorageCall(f"{route} {label}", kind, lambda: module.execute(plan, *bindings), src, out,
                                 values, expected))

    n = SHAPE[0] * SHAPE[1]
    if operation == "cast":
        # The whole FP32 pool (every special class, then random patterns) and
        # every BF16 pattern, in two padded rows each.
        f32, bf16_of_f32 = f32_pool()
        shape = (2, f32.size // 2)
        add("cast FLOAT32->BFLOAT16", request(shape, F32, BF16, None, padded(shape, BF16)), F32, BF16,
            f32, bf16_of_f32, shape)
        bf16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
        shape = (2, bf16.size // 2)
        add("cast BFLOAT16->FLOAT32", request(shape, BF16, F32, None, padded(shape, F32)), BF16, F32,
            bf16, bf16_table(), shape)
    elif operation == "dequant":
        q = np.random.default_rng(2).permutation(256).astype(np.uint8)[:n]
        q[:6] = [0x80, 0x81, 0xFF, 0x00, 0x01, 0x7F]   # -128, -127, -1, 0, 1, 127
        # Each would raise the matching trap if arithmetic ran: an inexact
        # wide zero point, overflow to infinity, subnormal (tiny) products,
        # a narrow form whose products round.
        for scale, zp in ((0x4037CED9, 16777217), (0x7F7FFFFF, -(2**31)), (0x00000001, 0), (0x3DCCCCCD, -3)):
            for dst in (F32, BF16):
                add(f"dequant INT8->{dst.name} scale {scale:#010x} zp {zp}",
                    dequant_request(SHAPE, dst, scale, zp, None, padded(SHAPE, dst)), I8, dst, q,
                    oracle_dequant(q, dst, scale, zp))
    else:
        src_dtype, mode = operation_detail(operation)
        for m, zp in ((0x3E99999A, -3), (pow2(-126), 5), (0x7F7FFFFF, 0), (0x00000001, 9)):
            values = useful_values(src_dtype, n, m & 0xFFFF, m)
            add(f"quant {src_dtype.name} {mode} m {m:#010x} zp {zp}",
                quant_request(SHAPE, src_dtype, m, zp, mode, None, padded(SHAPE, I8)), src_dtype, I8, values,
                oracle(src_dtype, values, m, zp, mode).view(np.uint8))
    return calls


QUANT_BATCHES = [f"quant-{d.name.lower()}-{m}" for d in (F32, BF16, F16) for m in MODES]


def operation_detail(batch: str):
    _, dtype, mode = batch.split("-")
    return sk.DType[dtype.upper()], mode


# ------------------------------------------------------------------- Hurray


class HurrayCall(Call):
    operation = "hurray"

    def __init__(self, storage, scale_bits, zero_point):
        from support.hurray_helpers import descriptor, expected, unpack, width
        self.label = f"hurray {storage.name} scale {scale_bits:#010x} zp {zero_point}"
        self.data = bytes((0x5A + 37 * i) & 0xFF for i in range(48))
        self.values = unpack(self.data, storage)
        self.expected = expected(self.values, storage, scale_bits, zero_point)
        n = len(self.data) * 8 // width(storage)
        self.whole = np.full(n + 8, GUARD, np.uint32)   # 3 guard words before, 5 after
        self.out = self.whole.view(np.float32)[3:3 + n]
        d, data = descriptor(scale_bits, zero_point), self.data
        self._run = raised_error(lambda: H.dequantize(data, d, storage, out=self.out))

    def run(self):
        return self._run()

    def reset(self):
        self.whole[...] = GUARD

    def result_report(self):
        found = [mismatch_report(self.out.view(np.uint32), self.expected, self.values.astype(np.int64), self.label)]
        guards = np.r_[self.whole[:3], self.whole[3 + self.out.size:]]
        if np.any(guards != GUARD):
            found.append(f"{self.label}: guard elements written")
        return "\n".join(f for f in found if f) or None

    def untouched_report(self):
        return None if np.all(self.whole == GUARD) else f"{self.label}: output written"


def hurray_calls(route: str) -> List[Call]:
    from support.hurray_helpers import zero_points
    calls: List[Call] = [HurrayCall(s, 0x4037CED9, zero_points(s)[-1]) for s in ST]
    calls += [HurrayCall(ST.INT8, 0xC037CED9, -128),      # native kernel (negative scale)
              HurrayCall(ST.INT8, 0x00400001, 0),         # bridge, subnormal scale
              HurrayCall(ST.INT16, 0x7F7FFFFF, -7),       # overflow to infinity
              HurrayCall(ST.UINT4, 0x00000001, 15)]       # tiny products
    for c in calls:
        c.label = f"{route} {c.label}"
    return calls


# -------------------------------------------------------------- array layer


def array_calls(route: str) -> List[Call]:
    calls: List[Call] = []
    rng = np.random.default_rng(3)
    n = SHAPE[0] * SHAPE[1]

    def add(label, operation, src_dtype, dst_dtype, values, expected, fn):
        src = Storage.make(SHAPE, src_dtype, fill=INPUT_FILL)
        src.write(values)
        x = np.ndarray(SHAPE, sk.arrays.numpy_dtype(src_dtype), src.buf, 0, src.strides)
        out = Storage.make(SHAPE, dst_dtype, padded(SHAPE, dst_dtype), excess=24)
        y = np.ndarray(SHAPE, sk.arrays.numpy_dtype(dst_dtype), out.buf, 0, out.strides)   # not contiguous
        def call(workers):
            with split_freely():  # workers=2 splits this small tensor
                return fn(x, y, workers)

        for workers in (1, 2):
            calls.append(StorageCall(f"{route} {label} workers={workers}", operation,
                                     raised_error(lambda w=workers: call(w)), src, out, values, expected))

    f32 = np.concatenate([np.array(SPECIAL_F32, np.uint32),
                          rng.integers(0, 1 << 32, n - len(SPECIAL_F32), dtype=np.uint64).astype(np.uint32)])
    add("sk.cast FLOAT32->BFLOAT16", "cast", F32, BF16, f32, oracle_f32_to_bf16(f32),
        lambda x, y, w: sk.cast(x, ml_dtypes.bfloat16, out=y, workers=w))
    q = rng.integers(0, 256, n, dtype=np.uint16).astype(np.uint8)
    q[:4] = [0x80, 0x7F, 0x00, 0xFF]
    add("sk.dequantize scale 0.1 zp -3", "dequant", I8, F32, q, oracle_dequant(q, F32, scale_bits_of(0.1), -3),
        lambda x, y, w: sk.dequantize(x, 0.1, -3, out=y, workers=w))
    m = scale_bits_of(0.3)
    values = useful_values(F32, n, 5, m)
    add("sk.quantize multiplier 0.3 zp 2 toward_positive", "quant", F32, I8, values,
        oracle(F32, values, m, 2, "toward_positive").view(np.uint8),
        lambda x, y, w: sk.quantize(x, 0.3, 2, rounding="toward_positive", out=y, workers=w))
    return calls


# --------------------------------------------------------------------- EV74


class DeviceCall(Call):
    """A bound packet on a new host device model per state: its worker
    thread starts inside the state, as a first submission would."""

    operation = "ev74"

    def __init__(self, dtype, mode, m, zp):
        from simakernels.ev74 import DeviceRegion
        from simakernels.ev74 import quant as ev
        self.label = f"ev74 device {dtype.name} {mode} m {m:#010x} zp {zp}"
        n = SHAPE[0] * SHAPE[1]
        self.values = useful_values(dtype, n, 7, m)
        self.expected = oracle(dtype, self.values, m, zp, mode).view(np.uint8)
        out_spec = sk.TensorSpec(SHAPE, I8, sk.Strided(padded(SHAPE, I8)))
        req = sk.ops.quant.Request([sk.TensorSpec(SHAPE, dtype)], [out_spec],
                                   sk.ops.quant.Params.from_bits(m, zp, sk.ops.quant.Rounding[mode.upper()]))
        plan = ev.check_inference(req)
        self.base = 0x1000_0000
        self.in_addr, self.out_addr = self.base + 64, self.base + 1024
        self.in_bytes = self.values.view(np.uint8).tobytes()
        self.out_len = SHAPE[0] * padded(SHAPE, I8)[0] + 24
        self.bound = ev.encode(plan, [DeviceRegion(self.in_addr, len(self.in_bytes))],
                               [DeviceRegion(self.out_addr, self.out_len)])
        assert not isinstance(self.bound, sk.Error), self.bound
        self.device = None
        self.after = None

    def reset(self):
        from simakernels.ev74.device import Device
        if self.device is not None:
            self.device.close()
        self.device = Device(size=1 << 12, base=self.base)
        self.device.write(self.base, bytes([SENTINEL]) * (1 << 12))
        self.device.write(self.in_addr, self.in_bytes)

    def run(self):
        result = self.device.submit(self.bound).result()
        return result if isinstance(result, sk.Error) else None

    def _memory(self):
        return np.frombuffer(self.device.read(self.base, 1 << 12), np.uint8)

    def result_report(self):
        memory = self._memory()
        row = padded(SHAPE, I8)[0]
        offsets = (np.arange(SHAPE[0])[:, None] * row + np.arange(SHAPE[1])).reshape(-1) + (self.out_addr - self.base)
        found = [mismatch_report(memory[offsets], self.expected, self.values, self.label)]
        image = np.full(1 << 12, SENTINEL, np.uint8)
        image[64:64 + len(self.in_bytes)] = np.frombuffer(self.in_bytes, np.uint8)
        image[offsets] = memory[offsets]
        if not np.array_equal(memory, image):
            found.append(f"{self.label}: device memory outside the output elements changed")
        return "\n".join(f for f in found if f) or None

    def untouched_report(self):
        return None  # never refused: see FP_CONTRACT["ev74"]


def ev74_calls(route: str) -> List[Call]:
    return [DeviceCall(F32, "toward_negative", 0x3E99999A, -3), DeviceCall(BF16, "nearest_even", 0x00000001, 9),
            DeviceCall(F16, "toward_positive", pow2(-126), 5)]


# ------------------------------------------------------------ child driver


def check_case(call: Call, state: dict, status, inside, after) -> List[str]:
    """Problems of one call under ``state``, by the contract's rule."""
    what = f"{fp_state_id(state)}: {call.label}"
    entered = fp_state_value(state)
    problems = []
    if inside != entered or after != entered:
        problems.append(f"{what}: state read {inside} before and {after} after the call, entered {entered}")
    if sk.fenv.query() != DEFAULT_STATE:
        problems.append(f"{what}: state not restored: {sk.fenv.query()}")
    unmet = unmet_requirements(call.operation, state)
    if not unmet:
        if status is not None:
            problems.append(f"{what}: refused ({status}) but the contract allows this state")
        else:
            problems.append(call.result_report())
    elif not isinstance(status, sk.Error) or status.code != UNSUPPORTED:
        problems.append(f"{what}: expected UNSUPPORTED_ENVIRONMENT ({', '.join(sorted(unmet))} unmet), got {status}")
    else:
        problems.append(environment_message_report(status.message, state, unmet))
        problems.append(call.untouched_report())
    return [p if p.startswith(what) else f"{what}: {p}" for p in problems if p]


def run_batch(make_calls: Callable[[], List[Call]], states: Sequence[dict], progress: Callable[[str], None]):
    """In the child: every call under every state; returns (problems, states
    run, states this CPU cannot hold)."""
    calls = make_calls()
    problems: List[str] = []
    ran, unsupported = 0, []
    for state in states:
        sid = fp_state_id(state)
        held = True
        for call in calls:
            progress(f"{sid}: {call.label}")
            call.reset()
            status = inside = after = None
            try:
                with sk.testing.fp_environment(**state):
                    inside = sk.fenv.query()
                    try:
                        status = call.run()
                    except Exception as exc:  # noqa: BLE001 - reported below
                        status = exc
                    after = sk.fenv.query()
            except sk.testing.UnsupportedFPState:
                held = False
                break
            if isinstance(status, Exception):
                problems.append(f"{sid}: {call.label}: raised {type(status).__name__}: {status}")
                continue
            problems += check_case(call, state, status, inside, after)
        ran += held
        if not held:
            unsupported.append(sid)
    for call in calls:
        device = getattr(call, "device", None)
        if device is not None:
            device.close()
    return problems, ran, unsupported


def in_child(body: Callable[[Callable[[str], None]], Any], route: Optional[str]):
    """Runs ``body(progress)`` in a forked child (with the route forced for
    the array layer and the Hurray bridge).  Returns ("ok", result),
    ("raised", text) or ("signal", name, last case printed)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            gc.disable()
            os.close(read_fd)
            if route is not None:
                os.environ[ROUTE_ENV] = route
            sk.arrays.clear_plans()

            def progress(line: str) -> None:
                os.write(write_fd, b"? " + line.encode() + b"\n")
            try:
                payload = ("ok", body(progress))
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                payload = ("raised", f"{type(exc).__name__}: {exc}")
            os.write(write_fd, b"= " + pickle.dumps(payload).hex().encode() + b"\n")
            os.close(write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        lines = pipe.read().splitlines()
    _, status = os.waitpid(pid, 0)
    last = next((ln[2:].decode() for ln in reversed(lines) if ln.startswith(b"? ")), "(before the first case)")
    if os.WIFSIGNALED(status) or not lines or not lines[-1].startswith(b"= "):
        how = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else f"exit status {status}"
        return "signal", how, last
    return pickle.loads(bytes.fromhex(lines[-1][2:].decode()))


BATCHES = ([(op, r) for op in ("cast", "dequant", *QUANT_BATCHES) for r in ROUTES]
           + [("hurray", r) for r in ROUTES] + [("arrays", r) for r in ROUTES] + [("ev74", None)])
BATCH_IDS = [f"{op}-{r}" if r else op for op, r in BATCHES]
MAKERS = {"hurray": hurray_calls, "arrays": array_calls, "ev74": ev74_calls}


def check_batch(operation: str, route: Optional[str], states: Sequence[dict]) -> None:
    make = MAKERS.get(operation) or (lambda r: a65_calls(operation, r))
    outcome = in_child(lambda progress: run_batch(lambda: make(route), states, progress), route)
    if outcome[0] == "signal":
        pytest.fail(f"the child was killed ({outcome[1]}) while running {outcome[2]}", pytrace=False)
    if outcome[0] == "raised":
        pytest.fail(outcome[1], pytrace=False)
    problems, ran, unsupported = outcome[1]
    if problems:
        pytest.fail(f"{len(problems)} problem(s)\n" + "\n".join(problems[:30]), pytrace=False)
    if not ran:
        pytest.skip(f"this CPU holds none of the {len(states)} states")


@pytest.mark.parametrize("operation, route", BATCHES, ids=BATCH_IDS)
def test_sampled_states(operation, route):
    check_batch(operation, route, sampled_fp_states())


@pytest.mark.slow
@pytest.mark.parametrize("operation, route", BATCHES, ids=BATCH_IDS)
def test_every_state(operation, route):
    check_batch(operation, route, all_fp_states())
