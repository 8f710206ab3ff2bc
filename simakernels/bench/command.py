"""The ``bench`` command line: its options, checked before anything is
measured."""
from __future__ import annotations

import argparse
import sys
from typing import Any, List

from . import Options, case_list, cases, peers, report, run


def _list(text: str) -> List[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def run_command(args: argparse.Namespace) -> int:
    """The options checked (status 2 and a message naming the choices when
    one is wrong, before anything is measured), then the run."""
    try:
        sizes = [cases.parse_size(s) for s in _list(args.sizes)]
        roundings = list(cases.ROUNDINGS) if args.rounding == "all" else _list(args.rounding)
        bad = [r for r in roundings if r not in cases.ROUNDINGS]
        if bad:
            raise ValueError(f"unknown rounding(s) {', '.join(bad)}; choose among {', '.join(cases.ROUNDINGS)} or all")
        ops = cases.select_ops(_list(args.ops) if args.ops else None, roundings)
        layouts = _list(args.layouts)
        bad = [layout for layout in layouts if layout not in cases.LAYOUTS]
        if bad:
            raise ValueError(f"unknown layout(s) {', '.join(bad)}; choose among {', '.join(cases.LAYOUTS)}")
        wanted = [] if args.peers is None else list(peers.OPTIONAL) if args.peers == "all" else _list(args.peers)
        bad = [p for p in wanted if p not in peers.OPTIONAL]
        if bad:
            raise ValueError(f"unknown peer(s) {', '.join(bad)}; choose among {', '.join(peers.OPTIONAL)}")
        if not sizes or not layouts:
            raise ValueError("--sizes and --layouts need at least one entry each")
        # An empty list would silently drop every quant row, or select every op.
        if args.ops is not None and not _list(args.ops):
            raise ValueError(f"--ops needs at least one entry; choose among {', '.join(o.key for o in cases.OPS)} "
                             "or a prefix (cast, dequant, quant, ...)")
        if not roundings:
            raise ValueError(f"--rounding needs at least one entry; choose among {', '.join(cases.ROUNDINGS)} or all")
        if args.budget <= 0:
            raise ValueError("--budget must be > 0 seconds")
    except ValueError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    options = Options(
        sizes=sizes, ops=ops, layouts=layouts, peers=wanted, budget_s=args.budget, per_call=not args.no_per_call,
        progress=not args.quiet, json_path=args.json, plot_path=args.plot, argv=["bench", *args.argv],
        qparams=args.qparams,
    )
    if not case_list(options):
        # Every filter has entries: only the size floor of the view layouts, or per-axis layouts
        # with cast ops alone, empty the list.
        reasons = dict.fromkeys(cases.skip_reason(op, layout, n) for op in ops for layout in layouts for n in sizes)
        what = f"--sizes {args.sizes} with --layouts {args.layouts}" + (f" and --ops {args.ops}" if args.ops else "")
        print(f"bench: {what} selects no case: {'; '.join(r for r in reasons if r)}", file=sys.stderr)
        return 2
    if args.plot and report.check_plot_support():
        print(f"bench: {report.check_plot_support()}", file=sys.stderr)
        return 2
    return run(options)


def add_parser(sub: Any) -> None:
    bench = sub.add_parser(
        "bench", help="throughput against memcpy, NumPy and installed peers",
        description="Medians of ns/elem for each op x size x layout, with GB/s and ratios to the "
                    "memcpy-equivalent, NumPy's expression and the fastest installed peer, all measured "
                    "in the same run (one thread), per-axis (per-channel) and blocked Dequant/Quant "
                    "against per-tensor, and the integer formats beyond INT8 (affine_quant, affine_dequant: "
                    "uint8, int16, uint16, int32, packed int4, uint4, int2) against INT8. Ours is "
                    "sk.a65.<op>.execute with a prepared plan.")
    bench.add_argument("--sizes", default=",".join(cases.DEFAULT_SIZES),
                       help="element counts, comma-separated (K = 1024, M = 1024^2; default %(default)s)")
    bench.add_argument("--ops", help="comma-separated op keys or prefixes (default all): "
                                     + ", ".join(op.key for op in cases.OPS))
    bench.add_argument("--layouts", default=",".join(cases.LAYOUTS),
                       help="dense, strided (x[:, ::2]), transposed (x.T), the latter two from 4K up; axis-outer "
                            "(C x n/C, axis 0) and axis-inner (n/C x C, axis 1): per-axis parameters, C channels "
                            f"(up to {cases.MAX_CHANNELS}, at most sqrt(n)); block32-inner, block128-inner "
                            f"(n/K x K, axis 1, K up to {cases.MAX_ROW}) and block32-outer (n/C x C, axis 0): "
                            "blocked parameters, blocks of 32 or 128; dequant and quant only; the integer formats "
                            "beyond INT8 run dense, int4 also block32-inner (default all)")
    bench.add_argument("--rounding", default="nearest_even",
                       help="quant rounding mode(s), comma-separated, or all (default %(default)s)")
    bench.add_argument("--peers", nargs="?", const="all", metavar="LIST",
                       help=f"include installed peers ({', '.join(peers.OPTIONAL)}; all when no list is given)")
    bench.add_argument("--budget", type=float, default=1.0, metavar="SECONDS",
                       help="time per case, all its runners together (default %(default)s; at least 5 samples each)")
    bench.add_argument("--json", metavar="FILE", help="all raw numbers and machine information ('-': stdout)")
    bench.add_argument("--plot", metavar="FILE.png", help="GB/s against size per op (needs matplotlib)")
    bench.add_argument("--no-per-call", action="store_true", help="skip the per-call table at 64 elements")
    bench.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    bench.add_argument("--qparams", action="store_true",
                       help="also choose_qparams and its range pass against quantize on the same FP32 tensor "
                            "(256K and 16M; per tensor, axis-outer, axis-inner)")
