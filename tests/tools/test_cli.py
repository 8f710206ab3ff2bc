"""``python -m simakernels`` and the SIMAKERNELS_FORCE_ROUTE variable, in
fresh interpreters importing the same package as this test process; the
selftest's progress bar and the demo's exit status in this process."""
import io
import os
import pathlib
import platform
import subprocess
import sys

import re

import numpy as np
import pytest

import simakernels as sk
from simakernels import cli, selftest
from simakernels._ffi import ffi, lib

PACKAGE_ROOT = str(pathlib.Path(sk.__file__).resolve().parent.parent)
TIMEOUT = 900  # generous: the suite also runs under QEMU


def run_python(args, tmp_path, **env_overrides):
    env = dict(os.environ)
    env.pop("SIMAKERNELS_FORCE_ROUTE", None)
    env.update(env_overrides)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=TIMEOUT
    )


def test_available_routes():
    routes = sk.a65.available_routes()
    assert isinstance(routes, tuple) and routes
    assert "scalar" in routes
    assert len(set(routes)) == len(routes)


def test_neon_is_available_on_aarch64():
    if platform.machine() == "aarch64":
        assert "neon" in sk.a65.available_routes()
    else:
        assert "neon" not in sk.a65.available_routes()


def test_info(tmp_path):
    result = run_python(["-m", "simakernels", "info"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert sk.__version__ in result.stdout
    for route in sk.a65.available_routes():
        assert route in result.stdout
    brief = run_python(["-m", "simakernels", "info", "--brief"], tmp_path)
    assert brief.returncode == 0, brief.stderr
    assert all(route in brief.stdout for route in sk.a65.available_routes())


def test_selftest(tmp_path):
    result = run_python(["-m", "simakernels", "selftest"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failed" in result.stdout
    for route in sk.a65.available_routes():
        assert route in result.stdout
    assert "selftest [" not in result.stderr and "\r" not in result.stderr  # stderr is a pipe: no bar


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


def _cheap_checks(monkeypatch):
    calls = []
    checks = [("first check", lambda route: calls.append(("first", route)) or True),
              ("second check", lambda route: calls.append(("second", route)) or True)]
    monkeypatch.setattr(selftest, "CHECKS", checks)
    return calls


def test_selftest_progress_bar_on_a_terminal(monkeypatch, capsys):
    calls = _cheap_checks(monkeypatch)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert selftest.run() == 0
    routes = sk.a65.available_routes()
    total = 2 * len(routes)
    assert len(calls) == total
    drawn = terminal.getvalue()
    frames = [f for f in drawn.split("\r\x1b[K") if f]
    assert len(frames) == total, drawn                  # one redraw per step, then cleared
    assert drawn.endswith("\r\x1b[K") and "\n" not in drawn
    assert frames[0].startswith("selftest [....") and f"  1/{total} " in frames[0]
    assert frames[0].endswith(f"first check [{routes[0]}]")
    assert f"{total}/{total}" in frames[-1] and frames[-1].endswith(f"second check [{routes[-1]}]")
    out = capsys.readouterr().out
    assert f"{total} passed, 0 failed" in out and "selftest [" not in out   # the bar never goes to stdout


def test_selftest_quiet_or_not_a_terminal_prints_no_bar(monkeypatch, capsys):
    _cheap_checks(monkeypatch)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(["selftest", "--quiet"]) == 0
    assert terminal.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", io.StringIO())   # a pipe or a log file
    assert cli.main(["selftest"]) == 0
    assert sys.stderr.getvalue() == ""
    assert "0 failed" in capsys.readouterr().out


def test_selftest_reports_a_failing_check(monkeypatch, capsys):
    def broken(route):
        raise RuntimeError("boom")

    monkeypatch.setattr(selftest, "CHECKS", [("broken check", broken), ("fine check", lambda route: True)])
    assert selftest.run(verbose=False) == 1
    out = capsys.readouterr().out
    n = len(sk.a65.available_routes())
    assert out.count("broken check (boom)") == n and "(boom) (boom)" not in out
    assert f"{n} passed, {n} failed" in out


def test_demo(tmp_path):
    result = run_python(["-m", "simakernels", "demo"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "", result.stderr          # no stray warnings
    out = result.stdout
    sections = ["1. A weight tensor", "2. BF16 rounding", "3. Strided views", "4. The same quantization as an EV74",
                "5. Time per call"]
    positions = [out.find(s) for s in sections]
    assert -1 not in positions and positions == sorted(positions), out
    # 1: the round trip's statistics
    assert "max |error|" in out and "x scale" in out and "RMS error" in out and " dB" in out
    # 2: the specification's worked examples
    cast_rows = {line.split()[2]: line.split()[7] for line in out.splitlines() if line.startswith("   cast    fp32")}
    assert cast_rows == {"0x44338000": "0x4434", "0x44338001": "0x4434", "0x7f800001": "0x7f80",
                         "0xffffffff": "0x0000"}, out
    assert "FP32 718.0 -> BF16 720.0 (0x4434)" in out and "716" in out
    # 3 and 4: every comparison the demo makes holds (4 also runs the packet
    # through the EV74 kernel where an OpenCL runtime is, else says why not)
    kernel = "the same packet through the EV74 kernel itself" in out
    assert kernel or "the EV74 kernel itself (OpenCL C) does not run here" in out, out
    assert "False" not in out and out.count("True") == 4 + kernel
    # 4: the descriptor listing
    assert "224-byte descriptor" in out and "magic 0x3151534b ('KSQ1'), version 1, length 224 bytes" in out
    assert "conversion FLOAT32 -> INT8, rank 2" in out and "extents (8, 1024)" in out
    assert "address slots 0x0, 0x0" in out and "rounding nearest_even" in out
    # 5: one timing row per measured operation, against NumPy / ml_dtypes
    rows = [line for line in out.splitlines() if line.rstrip().endswith("x") and " ms " in line]
    assert len(rows) == 4 and all("NumPy" in r or "ml_dtypes" in r for r in rows), out


def test_unknown_command_fails(tmp_path):
    result = run_python(["-m", "simakernels", "no-such-command"], tmp_path)
    assert result.returncode != 0


def test_no_arguments_prints_the_help(tmp_path):
    result = run_python(["-m", "simakernels"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("usage: python -m simakernels"), result.stdout
    for command in ("info", "demo", "selftest", "bench"):
        assert re.search(rf"^ +{command} +\S", result.stdout, re.M), f"{command} missing from\n{result.stdout}"


def test_version(tmp_path):
    version = re.search(r'__version__ = "(.+)"', (pathlib.Path(PACKAGE_ROOT) / "simakernels" / "_version.py")
                        .read_text()).group(1)
    result = run_python(["-m", "simakernels", "--version"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"simakernels {version}\n"


# reST and Markdown markup a terminal would show literally.
MARKUP = re.compile(r"``|`[^`\s]+`|:(?:func|class|mod|meth|attr):|\*\*")


@pytest.mark.parametrize("command", [[], ["info"], ["demo"], ["selftest"], ["bench"]],
                         ids=lambda c: c[0] if c else "top")
def test_help_is_plain_text(command, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([*command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m simakernels")
    assert not MARKUP.search(out), out


def _route_names():
    """Every route name of the C enum, compiled into this build or not."""
    return [ffi.string(lib.sk_route_name(r)).decode() for r in range(lib.SK_ROUTE_COUNT)]


def _route_that_cannot_run(kind):
    """A name SIMAKERNELS_FORCE_ROUTE may hold that this CPU cannot run, and
    the reason the command line should give."""
    if kind == "unknown":
        return "bogus", "no route has this name"
    names = [n for n in _route_names() if n not in sk.a65.available_routes()]
    if not names:
        pytest.skip("this build on this CPU runs every route")
    name = names[0]  # e.g. neon on x86-64, avx512 on AArch64
    reason = "this CPU lacks it" if name in sk.a65.compiled_routes() else "this build did not compile it"
    return name, reason


@pytest.mark.parametrize("kind", ["unavailable", "unknown"])
def test_info_names_a_forced_route_that_cannot_run(kind, tmp_path):
    name, reason = _route_that_cannot_run(kind)
    result = run_python(["-m", "simakernels", "info"], tmp_path, SIMAKERNELS_FORCE_ROUTE=name)
    assert result.returncode == 0, result.stderr
    line = next((x for x in result.stdout.splitlines() if x.startswith("forced route")), None)
    assert line is not None, result.stdout
    assert f" {name} (SIMAKERNELS_FORCE_ROUTE): cannot run here: {reason}; " in line, line
    assert all(route in line for route in sk.a65.available_routes()), line
    brief = run_python(["-m", "simakernels", "info", "--brief"], tmp_path, SIMAKERNELS_FORCE_ROUTE=name)
    assert brief.returncode == 0, brief.stderr
    assert brief.stdout.rstrip().endswith(f"; forced route {name}: cannot run here"), brief.stdout


def test_info_names_a_forced_route(tmp_path):
    route = sk.a65.available_routes()[-1]
    result = run_python(["-m", "simakernels", "info"], tmp_path, SIMAKERNELS_FORCE_ROUTE=route)
    assert result.returncode == 0, result.stderr
    assert re.search(rf"^forced route +{route} \(SIMAKERNELS_FORCE_ROUTE\)$", result.stdout, re.M), result.stdout
    unset = run_python(["-m", "simakernels", "info"], tmp_path)
    assert re.search(r"^forced route +none\b", unset.stdout, re.M), unset.stdout
    assert "forced route" not in run_python(["-m", "simakernels", "info", "--brief"], tmp_path).stdout


@pytest.mark.parametrize("kind", ["unavailable", "unknown"])
def test_selftest_fails_when_the_forced_route_cannot_run(kind, tmp_path):
    name, reason = _route_that_cannot_run(kind)
    result = run_python(["-m", "simakernels", "selftest", "--quiet"], tmp_path, SIMAKERNELS_FORCE_ROUTE=name)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"SIMAKERNELS_FORCE_ROUTE={name!r}" in result.stderr and reason in result.stderr, result.stderr
    assert "passed" not in result.stdout  # refused before any check runs


def test_selftest_with_a_forced_route_that_runs(monkeypatch, capsys):
    calls = _cheap_checks(monkeypatch)
    route = sk.a65.available_routes()[-1]
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", route)
    assert selftest.run(verbose=False) == 0
    assert len(calls) == 2 * len(sk.a65.available_routes())  # still every route
    assert f"forced route: {route} (SIMAKERNELS_FORCE_ROUTE)" in capsys.readouterr().out


PROBE = """
import simakernels as sk
req = sk.ops.cast.Request([sk.TensorSpec((4,), sk.DType.FLOAT32)], [sk.TensorSpec((4,), sk.DType.BFLOAT16)])
plan = sk.a65.cast.check_inference(req)
if isinstance(plan, sk.Error):
    print("ERROR", plan.code.name, plan.message)
else:
    print("ROUTE", plan.route)
shared = sk.ops.cast.check_inference(req)
prepared = sk.a65.cast.prepare(shared)
print("PREPARE", prepared.code.name if isinstance(prepared, sk.Error) else prepared.route)
explicit = sk.a65.cast.check_inference(req, route="scalar")
print("EXPLICIT", explicit.route)
"""


def test_force_route_unknown_name_is_an_error(tmp_path):
    result = run_python(["-c", PROBE], tmp_path, SIMAKERNELS_FORCE_ROUTE="bogus")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ERROR UNSUPPORTED_ENVIRONMENT"), result.stdout
    assert "bogus" in lines[0]
    for route in sk.a65.available_routes():
        assert route in lines[0], f"{route} not named in {lines[0]!r}"
    assert lines[1] == "PREPARE UNSUPPORTED_ENVIRONMENT"
    assert lines[2] == "EXPLICIT scalar"  # an explicit route argument wins


def test_force_route_selects_each_route(tmp_path):
    for route in sk.a65.available_routes():
        result = run_python(["-c", PROBE], tmp_path, SIMAKERNELS_FORCE_ROUTE=route)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[:2] == [f"ROUTE {route}", f"PREPARE {route}"], result.stdout


def test_default_route_is_the_best_available(tmp_path):
    result = run_python(["-c", PROBE], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"ROUTE {sk.a65.available_routes()[0]}"


def test_force_route_in_process(monkeypatch):
    req = sk.ops.cast.Request([sk.TensorSpec((4,), sk.DType.BFLOAT16)], [sk.TensorSpec((4,), sk.DType.FLOAT32)])
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", "scalar")
    assert sk.a65.cast.check_inference(req).route == "scalar"
    monkeypatch.setenv("SIMAKERNELS_FORCE_ROUTE", "bogus")
    error = sk.a65.cast.check_inference(req)
    assert isinstance(error, sk.Error) and error.code == sk.ErrorCode.UNSUPPORTED_ENVIRONMENT


def test_demo_fails_when_a_result_is_wrong(monkeypatch, capsys):
    from simakernels import demo

    weights = np.zeros((8, 1024), np.float32)
    monkeypatch.setattr(demo, "_section_round_trip", lambda rng: (True, weights, np.float32(1)))
    monkeypatch.setattr(demo, "_section_bf16", lambda: True)
    monkeypatch.setattr(demo, "_section_strided", lambda w: False)
    monkeypatch.setattr(demo, "_section_ev74", lambda w, s: True)
    monkeypatch.setattr(demo, "_section_timing", lambda rng: None)
    assert cli.main(["demo"]) == 1
    assert "section(s) 3 differ" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["proc", "file", "damaged"])
def test_ev74_vectors_refuses_a_bad_path_in_one_line(where, tmp_path, capsys):
    """Exit 2 and one line naming the path: no traceback."""
    if where == "proc":
        args, named = ["ev74-vectors", "/proc/no-such-dir/kit", "--quick"], "/proc/no-such-dir/kit"
    elif where == "file":
        afile = tmp_path / "afile"
        afile.write_text("")
        args, named = ["ev74-vectors", str(afile), "--quick"], str(afile)
    else:
        kit = tmp_path / "kit"
        assert cli.main(["ev74-vectors", str(kit), "--quick"]) == 0
        with open(kit / "manifest.json", "a") as f:
            f.write("{}\n")
        (tmp_path / "results").mkdir()
        args, named = ["ev74-vectors", "--check", str(kit), str(tmp_path / "results")], str(kit / "manifest.json")
    capsys.readouterr()
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err and "Traceback" not in err, err
