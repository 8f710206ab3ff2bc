"""``bench --qparams``: ``sk.choose_qparams`` against ``sk.quantize`` on the
same FLOAT32 tensor (per tensor, and per axis on the ``axis-outer`` and
``axis-inner`` layouts of :mod:`simakernels.bench.cases`), with the range
pass alone (``qparams._keys``, the native csrc/range) beside them: the
rule that follows it is measured by the difference.  Target: choose_qparams
at most ``TARGET`` x quantize."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .. import arrays, qparams
from ..core import DType
from . import cases
from .timing import measure, median

SIZES = ("256K", "16M")
LAYOUTS = ("dense", "axis-outer", "axis-inner")
TARGET = 1.2


def run(sizes: Sequence[int], budget_s: float) -> List[Dict[str, Any]]:
    rows = []
    for n in sizes:
        for layout in LAYOUTS:
            x = cases.make_parent(DType.FLOAT32, cases.parent_shape(n, layout))
            rows.append(_row(layout, n, x, cases.axis_of(layout), budget_s))
    return rows


def _row(layout: str, n: int, x: Any, axis: Any, budget_s: float) -> Dict[str, Any]:
    qp = qparams.choose_qparams(x, axis=axis)
    runners = {
        "quantize": lambda: arrays.quantize(x, qp.multiplier, qp.zero_point, axis=axis),
        "choose_qparams": lambda: qparams.choose_qparams(x, axis=axis),
        "range pass": lambda: qparams._keys(x, axis),
    }
    samples = measure(runners, budget_s)
    ns = {name: median(s) * 1e9 / n for name, s in samples.items()}
    return {"layout": layout, "size": cases.size_label(n), "n": n, "axis": axis,
            "channels": None if axis is None else x.shape[axis], "ns_per_elem": ns}


def table(rows: Sequence[Dict[str, Any]]) -> str:
    head = (f"{'choose_qparams fp32':<20}{'layout':<12}{'size':>6}{'quantize ns':>13}{'choose ns':>11}"
            f"{'/quantize':>11}{'range ns':>10}{'/quantize':>11}  target")
    lines = ["", head, "-" * len(head)]
    for r in rows:
        ns = r["ns_per_elem"]
        q, c, k = ns["quantize"], ns["choose_qparams"], ns["range pass"]
        ok = "met" if c <= TARGET * q else "OPEN"
        lines.append(f"{'':<20}{r['layout']:<12}{r['size']:>6}{q:>13.3f}{c:>11.3f}{c / q:>10.2f}x{k:>10.3f}"
                     f"{k / q:>10.2f}x  {ok} (<= {TARGET}x)")
    return "\n".join(lines) + "\n"
