"""The EV74 kernel itself (``sk.ev74.kernel_source()``, run by
``sk.ev74.Device(engine="opencl")`` on an OpenCL runtime):

* the program: both entries, one self-contained source that compiles as
  OpenCL C 1.2 with its control-record assertions live (a wrong offset
  stops the compile);
* device-side validation: every corrupted descriptor of the decoder's
  table refused by the kernel with the decoder's code and message, and
  nothing written; unbound packets and ranges outside device memory with
  the model's errors; random mutations of valid descriptors meeting the
  same fate on both;
* the kernel and the model give identical bytes (the whole of device
  memory) and identical Completions on random layouts of rank 1-6 and
  unit kinds, for all 12 entries;
* without a runtime, ``engine="opencl"`` is a RuntimeError saying what to
  install.

The device tests (test_ev74_device.py) run every case on both engines
against the oracle; the conformance kit runs on both in
test_ev74_vectors.py.
"""
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simakernels as sk
from ev74.test_ev74_decoder import _corruptions
from simakernels.ev74 import opencl
from simakernels.ev74 import quant as ev
from support.ev74_helpers import (
    DTYPES,
    ENTRIES,
    ITEM,
    DeviceRegion,
    ErrorCode,
    contiguous_strides,
    describe,
    ev_plan,
    fuzz_bases,
    mutate,
    ok,
    open_device,
    opencl_or_skip,
)

BASE = 0x1000_0000


@pytest.fixture(scope="module")
def kernel():
    with open_device("opencl", size=1 << 20, base=BASE) as d:
        yield d


# ---- the program ---------------------------------------------------------------

def test_the_program_is_one_source_with_both_entries():
    src = sk.ev74.kernel_source()
    assert "__kernel void simaai_kernels_ev74_quant_v1(" in src
    assert "__kernel void simaai_kernels_ev74_quant_v1_workers(" in src
    assert '#include "' not in src  # every project header inlined
    assert "typedef struct sk_ev74_control" in src and "sk_ev74_validate(" in src


def _compile_cl(tmp_path, source):
    clang = shutil.which("clang-15")
    if clang is None:
        pytest.skip("compiling OpenCL C here needs clang-15 (make test installs it)")
    path = tmp_path / "kernel.cl"
    path.write_text(source)
    return subprocess.run([clang, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
                           "-fsyntax-only", str(path)], capture_output=True, text=True)


def test_the_program_compiles_as_opencl_c_with_its_layout_assertions(tmp_path):
    src = sk.ev74.kernel_source()
    assert _compile_cl(tmp_path, src).returncode == 0
    # The control's offsets are asserted in OpenCL C too: a moved field stops the compile.
    assert "X(kind, 60)" in src
    broken = _compile_cl(tmp_path, src.replace("X(kind, 60)", "X(kind, 64)"))
    assert broken.returncode != 0 and "sk_ev74_control.kind" in broken.stderr


# ---- validation on the device -------------------------------------------------------

def _submit_raw(device, data):
    return device.submit(ev.BoundPacket(data, (), ())).result(timeout=600)


@pytest.mark.parametrize("data,tokens", _corruptions())
def test_corrupted_descriptors_are_refused_by_the_kernel_as_by_the_decoder(kernel, data, tokens):
    decoded = ev.decode(data)
    assert isinstance(decoded, sk.Error)
    before = kernel.read(BASE, 1 << 20)
    got = _submit_raw(kernel, data)
    assert isinstance(got, sk.Error) and got.code is decoded.code and got.message == decoded.message, (got, decoded)
    assert kernel.read(BASE, 1 << 20) == before


def test_mutated_descriptors_meet_the_same_fate_on_the_kernel_and_the_model(kernel):
    """Random mutations of valid descriptors (bytes, bits, fields with
    boundary values): the kernel refuses what the model refuses, with the
    same error, and runs what it runs, with the same result and bytes."""
    rng = random.Random(0xE774)
    image = bytes(rng.randrange(256) for _ in range(4096)) * 256
    with open_device("model", size=1 << 20, base=BASE) as model:
        for k in range(400):
            data = mutate(rng, rng.choice(fuzz_bases()))
            fates = []
            for device in (kernel, model):
                device.write(BASE, image)
                fates.append((_submit_raw(device, data), device.read(BASE, 1 << 20)))
            assert fates[0] == fates[1], (k, describe(data))


@pytest.mark.parametrize("length", [0, 1, 223, 225])
def test_a_descriptor_of_another_length_is_refused(kernel, length):
    data = bytes(range(256))[:length]
    got = _submit_raw(kernel, data)
    want = ev.decode(data)
    assert isinstance(got, sk.Error) and (got.code, got.message) == (want.code, want.message)


def _bound(device, shape=(3, 5), dtype=sk.DType.FLOAT32, at=(BASE, BASE + 0x1000)):
    plan = ev_plan(shape, dtype, multiplier_bits=0x3E99999A, zero_point=-3, rounding="nearest_even")
    n = int(np.prod(shape))
    return ok(ev.encode(plan, [DeviceRegion(at[0], n * ITEM[dtype])], [DeviceRegion(at[1], n)]))


def test_submission_errors_match_the_model(kernel):
    """An unbound packet, and ranges outside device memory (still in the
    32-bit domain): INVALID_BINDING, the same message on both engines."""
    plan = ev_plan((3, 5), sk.DType.FLOAT32, multiplier_bits=0x3E99999A, zero_point=-3, rounding="nearest_even")
    relocatable = ok(ev.encode_relocatable(plan)).descriptor
    outside = [_bound(kernel, at=(BASE - 0x100, BASE + 0x1000)).descriptor,
               _bound(kernel, at=(BASE, BASE + (1 << 20) - 8)).descriptor,
               _bound(kernel, at=(0x8000_0000, BASE)).descriptor]
    with open_device("model", size=1 << 20, base=BASE) as model:
        for data in [relocatable] + outside:
            got, want = _submit_raw(kernel, data), _submit_raw(model, data)
            assert isinstance(want, sk.Error) and want.code is ErrorCode.INVALID_BINDING
            assert isinstance(got, sk.Error) and (got.code, got.message) == (want.code, want.message)


# ---- the kernel and the model agree --------------------------------------------------

@st.composite
def layouts(draw):
    """Rank 1-6 with padded, permuted or stepped axes, so that every unit
    kind and both DMA block sizes occur."""
    dtype = DTYPES[draw(st.sampled_from(list(DTYPES)))]
    item = ITEM[dtype]
    rank = draw(st.integers(1, 6))
    inner = draw(st.sampled_from([1, 7, 15, 16, 17, 100, 127, 128, 300, 4100, 8200]))
    shape = [draw(st.integers(1, 3)) for _ in range(rank - 1)] + [inner]
    pad_in, pad_out = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    step = draw(st.sampled_from([1, 1, 2]))
    s_in, s_out = [0] * rank, [0] * rank
    s_in[-1], s_out[-1] = item * step, 1
    span_in, span_out = inner * step * item + pad_in * item, inner + pad_out
    for a in reversed(range(rank - 1)):
        s_in[a], s_out[a] = span_in, span_out
        span_in, span_out = span_in * shape[a], span_out * shape[a]
    s_in = [0 if e == 1 else s for e, s in zip(shape, s_in)]
    s_out = [0 if e == 1 else s for e, s in zip(shape, s_out)]
    entry = draw(st.sampled_from(ENTRIES))
    return tuple(shape), dtype, tuple(s_in), tuple(s_out), entry, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60)
@given(layouts())
def test_the_kernel_and_the_model_write_the_same_bytes_and_units(kernel, layout):
    shape, dtype, s_in, s_out, (_, mode), seed = layout
    size = 1 << 20
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, size, dtype=np.uint8)
    plan = ev_plan(shape, dtype, s_in, s_out, multiplier_bits=int(rng.choice([0x3E99999A, 0x00000011, 0x42AA0000])),
                   zero_point=int(rng.integers(-128, 128)), rounding=mode)
    in_span, out_span = plan.input_requirements()[0].nbytes, plan.output_requirements()[0].nbytes
    in_at = BASE + 64 + ITEM[dtype] * int(rng.integers(0, 8))
    out_at = BASE + 64 + ((in_span + 64 + 63) // 64) * 64 + int(rng.integers(0, 8))
    if out_at + out_span > BASE + size:
        return
    bound = ok(ev.encode(plan, [DeviceRegion(in_at, in_span)], [DeviceRegion(out_at, out_span)]))
    results = []
    with open_device("model", size=size, base=BASE) as model:
        for device in (kernel, model):
            device.write(BASE, image)
            done = device.submit(bound).result(timeout=600)
            assert not isinstance(done, sk.Error), done
            results.append((device.read(BASE, size), done))
    (kernel_bytes, kernel_done), (model_bytes, model_done) = results
    assert kernel_done == model_done
    assert kernel_bytes == model_bytes


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{d}-{m}" for d, m in ENTRIES])
def test_every_entry_matches_the_model_on_each_unit_kind(kernel, entry):
    dtype_id, mode = entry
    dtype = DTYPES[dtype_id]
    rng = np.random.default_rng(len(mode))
    for n in (5, 40, 200, 9000):
        bits = rng.integers(0, 1 << (8 * ITEM[dtype]), n, dtype=np.uint64)
        plan = ev_plan((n,), dtype, multiplier_bits=0x3E99999A, zero_point=7, rounding=mode)
        bound = ok(ev.encode(plan, [DeviceRegion(BASE, n * ITEM[dtype])], [DeviceRegion(BASE + 0x10_0000 - n, n)]))
        out = []
        with open_device("model", size=1 << 20, base=BASE) as model:
            for device in (kernel, model):
                device.write(BASE, bits.astype(f"<u{ITEM[dtype]}").tobytes())
                device.write(BASE + 0x10_0000 - n, bytes([0xA5]) * n)
                done = device.submit(bound).result(timeout=600)
                out.append((device.read(BASE + 0x10_0000 - n, n), done))
        assert out[0] == out[1], (n, contiguous_strides((n,), ITEM[dtype]))


# ---- without a runtime ------------------------------------------------------------------

def test_without_a_runtime_the_opencl_engine_says_what_to_install(monkeypatch):
    monkeypatch.setattr(opencl, "_runtime", None)
    monkeypatch.setitem(sys.modules, "pyopencl", None)  # import pyopencl fails
    with pytest.raises(RuntimeError, match="pocl-opencl-icd") as info:
        sk.ev74.Device(size=1 << 16, engine="opencl")
    assert "pip install pyopencl" in str(info.value)


def test_an_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine"):
        sk.ev74.Device(size=1 << 16, engine="cuda")


def test_the_engine_is_reported(kernel):
    opencl_or_skip()
    assert kernel.engine == "opencl"
    with sk.ev74.Device(size=1 << 16) as model:
        assert model.engine == "model"
