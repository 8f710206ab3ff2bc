"""``bench --qparams``: ``sk.choose_qparams`` and ``sk.quantize_dynamic``
against ``sk.quantize`` on the same FLOAT32 tensor (per tensor, per axis on
the ``axis-outer`` and ``axis-inner`` layouts, blocked on ``block32-inner``
of :mod:`simakernels.bench.cases`), with the range pass alone
(``qparams._keys``, the native csrc/range) beside them: the rule that
follows it is measured by the difference.  Dynamic quantization is also set
against what users of other libraries run per inference: the range in NumPy
then NumPy's quantize expression (XNNPACK's qd8 recipe: min, max, scale,
quantize), and ONNX Runtime's ``DynamicQuantizeLinear`` (per tensor, UINT8)
where installed.  Targets: choose_qparams at most ``TARGET`` x quantize,
quantize_dynamic at most ``DYNAMIC_TARGET`` x quantize."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from .. import arrays, qparams
from ..core import DType
from . import cases
from .timing import measure, median

SIZES = ("256K", "16M")
LAYOUTS = ("dense", "axis-outer", "axis-inner", "block32-inner")
TARGET = 1.2
DYNAMIC_TARGET = 2.2


def run(sizes: Sequence[int], budget_s: float) -> List[Dict[str, Any]]:
    rows = []
    for n in sizes:
        for layout in LAYOUTS:
            x = cases.make_parent(DType.FLOAT32, cases.parent_shape(n, layout))
            rows.append(_row(layout, n, x, cases.axis_of(layout), cases.block_of(layout), budget_s))
    return rows


def numpy_dynamic(x: np.ndarray, axis: Optional[int], block: Optional[int]) -> Callable[[], object]:
    """The range then the quantize expression in NumPy (asymmetric INT8,
    the range widened to include 0), per tensor, per axis or per block."""
    reduce_over: Any = None  # per tensor
    if block is not None and axis is not None:  # the axis split into (blocks, block): over each block
        x = x.reshape(x.shape[:axis] + (x.shape[axis] // block, block) + x.shape[axis + 1:])
        reduce_over = axis + 1
    elif axis is not None:  # over every other axis
        reduce_over = tuple(a for a in range(x.ndim) if a != axis)

    def run() -> object:
        least = np.minimum(x.min(axis=reduce_over, keepdims=True), 0)
        greatest = np.maximum(x.max(axis=reduce_over, keepdims=True), 0)
        scale = np.maximum((greatest - least) / np.float32(255), np.float32(1e-30))
        zero_point = np.rint(np.float32(-128) - least / scale)
        t = np.rint(x * (np.float32(1) / scale))
        t += zero_point
        np.clip(t, -128, 127, out=t)
        return t.astype(np.int8)
    return run


def ort_dynamic(x: np.ndarray) -> Optional[Callable[[], object]]:
    """ONNX Runtime's DynamicQuantizeLinear (per tensor, UINT8) on one
    thread, or None when it is not installed."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    graph = helper.make_graph([node], "dynamic", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, None),
                               helper.make_tensor_value_info("s", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("z", TensorProto.UINT8, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    flat = np.ascontiguousarray(x)
    return lambda: session.run(None, {"x": flat})


def _row(layout: str, n: int, x: Any, axis: Any, block: Any, budget_s: float) -> Dict[str, Any]:
    qp = qparams.choose_qparams(x, axis=axis, block_size=block)
    out = np.empty(x.shape, np.int8)
    runners = {
        "quantize": lambda: arrays.quantize(x, qp, out=out),
        "choose_qparams": lambda: qparams.choose_qparams(x, axis=axis, block_size=block),
        "range pass": lambda: qparams._keys(x, axis, block or 0),
        "quantize_dynamic": lambda: qparams.quantize_dynamic(x, axis=axis, block_size=block, out=out),
        "numpy range+quantize": numpy_dynamic(x, axis, block),
    }
    ort = ort_dynamic(x) if axis is None else None
    if ort is not None:
        runners["onnxruntime DynamicQuantizeLinear"] = ort
    samples = measure(runners, budget_s)
    ns = {name: median(s) * 1e9 / n for name, s in samples.items()}
    return {"layout": layout, "size": cases.size_label(n), "n": n, "axis": axis, "block_size": block,
            "channels": None if axis is None else x.shape[axis], "ns_per_elem": ns}


def table(rows: Sequence[Dict[str, Any]]) -> str:
    head = (f"{'fp32 -> int8':<14}{'layout':<15}{'size':>6}{'quantize ns':>13}{'choose ns':>11}"
            f"{'/quantize':>11}{'range ns':>10}{'/quantize':>11}{'dynamic ns':>12}{'/quantize':>11}"
            f"{'numpy ns':>10}{'ort ns':>8}  targets")
    lines = ["", head, "-" * len(head)]
    for r in rows:
        ns = r["ns_per_elem"]
        q, c, k, d = ns["quantize"], ns["choose_qparams"], ns["range pass"], ns["quantize_dynamic"]
        ort = ns.get("onnxruntime DynamicQuantizeLinear")
        ok = "met" if c <= TARGET * q else "OPEN"
        ok_dynamic = "met" if d <= DYNAMIC_TARGET * q else "OPEN"
        lines.append(f"{'':<14}{r['layout']:<15}{r['size']:>6}{q:>13.3f}{c:>11.3f}{c / q:>10.2f}x{k:>10.3f}"
                     f"{k / q:>10.2f}x{d:>12.3f}{d / q:>10.2f}x{ns['numpy range+quantize']:>10.3f}"
                     f"{'-' if ort is None else f'{ort:.3f}':>8}  choose {ok} (<= {TARGET}x), "
                     f"dynamic {ok_dynamic} (<= {DYNAMIC_TARGET}x)")
    return "\n".join(lines) + "\n"
