"""``python -m simakernels bench``: ops x dtypes x sizes x layouts against the
memcpy-equivalent, NumPy's expression and the installed peers, all measured
as medians in the same run (only ratios measured side by side mean anything
on a shared machine).

memcpy-equivalent: ``np.copyto`` of uint8 arrays of n * (input + output
itemsize) / 2 bytes, a copy with the operation's memory traffic.

Per-axis rows (layouts ``axis-outer``, ``axis-inner``; see
:mod:`simakernels.bench.cases`) are the same op and size with one scale or
multiplier and zero point per channel; blocked rows (``block32-inner``,
``block128-inner``, ``block32-outer``) one per block of the axis.  The
report sets each against the dense (per-tensor) row of the same op and size
from the same run.

Integer formats beyond INT8 (``cases.FORMAT_OPS``: ``affine_quant`` and
``affine_dequant`` per storage type, sub-byte ones packed) run dense, INT4
also block32-inner; the report sets each against the INT8 row of the same
direction, float type, layout and size from the same run.
"""
from __future__ import annotations

import gc
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

import numpy as np

from . import cases, peers, percall, qparams_rows, report
from .cases import LAYOUTS, Op
from .._progress import Progress
from .timing import measure, median

__all__ = ["Options", "run"]


@dataclass
class Options:
    sizes: Sequence[int] = tuple(cases.parse_size(s) for s in cases.DEFAULT_SIZES)
    ops: Sequence[Op] = cases.OPS
    layouts: Sequence[str] = LAYOUTS
    peers: Sequence[str] = ()            # optional peers to include (peers.OPTIONAL)
    budget_s: float = 1.0                # per case, all its runners together
    per_call: bool = True
    progress: bool = True
    json_path: Optional[str] = None      # "-": the JSON on stdout instead of the tables
    plot_path: Optional[str] = None
    argv: List[str] = field(default_factory=list)
    qparams: bool = False                # also choose_qparams against quantize (qparams_rows)


def case_list(options: Options) -> List[Tuple[Op, str, int]]:
    """(op, layout, n) in table order; strided/transposed only from 4K up,
    the per-axis layouts for dequant and quant only (cases.skip_reason)."""
    return [(op, layout, n) for op in options.ops for layout in options.layouts for n in options.sizes
            if cases.skip_reason(op, layout, n) is None]


def _mismatches(runners: Dict[str, cases.Runner]) -> Dict[str, int]:
    """Elements where each runner's output differs from ours (bit patterns),
    after one call each: NumPy's expression is the specification's staged
    arithmetic, so any difference from it is a bug in the measured path."""
    runners["ours"].call()
    ours = runners["ours"].result()
    assert ours is not None, "ours always has an output"
    reference = cases.bits(ours).copy()
    counts = {}
    for name, runner in runners.items():
        if name == "ours":
            continue
        runner.call()
        result = runner.result()
        if result is not None:
            counts[name] = int(np.count_nonzero(cases.bits(result).reshape(reference.shape) != reference))
    return counts


def run_case(op: Op, layout: str, n: int, found: Sequence[Any], budget_s: float) -> Dict[str, Any]:
    parent = cases.make_parent(op.src, cases.parent_shape(n, layout))
    x = cases.apply_layout(parent, layout)
    axis, block = cases.axis_of(layout), cases.block_of(layout)
    ours, route = cases.ours(op, x, axis=axis, block_size=block)
    runners = {"ours": ours, "memcpy": cases.memcpy(n, op), "numpy": cases.numpy_expression(op, x, axis, block)}
    for peer in found:
        runner = peer.runner(op, layout, x, parent)
        if runner is not None:
            runners[peer.name] = runner
    mismatches = _mismatches(runners)  # also the warm-up: one call each
    samples = measure({name: r.call for name, r in runners.items()}, budget_s, warm_up=False)
    ns = {name: median(s) * 1e9 / n for name, s in samples.items()}
    if op.kind == "cast":  # NumPy's Cast expression is ml_dtypes' cast (one measurement, two names)
        ns["ml_dtypes"], mismatches["ml_dtypes"] = ns["numpy"], mismatches["numpy"]
    del runners, ours, x, parent
    gc.collect()  # the big arrays go before the next case allocates its own
    return {
        "op": op.key, "label": op.label, "rounding": op.rounding, "layout": layout,
        "size": cases.size_label(n), "n": n, "shape": list(cases.out_shape(n, layout)),
        "axis": axis, "channels": cases.out_shape(n, layout)[axis] if axis is not None else None,
        "block_size": block,
        "bytes": op.nbytes(n), "route": route,
        "storage": op.storage.name if op.storage is not None else None, "packed": op.packed,
        "reference": op.reference,
        "ns_per_elem": ns, "mismatches": mismatches,
        "samples_s": {name: s for name, s in samples.items()},
    }


def run(options: Options, stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    """Runs the benchmark; 0, or 1 when our output differed from NumPy's
    expression somewhere (the table marks it)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    started = time.time()
    found, missing = peers.load(options.peers)
    if options.peers:
        for name, reason in missing.items():
            print(f"bench: peer {name} missing: {reason} (make bench-peers installs it)", file=stderr)
    todo = case_list(options)
    progress = Progress(len(todo) + (1 if options.per_call else 0), stderr, options.progress, name="bench")
    results, per_call = [], []
    try:
        for op, layout, n in todo:
            progress.step(f"{op.label} {layout} {cases.size_label(n)}")
            results.append(run_case(op, layout, n, found, options.budget_s))
        if options.per_call:
            progress.step("per-call cost at 64 elements")
            per_call = percall.run(found, options.budget_s)
    except KeyboardInterrupt:
        print("\nbench: interrupted; the cases measured so far follow", file=stderr)
    finally:
        progress.close()
    data = report.document(options, results, per_call, found, missing, time.time() - started)
    if options.qparams:
        measured = qparams_rows.run([cases.parse_size(s) for s in qparams_rows.SIZES], options.budget_s)
        data["qparams"] = measured
    if options.json_path:
        report.write_json(data, options.json_path, stdout)
    if options.json_path != "-":
        stdout.write(report.tables(data))
        if options.qparams:
            stdout.write(qparams_rows.table(data["qparams"]))
    if options.plot_path:
        report.plot(data, options.plot_path)
        print(f"bench: plot written to {options.plot_path}", file=stderr)
    bad = [r for r in results if r["mismatches"].get("numpy")]
    for r in bad:
        print(f"bench: ERROR {r['label']} {r['layout']} {r['size']}: {r['mismatches']['numpy']} elements "
              "differ from NumPy's expression", file=stderr)
    return 1 if bad else 0
