"""The hot-loop extractor of `make neon-estimate` (toolchains/aarch64/
neon_estimate.py) on small hand-written AArch64 listings in GCC's layout:
which span is the hot loop, how nested rolled loops are expanded, and how
many bytes each load/store moves through which pointer.  llvm-mca and the
cross compiler are not needed."""
import importlib.util
import pathlib
import sys

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "toolchains" / "aarch64" / "neon_estimate.py"
if not SCRIPT.exists():  # a copy of the suite run against an installed wheel
    pytest.skip("toolchains/ not beside the suite", allow_module_level=True)
_spec = importlib.util.spec_from_file_location("neon_estimate", SCRIPT)
ne = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("neon_estimate", ne)  # dataclasses look their module up
_spec.loader.exec_module(ne)


def listing(name, body):
    """One function in GCC's assembly layout (tab-indented, directives)."""
    lines = [f"\t.global\t{name}", f"\t.type\t{name}, %function", f"{name}:", "\t.cfi_startproc"]
    for line in body.strip("\n").splitlines():
        line = line.strip()
        lines.append(line if line.endswith(":") else "\t" + line.replace(" ", "\t", 1))
    lines += ["\t.cfi_endproc", f"\t.size\t{name}, .-{name}"]
    return "\n".join(lines) + "\n"


def items_of(body, name="sk_cast_f32_bf16__neon"):
    return ne.split_functions(listing(name, body))[name]


# A 16-element FP32 -> BF16 loop, a scalar tail loop, an exit block reached
# from below (its backward branch comes after a return: not a loop).
CAST = """
cmp x3, 15
bls .L7
mov x4, x2
.p2align 3,,7
.L3:
ldp q7, q6, [x1]
ldp q5, q4, [x1, 32]
add x1, x1, 64
uzp2 v1.8h, v7.8h, v6.8h
uzp2 v0.8h, v5.8h, v4.8h
stp q1, q0, [x4]
add x4, x4, 32
cmp x5, x1
bne .L3
.L2:
cmp x3, x0
bcc .L1
.L5:
ldr w0, [x1, x4, lsl 2]
strh w0, [x2, x4, lsl 1]
add x4, x4, 1
cmp x3, x4
bne .L5
.L1:
ret
.L7:
mov x0, 8
b .L2
"""


def test_the_hot_loop_is_the_vector_loop_and_exit_blocks_are_not_loops():
    items = items_of(CAST)
    labels = [items[s] for s, _ in ne.find_loops(items)]
    assert labels == [".L3", ".L5"]  # .L2 (reached by `b .L2` after ret) is not a loop
    (start, end), = ne.hot_loops(items)
    assert items[start] == ".L3" and items[end].mnemonic == "bne"


def test_elements_come_from_source_and_destination_bytes():
    items = items_of(CAST)
    (start, end), = ne.hot_loops(items)
    flat, trips = ne.flatten(items, start, end)
    t = ne.traffic(items, start, flat)
    assert (len(flat), trips) == (9, [])
    assert (t.src, t.dst) == (64, 32)  # 16 FP32 in, 16 BF16 out
    assert t.ops == {"data": 3, "stack": 0, "ctx": 0, "other": 0}


# A block loop with a rolled 4-trip loop over a 64-byte stack buffer, a
# context reload, and a repair cycle through a call placed after it.
NESTED = """
sub sp, sp, #64
mov x8, x1
mov x7, x2
mov x4, sp
add x6, sp, 64
.L27:
ldr q0, [x8]
mov x5, x4
ldr s1, [x0, 4]
stp q4, q2, [x4]
stp q3, q0, [x4, 32]
.L25:
ldr q0, [x5]
fsub v0.4s, v0.4s, v1.4s
str q0, [x5], 16
cmp x5, x6
bne .L25
ld1 {v0.4s - v3.4s}, [x4]
st1 {v0.4s - v3.4s}, [x7]
add x7, x7, 64
add x8, x8, 16
cmp x10, x8
bne .L27
.L30:
ldp q0, q1, [x8]
bl sk_quant_exact_span
cbnz w0, .L30
add sp, sp, 64
ret
"""


def test_nested_rolled_loops_are_expanded_by_their_trip_count():
    items = items_of(NESTED, "sk_dequant_i8_f32_wide_unit__neon")
    (start, end), = ne.hot_loops(items)  # .L30 runs through a call: not hot
    assert items[start] == ".L27"
    flat, trips = ne.flatten(items, start, end)
    assert trips == [4]  # (sp+64 - sp) / 16
    assert len(flat) == 5 + 4 * 5 + 6
    t = ne.traffic(items, start, flat)
    assert (t.src, t.dst) == (16, 64)  # 16 INT8 in, 16 FP32 out
    assert t.ops == {"data": 2, "stack": 2 + 8 + 1, "ctx": 1, "other": 0}


def test_a_nested_loop_without_a_readable_bound_stops_the_script():
    body = NESTED.replace("add x6, sp, 64", "ldr x6, [x0, 8]")
    items = items_of(body, "sk_dequant_i8_f32_wide_unit__neon")
    (start, end), = ne.hot_loops(items)
    with pytest.raises(SystemExit, match="trip count"):
        ne.flatten(items, start, end)


def test_a_case_after_a_return_starts_from_its_branch_registers():
    # The first case's tail reuses x0; the second case (after its return) is
    # reached from the top, where x0 is still the context.
    body = """
    cbz w4, .L9
    ldrsb w0, [x1, x5]
    ret
    .L9:
    ldrsb w7, [x0, 12]
    """
    items = items_of(body)
    assert ne.state_at(items, len(items)).cls["x0"] == "ctx"
    assert ne.state_at(items, 3).cls.get("x0") is None


@pytest.mark.parametrize(
    "text, size",
    [
        ("ldp q1, q0, [x8]", 32),
        ("stp d8, d9, [sp, 48]", 16),
        ("ldr q0, [x5], 16", 16),
        ("ldr s1, [x0, 4]", 4),
        ("ldrsb w7, [x0, 12]", 1),
        ("strh w0, [x2, x4, lsl 1]", 2),
        ("ldr w0, [x1, x4, lsl 2]", 4),
        ("ld1 {v16.4s - v19.4s}, [x18]", 64),
        ("st1 {v0.16b, v1.16b}, [x2]", 32),
        ("ld1r {v3.4s}, [x0]", 4),
        ("ld1 {v0.s}[1], [x0]", 4),
    ],
)
def test_access_bytes(text, size):
    mnemonic, operands = text.split(" ", 1)
    assert ne.access_bytes(ne.Insn(text, mnemonic, operands)) == size
