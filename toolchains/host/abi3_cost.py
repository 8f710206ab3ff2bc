"""What the limited API (abi3) costs per call: the per-call table at 64
elements (simakernels.bench.percall) for two builds of the same sources,
one with cffi's default Py_LIMITED_API and one without
(-D_CFFI_NO_LIMITED_API, the version-specific API), in alternating
subprocesses, several rounds; the median of each row's medians and the
ratio limited / version-specific.  docs/PERF.md ("Limited API") has the
figures.

Usage: python toolchains/host/abi3_cost.py [--rounds N] [--budget S]
Builds into build/abi3-cost/{limited,specific}.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "abi3-cost"
BUILDS = {"limited": "", "specific": "-D_CFFI_NO_LIMITED_API"}
MEASURE = """
import json, sys
from simakernels.bench import percall
from simakernels.bench.timing import measure, median
samples = measure(percall.runners([]), float(sys.argv[1]))
json.dump({name: median(s) * 1e6 for name, s in samples.items()}, sys.stdout)
"""


def build(name: str, flags: str) -> pathlib.Path:
    lib = OUT / name
    env = dict(os.environ, SIMAKERNELS_EXTRA_CFLAGS=flags)
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib), "build_ext",
                    "--build-lib", str(lib), "--build-temp", str(OUT / f"temp-{name}"), "--force"],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    return lib


def run(lib: pathlib.Path, budget: float) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(lib), SIMAKERNELS_EXPECT_INSTALLED="1")
    result = subprocess.run([sys.executable, "-P", "-c", MEASURE, str(budget)], env=env, check=True,
                            capture_output=True, text=True, cwd=OUT)
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of sampling per process")
    args = parser.parse_args()
    libs = {name: build(name, flags) for name, flags in BUILDS.items()}
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in libs}
    for _ in range(args.rounds):
        for name, lib in libs.items():
            for row, us in run(lib, args.budget).items():
                rows[name].setdefault(row, []).append(us)
    print(f"{'per call at 64 elements (us, median of ' + str(args.rounds) + ' processes)':58} "
          f"{'limited':>8} {'specific':>8} {'ratio':>6}")
    for row in rows["limited"]:
        limited, specific = (statistics.median(rows[name][row]) for name in ("limited", "specific"))
        print(f"{row:58} {limited:8.3f} {specific:8.3f} {limited / specific:6.3f}")


if __name__ == "__main__":
    main()
