"""The results as a JSON document (raw numbers and machine information), as
text tables, and as a plot."""
from __future__ import annotations

import datetime
import json
import os
import platform
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

import ml_dtypes
import numpy as np

from .. import __version__, a65
from .cases import AXIS_LAYOUTS, BLOCK_LAYOUTS, MIN_LAYOUT_N, parse_size

OURS = "sk.a65.<op>.execute(plan, [x], [out]) with a prepared plan and a preallocated output"
REFERENCES = ("ours", "memcpy", "numpy")

# The per-axis and blocked targets (x86 host, one thread): ours over ours
# per-tensor (dense) for the same op and size, at these sizes; and faster than
# each peer's per-axis or blocked Dequant/Quant at every size from 4K.
AXIS_RATIO_TARGETS = {"axis-outer": 1.15, "axis-inner": 1.6, "block32-inner": 1.3, "block128-inner": 1.3,
                      "block32-outer": 1.3}
PARAM_LAYOUTS = (*AXIS_LAYOUTS, *BLOCK_LAYOUTS)  # the rows with parameters per channel or per block
AXIS_TARGET_SIZES = ("256K", "16M")
AXIS_PEER_FROM = MIN_LAYOUT_N

# Issue 32's x86 targets for the integer formats beyond INT8 (one run, one
# thread, dense): at every size from 4K, at most FORMAT_RATIO_TARGET x the
# time of the INT8 row of the same direction and float type, and faster
# than each peer's QuantizeLinear / DequantizeLinear for that type.
FORMAT_RATIO_TARGET = 1.3
FORMAT_FROM = MIN_LAYOUT_N


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def document(options: Any, results: List[Dict[str, Any]], per_call: List[Dict[str, Any]],
             found: Sequence[Any], missing: Dict[str, str], elapsed_s: float) -> Dict[str, Any]:
    versions = {"simakernels": __version__, "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
                "python": platform.python_version()}
    versions.update({peer.name: peer.version for peer in found})
    return {
        "schema": 1,
        "command": options.argv,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "elapsed_s": round(elapsed_s, 1),
        "machine": {"cpu": cpu_model(), "arch": platform.machine(), "cpus": os.cpu_count(),
                    "system": platform.platform(), "routes": list(a65.available_routes())},
        "versions": versions,
        "ours": OURS,
        "settings": {"budget_s_per_case": options.budget_s, "threads": 1,
                     "sizes": list(options.sizes), "layouts": list(options.layouts),
                     "ops": sorted({op.key for op in options.ops}),
                     "roundings": sorted({op.rounding for op in options.ops if op.kind == "quant"})},
        "peers": {"requested": list(options.peers), "found": [peer.name for peer in found], "missing": missing},
        "results": results,
        "per_axis": per_axis(results),
        "formats": formats(results),
        "per_call": per_call,
    }


def per_axis(results: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Each per-axis or blocked row against the dense (per-tensor) row of the same op,
    rounding and size (ours both, same run), and the targets the run has
    data for: {"comparisons": [...], "targets": [...]}."""
    dense = {(r["op"], r["rounding"], r["n"]): r for r in results if r["layout"] == "dense"}
    comparisons = []
    for r in results:
        base = dense.get((r["op"], r["rounding"], r["n"]))
        if r["layout"] in PARAM_LAYOUTS and base is not None and not r.get("reference"):
            comparisons.append({"op": r["op"], "label": r["label"], "rounding": r["rounding"], "size": r["size"],
                                "n": r["n"], "layout": r["layout"], "channels": r["channels"], "shape": r["shape"],
                                "dense_ns": base["ns_per_elem"]["ours"], "axis_ns": r["ns_per_elem"]["ours"],
                                "ratio": r["ns_per_elem"]["ours"] / base["ns_per_elem"]["ours"]})
    targets = [{"what": what, "value": value, "limit": limit, "met": met}
               for what, value, limit, met in axis_targets(results)]
    return {"comparisons": comparisons, "targets": targets}


def axis_targets(results: List[Dict[str, Any]]) -> List[Tuple[str, float, float, bool]]:
    """(what, measured, limit, met): per-axis or blocked over per-tensor time at the
    target sizes (limit: the largest ratio allowed), and, per op, layout and
    peer, the smallest peer-time-over-ours from 4K up (limit: more than 1)."""
    out = []
    dense = {(r["op"], r["rounding"], r["n"]): r for r in results if r["layout"] == "dense"}
    target_ns = {parse_size(s) for s in AXIS_TARGET_SIZES}
    rows = [r for r in results if r["layout"] in PARAM_LAYOUTS and not r.get("reference")]  # INT8 rows: issue 20
    for r in rows:
        base = dense.get((r["op"], r["rounding"], r["n"]))
        if base is not None and r["n"] in target_ns:
            ratio = r["ns_per_elem"]["ours"] / base["ns_per_elem"]["ours"]
            limit = AXIS_RATIO_TARGETS[r["layout"]]
            out.append((f"{r['label']} {r['layout']} {r['size']} / per-tensor", ratio, limit, ratio <= limit))
    groups: Dict[Tuple[str, str, str], List[Tuple[float, str]]] = {}
    for r in rows:
        if r["n"] < AXIS_PEER_FROM:
            continue
        for name, ns in r["ns_per_elem"].items():
            if name not in REFERENCES and name != "ml_dtypes":
                margin = ns / r["ns_per_elem"]["ours"]
                groups.setdefault((r["label"], r["layout"], name), []).append((margin, r["size"]))
    for (label, layout, name), margins in groups.items():
        worst, size = min(margins)
        out.append((f"{label} {layout} faster than {name} from 4K (slowest margin at {size})", worst, 1.0, worst > 1.0))
    return out


def _peers(r: Dict[str, Any]) -> Dict[str, float]:
    """Each peer's time over ours in a row (> 1: we are faster)."""
    ns = r["ns_per_elem"]
    return {name: v / ns["ours"] for name, v in ns.items() if name not in REFERENCES and name != "ml_dtypes"}


def formats(results: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Each row of an integer format beyond INT8 against the INT8 row of
    the same direction, float type, rounding, layout and size (``reference``;
    ours both, same run) and against its peers, and the targets the run has
    data for: {"comparisons": [...], "targets": [...]}."""
    by_key = {(r["op"], r["rounding"], r["layout"], r["n"]): r for r in results}
    comparisons = []
    for r in results:
        if not r.get("reference"):
            continue
        base = by_key.get((r["reference"], r["rounding"], r["layout"], r["n"]))
        ours = r["ns_per_elem"]["ours"]
        int8 = base["ns_per_elem"]["ours"] if base else None
        comparisons.append({"op": r["op"], "label": r["label"], "rounding": r["rounding"], "layout": r["layout"],
                            "size": r["size"], "n": r["n"], "reference": r["reference"], "ns": ours,
                            "int8_ns": int8, "ratio": ours / int8 if int8 else None, "peers": _peers(r)})
    targets = [{"what": what, "value": value, "limit": limit, "met": met}
               for what, value, limit, met in format_targets(results)]
    return {"comparisons": comparisons, "targets": targets}


def format_targets(results: List[Dict[str, Any]]) -> List[Tuple[str, float, float, bool]]:
    """(what, measured, limit, met) for the dense rows of the integer
    formats beyond INT8, from 4K: the largest ratio of ours over the INT8
    row (limit: FORMAT_RATIO_TARGET), and per peer the smallest
    peer-time-over-ours (limit: more than 1); each with the size where it
    occurs."""
    by_key = {(r["op"], r["rounding"], r["layout"], r["n"]): r for r in results}
    ratios: Dict[str, List[Tuple[float, int, str]]] = {}
    margins: Dict[Tuple[str, str], List[Tuple[float, int, str]]] = {}
    for r in results:
        if not r.get("reference") or r["layout"] != "dense" or r["n"] < FORMAT_FROM:
            continue
        base = by_key.get((r["reference"], r["rounding"], r["layout"], r["n"]))
        if base is not None:
            ratios.setdefault(r["label"], []).append(
                (r["ns_per_elem"]["ours"] / base["ns_per_elem"]["ours"], r["n"], r["size"]))
        for name, margin in _peers(r).items():
            margins.setdefault((r["label"], name), []).append((margin, r["n"], r["size"]))
    out = []
    for label, values in ratios.items():
        worst, _, size = max(values)
        out.append((f"{label} dense / int8 from 4K (largest at {size})", worst, FORMAT_RATIO_TARGET,
                    worst <= FORMAT_RATIO_TARGET))
    for (label, name), values in margins.items():
        worst, _, size = min(values)
        out.append((f"{label} dense faster than {name} from 4K (slowest margin at {size})", worst, 1.0, worst > 1.0))
    return out


def write_json(data: Dict[str, Any], path: str, stdout: TextIO) -> None:
    text = json.dumps(data, indent=1) + "\n"
    if path == "-":
        stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def best_peer(result: Dict[str, Any]) -> Optional[str]:
    """The fastest peer other than NumPy's expression (it has its own column)."""
    ns = result["ns_per_elem"]
    names = [name for name in ns if name not in REFERENCES]
    return min(names, key=ns.__getitem__) if names else None


def tables(data: Dict[str, Any]) -> str:
    lines = [
        f"simakernels {data['versions']['simakernels']} on {data['machine']['cpu']} "
        f"({data['machine']['arch']}, routes {', '.join(data['machine']['routes'])}); one thread",
        f"ours: {data['ours']}",
    ]
    found, missing = data["peers"]["found"], data["peers"]["missing"]
    peers = (", ".join(f"{name} {data['versions'][name]}" for name in found)
             or "no optional peers (--peers adds torch and onnxruntime where installed)")
    lines.append(f"peers: NumPy {data['versions']['numpy']} + ml_dtypes {data['versions']['ml_dtypes']}; {peers}"
                 + (f"; missing: {', '.join(missing)}" if missing else ""))
    lines.append("")
    columns = ("op", "layout", "size", "ns/elem", "GB/s", "memcpy ns", "of memcpy",
               "numpy ns", "vs numpy", "best peer", "peer ns", "vs peer")
    rows = []
    for r in data["results"]:
        ns = r["ns_per_elem"]
        ours = ns["ours"]
        peer = best_peer(r)
        flag = "!" if r["mismatches"].get("numpy") else ""
        rows.append((
            r["label"], r["layout"], r["size"], f"{ours:.3f}", f"{r['bytes'] / (ours * r['n']):.2f}",
            f"{ns['memcpy']:.3f}", f"{ns['memcpy'] / ours:.2f}x", f"{ns['numpy']:.3f}",
            f"{ns['numpy'] / ours:.2f}x{flag}",
            (peer + ("*" if r["mismatches"].get(peer) else "")) if peer else "-",
            f"{ns[peer]:.3f}" if peer else "-", f"{ns[peer] / ours:.2f}x" if peer else "-",
        ))
    lines += _grid(columns, rows, left=3)
    lines += [
        "",
        "ns/elem: our median time per element; GB/s: (input + output bytes) / our time.",
        "of memcpy: memcpy-equivalent time / ours (1.00x = as fast as np.copyto moving the same bytes).",
        "vs numpy, vs peer: their time / ours (> 1: we are faster). best peer: the fastest of ml_dtypes, torch,",
        "onnxruntime where they do the row's op/dtype/layout. * the peer's output differs from ours in some elements",
        "(e.g. torch/ORT quantize divide by 1/m); ! ours differs from NumPy's exact expression: a bug.",
    ]
    lines += _per_axis_lines(data)
    lines += _format_lines(data)
    if data["per_call"]:
        lines += ["", "Per-call cost at 64 elements (median microseconds per call; x copyto: that time over",
                  "np.copyto's moving 64 FP32 values, measured in the same run):", ""]
        lines += _grid(("call", "us/call", "x copyto"),
                       [(p["name"], f"{p['us_per_call']:.2f}", f"{p['of_copyto']:.2f}") for p in data["per_call"]], 1)
    lines.append(f"\n{len(data['results'])} cases in {data['elapsed_s']:.0f} s")
    return "\n".join(lines) + "\n"


def _per_axis_lines(data: Dict[str, Any]) -> List[str]:
    """The per-axis and blocked section: ours against ours per-tensor, and
    the targets (none when the run has no such row with its dense row)."""
    comparisons = data.get("per_axis", {}).get("comparisons", [])
    if not comparisons:
        return []
    keys = list(dict.fromkeys((c["label"], c["size"]) for c in comparisons))
    layouts = [lay for lay in PARAM_LAYOUTS if any(c["layout"] == lay for c in comparisons)]
    by = {(c["label"], c["size"], c["layout"]): c for c in comparisons}
    rows = []
    for label, size in keys:
        first = next(by[(label, size, lay)] for lay in layouts if (label, size, lay) in by)
        cells = [label, size, f"{first['dense_ns']:.3f}"]
        for layout in layouts:
            c = by.get((label, size, layout))
            cells += [f"{c['axis_ns']:.3f}", f"{c['ratio']:.2f}x"] if c else ["-", "-"]
        rows.append(cells)
    limits = ", ".join(f"{AXIS_RATIO_TARGETS[k]:g}x {k}" for k in layouts)
    lines = ["", "Per-axis and blocked parameters against per-tensor, ours, same run: axis-outer (C, n/C) axis 0,",
             "axis-inner (n/C, C) axis 1, C channels (256 from 64K); block32-inner and block128-inner (n/K, K)",
             "axis 1, K up to 4096; block32-outer (n/C, C) axis 0; / dense: that time over the dense per-tensor",
             "time:", ""]
    columns = ["op", "size", "dense ns"]
    for layout in layouts:
        columns += [f"{layout} ns", "/ dense"]
    lines += _grid(columns, rows, 2)
    checks = data["per_axis"]["targets"]
    if checks:
        met = sum(1 for c in checks if c["met"])
        lines += ["", f"targets (one thread; / per-tensor at most {limits} at {' and '.join(AXIS_TARGET_SIZES)}; "
                      f"faster than each peer from 4K): {met} of {len(checks)} met"]
        lines += [f"  {'met ' if c['met'] else 'OPEN'} {c['what']}: {c['value']:.2f}x "
                  f"({'limit' if c['limit'] != 1.0 else 'need >'} {c['limit']:g}x)" for c in checks]
    return lines


def _format_lines(data: Dict[str, Any]) -> List[str]:
    """The section of the integer formats beyond INT8: ours against the
    INT8 row of the same direction and against the peers, and the targets."""
    comparisons = data.get("formats", {}).get("comparisons", [])
    if not comparisons:
        return []
    names = list(dict.fromkeys(name for c in comparisons for name in c["peers"]))
    columns = ["op", "layout", "size", "ns/elem", "int8 ns", "/ int8"]
    for name in names:
        columns += [f"{name} ns", f"vs {name}"]
    rows = []
    for c in comparisons:
        cells = [c["label"], c["layout"], c["size"], f"{c['ns']:.3f}",
                 f"{c['int8_ns']:.3f}" if c["int8_ns"] else "-", f"{c['ratio']:.2f}x" if c["ratio"] else "-"]
        for name in names:
            margin = c["peers"].get(name)
            cells += [f"{c['ns'] * margin:.3f}", f"{margin:.2f}x"] if margin else ["-", "-"]
        rows.append(cells)
    lines = ["", "Integer formats beyond INT8 (affine_quant, affine_dequant; int4, uint4, int2 packed two or four",
             "per byte), ours against the INT8 row of the same direction, float type, layout and size (/ int8:",
             "that time over the INT8 time; - where the run has no INT8 row), and vs peer: its time over ours:", ""]
    lines += _grid(columns, rows, 3)
    checks = data["formats"]["targets"]
    if checks:
        met = sum(1 for c in checks if c["met"])
        lines += ["", f"targets (one thread, dense, every size from 4K: at most {FORMAT_RATIO_TARGET:g}x the INT8 "
                      f"time; faster than each peer): {met} of {len(checks)} met"]
        lines += [f"  {'met ' if c['met'] else 'OPEN'} {c['what']}: {c['value']:.2f}x "
                  f"({'limit' if c['limit'] != 1.0 else 'need >'} {c['limit']:g}x)" for c in checks]
    return lines


def _grid(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> List[str]:
    """Columns padded to their widest cell: the first ``left`` ones left-aligned."""
    widths = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(columns)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(columns), "-" * len(line(columns))] + [line(row) for row in rows]


def check_plot_support() -> Optional[str]:
    """None, or why --plot cannot work here (checked before the run)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "--plot needs matplotlib: pip install -r requirements-bench.txt (or make bench-peers)"
    return None


def plot(data: Dict[str, Any], path: str) -> None:
    """GB/s against size, one panel per operation (log scales): one colour
    per runner, one line style per layout; the memcpy-equivalent (the same
    for every layout) once, in grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    results = data["results"]
    labels = list(dict.fromkeys(r["label"] for r in results))
    cols = 2 if len(labels) > 1 else 1
    rows = (len(labels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 3.4 * rows + 0.8), squeeze=False)
    styles: Dict[str, Any] = {"dense": "-", "strided": "--", "transposed": ":", "axis-outer": "-.",
                              "axis-inner": (0, (5, 1, 1, 1, 1, 1))}
    # ml_dtypes only ever repeats NumPy's Cast measurement: not drawn twice
    named = dict.fromkeys(n for r in results for n in r["ns_per_elem"])
    runners = [n for n in named if n not in ("memcpy", "ml_dtypes")]
    colours = {name: f"C{i}" for i, name in enumerate(runners)}

    def gbps(r: Dict[str, Any], name: str) -> float:
        rate: float = r["bytes"] / (r["ns_per_elem"][name] * r["n"])
        return rate

    for ax, label in zip(axes.flat, labels):
        mine = [r for r in results if r["label"] == label]
        copy = {r["n"]: gbps(r, "memcpy") for r in mine}
        ax.plot(sorted(copy), [copy[n] for n in sorted(copy)], color="0.6", linewidth=3, alpha=0.6)
        for layout, style in styles.items():
            points = [r for r in mine if r["layout"] == layout]
            for name in runners:
                xy = [(r["n"], gbps(r, name)) for r in points if name in r["ns_per_elem"]]
                if xy:
                    ax.plot(*zip(*xy), linestyle=style, color=colours[name], marker="o", markersize=3)
        ax.set(xscale="log", yscale="log", title=label, xlabel="elements", ylabel="GB/s (in + out)")
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.25)
    for ax in list(axes.flat)[len(labels):]:
        ax.axis("off")
    handles = [Line2D([], [], color="0.6", linewidth=3, alpha=0.6, label="memcpy-equivalent")]
    handles += [Line2D([], [], color=colours[n], marker="o", label=n) for n in runners]
    handles += [Line2D([], [], color="k", linestyle=st, label=layout) for layout, st in styles.items()]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize="small")
    fig.suptitle(f"simakernels {data['versions']['simakernels']} on {data['machine']['cpu']}, one thread "
                 "(ours: execute with a prepared plan)")
    fig.tight_layout(rect=(0, 0.04, 1, 0.98))
    fig.savefig(path, dpi=110)
    plt.close(fig)
