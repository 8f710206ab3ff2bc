"""Every CPython the wheel claims, each in a clean venv (make test-pythons).

The versions are the wheel's own classifiers (setup.py PYTHONS) and its
dependency floors its Requires-Dist: nothing is listed twice.  For each
version, a fresh venv under build/pythons installs the host wheel with its
dependencies from the index (the oldest version with the dask extra and
every dependency at its floor, so the floors are tested, not just
declared, and runs the Dask example there too), runs the selftest
(every route of this CPU against the exhaustive patterns) and checks that
importlib.metadata agrees with the imported package.  The newest version
also builds and installs the sdist, and the one before it the checkout
itself (`pip install .`), each selftested.  Finally pip is asked
whether the AArch64 wheel would install on each version of an aarch64
DevKit (its tags and Requires-Python), and that it refuses the version
below the floor.  Interpreters come from pyenv ($PYENV_ROOT, default
~/.pyenv) or PATH (python3.X); a missing one fails the run.

Usage: python toolchains/host/test_pythons.py
"""
from __future__ import annotations

import email
import glob
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
VENVS = ROOT / "build" / "pythons"
DASK_EXAMPLE = ROOT / "examples" / "dask_checkpoint.py"
CHECK_METADATA = (
    "import importlib.metadata as m, simakernels as sk, sys; "
    "v = m.version('simakernels'); "
    "assert v == sk.__version__, (v, sk.__version__); "
    "print(f'simakernels {v} on Python {sys.version.split()[0]}, from {sk.__file__}')"
)


def one(pattern: str) -> pathlib.Path:
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        sys.exit(f"test_pythons: dist/{pattern} matches {[p.name for p in found]}; run make wheel wheel-aarch64 sdist")
    return found[0]


def metadata(wheel: pathlib.Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(zf.read(name))


def versions(meta: email.message.Message) -> list[str]:
    found = [m.group(1) for c in meta.get_all("Classifier") or []
             if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))]
    return sorted(found, key=lambda v: tuple(map(int, v.split("."))))


def floors(meta: email.message.Message) -> list[str]:
    """``name==floor`` for every ``name[extras]>=floor`` dependency, the
    extras' too (a constraint names no extras)."""
    pins = []
    for requirement in meta.get_all("Requires-Dist") or []:
        match = re.fullmatch(r"([\w.-]+)(\[[\w,]+\])?\s*>=\s*([\w.]+)\s*(;.*)?", requirement.strip())
        if not match:
            sys.exit(f"test_pythons: Requires-Dist {requirement!r} has no floor to test")
        pins.append(f"{match.group(1)}=={match.group(3)}")
    return pins


def interpreter(version: str) -> str | None:
    pyenv = pathlib.Path(os.environ.get("PYENV_ROOT", pathlib.Path.home() / ".pyenv"))
    candidates = sorted(glob.glob(str(pyenv / "versions" / f"{version}.*" / "bin" / f"python{version}")))
    if candidates:
        return candidates[-1]
    return shutil.which(f"python{version}")


def run(command: list[str], **kwargs: object) -> str:
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    if result.returncode:
        raise RuntimeError(f"{' '.join(map(str, command))} exited with {result.returncode}:\n{result.stdout}")
    return result.stdout


def venv(python: str, version: str) -> pathlib.Path:
    where = VENVS / version
    shutil.rmtree(where, ignore_errors=True)
    run([python, "-m", "venv", str(where)])
    return where / "bin" / "python"


def install_and_check(python: pathlib.Path, target: pathlib.Path, constraints: list[str], extra: str = "") -> str:
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    with tempfile.TemporaryDirectory() as tmp:
        if constraints:
            pins = pathlib.Path(tmp) / "floors.txt"
            pins.write_text("\n".join(constraints) + "\n")
            pip += ["-c", str(pins)]
        run(pip + [f"{target}[{extra}]" if extra else str(target)])
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        # From an empty directory: the checkout is never on the path.
        run([str(python), "-m", "simakernels", "selftest", "--quiet"], cwd=tmp, env=env)
        if extra == "dask":
            run([str(python), str(DASK_EXAMPLE)], cwd=tmp, env=env)
        return run([str(python), "-c", CHECK_METADATA], cwd=tmp, env=env).strip()


# pip takes --platform tags literally: every manylinux tag a glibc 2.36
# aarch64 system accepts (manylinux2014 is manylinux_2_17).
GLIBC_236_AARCH64 = [arg for minor in range(17, 37) for arg in ("--platform", f"manylinux_2_{minor}_aarch64")]


def aarch64_accepts(wheel: pathlib.Path, version: str) -> bool:
    """Whether pip on an aarch64 CPython ``version`` (glibc 2.36, Debian
    bookworm's) would install ``wheel``."""
    abi = "cp" + version.replace(".", "")
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--dry-run", "--no-deps",
             "--target", tmp, "--only-binary=:all:", "--implementation", "cp", "--python-version", version,
             "--abi", abi, *GLIBC_236_AARCH64, str(wheel)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode == 0


def main() -> int:
    host = one(f"simakernels-*_{os.uname().machine}.whl")
    arm = one("simakernels-*_aarch64.whl")
    sdist = one("simakernels-*.tar.gz")
    meta = metadata(host)
    claimed = versions(meta)
    pins = floors(meta)
    print(f"{host.name}: Requires-Python {meta['Requires-Python']}, Pythons {', '.join(claimed)}; "
          f"floors {', '.join(pins)}")
    failures = []
    for version in claimed:
        python = interpreter(version)
        if python is None:
            failures.append(f"Python {version}: no interpreter (pyenv install {version}, or python{version} on PATH)")
            continue
        oldest = version == claimed[0]
        try:
            if oldest:
                line = install_and_check(venv(python, version), host, pins, extra="dask")
                print(f"  wheel {version:5} ok  {line} (with [dask], every dependency at its floor; "
                      f"{DASK_EXAMPLE.name} ran)")
            else:
                line = install_and_check(venv(python, version), host, [])
                print(f"  wheel {version:5} ok  {line}")
            if version == claimed[-1]:
                line = install_and_check(venv(python, f"{version}-sdist"), sdist, [])
                print(f"  sdist {version:5} ok  {line}")
            if version == claimed[-2]:
                line = install_and_check(venv(python, f"{version}-checkout"), ROOT, [])
                print(f"  pip install . {version} ok  {line}")
        except RuntimeError as error:
            failures.append(f"Python {version}: {error}")
    below = claimed[0].split(".")
    below = f"{below[0]}.{int(below[1]) - 1}"
    for version in claimed + [below]:
        accepted, expected = aarch64_accepts(arm, version), version != below
        print(f"  {arm.name} on aarch64 CPython {version}: {'accepted' if accepted else 'refused'}")
        if accepted != expected:
            failures.append(f"aarch64 CPython {version}: pip {'accepted' if accepted else 'refused'} {arm.name}")
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"test-pythons: {len(claimed)} Pythons, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
