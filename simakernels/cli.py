"""``python -m simakernels``: info, demo, selftest and bench."""
from __future__ import annotations

import argparse
import pathlib
import platform
import sys
from typing import Callable, Dict, List, Optional

import numpy as np

from . import __version__, a65, fenv
from . import _routes
from .bench.command import add_parser as add_bench_parser
from ._ffi import ffi, lib


def _c(ptr: object) -> str:
    return ffi.string(ptr).decode()  # type: ignore[no-any-return]


def cmd_info(args: argparse.Namespace) -> int:
    routes = a65.available_routes()
    forced = _routes.forced_route()
    problem = _routes.forced_route_problem()
    compiled = a65.compiled_routes()
    build = ("NEON" if "neon" in compiled else "SSE2/AVX2/AVX-512" if "avx512" in compiled
             else "SSE2/AVX2" if "avx2" in compiled
             else "SSE2" if "sse2" in compiled else "portable")
    if args.brief:
        line = f"simakernels {__version__}: {build} build, routes {', '.join(routes)}"
        if forced:
            line += f"; forced route {forced}" + (": cannot run here" if problem else "")
        print(line)
        return 0
    state = fenv.query()
    traps = ", ".join(sorted(t.name for t in state.traps)) or "none"
    rows = [
        ("version", __version__),
        ("build", f"{build} ({platform.machine()}, {_c(lib.sk_compiler())})"),
        ("compiled routes", ", ".join(a65.compiled_routes())),
        ("available routes", ", ".join(routes) + " (best first)"),
        ("forced route", "none (the best available route runs)" if forced is None
         else f"{forced} ({a65.FORCE_ROUTE_ENV})" + (f": cannot run here: {problem}" if problem else "")),
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


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run

    return run()


def cmd_selftest(args: argparse.Namespace) -> int:
    from .selftest import run

    return run(verbose=not args.quiet)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench.command import run_command

    return run_command(args)


def cmd_ev74_vectors(args: argparse.Namespace) -> int:
    """Writes a kit, (--run) runs one on a host Device, or (--check)
    compares a device's dumps with one."""
    from .ev74 import vectors

    if args.check and args.run:
        print("ev74-vectors takes one of --run and --check", file=sys.stderr)
        return 2
    if (args.run or args.check) and len(args.paths) != 2:
        flag = "--run" if args.run else "--check"
        print(f"ev74-vectors {flag} takes the kit and the results directory: {flag} OUT RESULTS", file=sys.stderr)
        return 2
    if args.run:
        try:
            kinds = vectors.run(args.paths[0], args.paths[1], engine=args.engine)
        except (OSError, ValueError, RuntimeError) as exc:
            print(f"ev74-vectors: {exc}", file=sys.stderr)
            return 2
        print(f"{len(kinds)} cases run on the {args.engine} engine; dumps in {args.paths[1]}")
        return 0
    if args.check:
        try:
            checked, failures = vectors.check(*args.paths)
        except (OSError, ValueError) as exc:
            print(f"ev74-vectors: {exc}", file=sys.stderr)
            return 2
        for failure in failures:
            print(f"FAIL {failure.case}: {failure.message}")
        print(f"{checked - len(failures)} of {checked} cases match; {len(failures)} failed")
        return 1 if failures else 0
    if len(args.paths) != 1:
        print("ev74-vectors writes one kit: ev74-vectors OUT [--quick]", file=sys.stderr)
        return 2
    try:
        manifest = vectors.write(args.paths[0], quick=args.quick)
    except OSError as exc:  # not a directory, no permission, /proc: one line naming the path
        print(f"ev74-vectors: cannot write the kit to {args.paths[0]}: {exc.strerror or exc}"
              f"{f' ({exc.filename})' if exc.filename else ''}", file=sys.stderr)
        return 2
    size = sum(pathlib.Path(args.paths[0], name).stat().st_size for name in manifest["files"])
    print(f"{len(manifest['cases'])} cases, {len(manifest['files'])} files, {size / 1e6:.2f} MB in {args.paths[0]} "
          f"({'quick' if args.quick else 'full'} kit, version {manifest['version']}, seed {manifest['seed']:#x})")
    return 0


# Plain text: argparse prints it as it is, so no reST markup.
DESCRIPTION = ("simakernels on this machine: its build and routes (info), a demonstration (demo), "
               "an on-target correctness check (selftest), throughput (bench) and the EV74 conformance "
               "vectors (ev74-vectors).")


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one command; its exit status.  No command: the help, status 0."""
    parser = argparse.ArgumentParser(prog="python -m simakernels", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"simakernels {__version__}")
    sub = parser.add_subparsers(dest="command")
    info = sub.add_parser("info", help="version, build, routes and any forced route, compiler flags, FP environment")
    info.add_argument("--brief", action="store_true", help="one line")
    sub.add_parser("demo", help="a short demonstration of the library (make run)")
    selftest = sub.add_parser("selftest", help="fast on-target correctness check of every route")
    selftest.add_argument("--quiet", action="store_true",
                          help="no progress bar on stderr (drawn only when stderr is a terminal)")
    add_bench_parser(sub)
    vectors = sub.add_parser("ev74-vectors", help="EV74 conformance vectors for the device (docs/ev74_vectors.md)",
                             description="ev74-vectors OUT [--quick]: writes OUT/manifest.json and the case files. "
                                         "ev74-vectors --check OUT RESULTS: compares RESULTS/<id>.bin, the output "
                                         "region a device left for each case, with the expected bytes; exit "
                                         "status 1 if any case fails or is missing. ev74-vectors --run OUT "
                                         "RESULTS [--engine opencl|model]: runs every case on a host device and "
                                         "writes RESULTS/<id>.bin.")
    vectors.add_argument("paths", nargs="+", metavar="OUT [RESULTS]")
    vectors.add_argument("--quick", action="store_true", help="the quick kit (a subset of every group, under 1 MB)")
    vectors.add_argument("--check", action="store_true", help="compare RESULTS with the kit OUT")
    vectors.add_argument("--run", action="store_true",
                         help="run the kit OUT on a host device, dumps to RESULTS")
    vectors.add_argument("--engine", choices=("model", "opencl"), default="model",
                         help="with --run: the host model (default) or the EV74 kernel on an OpenCL runtime")
    commands: Dict[str, Callable[[argparse.Namespace], int]] = {
        "info": cmd_info, "demo": cmd_demo, "selftest": cmd_selftest, "bench": cmd_bench,
        "ev74-vectors": cmd_ev74_vectors,
    }
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    return commands[args.command](args)
