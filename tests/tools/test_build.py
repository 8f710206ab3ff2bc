"""The compiled core matches the package it is loaded with, and the suite is
testing the build it means to test."""
import os
import pathlib
import shutil
import subprocess
import sys

import simakernels as sk

REPO = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = pathlib.Path(sk.__file__).resolve().parent


def _import_in(root: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(
        [sys.executable, "-P", "-c", "import simakernels, sys; sys.stdout.write(simakernels.__file__)"],
        capture_output=True, text=True, env=env, cwd=str(root),
    )


def _copy_package(root: pathlib.Path) -> pathlib.Path:
    shutil.copytree(PACKAGE, root / "simakernels", ignore=shutil.ignore_patterns("__pycache__"))
    return root / "simakernels"


def test_expected_build_is_under_test():
    """Under `make test-aarch64` the suite must exercise the installed wheel,
    not the source tree."""
    if os.environ.get("SIMAKERNELS_EXPECT_INSTALLED"):
        assert PACKAGE != REPO / "simakernels", f"testing the source tree at {PACKAGE}"
        assert not (PACKAGE.parent / "csrc").exists()


def test_stale_version_is_refused(tmp_path):
    copy = _copy_package(tmp_path)
    assert _import_in(tmp_path).returncode == 0  # the untouched copy imports
    (copy / "_version.py").write_text('__version__ = "99.0.0"\n')
    result = _import_in(tmp_path)
    assert result.returncode != 0
    assert "stale build" in result.stderr and "99.0.0" in result.stderr


def test_changed_sources_are_refused_in_a_checkout(tmp_path):
    _copy_package(tmp_path)
    shutil.copytree(REPO / "csrc", tmp_path / "csrc", ignore=shutil.ignore_patterns("__pycache__", "*.o"))
    result = _import_in(tmp_path)
    assert result.returncode == 0, result.stderr  # same sources as the build
    with open(tmp_path / "csrc" / "cast" / "cast.c", "a") as f:
        f.write("/* edited after the build */\n")
    result = _import_in(tmp_path)
    assert result.returncode != 0
    assert "stale build" in result.stderr and "csrc" in result.stderr


def test_build_names_its_routes():
    compiled = sk.a65.compiled_routes()
    assert "scalar" in compiled
    if os.uname().machine == "aarch64":
        assert "neon" in compiled and "neon" in sk.a65.available_routes()
    else:
        assert "neon" not in compiled
    assert set(sk.a65.available_routes()) <= set(compiled)
