#!/usr/bin/env python3
"""Static cost estimate of every NEON leaf's hot loop with llvm-mca.

No AArch64 hardware is at hand, so this compiles the three NEON sources for
aarch64 with the project's C flags, finds each leaf's hot vector loop in the
assembly, and asks llvm-mca (LLVM 15) how many cycles one iteration costs on
its scheduling models.  It prints a Markdown table for docs/PERF.md and keeps
the assembly, the loops fed to llvm-mca and llvm-mca's reports in --out.

Run through `make neon-estimate` (which installs the tools first); plain
python3, standard library only: no Python build of the project is needed.

What a "hot loop" is, from the assembly alone:
  * a loop is a label with a backward branch to it, spanning the label to the
    last such branch; a span holding a return or an unconditional jump out is
    a shared exit block reached from below, not a loop, and a span through a
    call is Quant's repair path (exact recomputation of a block), not the hot
    path (llvm-mca could not cost a call anyway);
  * a leaf's hot loops are its outermost loops holding vector instructions
    that load from the source and store to the destination (the power-of-two
    Dequant leaves have one per exponent);
  * a loop nested in a hot loop (GCC keeps some `for (k < 4)` loops rolled)
    is expanded by its trip count, derived from its induction register's
    start, bound and step, so llvm-mca sees one whole block iteration;
  * the elements per iteration come from the bytes the loop loads through the
    source pointer and stores through the destination pointer (x1 and x2 at
    entry, followed through register copies); both must agree.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import os
import pathlib
import re
import subprocess
import sys
import sysconfig

ROOT = pathlib.Path(__file__).resolve().parents[2]
CSRC = ROOT / "csrc"
SOURCES = ["cast/cast_neon.c", "dequant/dequant_neon.c", "quant/quant_neon.c"]
CC = "aarch64-linux-gnu-gcc"
LLVM_MCA = "/usr/lib/llvm-15/bin/llvm-mca"
MCA_ITERATIONS = 200

# The cortex-a55 (in-order); cortex-a65, which llvm-15 accepts but
# schedules with its in-order Cortex-A53 model (so does neoverse-e1); and
# cortex-a57, the nearest out-of-order model llvm-15 has for the A65 (its
# A72/A76/N1 use the same model).  The table names the model each one ran,
# read from llvm-mca's resource names.
MODELS = ["cortex-a55", "cortex-a65", "cortex-a57"]

# The Cortex-A65 / Neoverse E1 has one load/store (AGU) port and 64-bit data
# paths: at most 8 bytes loaded or stored per cycle, loads and stores sharing
# it.  The bound is the bytes the operation must move over that width.
LS_BYTES_PER_CYCLE = 8

# Elements per iteration of each operation's block loop, from the C (the
# kernel tables' block sizes): Cast SK_CAST_NEON_BLOCK (32), Dequant four
# blocks of SK_BLOCK (64), Quant two (32).  The count read from the
# assembly's loads and stores must agree; a loop of fewer elements (Cast's
# 8-element remainder) is a remainder loop and is not costed.
SOURCE_ELEMENTS = {"cast": 32, "dequant": 64, "quant": 32}

# Public NEON kernels for the same jobs, compiled with our flags and costed
# the same way (cortex-a55 model, cycles per 16 elements), as measured when
# the issue "The A65 first" was filed: XNNPACK's qs8-f32-vcvt neon u32,
# f32-qs8-vcvt neonv8 u32, f32->bf16 neon u16 and bf16->f32 u32.  Each of
# our leaves is listed against the anchor for its job.
ANCHORS = {
    "dequant_i8_f32_narrow": ("XNNPACK qs8-f32 neon u32", 20.5),  # its zero point: INT8 range
    "quant_f32_i8": ("XNNPACK f32-qs8 neonv8 u32", 31.5),
    "cast_f32_bf16": ("f32->bf16 neon u16", 57.0),
    "cast_bf16_f32": ("bf16->f32 neon u32", 12.0),
}
ELEMENT_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i8": 1}
LEAF_NAME = re.compile(r"sk_(cast|dequant|quant)_([a-z0-9]+)_([a-z0-9]+)(?:_(\w+?))?__neon$")
ARG_POINTERS = {"x0": "ctx", "x1": "src", "x2": "dst"}


def project_cflags() -> list[str]:
    """The build's compile flags in setuptools' order: Python's CFLAGS and
    CCSHARED (what build_ext puts first), then csrc/ffi_build.py's CFLAGS
    (read from the file, so no cffi import is needed)."""
    tree = ast.parse((CSRC / "ffi_build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CFLAGS" for t in node.targets):
            ours = ast.literal_eval(node.value)
            break
    else:
        raise SystemExit("neon_estimate: no CFLAGS list in csrc/ffi_build.py")
    python = (sysconfig.get_config_var("CFLAGS") or "").split() + (sysconfig.get_config_var("CCSHARED") or "").split()
    return python + ours + ["-I", str(CSRC / "include")]


# ---- assembly parsing ---------------------------------------------------------

@dataclasses.dataclass
class Insn:
    text: str        # as written, operands normalised to one space after commas
    mnemonic: str
    operands: str


def split_functions(asm: str) -> dict[str, list]:
    """name -> list of items, each a label name (str) or an Insn, for every
    function the file defines (`.type name, %function`)."""
    functions = set(re.findall(r"^\s*\.type\s+(\w+),\s*%function", asm, re.M))
    out: dict[str, list] = {}
    current = None
    for raw in asm.splitlines():
        line = raw.split("//")[0].rstrip()
        label = re.match(r"^([.\w]+):", line)
        if label:
            name = label.group(1)
            if name in functions:
                current = out.setdefault(name, [])
            elif current is not None and re.fullmatch(r"\.L\d+", name):
                current.append(name)
            continue
        if line.strip().startswith(".size"):
            current = None  # the function ends; data or another function follows
        if current is None or not line.strip() or line.strip().startswith("."):
            continue
        mnemonic, _, operands = line.strip().replace("\t", " ").partition(" ")
        operands = re.sub(r"\s*,\s*", ", ", operands.strip())
        current.append(Insn(f"{mnemonic}\t{operands}" if operands else mnemonic, mnemonic, operands))
    return out


BRANCH = re.compile(r"^(b|b\.\w+|b(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)|cbn?z|tbn?z)$")


def branch_target(insn: Insn) -> str | None:
    if not BRANCH.match(insn.mnemonic):
        return None
    target = insn.operands.split(", ")[-1]
    return target if re.fullmatch(r"\.L\d+", target) else None


def is_vector(insn: Insn) -> bool:
    return bool(re.search(r"\bv\d+\.|\bq\d+\b|\{\s*v\d+", insn.operands))


def find_loops(items: list) -> list[tuple[int, int]]:
    """(label index, last backward branch index) of every real loop."""
    where = {item: k for k, item in enumerate(items) if isinstance(item, str)}
    last: dict[str, int] = {}
    for k, item in enumerate(items):
        if isinstance(item, Insn):
            target = branch_target(item)
            if target in where and where[target] < k:
                last[target] = k
    loops = []
    for label, end in last.items():
        start = where[label]
        inside = {x for x in items[start:end + 1] if isinstance(x, str)}
        leaves = any(
            isinstance(x, Insn)
            and (x.mnemonic in ("ret", "br", "bl", "blr") or (x.mnemonic == "b" and branch_target(x) not in inside))
            for x in items[start:end]
        )
        if not leaves:
            loops.append((start, end))
    return sorted(loops)


def hot_loops(items: list) -> list[tuple[int, int]]:
    loops = find_loops(items)
    outer = [
        (s, e) for (s, e) in loops
        if not any((s2, e2) != (s, e) and s2 <= s and e <= e2 for (s2, e2) in loops)
    ]
    return [(s, e) for (s, e) in outer if any(isinstance(x, Insn) and is_vector(x) for x in items[s:e + 1])]


# ---- registers: pointer classes and stack offsets ------------------------------

def xreg(name: str) -> str | None:
    """The 64-bit register a general-purpose operand names, or None."""
    m = re.fullmatch(r"([xw])(\d+)|(sp)", name.strip())
    if not m:
        return None
    return "sp" if m.group(3) else f"x{m.group(2)}"


def immediate(text: str) -> int | None:
    m = re.fullmatch(r"#?(-?(?:0x[0-9a-f]+|\d+))", text.strip())
    return int(m.group(1), 0) if m else None


def memory_operand(operands: str) -> tuple[str, str, str] | None:
    """(registers before the address, address inside [], what follows)."""
    m = re.match(r"^(.*?)\[([^\]]*)\](.*)$", operands)
    return (m.group(1), m.group(2), m.group(3)) if m else None


class RegisterState:
    """What each general register holds, scanning in text order: a pointer
    class (ctx/src/dst/stack, propagated through copies and additions) and,
    for stack addresses, the offset from sp (for inner-loop trip counts)."""

    def __init__(self) -> None:
        self.cls: dict[str, str] = dict(ARG_POINTERS, sp="stack")
        self.off: dict[str, int] = {"sp": 0}

    def _set(self, reg: str, cls: str | None, off: int | None) -> None:
        self.cls.pop(reg, None)
        self.off.pop(reg, None)
        if cls:
            self.cls[reg] = cls
        if off is not None:
            self.off[reg] = off

    def step(self, insn: Insn) -> None:
        ops = [o.strip() for o in insn.operands.split(", ")] if insn.operands else []
        mem = memory_operand(insn.operands)
        if mem:
            base = xreg(mem[1].split(",")[0])
            writeback = mem[2].strip().lstrip(",").strip()
            step = immediate(writeback) if writeback else None
            if mem[2].strip() == "!":
                step = immediate(mem[1].split(",")[1]) if "," in mem[1] else 0
            if base and step is not None and base in self.off:
                self.off[base] += step
            if insn.mnemonic.startswith("ld"):  # loaded general registers hold data
                for reg in re.findall(r"\b[xw]\d+\b", mem[0]):
                    self._set(xreg(reg), None, None)
            return
        if not ops or BRANCH.match(insn.mnemonic) or insn.mnemonic in ("cmp", "cmn", "tst", "ret"):
            return
        dest = xreg(ops[0])
        if dest is None:
            return
        sources = [xreg(o) for o in ops[1:]]
        if insn.mnemonic == "mov" and sources and sources[0]:
            self._set(dest, self.cls.get(sources[0]), self.off.get(sources[0]))
        elif insn.mnemonic in ("add", "sub") and len(ops) >= 3:
            classes = {self.cls[s] for s in sources if s and s in self.cls}
            off = None
            k = immediate(ops[2]) if len(ops) == 3 else None
            if sources[0] in self.off and k is not None:
                off = self.off[sources[0]] + (k if insn.mnemonic == "add" else -k)
            self._set(dest, classes.pop() if len(classes) == 1 else None, off)
        else:
            self._set(dest, None, None)

    def copy(self) -> "RegisterState":
        other = RegisterState()
        other.cls, other.off = dict(self.cls), dict(self.off)
        return other


def state_at(items: list, index: int) -> RegisterState:
    """The registers on entry to items[index], scanning in text order.  Code
    after a return or an unconditional jump is not reached from above: a
    label there starts from the state at the first branch to it (GCC places
    each case of a switch after the previous case's return)."""
    state, reached, at_branch = RegisterState(), True, {}
    for item in items[:index]:
        if isinstance(item, str):
            if not reached and item in at_branch:
                state = at_branch[item].copy()
            reached = True
            continue
        target = branch_target(item)
        if target and target not in at_branch:
            at_branch[target] = state.copy()
        state.step(item)
        if item.mnemonic in ("ret", "br", "b"):
            reached = False
    return state


def trip_count(items: list, start: int, end: int) -> int:
    """Iterations of a nested loop whose induction register walks a stack
    buffer: (bound - start) / step, all read from the code."""
    body = [x for x in items[start:end + 1] if isinstance(x, Insn)]
    compare = next((x for x in reversed(body) if x.mnemonic == "cmp"), None)
    if compare is None:
        raise SystemExit(f"neon_estimate: nested loop at {items[start]} has no cmp")
    regs = [xreg(o) for o in compare.operands.split(", ")]
    entry = state_at(items, start)
    after = state_at(items, start)
    for insn in body:
        after.step(insn)
    moving = [r for r in regs if r in entry.off and r in after.off and entry.off[r] != after.off[r]]
    fixed = [r for r in regs if r not in moving and r in entry.off]
    if len(moving) != 1 or len(fixed) != 1:
        raise SystemExit(f"neon_estimate: cannot derive the trip count of the loop at {items[start]}")
    step = after.off[moving[0]] - entry.off[moving[0]]
    distance = entry.off[fixed[0]] - entry.off[moving[0]]
    if step <= 0 or distance <= 0 or distance % step:
        raise SystemExit(f"neon_estimate: odd nested loop at {items[start]}: {distance} bytes by {step}")
    return distance // step


def flatten(items: list, start: int, end: int) -> tuple[list[Insn], list[int]]:
    """The hot loop's instructions in execution order for one iteration,
    nested loops repeated by their trip counts."""
    nested = [(s, e) for (s, e) in find_loops(items) if start < s and e < end]
    nested = [(s, e) for (s, e) in nested if not any(s2 < s and e <= e2 for (s2, e2) in nested)]
    out, trips, k = [], [], start
    while k <= end:
        inner = next(((s, e) for (s, e) in nested if s == k), None)
        if inner:
            count = trip_count(items, *inner)
            trips.append(count)
            sub, subtrips = flatten(items, *inner)
            out += sub * count
            trips += subtrips
            k = inner[1] + 1
            continue
        if isinstance(items[k], Insn):
            out.append(items[k])
        k += 1
    return out, trips


# ---- memory traffic -----------------------------------------------------------

REG_BYTES = {"q": 16, "d": 8, "s": 4, "h": 2, "b": 1, "x": 8, "w": 4}
ARRANGEMENT_BYTES = {"16b": 16, "8h": 16, "4s": 16, "2d": 16, "8b": 8, "4h": 8, "2s": 8, "1d": 8}
ELEMENT = {"b": 1, "h": 2, "s": 4, "d": 8}


def access_bytes(insn: Insn) -> int:
    m, ops = insn.mnemonic, insn.operands
    if re.match(r"(ld|st)\d", m):
        regs = re.search(r"\{([^}]*)\}", ops).group(1)
        lane = re.search(r"\}\s*\[", ops) or m.endswith("r")
        arr = re.findall(r"v(\d+)\.(\w+)", regs)
        count = int(arr[-1][0]) - int(arr[0][0]) + 1 if " - " in regs else len(arr)
        kind = arr[0][1]
        each = ELEMENT[kind[-1]] if lane else ARRANGEMENT_BYTES[kind]
        return count * each
    width = {"b": 1, "sb": 1, "h": 2, "sh": 2, "sw": 4}
    suffix = re.fullmatch(r"(?:ld|st)(?:n?p|u?r)(sb|sh|sw|b|h)?", m)
    first = ops.split(",")[0].strip()
    size = width[suffix.group(1)] if suffix and suffix.group(1) else REG_BYTES[first[0]]
    return size * (2 if m in ("ldp", "stp", "ldnp", "stnp", "ldpsw") else 1)


@dataclasses.dataclass
class Traffic:
    """One flattened iteration's loads and stores: bytes read from the source
    and written to the destination, and instruction counts by what the base
    register points to (data = source/destination; stack = spilled values;
    ctx = parameters reloaded from the context; other = anything else)."""
    src: int = 0
    dst: int = 0
    ops: dict[str, int] = dataclasses.field(default_factory=lambda: dict.fromkeys(("data", "stack", "ctx", "other"), 0))


def traffic(items: list, start: int, flat: list[Insn]) -> Traffic:
    state = state_at(items, start)
    t = Traffic()
    for insn in flat:
        if insn.mnemonic.startswith(("ld", "st")) and memory_operand(insn.operands):
            base = xreg(memory_operand(insn.operands)[1].split(",")[0])
            cls, size = state.cls.get(base, "other"), access_bytes(insn)
            if cls == "src" and insn.mnemonic.startswith("ld"):
                t.src += size
                cls = "data"
            elif cls == "dst" and insn.mnemonic.startswith("st"):
                t.dst += size
                cls = "data"
            t.ops[cls if cls in t.ops else "other"] += 1
        state.step(insn)
    return t


# ---- llvm-mca -----------------------------------------------------------------

def run_mca(cpu: str, body: str, report: pathlib.Path) -> tuple[float, str]:
    """Cycles per iteration (steady state: total cycles / iterations) and the
    prefix of the model's resource names (which scheduling model ran)."""
    result = subprocess.run(
        [LLVM_MCA, "-mtriple=aarch64", f"-mcpu={cpu}", f"-iterations={MCA_ITERATIONS}"],
        input=body, capture_output=True, text=True, check=False,
    )
    report.write_text(result.stdout + result.stderr)
    if result.returncode:
        raise SystemExit(f"neon_estimate: llvm-mca -mcpu={cpu} failed, see {report}")
    total = int(re.search(r"^Total Cycles:\s+(\d+)", result.stdout, re.M).group(1))
    iterations = int(re.search(r"^Iterations:\s+(\d+)", result.stdout, re.M).group(1))
    unit = re.search(r"^\[\d[.\d]*\]\s+-\s+(\w+?)Unit", result.stdout, re.M)
    return total / iterations, unit.group(1) if unit else "?"


# ---- the estimate --------------------------------------------------------------

@dataclasses.dataclass
class LoopEstimate:
    elements: int
    instructions: int
    trips: list[int]
    traffic: Traffic
    cycles: dict[str, float]  # per iteration, by -mcpu


def estimate_leaf(name: str, items: list, out_dir: pathlib.Path, models_seen: dict) -> list[LoopEstimate]:
    m = LEAF_NAME.match(name)
    if not m:
        raise SystemExit(f"neon_estimate: unexpected leaf name {name}")
    in_bytes, out_bytes = ELEMENT_BYTES[m.group(2)], ELEMENT_BYTES[m.group(3)]
    if name.endswith("_every_other__neon"):
        in_bytes *= 2  # each element and the gap after it are read
    loops = hot_loops(items)
    if not loops:
        raise SystemExit(f"neon_estimate: no vector loop in {name}")
    estimates = []
    for number, (start, end) in enumerate(loops):
        flat, trips = flatten(items, start, end)
        t = traffic(items, start, flat)
        if t.src == 0 and t.dst == 0:
            continue  # a rolled k-loop of the one-block remainder, not a block loop
        if t.ops["other"]:
            raise SystemExit(f"neon_estimate: {name} loop {items[start]}: a load/store through an unknown pointer")
        elements = t.src // in_bytes
        full = SOURCE_ELEMENTS[m.group(1)]
        if not t.src % in_bytes and t.dst == elements * out_bytes and elements < full and full % elements == 0:
            continue  # a remainder loop
        if t.src % in_bytes or t.dst != elements * out_bytes or elements != full:
            raise SystemExit(
                f"neon_estimate: {name} loop {items[start]}: {t.src} source bytes and {t.dst} destination "
                f"bytes are not {SOURCE_ELEMENTS[m.group(1)]} {m.group(2)}->{m.group(3)} elements"
            )
        body = "\n".join(insn.text for insn in flat) + "\n"
        stem = f"{name}.{number}"
        (out_dir / f"{stem}.s").write_text(body)
        cycles = {}
        for cpu in MODELS:
            cycles[cpu], models_seen[cpu] = run_mca(cpu, body, out_dir / f"{stem}.{cpu}.txt")
        estimates.append(LoopEstimate(elements, len(flat), trips, t, cycles))
    if not estimates:
        raise SystemExit(f"neon_estimate: no loop of {name} moves source to destination")
    return estimates


def span(values: list[float], fmt: str) -> str:
    lo, hi = min(values), max(values)
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{format(lo, fmt)}-{format(hi, fmt)}"


def anchor_text(short: str, ours: float) -> str:
    """The public anchor for a dense leaf's job and ours against it (the
    every_other leaves read twice the bytes: no anchor does their job)."""
    if short.endswith("_every_other"):
        return ""
    for prefix, (label, cycles) in ANCHORS.items():
        if short.startswith(prefix):
            return f"{label}: {cycles:.1f} (ours {ours / cycles:.2f}x)"
    return ""


def table(results: dict[str, list[LoopEstimate]], models_seen: dict[str, str]) -> str:
    head = (
        ["leaf", "loops", "elem/iter", "instr/iter", "instr/elem", "ld/st per iter: data + stack + ctx"]
        + [f"{cpu} ({models_seen[cpu]} model) cyc/16" for cpu in MODELS]
        + ["bytes/16", "LS bound cyc/16", "dominant (a55 / LS)", "public anchor, a55 cyc/16"]
    )
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, loops in results.items():
        per16 = {cpu: [e.cycles[cpu] * 16 / e.elements for e in loops] for cpu in MODELS}
        moved = {(e.traffic.src + e.traffic.dst) * 16 // e.elements for e in loops}
        bytes16 = moved.pop()
        bound = bytes16 / LS_BYTES_PER_CYCLE
        ratio = max(per16["cortex-a55"]) / bound
        verdict = f"compute ({ratio:.1f}x)" if ratio > 1.05 else f"load/store ({ratio:.1f}x)"
        trips = sorted({t for e in loops for t in e.trips})
        short = name.removeprefix("sk_").removesuffix("__neon")
        rows.append("| " + " | ".join(
            [f"`{short}`", str(len(loops)) + (f" (inner x{'/'.join(map(str, trips))})" if trips else ""),
             span([e.elements for e in loops], "d"), span([e.instructions for e in loops], "d"),
             span([e.instructions / e.elements for e in loops], ".2f"),
             " + ".join(span([e.traffic.ops[k] for e in loops], "d") for k in ("data", "stack", "ctx"))]
            + [span(per16[cpu], ".1f") for cpu in MODELS]
            + [str(bytes16), f"{bound:.1f}", verdict, anchor_text(short, max(per16["cortex-a55"]))]
        ) + " |")
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "neon-estimate"), help="work directory")
    args = parser.parse_args()
    out_dir = pathlib.Path(args.out)
    (out_dir / "loops").mkdir(parents=True, exist_ok=True)
    flags = project_cflags()
    results: dict[str, list[LoopEstimate]] = {}
    models_seen: dict[str, str] = {}
    for source in SOURCES:
        asm_path = out_dir / (pathlib.Path(source).stem + ".s")
        subprocess.run([CC, *flags, "-S", "-o", str(asm_path), str(CSRC / source)], check=True)
        for name, items in split_functions(asm_path.read_text()).items():
            # (The fused tile leaves walk 8 x 8 blocks of two pointers with
            # pitches: make bench-aarch64 counts them in place.)
            if name.endswith("__neon") and not name.endswith("_tile__neon"):
                results[name] = estimate_leaf(name, items, out_dir / "loops", models_seen)
    text = table(results, models_seen)
    (out_dir / "table.md").write_text(text)
    sys.stdout.write(text)
    shown = " ".join(os.path.relpath(f, ROOT) if f.startswith("/") else f for f in flags)
    sys.stdout.write(f"compiler flags: {CC} {shown} -S\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
