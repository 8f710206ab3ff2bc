"""What ``mypy --strict`` says of user code written as the README shows it:
the contract layer after the isinstance check passes; a string where a
multiplier goes, or a plan not narrowed from ``Plan | Error``, fails."""
from __future__ import annotations

import pathlib
import sys
import textwrap

import pytest

GOOD = '''
import numpy as np
import simakernels as sk

spec_in = sk.TensorSpec((2, 3), sk.DType.FLOAT32)
spec_out = sk.TensorSpec((2, 3), sk.DType.BFLOAT16)
plan = sk.a65.cast.check_inference(sk.ops.cast.Request([spec_in], [spec_out]))
assert not isinstance(plan, sk.Error), plan
need = plan.output_requirements()[0]
dst = bytearray(need.nbytes)
error = sk.a65.cast.execute(plan, [np.zeros((2, 3), np.float32)], [dst])
w = np.zeros((4, 3), np.float32)
qp = sk.choose_qparams(w, axis=0)
q: np.ndarray = sk.quantize(w, qp)
y: np.ndarray = sk.dequantize(q, qp)
q2 = sk.quantize(w, 2.5, 3)
q3 = sk.quantize(w, [1.0, 2.0, 3.0, 4.0], zero_point=[0, 1, 2, 3], axis=0)
y2 = sk.dequantize(q, np.float32(0.5), out=np.empty((4, 3), np.float32))
'''

BAD = {
    "a string multiplier": "sk.quantize(w, 'oops')",
    "a string scale": "sk.dequantize(np.zeros(3, np.int8), 'oops')",
    "an unnarrowed plan": "sk.a65.cast.execute(sk.a65.cast.check_inference(sk.ops.cast.Request([spec_in], "
                          "[spec_out])), [w], [bytearray(12)])",
}


def mypy(tmp_path: pathlib.Path, source: str):
    api = pytest.importorskip("mypy.api")
    path = tmp_path / "user_code.py"
    path.write_text(textwrap.dedent(source))
    return api.run(["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                    "--python-executable", sys.executable, str(path)])


def test_readme_style_code_type_checks(tmp_path):
    out, err, status = mypy(tmp_path, GOOD)
    assert status == 0, out + err


def test_wrong_arguments_fail_type_checking(tmp_path):
    source = GOOD + "".join(f"\nbad_{i} = {call}  # {name}" for i, (name, call) in enumerate(BAD.items()))
    out, err, status = mypy(tmp_path, source)
    assert status == 1
    flagged = {int(line.split(":")[1]) for line in out.splitlines() if ": error:" in line}
    first = len(textwrap.dedent(GOOD).splitlines()) + 2
    assert flagged == set(range(first, first + len(BAD))), out
