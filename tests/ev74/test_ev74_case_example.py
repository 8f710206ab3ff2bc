"""examples/ev74_case.c, the C reader of an EV74 conformance kit for
firmware engineers without Python, built with the host's gcc by the exact
command its header comment gives (so the documented command keeps working)
and run on a quick kit written by ``vectors.write``.

For the first case of every "covers" tag (plus the first lowered scalar and
the first rank-6 case, whatever their tags):

* without a result file it exits 0 and prints the fields the Python decoder
  (``sk.ev74.quant.decode``) reads from the same descriptor, and the two
  regions with their files' sizes;
* a copy of the expected region is "ok" (exit 0);
* one changed byte of an element fails (exit 1) naming the case, the
  offset, the device address, both bytes and the element's index; a changed
  byte no element owns is named as such.

Then the refusals (exit 2): no such case, a result of the wrong size, a
missing result, a malformed manifest line, a descriptor the decoder refuses,
a region file too small for the descriptor's span, bad usage.
"""
import pathlib
import re
import shlex
import shutil
import struct
import subprocess

import numpy as np
import pytest

import simakernels as sk
from simakernels.ev74 import vectors
from support.ev74_kit import output_offsets

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "ev74_case.c"
CONVERSION = {sk.DType.FLOAT32: "FP32", sk.DType.BFLOAT16: "BF16", sk.DType.FLOAT16: "FP16"}
SCALAR = 1  # the descriptor's flag: a rank-0 request lowered to rank 1
GAP = ", a byte no element owns (gap or spare capacity: must come back unchanged)"
TIMEOUT = 60


def build_command(output):
    """The gcc command of the example's header comment, writing `output`."""
    comment = SOURCE.read_text(encoding="utf-8").split("*/", 1)[0]
    match = re.search(r"^ \*\s+(gcc .*?-o ev74_case)$", comment, re.M | re.S)
    assert match, "examples/ev74_case.c: no gcc command line in the header comment"
    words = shlex.split(re.sub(r"\\\n \*", " ", match[1]))
    assert words[-2:] == ["-o", "ev74_case"], words
    return words[:-1] + [str(output)]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if not SOURCE.is_file():
        pytest.skip(f"no {SOURCE}: this copy of tests/ runs without the source tree")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc on this host")
    output = tmp_path_factory.mktemp("ev74-case") / "ev74_case"
    result = subprocess.run(build_command(output), cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, f"gcc failed:\n{result.stderr}"
    return output


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    out = tmp_path_factory.mktemp("ev74-kit")
    return out, vectors.write(out, quick=True)


def run(program, *args):
    return subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, timeout=TIMEOUT)


def decoded(case):
    d = sk.ev74.quant.decode(bytes.fromhex(case["descriptor"]))
    assert not isinstance(d, sk.Error), f"{case['id']}: {d}"
    return d


def selected(manifest):
    """The first case of each tag, the first lowered scalar and the first rank-6 case, in manifest order."""
    chosen = {}
    for case in manifest["cases"]:
        for tag in case["covers"]:
            chosen.setdefault(tag, case["id"])
        d = decoded(case)
        if d.flags & SCALAR:
            chosen.setdefault("<scalar>", case["id"])
        if d.rank == 6:
            chosen.setdefault("<rank 6>", case["id"])
    ids = set(chosen.values())
    return [case for case in manifest["cases"] if case["id"] in ids]


def report(root, case, d):
    """The lines the example prints for `case`: the Python decoder's view."""
    def axes(values):
        return "[" + ", ".join(str(v) for v in values) + "]"

    (multiplier,) = struct.unpack("<f", struct.pack("<I", d.multiplier_bits))
    size = {role: (root / name).stat().st_size for role, name in
            (("input", case["input"]["file"]), ("expected", case["output"]["expected"]))}
    rows = [
        ("case", case["id"]),
        ("entry", f"{d.entry}: {CONVERSION[d.conversion]}, {d.rounding.name.lower()}"),
        ("rank", d.rank),
        ("extents", axes(d.extents)),
        ("input_strides", axes(d.input_strides) + " bytes"),
        ("output_strides", axes(d.output_strides) + " bytes"),
        ("count", d.count),
        ("input_span", f"{d.input_span} bytes"),
        ("output_span", f"{d.output_span} bytes"),
        ("input_address", f"0x{d.input_address:08x}"),
        ("output_address", f"0x{d.output_address:08x}"),
        ("multiplier", f"0x{d.multiplier_bits:08x} ({'%.9g' % multiplier})"),
        ("zero_point", d.zero_point),
        ("flags", f"{d.flags:#x}" + (" (scalar: a rank-0 request lowered to rank 1)" if d.flags & SCALAR else "")),
        ("input_region", f"0x{case['input']['address']:08x}, {size['input']} bytes ({case['input']['file']})"),
        ("output_region", f"0x{case['output']['address']:08x}, {size['expected']} bytes "
                          f"({case['output']['initial']}, {case['output']['expected']})"),
    ]
    return [f"{name:<16}{value}" for name, value in rows]


def test_fields_ok_and_first_difference(program, kit, tmp_path):
    root, manifest = kit
    cases = selected(manifest)
    assert len(cases) >= 10
    for case in cases:
        d = decoded(case)
        printed = run(program, root, case["id"])
        assert printed.returncode == 0, f"{case['id']}:\n{printed.stdout}{printed.stderr}"
        assert printed.stdout.splitlines() == report(root, case, d), case["id"]

        expected = (root / case["output"]["expected"]).read_bytes()
        result = tmp_path / f"{case['id']}.bin"
        result.write_bytes(expected)
        ok = run(program, root, case["id"], result)
        assert ok.returncode == 0, f"{case['id']}:\n{ok.stdout}{ok.stderr}"
        assert ok.stdout.splitlines()[-1] == f"ok {case['id']}: {len(expected)} bytes match"

        offsets = output_offsets(case, d)
        changes = []
        if d.count:
            element = d.count // 2
            index = ", ".join(str(i) for i in np.unravel_index(element, d.extents))
            changes.append((int(offsets[element]), f", element [{index}]"))
        gaps = np.setdiff1d(np.arange(len(expected)), offsets)
        if gaps.size:
            changes.append((int(gaps[-1]), GAP))
        for offset, what in changes:
            damaged = bytearray(expected)
            damaged[offset] ^= 0xFF
            result.write_bytes(damaged)
            failed = run(program, root, case["id"], result)
            address = case["output"]["address"] + offset
            assert failed.returncode == 1, f"{case['id']}:\n{failed.stdout}{failed.stderr}"
            assert failed.stdout.splitlines()[-1] == (
                f"FAIL {case['id']}: offset {offset} (device address 0x{address:08x}): "
                f"expected 0x{expected[offset]:02x} found 0x{damaged[offset]:02x}{what}; "
                f"1 of {len(expected)} bytes differ")


def test_refusals(program, kit, tmp_path):
    root, manifest = kit
    case = next(c for c in manifest["cases"] if decoded(c).count > 1)
    ident, expected = case["id"], (root / case["output"]["expected"]).read_bytes()

    def refused(directory, *args, says):
        result = run(program, directory, *args)
        assert result.returncode == 2, f"{args}:\n{result.stdout}{result.stderr}"
        assert says in result.stderr, result.stderr
        assert not result.stdout.startswith(("ok", "FAIL")), result.stdout

    refused(root, "no-such-case", says="no case no-such-case in manifest.json")
    refused(root, ident[:-1], says=f"no case {ident[:-1]} in manifest.json")  # ids match whole
    short = tmp_path / "short.bin"
    short.write_bytes(expected[:-1])
    refused(root, ident, short, says=f"has {len(expected) - 1} bytes, expected {len(expected)}")
    refused(root, ident, tmp_path / "missing.bin", says="cannot read")
    refused(tmp_path / "no-kit", ident, says="cannot read")
    for args in ((root,), (root, ident, short, "extra")):
        refused(*args, says="usage: ev74_case OUT CASE_ID [RESULT_FILE]")

    # A one-case copy of the kit, then one thing wrong with it at a time.
    line = next(text for text in (root / "manifest.json").read_text().splitlines() if f'"id": "{ident}"' in text)
    head = '{\n "format": "simakernels-ev74-vectors",\n "version": 1,\n "cases": [\n'

    def copy(name, case_line, files=None):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "manifest.json").write_text(head + case_line + "\n ]\n}\n")
        for role in (case["input"]["file"], case["output"]["initial"], case["output"]["expected"]):
            (directory / role).write_bytes((files or {}).get(role, (root / role).read_bytes()))
        return directory

    assert run(program, copy("same", line), ident).returncode == 0
    refused(copy("no-descriptor", line.replace('"descriptor"', '"descriptor_"')), ident, says="malformed line")
    refused(copy("no-address", line.replace('"address": ', '"address": x')), ident, says="malformed line")
    bad_magic = line.replace(case["descriptor"], "00" + case["descriptor"][2:])
    refused(copy("bad-magic", bad_magic), ident, says="the decoder refuses the descriptor: field magic (offset 0)")
    wrong = copy("other-format", line)
    (wrong / "manifest.json").write_text(head.replace("vectors", "other") + line + "\n ]\n}\n")
    refused(wrong, ident, says="not a version 1 simakernels-ev74-vectors manifest")
    span = decoded(case).input_span
    small = {case["input"]["file"]: (root / case["input"]["file"]).read_bytes()[:span // 2]}
    refused(copy("small-input", line, small), ident, says=f"does not hold the {span}-byte span of element 0")
