"""``python -m simakernels`` and the SIMAKERNELS_FORCE_ROUTE variable, in
fresh interpreters importing the same package as this test process."""
import os
import pathlib
import platform
import subprocess
import sys

import simakernels as sk

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


def test_unknown_command_fails(tmp_path):
    result = run_python(["-m", "simakernels", "no-such-command"], tmp_path)
    assert result.returncode != 0


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
