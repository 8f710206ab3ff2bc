"""The per-call table: what one call costs at 64 elements, where fixed
overhead is everything (absolute microseconds per call)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import ml_dtypes
import numpy as np

from .. import a65, arrays
from ..core import DType
from .cases import DEQUANT_ZP, MULTIPLIER, OPS, QUANT_ZP, SCALE, make_parent, ours, request
from .timing import measure, median

N = 64
COPY = "np.copyto(out, x), 64 fp32"  # the reference: moving the bytes of one FP32 port


def runners(found: Sequence[Any]) -> Dict[str, Callable[[], object]]:
    ops = {op.key: op for op in OPS}
    i8 = make_parent(DType.INT8, (N,))
    f32 = make_parent(DType.FLOAT32, (N,))
    out_f32, out_bf16, out_i8 = np.empty(N, np.float32), np.empty(N, ml_dtypes.bfloat16), np.empty(N, np.int8)
    copy_out, zp_f32 = np.empty(N, np.float32), np.float32(DEQUANT_ZP)
    calls = {
        "sk.a65.dequant.execute (plan), int8->fp32": ours(ops["dequant-int8-fp32"], i8)[0].call,
        "  sk.a65.dequant.execute, bound as arrays": _with_arrays(a65.dequant, ops["dequant-int8-fp32"], i8, out_f32),
        "sk.dequantize(x, scale, zp, out=out)": lambda: arrays.dequantize(i8, SCALE, DEQUANT_ZP, out=out_f32),
        "sk.a65.cast.execute (plan), fp32->bf16": ours(ops["cast-fp32-bf16"], f32)[0].call,
        "  sk.a65.cast.execute, bound as arrays": _with_arrays(a65.cast, ops["cast-fp32-bf16"], f32, out_bf16),
        "sk.cast(x, bfloat16, out=out)": lambda: arrays.cast(f32, DType.BFLOAT16, out=out_bf16),
        "sk.a65.quant.execute (plan), fp32->int8": ours(ops["quant-fp32-int8"], f32)[0].call,
        "  sk.a65.quant.execute, bound as arrays": _with_arrays(a65.quant, ops["quant-fp32-int8"], f32, out_i8),
        "sk.quantize(x, m, zp, out=out)": lambda: arrays.quantize(f32, MULTIPLIER, QUANT_ZP, out=out_i8),
        "np.multiply(x, s, out=out)": lambda: np.multiply(f32, SCALE, out=out_f32),
        "sk.cast(x, bfloat16)": lambda: arrays.cast(f32, DType.BFLOAT16),
        "ml_dtypes: x.astype(bfloat16)": lambda: f32.astype(ml_dtypes.bfloat16),
        "sk.dequantize(x, scale, zp)": lambda: arrays.dequantize(i8, SCALE, DEQUANT_ZP),
        "numpy: (x.astype(f32) - zp) * scale": lambda: (i8.astype(np.float32) - zp_f32) * SCALE,
        "sk.quantize(x, m, zp)": lambda: arrays.quantize(f32, MULTIPLIER, QUANT_ZP),
        "numpy: clip(rint(x * m) + zp).astype(i8)":
            lambda: np.clip(np.rint(f32 * MULTIPLIER) + QUANT_ZP, -128, 127).astype(np.int8),
        COPY: lambda: np.copyto(copy_out, f32),
    }
    # The same call on arrays of other libraries (DLPack, zero-copy): a
    # wrapper offering only the protocol, and PyTorch tensors with --peers.
    only_in, only_out = _DLPackOnly(f32), _DLPackOnly(out_i8)
    calls["  the same, DLPack-only arrays in and out"] = \
        lambda: arrays.quantize(only_in, MULTIPLIER, QUANT_ZP, out=only_out)
    torch = next((peer.torch for peer in found if peer.name == "torch"), None)
    if torch is not None:
        t_in, t_out = torch.from_numpy(f32), torch.from_numpy(out_i8)
        calls["  the same, torch tensors in and out"] = lambda: arrays.quantize(t_in, MULTIPLIER, QUANT_ZP, out=t_out)
    for peer in found:
        runner = peer.runner(ops["dequant-int8-fp32"], "dense", i8, i8)
        label = "torch.dequantize(qt)" if peer.name == "torch" else f"{peer.name}: DequantizeLinear"
        calls[label] = runner.call
    return calls


class _DLPackOnly:
    """An array seen only through DLPack (what a foreign tensor offers)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()


def _with_arrays(backend: Any, op: Any, x: np.ndarray, out: np.ndarray) -> Callable[[], object]:
    """``execute`` with the arrays themselves as bindings (each call takes
    their buffers), where the row above binds host views made once."""
    plan, execute = backend.check_inference(request(op, x, out)), backend.execute
    return lambda: execute(plan, [x], [out])


def run(found: Sequence[Any], budget_s: float) -> List[Dict[str, Any]]:
    samples = measure(runners(found), budget_s)
    copy = median(samples[COPY])
    return [{"name": name, "us_per_call": median(s) * 1e6, "of_copyto": median(s) / copy, "samples_s": s}
            for name, s in samples.items()]
