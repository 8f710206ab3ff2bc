"""EV74 conformance vectors (simakernels.ev74.vectors, `python -m
simakernels ev74-vectors`): properties of the generator, not of one run.

* Every case of the quick kit (and, in the slow part, the full kit) is
  checked against the independent oracle: the descriptor decoded, each
  element's input bits read from the input region and quantized by
  tests/oracle, each byte the oracle does not own equal to the initial
  region's sentinel.
* The host device model runs every case and its dumps pass `--check`;
  one changed byte fails it, naming the case and the offset, and a missing
  dump fails it.
* The kit covers what the specification asks: all 12 entries, the
  vector/direct/DMA boundaries (every unit kind of the device model),
  scatter, rank 0..6, address phases, one packet rebound to two region
  pairs, gaps.
* The full kit (slow part): every case against the oracle
  and the device model.

The bytes themselves (the same on every machine) and the sizes are
test_ev74_vectors_bytes.py's.
"""
import collections

import numpy as np
import pytest

import simakernels as sk
from simakernels import cli
from oracle.formats import BFLOAT16, BINARY16, BINARY32
from oracle.quant import quant_many, quant_table
from simakernels.ev74 import descriptor as wire
from simakernels.ev74 import quant as ev_quant
from simakernels.ev74 import vectors
from support.ev74_helpers import opencl_or_skip
from support.ev74_kit import input_offsets, output_offsets, run_on_device

FORMATS = {sk.DType.FLOAT32: BINARY32, sk.DType.BFLOAT16: BFLOAT16, sk.DType.FLOAT16: BINARY16}
WORDS = {sk.DType.FLOAT32: "<u4", sk.DType.BFLOAT16: "<u2", sk.DType.FLOAT16: "<u2"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick-kit")
    return out, vectors.write(out, quick=True)


def oracle_report(kit, case):
    """None when the expected region is what the oracle gives, else what differs."""
    desc = ev_quant.decode(bytes.fromhex(case["descriptor"]))
    assert not isinstance(desc, sk.Error), desc
    assert desc.bound and desc.count == int(np.prod(desc.extents))
    inputs = (kit / case["input"]["file"]).read_bytes()
    initial = np.frombuffer((kit / case["output"]["initial"]).read_bytes(), np.uint8)
    expected = np.frombuffer((kit / case["output"]["expected"]).read_bytes(), np.uint8)
    if initial.size != expected.size or np.unique(initial).size != 1:
        return "the initial region is not one sentinel byte repeated, or its size differs"
    in_at, out_at = input_offsets(case, desc), output_offsets(case, desc)
    item = desc.conversion.itemsize
    if in_at.min() < 0 or in_at.max() + item > len(inputs) or out_at.min() < 0 or out_at.max() >= expected.size:
        return "an element lies outside its region"
    words = np.frombuffer(inputs, np.uint8)[in_at[:, None] + np.arange(item)].copy().view(WORDS[desc.conversion])
    fmt = FORMATS[desc.conversion]
    if desc.conversion is sk.DType.FLOAT32 or words.size < 4096:  # a 16-bit table pays off for large cases only
        want = quant_many(words.reshape(-1), fmt, desc.multiplier_bits, desc.zero_point, desc.rounding.name.lower())
    else:
        table = quant_table(fmt, desc.multiplier_bits, desc.zero_point, desc.rounding.name.lower())
        want = [table[w] for w in words.reshape(-1)]
    oracle = initial.copy()
    oracle[out_at] = np.array(want, np.int64).astype(np.int8).view(np.uint8)
    diff = np.flatnonzero(oracle != expected)
    return None if diff.size == 0 else f"{diff.size} bytes differ from the oracle, first at offset {diff[0]}"


Result = collections.namedtuple("Result", "returncode stdout stderr")


def check_command(capsys, kit, results):
    """`python -m simakernels ev74-vectors --check kit results`, in process."""
    capsys.readouterr()
    status = cli.main(["ev74-vectors", "--check", str(kit), str(results)])
    out, err = capsys.readouterr()
    return Result(status, out, err)


def test_every_quick_case_is_what_the_oracle_gives(quick):
    kit, manifest = quick
    failures = {c["id"]: r for c in manifest["cases"] if (r := oracle_report(kit, c)) is not None}
    assert not failures, failures


def test_the_device_model_passes_the_quick_kit_and_check_names_a_changed_byte(quick, tmp_path, capsys):
    kit, manifest = quick
    kinds = run_on_device(kit, manifest, tmp_path / "results")
    assert set().union(*kinds.values()) == {"dma", "vector", "scatter"}
    passed = check_command(capsys, kit, tmp_path / "results")
    n = len(manifest["cases"])
    assert passed.returncode == 0 and f"{n} of {n} cases match; 0 failed" in passed.stdout, passed.stdout

    # One byte of one element changed, in a case with a gap and a DMA run.
    case = next(c for c in manifest["cases"] if c["id"].startswith("rows-float32") and "dma" in kinds[c["id"]])
    dump = tmp_path / "results" / f"{case['id']}.bin"
    desc = ev_quant.decode(bytes.fromhex(case["descriptor"]))
    offset = desc.output_address - case["output"]["address"] + desc.output_strides[0] + 5  # row 1, element 5
    data = bytearray(dump.read_bytes())
    data[offset] ^= 0x40
    dump.write_bytes(bytes(data))
    failed = check_command(capsys, kit, tmp_path / "results")
    assert failed.returncode == 1
    lines = [line for line in failed.stdout.splitlines() if line.startswith("FAIL")]
    assert len(lines) == 1 and lines[0].startswith(f"FAIL {case['id']}: offset {offset} "), failed.stdout
    assert "element (1, 5)" in lines[0] and f"found {data[offset]:#04x}" in lines[0], lines[0]

    # A gap byte written: named as such.
    data[offset] ^= 0x40
    gap = desc.output_address - case["output"]["address"] + desc.extents[1]  # just past row 0
    data[gap] ^= 0xFF
    dump.write_bytes(bytes(data))
    failed = check_command(capsys, kit, tmp_path / "results")
    assert failed.returncode == 1 and "a byte no element owns" in failed.stdout, failed.stdout

    dump.unlink()
    missing = check_command(capsys, kit, tmp_path / "results")
    assert missing.returncode == 1 and f"FAIL {case['id']}: missing dump" in missing.stdout, missing.stdout
    assert f"{n - 1} of {n} cases match; 1 failed" in missing.stdout


def test_the_kernel_passes_the_quick_kit_through_the_cli(quick, tmp_path, capsys):
    """`ev74-vectors --run OUT RESULTS --engine opencl` runs every case on
    the kernel; --check passes and the dumps equal the model's."""
    opencl_or_skip()
    kit, manifest = quick
    capsys.readouterr()
    status = cli.main(["ev74-vectors", "--run", str(kit), str(tmp_path / "kernel"), "--engine", "opencl"])
    out = capsys.readouterr().out
    n = len(manifest["cases"])
    assert status == 0 and f"{n} cases run on the opencl engine" in out, out
    passed = check_command(capsys, kit, tmp_path / "kernel")
    assert passed.returncode == 0 and f"{n} of {n} cases match; 0 failed" in passed.stdout, passed.stdout
    kinds = run_on_device(kit, manifest, tmp_path / "model")
    assert set().union(*kinds.values()) == {"dma", "vector", "scatter"}
    for case in manifest["cases"]:
        name = f"{case['id']}.bin"
        assert (tmp_path / "kernel" / name).read_bytes() == (tmp_path / "model" / name).read_bytes(), case["id"]


def test_run_refuses_bad_arguments(quick, tmp_path, capsys):
    kit, _ = quick
    for argv in (["--run", str(kit)], ["--run", "--check", str(kit), str(tmp_path)],
                 ["--run", str(tmp_path / "none"), str(tmp_path / "out")]):
        capsys.readouterr()
        assert cli.main(["ev74-vectors", *argv]) == 2, argv
        assert "ev74-vectors" in capsys.readouterr().err


def test_check_refuses_a_damaged_kit(quick, tmp_path, capsys):
    kit, manifest = quick
    copy = tmp_path / "kit"
    copy.mkdir()
    for f in kit.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    name = manifest["cases"][0]["output"]["expected"]
    data = bytearray((copy / name).read_bytes())
    data[0] ^= 1
    (copy / name).write_bytes(bytes(data))
    result = check_command(capsys, copy, tmp_path)
    assert result.returncode == 2 and f"{name}: sha256 differs" in result.stderr, result.stderr


def test_the_kit_covers_what_the_specification_asks(quick):
    kit, manifest = quick
    covers = collections.Counter(tag for c in manifest["cases"] for tag in c["covers"])
    entries = {f"entry-{d.name.lower()}-{r.name.lower()}" for d in vectors.INPUTS for r in vectors.ROUNDINGS}
    assert len(entries) == 12 and entries <= set(covers)
    for tag in ("nan-payloads", "infinities", "signed-zeros", "subnormal-inputs", "subnormal-multiplier",
                "power-of-two-multiplier", "products-underflow", "saturation", "extreme-zero-point",
                "ties-nearest_even", "ties-toward_zero", "ties-toward_positive", "ties-toward_negative",
                "scalar-tail", "direct-vector", "dma-threshold", "dma-block", "padded-rows", "scatter",
                "transposed", "address-phase", "repeated-invocation", "untouched-gaps", "spare-capacity",
                *(f"rank-{r}" for r in range(7))):
        assert covers[tag] > 0, tag
    descriptors = {c["id"]: ev_quant.decode(bytes.fromhex(c["descriptor"])) for c in manifest["cases"]}
    counts = {(d.conversion, d.count) for d in descriptors.values()}
    for dtype, block in vectors.DMA_BLOCK.items():
        for n in (1, 15, 16, 17, 127, 128, 129, block - 1, block, block + 1):
            assert (dtype, n) in counts, (dtype, n)
    assert {d.rank for d in descriptors.values()} == set(range(1, 7))  # rank 0 is lowered to rank 1
    assert any(d.flags & wire.FLAG_SCALAR for d in descriptors.values())


def test_a_rebound_packet_differs_only_in_its_addresses(quick):
    kit, manifest = quick
    by_id = {c["id"]: c for c in manifest["cases"]}
    pairs = [(by_id[t.split(":", 1)[1]], c) for c in manifest["cases"] for t in c["covers"] if t.startswith("rebinds:")]
    assert len(pairs) == 2 * len(vectors.INPUTS)
    for first, second in pairs:
        a, b = bytes.fromhex(first["descriptor"]), bytes.fromhex(second["descriptor"])
        assert wire.with_addresses(a, 0, 0) == wire.with_addresses(b, 0, 0)
        assert first["input"]["address"] != second["input"]["address"]
        assert first["output"]["address"] != second["output"]["address"]
        assert (kit / first["input"]["file"]).read_bytes() != (kit / second["input"]["file"]).read_bytes()


def test_every_element_byte_can_show_an_unwritten_element(quick):
    """The sentinel of each case is a byte no element's expected value
    equals, whenever the 256 byte values are not all expected."""
    kit, manifest = quick
    for case in manifest["cases"]:
        initial = (kit / case["output"]["initial"]).read_bytes()
        desc = ev_quant.decode(bytes.fromhex(case["descriptor"]))
        at = output_offsets(case, desc)
        values = set(np.frombuffer((kit / case["output"]["expected"]).read_bytes(), np.uint8)[at].tolist())
        assert len(values) == 256 or initial[0] not in values, case["id"]


@pytest.mark.slow
def test_the_full_kit_matches_the_oracle_the_device_model_and_the_kernel(tmp_path):
    kit = tmp_path / "kit"
    manifest = vectors.write(kit)
    assert {tag for c in manifest["cases"] for tag in c["covers"]} >= {"all-patterns", "dma-block"}
    failures = {c["id"]: r for c in manifest["cases"] if (r := oracle_report(kit, c)) is not None}
    assert not failures, failures
    run_on_device(kit, manifest, tmp_path / "results")
    n, failed = vectors.check(kit, tmp_path / "results")
    assert n == len(manifest["cases"]) and not failed, failed[:3]
    opencl_or_skip()
    run_on_device(kit, manifest, tmp_path / "kernel", engine="opencl")
    n, failed = vectors.check(kit, tmp_path / "kernel")
    assert n == len(manifest["cases"]) and not failed, failed[:3]
