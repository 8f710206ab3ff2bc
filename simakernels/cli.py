"""``python -m simakernels``: info, demo and selftest."""
from __future__ import annotations

import argparse
import platform
import sys
import time
from typing import Callable, Dict, List, Optional

import numpy as np

from . import __version__, a65, fenv
from .bench.command import add_parser as add_bench_parser
from ._ffi import ffi, lib


def _c(ptr: object) -> str:
    return ffi.string(ptr).decode()  # type: ignore[no-any-return]


def cmd_info(args: argparse.Namespace) -> int:
    routes = a65.available_routes()
    compiled = a65.compiled_routes()
    build = ("NEON" if "neon" in compiled else "SSE2/AVX2" if "avx2" in compiled
             else "SSE2" if "sse2" in compiled else "portable")
    if args.brief:
        print(f"simakernels {__version__}: {build} build, routes {', '.join(routes)}")
        return 0
    state = fenv.query()
    traps = ", ".join(sorted(t.name for t in state.traps)) or "none"
    rows = [
        ("version", __version__),
        ("build", f"{build} ({platform.machine()}, {_c(lib.sk_compiler())})"),
        ("compiled routes", ", ".join(a65.compiled_routes())),
        ("available routes", ", ".join(routes) + " (best first)"),
        ("C flags", _c(lib.sk_build_flags())),
        ("source digest", _c(lib.sk_source_digest())),
        ("FP environment", f"rounding {state.rounding.name}, flush-to-zero {state.flush_to_zero}, "
                           f"denormals-are-zero {state.denormals_are_zero}, traps {traps}"),
        ("python", f"{platform.python_version()}, numpy {np.__version__}"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


def _best_time(fn: Callable[[], object], repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def cmd_demo(args: argparse.Namespace) -> int:
    import ml_dtypes

    from .arrays import cast, dequantize, quantize
    from .core import DType
    from .ops.dequant import Params

    rng = np.random.default_rng(7)
    print(f"simakernels {__version__} on {platform.machine()}: routes {', '.join(a65.available_routes())}\n")

    print("1. Quantize a weight tensor to INT8 and back (per-tensor affine, 1M values):")
    weights = (rng.standard_normal((1024, 1024), dtype=np.float32) * 0.05).astype(np.float32)
    scale = np.float32(np.abs(weights).max() / 127)
    q = quantize(weights, np.float32(1) / scale)               # multiplier = 1/scale, nearest-even
    back = dequantize(q, scale)
    err = np.abs(back - weights)
    print(f"   scale {float(scale):.3e}: max |error| {err.max():.3e} (<= scale/2), "
          f"RMS {np.sqrt(np.mean(err ** 2)):.3e}, SNR {10 * np.log10(np.mean(weights ** 2) / np.mean(err ** 2)):.1f} dB")

    print("\n2. Staged rounding, as specified: q=127, zero point -123, scale bits 0x4037ced9")
    p = Params.from_bits(0x4037CED9, -123)
    f32 = dequantize(np.array([127], np.int8), p.scale, -123)
    bf = dequantize(np.array([127], np.int8), p.scale, -123, dtype=DType.BFLOAT16)
    print(f"   FP32 {float(f32[0])} -> BF16 {float(bf[0].astype(np.float32))} (0x{int(bf.view(np.uint16)[0]):04x}); "
          "rounding the exact product directly would give 716")

    print("\n3. FP32 -> BF16 is round-to-nearest-even on the bits, NaN payloads by the same rule:")
    words = np.array([0x3F800000, 0x40490FDB, 0x4433_8000, 0x4434_8000, 0x7F800001, 0xFFFFFFFF], np.uint32)
    for w, b in zip(words, cast(words.view(np.float32), DType.BFLOAT16).view(np.uint16)):
        print(f"   fp32 {int(w):#010x} -> bf16 {int(b):#06x}")

    print("\n4. A strided view (every other column of a transposed matrix) is processed in place, no copy:")
    view = weights[:6, :4].T[::2]
    out = cast(view, ml_dtypes.bfloat16)
    print(f"   input strides {view.strides} -> output {out.shape} {out.dtype}")

    print("\n5. Timing on 4M elements (best of 7, one thread):")
    x = rng.standard_normal(1 << 22, dtype=np.float32)
    y = np.empty(x.shape, ml_dtypes.bfloat16)
    i8 = np.empty(x.shape, np.int8)
    rows = [
        ("cast FP32->BF16", lambda: cast(x, DType.BFLOAT16, out=y), "ml_dtypes.astype", lambda: x.astype(ml_dtypes.bfloat16)),
        ("quantize FP32->INT8", lambda: quantize(x, 21.5, 3, out=i8), "NumPy clip(rint(x*m)+zp)",
         lambda: np.clip(np.rint(x * np.float32(21.5)) + 3, -128, 127).astype(np.int8)),
    ]
    for name, ours, peer_name, peer in rows:
        a, b = _best_time(ours), _best_time(peer)
        print(f"   {name:<20} simakernels {a * 1e3:6.2f} ms   {peer_name} {b * 1e3:6.2f} ms   ({b / a:.1f}x)")
    print("\n   More: python -m simakernels bench; EV74 packets and Hurray descriptors: see README.md")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    from .selftest import run

    return run(verbose=not args.quiet)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench.command import run_command

    return run_command(args)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simakernels", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="version, build, routes, compiler flags, FP environment")
    info.add_argument("--brief", action="store_true", help="one line")
    sub.add_parser("demo", help="a short demonstration of the library")
    selftest = sub.add_parser("selftest", help="fast on-target correctness check of every route")
    selftest.add_argument("--quiet", action="store_true")
    add_bench_parser(sub)
    commands: Dict[str, Callable[[argparse.Namespace], int]] = {
        "info": cmd_info, "demo": cmd_demo, "selftest": cmd_selftest, "bench": cmd_bench,
    }
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    return commands[args.command](args)
