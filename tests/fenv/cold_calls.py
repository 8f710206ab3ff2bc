"""Child script of test_cold_calls.py: every public call once, in a fresh
process, each with parameters no earlier call used (so plans, parameter
conversions and error messages are all built cold), under the FP state named
on the command line.

    python cold_calls.py ROUNDING FTZ DAZ TRAP[,TRAP...]|- OUT.pickle

Everything the calls need (arrays, numbers, compiled lambdas) is made before
the state is entered; inside it only library calls run.  Modules are
counted from the package's import on: a call path must import nothing.  Each call's outcome
is recorded as plain data (array bytes, exception type, error code and
message) and written after the state is left, with the modules imported
inside it: importing runs Python float code (os.stat times), so a call path
must import nothing.
"""
from __future__ import annotations

import faulthandler
import fractions
import pathlib
import pickle
import sys
from typing import Any, Callable, List, Tuple

import ml_dtypes
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/: the shared test support
from support.dlpack_helpers import DLPackOnly  # noqa: E402

import simakernels as sk
from simakernels.fenv import Rounding, Trap
from simakernels.formats import hurray

faulthandler.enable()  # a SIGFPE names the Python line in the parent's report
# Modules loaded by importing the package; any other module a call loads is
# a lazy import on a call path (the harness itself loads none).
BASELINE = frozenset(sys.modules)

F32 = np.float32([[0.37, -1.5, 3.0e-39, np.nan], [np.inf, -0.0, 127.6, -300.0]])
BF16 = F32.astype(ml_dtypes.bfloat16)
F16 = np.float16([[1.0e-7, -2.5, 65504.0, np.nan], [0.125, -np.inf, 3.0, -0.0]])
I8 = np.int8([[-128, -3, 0, 127], [5, 6, -7, 8]])
QP = sk.choose_qparams(np.float32([-1.0, 0.5, 2.0]))  # made in the default state: an input here
QP_AXIS = sk.choose_qparams(F32[:, :2] * 3, axis=1)
OPS = sk.ops


def _request(op: Any, dtype_in: Any, dtype_out: Any, params: Any) -> Any:
    spec_in, spec_out = sk.TensorSpec((2, 4), dtype_in), sk.TensorSpec((2, 4), dtype_out)
    return op.Request([spec_in], [spec_out], params) if params is not None else op.Request([spec_in], [spec_out])


def _contract(op_module: Any, backend: Any, request: Callable[[], Any], src: np.ndarray, dst: np.ndarray) -> Any:
    plan = backend.check_inference(request())
    if isinstance(plan, sk.Error):
        return plan
    return backend.execute(plan, [src], [dst])


def calls() -> List[Tuple[str, str, Callable[[], Any]]]:
    """(label, operation of the FP contract, call).  Numbers are built here,
    outside the state."""
    third = fractions.Fraction(1, 3)
    half16, tiny32 = np.float16(0.5), np.float32(1e-40)
    bf_two = ml_dtypes.bfloat16(2.0)
    out_bf16 = np.empty((2, 4), ml_dtypes.bfloat16)
    dst_i8, dst_f32 = np.empty((2, 4), np.int8), np.empty((2, 4), np.float32)
    axis_multipliers, axis_scales = [0.37, 1.1, 2.3, 7.7], np.float32([0.1, 0.2, 0.3, 0.4])
    descriptor = hurray.PerTensorAffine(0.75, 3).encode()
    storage_u8 = np.uint8([0, 1, 200, 255])
    masked = np.ma.masked_array(F32)
    return [
        # Cast: bits only, any state.
        ("cast f32->bf16", "cast", lambda: sk.cast(F32, "bfloat16")),
        ("cast bf16->f32", "cast", lambda: sk.cast(BF16, np.float32)),
        ("cast list", "cast", lambda: sk.cast([[1.0]], "bfloat16")),
        ("cast dlpack", "cast", lambda: sk.cast(DLPackOnly(F32), "bfloat16")),
        # Quant: parameters of every kind, converted cold.
        ("quantize 0.37", "quant", lambda: sk.quantize(F32, 0.37, 3)),
        ("quantize fraction", "quant", lambda: sk.quantize(F32, third, rounding="toward_zero")),
        ("quantize float16 multiplier", "quant", lambda: sk.quantize(BF16, half16)),
        ("quantize subnormal multiplier", "quant", lambda: sk.quantize(F16, tiny32, rounding="toward_negative")),
        ("quantize bfloat16 multiplier", "quant", lambda: sk.quantize(F16, bf_two)),
        ("quantize int multiplier", "quant", lambda: sk.quantize(F32, 3)),
        ("quantize axis", "quant", lambda: sk.quantize(F32, axis_multipliers, [0, 1, 2, 3], axis=1)),
        ("quantize qparams", "quant", lambda: sk.quantize(F32, QP)),
        ("quantize qparams axis", "quant", lambda: sk.quantize(F32[:, :2], QP_AXIS)),
        ("quantize dlpack", "quant", lambda: sk.quantize(DLPackOnly(F32), 0.71)),
        ("quantize out", "quant", lambda: sk.quantize(F32, 0.73, out=dst_i8)),
        # Dequant.
        ("dequantize 0.37", "dequant", lambda: sk.dequantize(I8, 0.37, -3)),
        ("dequantize bf16 out", "dequant", lambda: sk.dequantize(I8, 0.39, out=out_bf16)),
        ("dequantize axis", "dequant", lambda: sk.dequantize(I8, axis_scales, axis=1)),
        ("dequantize qparams", "dequant", lambda: sk.dequantize(I8, QP)),
        ("dequantize f32 out", "dequant", lambda: sk.dequantize(I8, 0.41, out=dst_f32)),
        # choose_qparams: bits only, any state.
        ("choose_qparams f32", "cast", lambda: sk.choose_qparams(F32)),
        ("choose_qparams f16 axis", "cast", lambda: sk.choose_qparams(F16, axis=0, symmetric=True)),
        ("choose_qparams bf16", "cast", lambda: sk.choose_qparams(BF16, axis=-1)),
        # The contract layer.
        ("a65 quant", "quant", lambda: _contract(
            OPS.quant, sk.a65.quant, lambda: _request(OPS.quant, sk.DType.FLOAT32, sk.DType.INT8,
                                                      OPS.quant.Params(0.43, 1)), F32, dst_i8)),
        ("a65 dequant", "dequant", lambda: _contract(
            OPS.dequant, sk.a65.dequant, lambda: _request(OPS.dequant, sk.DType.INT8, sk.DType.FLOAT32,
                                                          OPS.dequant.Params(0.47, 1)), I8, dst_f32)),
        ("a65 cast", "cast", lambda: _contract(
            OPS.cast, sk.a65.cast, lambda: _request(OPS.cast, sk.DType.FLOAT32, sk.DType.BFLOAT16, None),
            F32, out_bf16)),
        ("ev74 check_inference", "ev74", lambda: sk.ev74.quant.check_inference(
            _request(OPS.quant, sk.DType.FLOAT32, sk.DType.INT8, OPS.quant.Params(0.53)))),
        # Hurray.
        ("hurray descriptor", "ev74", lambda: hurray.PerTensorAffine(0.5, 2).encode()),
        ("hurray descriptor fraction", "ev74", lambda: hurray.PerTensorAffine(third).encode()),
        ("hurray decode", "ev74", lambda: hurray.PerTensorAffine.decode(descriptor, hurray.StorageType.UINT8)),
        ("hurray dequantize", "hurray", lambda: hurray.dequantize(
            storage_u8, hurray.PerTensorAffine(0.25, 3), hurray.StorageType.UINT8)),
        # Refusals: their messages format numbers.
        ("quantize negative", "quant", lambda: sk.quantize(F32, -0.37)),
        ("quantize nan", "quant", lambda: sk.quantize(F32, np.nan)),
        ("quantize inf", "quant", lambda: sk.quantize(F32, np.float32(np.inf))),
        ("quantize string", "quant", lambda: sk.quantize(F32, "1")),
        ("quantize zero point", "quant", lambda: sk.quantize(F32, 0.61, 1.5)),
        ("quantize axis entry", "quant", lambda: sk.quantize(F32, [0.5, -0.25, 1.0, 2.0], axis=1)),
        ("dequantize zero", "dequant", lambda: sk.dequantize(I8, 1e-50)),
        ("dequantize axis entry", "dequant", lambda: sk.dequantize(I8, [0.5, np.inf, 1.0, 2.0], axis=1)),
        ("hurray scale inf", "ev74", lambda: hurray.PerTensorAffine(1e39)),
        ("hurray scale string", "ev74", lambda: hurray.PerTensorAffine("1")),
        ("hurray bridge negative", "ev74", lambda: hurray.PerTensorAffine(-0.3).to_dequant_params()),
        ("choose_qparams float64", "cast", lambda: sk.choose_qparams(np.float64([1.5]))),
        ("quantize masked", "quant", lambda: sk.quantize(masked, 0.5)),
    ]


def outcome(result: Any) -> Any:
    """Plain data for a result: arrays by dtype, shape and bytes."""
    if isinstance(result, np.ndarray):
        return ("array", result.dtype.str, result.shape, result.tobytes())
    if isinstance(result, np.generic):
        return ("scalar", result.dtype.str, result.tobytes())
    if isinstance(result, sk.QParams):
        return ("qparams", tuple(outcome(getattr(result, f)) for f in ("scale", "zero_point", "multiplier")),
                result.axis, result.symmetric)
    if isinstance(result, sk.Error):
        return ("error value", result.code.name, result.message)
    if isinstance(result, (bytes, int, type(None))):
        return ("value", result)
    if isinstance(result, hurray.PerTensorAffine):
        return ("hurray", result.encode())
    if isinstance(result, tuple):
        return ("tuple", tuple(outcome(r) for r in result))
    return ("object", type(result).__name__)


def main() -> None:
    rounding, ftz, daz, traps, out = sys.argv[1:6]
    state = dict(rounding=Rounding[rounding], flush_to_zero=ftz == "1", denormals_are_zero=daz == "1",
                 traps={Trap[t] for t in traps.split(",")} if traps != "-" else set())
    todo = calls()
    raw: List[Tuple[str, str, Any]] = []
    with sk.testing.fp_environment(**state):
        for label, operation, call in todo:
            try:
                raw.append((label, operation, ("ok", call())))
            except Exception as exc:  # recorded, compared by the parent
                raw.append((label, operation, ("raised", exc)))
    imported = sorted(set(sys.modules) - BASELINE)
    records = []
    for label, operation, (kind, value) in raw:
        if kind == "ok":
            records.append((label, operation, outcome(value)))
        else:
            error = getattr(value, "error", None)
            records.append((label, operation, ("raised", type(value).__name__,
                                               error.code.name if error is not None else None, str(value))))
    with open(out, "wb") as f:
        pickle.dump({"records": records, "imported": imported}, f)


if __name__ == "__main__":
    main()
