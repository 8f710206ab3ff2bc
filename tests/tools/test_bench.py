"""``python -m simakernels bench``: option handling, case selection, the
JSON document, the output check, peers present and simulated absent.  Tiny
sizes and budgets; nothing here asserts a time."""
import io
import json
import math
import sys
import time

import numpy as np
import pytest

import simakernels as sk
from simakernels import cli
from simakernels._progress import Progress
from simakernels.bench import cases, report, timing
from simakernels.core import DType

from tools.test_cli import run_python

FAST = ["--budget", "0.001", "--quiet", "--no-per-call"]


def bench_json(capsys, *args):
    """Runs the bench in-process with the JSON on stdout; (status, doc, stderr)."""
    status = cli.main(["bench", *args, "--json", "-"])
    out, err = capsys.readouterr()
    return status, json.loads(out) if status != 2 else None, err


def keys(doc):
    return sorted((r["op"], r["rounding"], r["layout"], r["size"]) for r in doc["results"])


def test_parse_and_label_sizes():
    assert [cases.parse_size(s) for s in ("64", "4K", "256k", "16M", "64M", "1000")] == [
        64, 4096, 1 << 18, 1 << 24, 1 << 26, 1000]
    assert [cases.size_label(n) for n in (64, 4096, 1 << 26, 1000, 3 << 10)] == ["64", "4K", "64M", "1000", "3K"]
    for bad in ("", "0", "-4", "4G", "K", "1.5M"):
        with pytest.raises(ValueError):
            cases.parse_size(bad)


def test_grid_is_near_square():
    assert cases.grid(64) == (8, 8)
    assert cases.grid(1 << 18) == (512, 512)
    assert cases.grid(1 << 13) == (64, 128)
    assert cases.grid(1000) == (25, 40)
    assert cases.grid(7) == (1, 7)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16])
def test_layouts_are_the_promised_views(dtype):
    n, item = 1 << 13, dtype.itemsize
    rows, cols = cases.grid(n)
    for layout, strides in (("dense", (item,)), ("strided", (2 * cols * item, 2 * item)),
                            ("transposed", (item, rows * item))):
        parent = cases.make_parent(dtype, cases.parent_shape(n, layout))
        x = cases.apply_layout(parent, layout)
        assert x.shape == cases.out_shape(n, layout) and x.size == n
        assert x.strides == strides and np.shares_memory(x, parent)
        assert x.dtype == sk.arrays.numpy_dtype(dtype)
    assert len(np.unique(cases.make_parent(dtype, (n,)))) > 50  # not a constant fill


def test_select_ops():
    every = cases.select_ops(None, ["nearest_even"])
    assert [op.key for op in every] == [op.key for op in cases.OPS]
    assert [op.key for op in cases.select_ops(["quant"], ["nearest_even"])] == [
        "quant-fp32-int8", "quant-bf16-int8", "quant-fp16-int8"] + [
        op.key for op in cases.FORMAT_OPS if op.kind == "quant"]
    assert [op.key for op in cases.select_ops(["cast-bf16"], ["nearest_even"])] == ["cast-bf16-fp32"]
    modes = cases.select_ops(["quant-fp16", "cast-fp32-bf16"], list(cases.ROUNDINGS))
    assert [(op.key, op.rounding) for op in modes] == [("cast-fp32-bf16", "nearest_even")] + [
        ("quant-fp16-int8", mode) for mode in cases.ROUNDINGS]
    assert modes[2].label == "quant fp16->int8 toward_zero"
    for bad in (["qua"], ["quant-fp64"], ["cast", "bogus"]):
        with pytest.raises(ValueError, match="unknown op"):
            cases.select_ops(bad, ["nearest_even"])


def test_progress_bar_on_a_plain_stream():
    stream = io.StringIO()
    progress = Progress(3, stream, name="bench")
    for label in ("a", "b", "c"):
        progress.step(label)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and "\r" not in stream.getvalue()
    assert lines[0].startswith("bench [....") and " 1/3 " in lines[0] and lines[0].endswith("a")
    assert " 3/3 " in lines[2] and "#" in lines[2]
    silent = io.StringIO()
    Progress(3, silent, enabled=False, name="bench").step("x")
    assert silent.getvalue() == ""


def test_measure_takes_round_robin_samples():
    calls = []
    samples = timing.measure({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 0.0, 5)
    assert sorted(samples) == ["a", "b"]
    assert all(len(s) == 5 and s == sorted(s) and s[0] > 0 for s in samples.values())
    switches = sum(1 for p, q in zip(calls, calls[1:]) if p != q)
    assert switches >= 2 * 5 - 1 and calls.count("a") > 5 * 5  # interleaved rounds of batched calls
    assert timing.median([1.0, 2.0, 9.0]) == 2.0 and timing.median([1.0, 2.0, 4.0, 9.0]) == 3.0


def test_each_sample_follows_an_untimed_call_of_its_runner():
    """A runner slow enough for one call per sample is called twice per
    round (the untimed call, then the timed one), after its warm-up and
    calibration calls."""
    calls = []

    def runner(name):
        return lambda: (calls.append(name), time.sleep(0.002))

    timing.measure({"a": runner("a"), "b": runner("b")}, 0.0, 5)
    assert calls == ["a", "a", "b", "b"] + ["a", "a", "b", "b"] * 5


def test_json_document(capsys):
    status, doc, err = bench_json(capsys, "--sizes", "64,4K", "--ops", "dequant-int8-fp32,cast-fp32-bf16", *FAST)
    assert status == 0, err
    per_tensor = (("dense", "64"), ("dense", "4K"), ("strided", "4K"), ("transposed", "4K"))
    per_axis = tuple((layout, size) for layout in ("axis-outer", "axis-inner") for size in ("64", "4K"))
    blocked = tuple((layout, "4K") for layout in cases.BLOCK_LAYOUTS)  # four blocks at least: not at 64
    assert keys(doc) == sorted(  # the per-axis and blocked layouts: dequant and quant only
        [("cast-fp32-bf16", "nearest_even", layout, size) for layout, size in per_tensor]
        + [("dequant-int8-fp32", "nearest_even", layout, size) for layout, size in per_tensor + per_axis + blocked])
    assert doc["machine"]["routes"] == list(sk.a65.available_routes())
    assert doc["versions"]["simakernels"] == sk.__version__ and doc["versions"]["numpy"] == np.__version__
    assert doc["peers"] == {"requested": [], "found": [], "missing": {}}
    assert doc["per_call"] == [] and err == ""  # --quiet, --no-per-call
    for r in doc["results"]:
        op = next(o for o in cases.OPS if o.key == r["op"])
        assert r["n"] == cases.parse_size(r["size"]) and math.prod(r["shape"]) == r["n"]
        assert r["bytes"] == r["n"] * (op.src.itemsize + op.dst.itemsize)
        assert r["route"] == sk.a65.available_routes()[0]
        expected = {"ours", "memcpy", "numpy"} | ({"ml_dtypes"} if op.kind == "cast" else set())
        assert set(r["ns_per_elem"]) == expected
        assert all(math.isfinite(v) and v > 0 for v in r["ns_per_elem"].values())
        assert set(r["samples_s"]) == {"ours", "memcpy", "numpy"}
        for name, samples in r["samples_s"].items():
            assert len(samples) >= timing.MIN_SAMPLES and samples == sorted(samples)
            assert r["ns_per_elem"][name] == pytest.approx(timing.median(samples) * 1e9 / r["n"])
        assert r["mismatches"]["numpy"] == 0


def test_filters_and_rounding_modes(capsys):
    status, doc, _ = bench_json(capsys, "--sizes", "64,4K", "--ops", "quant-bf16", "--layouts", "strided",
                                "--rounding", "all", *FAST)
    assert status == 0
    assert keys(doc) == [("quant-bf16-int8", mode, "strided", "4K") for mode in sorted(cases.ROUNDINGS)]
    assert all(r["mismatches"] == {"numpy": 0} for r in doc["results"])
    assert doc["settings"]["roundings"] == sorted(cases.ROUNDINGS)
    status, doc, _ = bench_json(capsys, "--sizes", "100", "--ops", "cast", "--layouts", "transposed,dense",
                                "--rounding", "toward_zero", *FAST)
    assert status == 0  # 100 < 4K: dense only; cast rows ignore the rounding
    assert keys(doc) == [("cast-bf16-fp32", "nearest_even", "dense", "100"),
                         ("cast-fp32-bf16", "nearest_even", "dense", "100")]


def test_table_and_per_call(capsys):
    status = cli.main(["bench", "--sizes", "64", "--ops", "dequant-int8-bf16", "--budget", "0.001"])
    out, err = capsys.readouterr()
    assert status == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("op "))
    for column in ("ns/elem", "GB/s", "memcpy ns", "of memcpy", "numpy ns", "vs numpy", "best peer", "vs peer"):
        assert column in lines[header]
    assert lines[header + 2].split()[:4] == ["dequant", "int8->bf16", "dense", "64"]
    assert "sk.a65.<op>.execute" in out and "Per-call cost at 64 elements" in out
    per_call = out[out.index("Per-call"):]
    for name in ("sk.a65.dequant.execute", "sk.dequantize(", "np.multiply(", "ml_dtypes: x.astype"):
        assert name in per_call
    assert "torch" not in per_call  # peers only with --peers
    assert "bench [" in err and "per-call cost" in err  # the progress bar, on stderr only
    assert "bench [" not in out


def test_a_wrong_result_is_caught(capsys, monkeypatch):
    real = cases.ours

    def broken(op, x, *args, **kwargs):
        runner, route = real(op, x, *args, **kwargs)
        return cases.Runner(runner.call, lambda: np.zeros_like(runner.result())), route
    monkeypatch.setattr(cases, "ours", broken)
    status = cli.main(["bench", "--sizes", "64", "--ops", "quant-fp32-int8,quant-fp32-int4", *FAST])
    out, err = capsys.readouterr()
    assert status == 1
    assert "ERROR quant fp32->int8 dense 64" in err and "differ from NumPy" in err
    assert "ERROR quant fp32->int4 packed dense 64" in err  # packed bytes compared too
    assert "x!" in out


@pytest.mark.parametrize("args, message", [
    (["--sizes", "4G"], "bad size"),
    (["--ops", "quant-fp64"], "unknown op"),
    (["--layouts", "diagonal"], "unknown layout"),
    (["--rounding", "stochastic"], "unknown rounding"),
    (["--peers", "tensorflow"], "unknown peer"),
    (["--budget", "0"], "--budget"),
    (["--sizes", ","], "at least one"),
    # filters that select nothing (FAST keeps a run short if one is not refused)
    (["--sizes", "64,1K", "--layouts", "strided,transposed", *FAST],
     "--sizes 64,1K with --layouts strided,transposed selects no case: strided and transposed run from 4K"),
    (["--ops", "quant", "--rounding", ",", "--sizes", "64", *FAST], "--rounding needs at least one"),
    (["--ops", ",", "--sizes", "64", *FAST], "--ops needs at least one"),
    (["--ops", "cast", "--layouts", "axis-outer,axis-inner", "--sizes", "64", *FAST],
     "selects no case: axis-outer and axis-inner (per-axis parameters) apply to dequant and quant only"),
])
def test_bad_arguments(capsys, args, message):
    assert cli.main(["bench", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_missing_peers_are_named_and_skipped(capsys, monkeypatch):
    for name in ("torch", "onnxruntime"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    status, doc, err = bench_json(capsys, "--sizes", "64", "--ops", "dequant-int8-fp32", "--peers", *FAST)
    assert status == 0
    assert doc["peers"]["requested"] == ["torch", "onnxruntime"] and doc["peers"]["found"] == []
    assert sorted(doc["peers"]["missing"]) == ["onnxruntime", "torch"]
    assert "peer torch missing" in err and "peer onnxruntime missing" in err
    assert set(doc["results"][0]["ns_per_elem"]) == {"ours", "memcpy", "numpy"}


def test_plot_needs_matplotlib(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert cli.main(["bench", "--plot", "x.png", *FAST]) == 2  # refused before any measurement
    out, err = capsys.readouterr()
    assert out == "" and "--plot needs matplotlib" in err


def test_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "bench.png"
    status = cli.main(["bench", "--sizes", "64,4K", "--ops", "cast-bf16,dequant-int8-fp32", "--plot", str(path), *FAST])
    assert status == 0, capsys.readouterr().err
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10000


def test_installed_peers(capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    status, doc, err = bench_json(capsys, "--sizes", "64,4K", "--ops", "dequant-int8-fp32,quant-bf16-int8,cast",
                                  "--layouts", "dense,strided", "--rounding", "nearest_even,toward_zero",
                                  "--peers", "torch,onnxruntime", *FAST)
    assert status == 0, err
    assert doc["peers"]["found"] == ["torch", "onnxruntime"] and doc["peers"]["missing"] == {}
    assert doc["versions"]["torch"] == torch.__version__ and torch.get_num_threads() == 1
    for r in doc["results"]:
        names = set(r["ns_per_elem"])
        directed = r["rounding"] != "nearest_even"
        assert ("torch" in names) != directed  # torch rounds to nearest only
        assert ("onnxruntime" in names) == (r["layout"] == "dense" and not directed)  # ORT: dense tensors
        assert all(v > 0 for v in r["ns_per_elem"].values())
        if r["op"] != "quant-bf16-int8":  # quantize divides by 1/m: may differ; the rest is exact
            assert all(count == 0 for count in r["mismatches"].values()), r
    status = cli.main(["bench", "--sizes", "64", "--ops", "cast-fp32", "--peers", "torch", "--budget", "0.001",
                       "--quiet"])
    out = capsys.readouterr().out
    per_call = out[out.index("Per-call"):]
    assert status == 0 and "torch.dequantize(qt)" in per_call and "onnxruntime" not in per_call


def test_command_line(tmp_path):
    result = run_python(["-m", "simakernels", "bench", "--sizes", "64", "--ops", "cast-fp32-bf16",
                         "--budget", "0.001", "--no-per-call", "--json", "b.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "cast fp32->bf16" in result.stdout and "bench [" in result.stderr
    doc = json.loads((tmp_path / "b.json").read_text())
    assert keys(doc) == [("cast-fp32-bf16", "nearest_even", "dense", "64")]
    assert doc["command"][:3] == ["bench", "--sizes", "64"]


# ---- per-axis (per-channel) Dequant and Quant ---------------------------------

def test_channels_and_the_per_axis_layouts():
    assert [cases.channels(n) for n in (64, 4096, 1 << 16, 1 << 18, 1 << 24, 1000, 7, 1)] == [
        8, 64, 256, 256, 256, 25, 1, 1]
    assert cases.channels(1 << 24, most=4096) == 4096
    for n in (64, 1 << 13, 1 << 18, 1000):
        c = cases.channels(n)
        assert cases.parent_shape(n, "axis-outer") == cases.out_shape(n, "axis-outer") == (c, n // c)
        assert cases.parent_shape(n, "axis-inner") == cases.out_shape(n, "axis-inner") == (n // c, c)
    assert [cases.axis_of(layout) for layout in cases.LAYOUTS] == [None, None, None, 0, 1, 1, 1, 0]
    assert [cases.block_of(layout) for layout in cases.LAYOUTS] == [None] * 5 + [32, 128, 32]
    parent = cases.make_parent(DType.INT8, cases.parent_shape(1 << 13, "axis-inner"))
    assert cases.apply_layout(parent, "axis-inner") is parent and parent.flags.c_contiguous
    dequant = next(op for op in cases.OPS if op.key == "dequant-int8-fp32")
    params = cases.channel_params(dequant, 64)
    assert params.values.dtype == np.float32 and params.values.shape == (64,) and len(set(params.values)) == 64
    assert params.zero_points.min() >= -128 and params.zero_points.max() <= 127 and len(set(params.zero_points)) > 1
    values, zero_points = params.shaped(1, 2)
    assert values.shape == zero_points.shape == (1, 64)
    cast = next(op for op in cases.OPS if op.kind == "cast")
    assert "dequant and quant only" in cases.skip_reason(cast, "axis-inner", 1 << 20)
    assert cases.skip_reason(dequant, "axis-outer", 64) is None and cases.skip_reason(dequant, "strided", 64)


def test_per_axis_rows_match_numpy(capsys):
    status, doc, err = bench_json(capsys, "--sizes", "64,4K", "--ops", "dequant-int8-bf16,quant-fp16,cast-bf16-fp32",
                                  "--layouts", "dense,axis-outer,axis-inner",
                                  "--rounding", "nearest_even,toward_negative", *FAST)
    assert status == 0, err
    rows = {(r["op"], r["rounding"], r["layout"], r["size"]): r for r in doc["results"]}
    assert sorted(k for k in rows if k[0] == "cast-bf16-fp32") == [
        ("cast-bf16-fp32", "nearest_even", "dense", size) for size in ("4K", "64")]
    for op, mode in (("dequant-int8-bf16", "nearest_even"), ("quant-fp16-int8", "nearest_even"),
                     ("quant-fp16-int8", "toward_negative")):
        for size, n in (("64", 64), ("4K", 4096)):
            c = cases.channels(n)
            for layout, axis, shape in (("axis-outer", 0, [c, n // c]), ("axis-inner", 1, [n // c, c])):
                r = rows[(op, mode, layout, size)]
                assert (r["axis"], r["channels"], r["shape"]) == (axis, c, shape)
                assert r["mismatches"] == {"numpy": 0}  # exact against the broadcast staged expression
                assert r["route"] == sk.a65.available_routes()[0]
            assert rows[(op, mode, "dense", size)]["axis"] is None
    comparisons = doc["per_axis"]["comparisons"]
    assert len(comparisons) == 3 * 2 * 2
    for c in comparisons:
        axis_row = rows[(c["op"], c["rounding"], c["layout"], c["size"])]
        dense_row = rows[(c["op"], c["rounding"], "dense", c["size"])]
        assert c["ratio"] == pytest.approx(axis_row["ns_per_elem"]["ours"] / dense_row["ns_per_elem"]["ours"])
    assert doc["per_axis"]["targets"] == []  # no target size (256K, 16M) and no peer in this run


def test_the_numpy_check_sees_per_channel_parameters(capsys, monkeypatch):
    """Ours with per-tensor parameters where per-axis ones were asked for is
    caught: NumPy's expression broadcasts the per-channel values."""
    real = cases.ours
    monkeypatch.setattr(cases, "ours", lambda op, x, route=None, axis=None, block_size=None: real(op, x, route))
    status = cli.main(["bench", "--sizes", "4K", "--ops", "dequant-int8-fp32", "--layouts", "axis-inner", *FAST])
    out, err = capsys.readouterr()
    assert status == 1 and "ERROR dequant int8->fp32 axis-inner 4K" in err


def test_per_axis_table_and_targets(capsys):
    status = cli.main(["bench", "--sizes", "4K,256K", "--ops", "quant-fp32-int8", "--layouts",
                       "dense,axis-outer,axis-inner", *FAST])
    out, err = capsys.readouterr()
    assert status == 0, err
    section = out[out.index("Per-axis and blocked parameters against per-tensor"):]
    header = next(line for line in section.splitlines() if line.startswith("op "))
    assert header.split() == ["op", "size", "dense", "ns", "axis-outer", "ns", "/", "dense", "axis-inner", "ns",
                              "/", "dense"]
    assert any(line.split()[:3] == ["quant", "fp32->int8", "256K"] for line in section.splitlines())
    assert any(line.split()[:3] == ["quant", "fp32->int8", "4K"] for line in section.splitlines())
    targets = [line.split(": ")[0].split(None, 1)[1] for line in section.splitlines()
               if line.startswith(("  met ", "  OPEN "))]
    assert targets == ["quant fp32->int8 axis-outer 256K / per-tensor", "quant fp32->int8 axis-inner 256K / per-tensor"]
    assert "(limit 1.15x)" in section and "(limit 1.6x)" in section and "targets (one thread" in section


def test_blocked_rows_match_numpy(capsys):
    """The blocked layouts: shapes, axis and block size in the JSON, and
    ours bit for bit NumPy's expression broadcast over (blocks, block)."""
    status, doc, err = bench_json(capsys, "--sizes", "4K", "--ops", "dequant-int8-bf16,quant-fp16",
                                  "--layouts", "dense,block32-inner,block128-inner,block32-outer", *FAST)
    assert status == 0, err
    rows = {(r["op"], r["layout"]): r for r in doc["results"]}
    for op in ("dequant-int8-bf16", "quant-fp16-int8"):
        for layout, (axis, block) in cases.BLOCK_LAYOUTS.items():
            r = rows[(op, layout)]
            assert (r["axis"], r["block_size"], r["shape"]) == (axis, block, [16, 256] if axis == 1 else [64, 64])
            assert r["mismatches"] == {"numpy": 0}
    assert {c["layout"] for c in doc["per_axis"]["comparisons"]} == set(cases.BLOCK_LAYOUTS)


def test_per_axis_target_rules():
    def row(layout, size, ours, **peers):
        n = cases.parse_size(size)
        return {"op": "dequant-int8-fp32", "label": "dequant int8->fp32", "rounding": "nearest_even",
                "layout": layout, "size": size, "n": n, "shape": list(cases.out_shape(n, layout)),
                "channels": cases.channels(n) if layout != "dense" else None,
                "ns_per_elem": {"ours": ours, "memcpy": 0.01, "numpy": 1.0, **peers}}
    results = [row("dense", "64", 1.0), row("axis-inner", "64", 9.0, torch=2.0),       # below 4K: no peer target
               row("dense", "4K", 0.1), row("axis-outer", "4K", 0.5, torch=0.4, onnxruntime=1.0),
               row("dense", "256K", 0.10), row("axis-outer", "256K", 0.115, torch=1.0),  # 1.15x: at the limit
               row("axis-inner", "256K", 0.17, onnxruntime=1.0),                        # 1.7x: over 1.6
               row("dense", "16M", 0.2), row("axis-inner", "16M", 0.3)]                 # 1.5x
    checks = {what: (round(value, 3), limit, met) for what, value, limit, met in report.axis_targets(results)}
    assert checks == {
        "dequant int8->fp32 axis-outer 256K / per-tensor": (1.15, 1.15, True),
        "dequant int8->fp32 axis-inner 256K / per-tensor": (1.7, 1.6, False),
        "dequant int8->fp32 axis-inner 16M / per-tensor": (1.5, 1.6, True),
        "dequant int8->fp32 axis-outer faster than torch from 4K (slowest margin at 4K)": (0.8, 1.0, False),
        "dequant int8->fp32 axis-outer faster than onnxruntime from 4K (slowest margin at 4K)": (2.0, 1.0, True),
        "dequant int8->fp32 axis-inner faster than onnxruntime from 4K (slowest margin at 256K)": (5.882, 1.0, True),
    }


def test_installed_peers_per_axis(capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    status, doc, err = bench_json(capsys, "--sizes", "4K", "--ops", "dequant,quant-fp32,quant-fp16",
                                  "--layouts", "axis-outer,axis-inner", "--peers", *FAST)
    assert status == 0, err
    assert doc["peers"]["found"] == ["torch", "onnxruntime"] and torch.get_num_threads() == 1
    assert len(doc["results"]) == 4 * 2
    for r in doc["results"]:
        assert {"torch", "onnxruntime"} <= set(r["ns_per_elem"]), r["op"]
        assert r["mismatches"]["numpy"] == 0
        if r["op"].startswith("dequant"):  # (q - zp) * scale is exact everywhere; quantize divides by 1/m
            assert r["mismatches"]["torch"] == r["mismatches"]["onnxruntime"] == 0, r


# ---- integer formats beyond INT8 (affine_quant, affine_dequant) -----------------

def test_format_ops():
    ops = {op.key: op for op in cases.FORMAT_OPS}
    assert sorted(ops) == sorted(
        [f"dequant-{s}-{f}" for s in ("uint8", "int16", "uint16", "int4") for f in ("fp32", "bf16")]
        + ["dequant-int32-fp32"] + [f"quant-fp32-{d}" for d in ("uint8", "int16", "uint16", "int4", "uint4", "int2")]
        + [f"quant-bf16-{d}" for d in ("uint8", "int16", "uint16", "int4")])
    assert all(op.affine and op.backend == f"affine_{op.kind}" for op in ops.values())
    assert [op.key for op in cases.OPS if not op.affine] == [
        "cast-fp32-bf16", "cast-bf16-fp32", "dequant-int8-fp32", "dequant-int8-bf16", "quant-fp32-int8",
        "quant-bf16-int8", "quant-fp16-int8"]
    q4, d4, d16 = ops["quant-fp32-int4"], ops["dequant-int4-bf16"], ops["dequant-uint16-fp32"]
    assert (q4.label, q4.reference, q4.storage, q4.packed) == (
        "quant fp32->int4 packed", "quant-fp32-int8", DType.INT4, True)
    assert (d4.label, d4.reference) == ("dequant int4->bf16 packed", "dequant-int8-bf16")
    assert (d16.label, d16.reference, d16.packed) == ("dequant uint16->fp32", "dequant-int8-fp32", False)
    assert ops["quant-bf16-uint8"].reference == "quant-bf16-int8"
    assert q4.nbytes(4096) == 4096 * 4 + 2048 and ops["quant-fp32-int2"].nbytes(7) == 28 + 2
    assert d16.nbytes(64) == 64 * 6 and ops["quant-bf16-uint8"].nbytes(64) == 64 * 3
    assert cases.skip_reason(q4, "block32-inner", 4096) is None and cases.skip_reason(d16, "dense", 64) is None
    for op, layout in ((d16, "block32-inner"), (q4, "strided"), (q4, "axis-inner"), (ops["quant-fp32-int2"],
                                                                                     "block32-inner")):
        assert "run dense (INT4 also block32-inner)" in cases.skip_reason(op, layout, 1 << 16)
    for op in ops.values():  # the parameters admit: zero points in range, N(0, 1) over the range
        least, greatest = cases.storage_range(op.storage)
        value, zp = cases.params(op)
        assert least <= zp <= greatest and value > 0
        per_block = cases.channel_params(op, 64)
        assert least <= per_block.zero_points.min() and per_block.zero_points.max() <= greatest
    assert cases.storage_range(DType.UINT16) == (0, 65535) and cases.storage_range(DType.INT2) == (-2, 1)


@pytest.mark.parametrize("dtype", [DType.INT4, DType.UINT4, DType.INT2, DType.UINT2])
def test_numpy_pack_and_unpack(dtype):
    """NumPy's staged pack and unpack agree with sk.pack and Packed.unpack,
    spare high bits of the last byte included (zero)."""
    least, greatest = cases.storage_range(dtype)
    values = np.arange(11) % (greatest - least + 1) + least
    elements = values.astype(sk.arrays.numpy_dtype(dtype))
    packed = sk.pack(elements)
    unpack, unpacked = cases._numpy_unpack(packed)
    unpack()
    assert unpacked.tolist() == values.tolist()
    out = sk.Packed.empty((11,), dtype)
    pack, slots = cases._numpy_pack(out)
    slots[...] = values
    pack()
    assert out.data.tolist() == packed.data.tolist()


def test_format_rows(capsys, tmp_path):
    """The rows, their JSON fields, the packed bytes checked against NumPy's
    expression, the section against INT8 and its targets."""
    path = tmp_path / "b.json"
    status = cli.main(["bench", "--sizes", "4K", "--ops", "quant-fp32-int8,quant-fp32-int4,dequant-int4-bf16,"
                       "dequant-int32", "--layouts", "dense,strided,block32-inner", "--json", str(path), *FAST])
    out, err = capsys.readouterr()
    assert status == 0, err
    doc = json.loads(path.read_text())
    rows = {(r["op"], r["layout"], r["size"]): r for r in doc["results"]}
    formats = [("quant-fp32-int4", "dense"), ("quant-fp32-int4", "block32-inner"), ("dequant-int4-bf16", "dense"),
               ("dequant-int4-bf16", "block32-inner"), ("dequant-int32-fp32", "dense")]
    assert sorted(k for k in rows if k[0] != "quant-fp32-int8") == sorted((op, layout, "4K") for op, layout in formats)
    for r in doc["results"]:
        assert r["mismatches"] == {"numpy": 0}, r["op"]
        assert r["route"] == sk.a65.available_routes()[0]
    assert rows[("quant-fp32-int4", "dense", "4K")]["bytes"] == 4096 * 4 + 2048
    assert rows[("quant-fp32-int4", "dense", "4K")]["packed"] and rows[("quant-fp32-int4", "dense", "4K")][
        "storage"] == "INT4"
    assert rows[("dequant-int4-bf16", "block32-inner", "4K")]["reference"] == "dequant-int8-bf16"
    assert rows[("quant-fp32-int8", "dense", "4K")]["reference"] is None
    comparisons = {(c["op"], c["layout"], c["size"]): c for c in doc["formats"]["comparisons"]}
    assert set(comparisons) == {k for k in rows if rows[k]["reference"]}
    for layout in ("dense", "block32-inner"):
        c = comparisons[("quant-fp32-int4", layout, "4K")]
        int8 = rows[("quant-fp32-int8", layout, "4K")]["ns_per_elem"]["ours"]
        assert c["ratio"] == pytest.approx(c["ns"] / int8) and c["peers"] == {}
    for key in (("dequant-int32-fp32", "dense", "4K"), ("dequant-int4-bf16", "block32-inner", "4K")):
        assert comparisons[key]["ratio"] is None  # no INT8 dequant row in this run
    assert [t["what"] for t in doc["formats"]["targets"]] == [  # dense, from 4K, with an INT8 row
        "quant fp32->int4 packed dense / int8 from 4K (largest at 4K)"]
    assert all(t["limit"] == report.FORMAT_RATIO_TARGET for t in doc["formats"]["targets"])
    assert [c["op"] for c in doc["per_axis"]["comparisons"]] == ["quant-fp32-int8"]  # INT8 rows only
    section = out[out.index("Integer formats beyond INT8"):]
    assert any(line.split()[:5] == ["quant", "fp32->int4", "packed", "block32-inner", "4K"]
               for line in section.splitlines())
    assert "quant fp32->int4 packed dense / int8 from 4K (largest at 4K)" in section and "(limit 1.3x)" in section


def test_format_target_rules():
    def row(op, size, ours, reference=None, label=None, layout="dense", **peers):
        n = cases.parse_size(size)
        return {"op": op, "label": label or op, "rounding": "nearest_even", "layout": layout, "size": size, "n": n,
                "reference": reference, "ns_per_elem": {"ours": ours, "memcpy": 0.01, "numpy": 1.0, **peers}}
    results = [row("quant-fp32-int8", "64", 1.0), row("quant-fp32-int8", "4K", 0.2), row("quant-fp32-int8", "16M", 0.1),
               row("quant-fp32-int8", "4K", 0.2, layout="block32-inner"),
               row("u8", "64", 9.0, "quant-fp32-int8", onnxruntime=1.0),     # below 4K: no target
               row("u8", "4K", 0.26, "quant-fp32-int8", onnxruntime=0.52),   # 1.3x: at the limit
               row("u8", "16M", 0.12, "quant-fp32-int8", onnxruntime=0.6),
               row("i4", "4K", 0.3, "quant-fp32-int8"), row("i4", "16M", 0.14, "quant-fp32-int8", onnxruntime=0.1),
               row("i4", "4K", 9.0, "quant-fp32-int8", layout="block32-inner", onnxruntime=1.0),  # blocked: reported
               row("u16", "4K", 0.2, "quant-fp16-int8")]                     # no INT8 row: no ratio target
    checks = {what: (round(value, 3), limit, met) for what, value, limit, met in report.format_targets(results)}
    assert checks == {
        "u8 dense / int8 from 4K (largest at 4K)": (1.3, 1.3, True),
        "i4 dense / int8 from 4K (largest at 4K)": (1.5, 1.3, False),
        "u8 dense faster than onnxruntime from 4K (slowest margin at 4K)": (2.0, 1.0, True),
        "i4 dense faster than onnxruntime from 4K (slowest margin at 16M)": (0.714, 1.0, False),
    }


def test_installed_peers_formats(capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    status, doc, err = bench_json(capsys, "--sizes", "4K", "--ops", "quant-fp32-uint8,quant-fp32-uint16,"
                                  "quant-bf16-int4,dequant-int16-fp32,dequant-int4-fp32",
                                  "--layouts", "dense,block32-inner", "--peers", "onnxruntime", *FAST)
    assert status == 0, err
    rows = {(r["op"], r["layout"]): r for r in doc["results"]}
    assert len(rows) == 1 + 1 + 2 + 1 + 2
    for (op, layout), r in rows.items():
        assert ("onnxruntime" in r["ns_per_elem"]) == (op != "quant-fp32-uint16"), op  # ORT: uint8, int16, int4
        assert r["mismatches"]["numpy"] == 0
        if op.startswith("dequant"):  # exact; int4 packed the same way, element 0 in the low nibble
            assert r["mismatches"]["onnxruntime"] == 0, (op, layout)
