"""The x86-64 throughput floor tool (toolchains/host/floor.c, `make floor`):
it builds with the project's warning flags and prints every row that
docs/PERF.md quotes, each with a positive figure.  (Only its form is
checked: what it measures is this CPU's, and no timing is asserted.)  On a
CPU without AVX-512 F/BW/VBMI or F16C the tool says it has nothing to
measure, and the test skips."""
import pathlib
import platform
import re
import shutil
import subprocess

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "toolchains" / "host" / "floor.c"
ROWS = [
    "vmulps zmm",
    "vcvtph2ps zmm <- ymm",
    "FP32 -> INT8 (16 operations)",
    "BF16 -> INT8 (20 operations)",
    "FP16 -> INT8 (20 operations)",
    "alone (6 per 64 bytes)",
    "with the BF16 -> INT8 block",
    "with the FP16 -> INT8 block",
    "vpgatherdd zmm, 64 KiB table",
    "256 KiB",
    "2048 KiB",
    "8192 KiB",
]

pytestmark = pytest.mark.skipif(
    platform.machine() != "x86_64" or shutil.which("gcc") is None, reason="an x86-64 tool, built by gcc"
)


def test_floor_builds_and_prints_every_row(tmp_path):
    binary = tmp_path / "floor"
    subprocess.run(
        ["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(binary), str(SOURCE)], check=True
    )
    text = subprocess.run([str(binary), "20000"], check=True, capture_output=True, text=True).stdout
    if "nothing to measure" in text:  # a CPU without AVX-512: the tool says so and stops
        assert "GHz" not in text
        pytest.skip(f"the tool built but has nothing to measure on this CPU: {text.strip()}")
    assert re.search(r"clock \d+\.\d\d GHz", text), text
    for row in ROWS:
        line = next((text_line for text_line in text.splitlines() if text_line.startswith(row)), None)
        assert line is not None, f"no row {row!r} in:\n{text}"
        figures = [float(f) for f in line[len(row):].split()]
        assert figures and all(f > 0 for f in figures), line
