"""Checks a built wheel against the platform its name claims, so a mislabelled
cross build never reaches a DevKit: the tag, the extension's file suffix, the
ELF machine of every shared object, and (for manylinux2014) that no symbol
needs a glibc newer than 2.17.

Usage: python toolchains/check_wheel.py WHEEL ARCH   (ARCH: aarch64 | x86_64)
"""
import re
import subprocess
import sys
import tempfile
import zipfile

ELF_MACHINE = {"aarch64": 0xB7, "x86_64": 0x3E}
OBJDUMP = {"aarch64": "aarch64-linux-gnu-objdump", "x86_64": "objdump"}
GLIBC_LIMIT = (2, 17)  # manylinux2014


def fail(message: str) -> None:
    sys.exit(f"check_wheel: {message}")


def main(wheel: str, arch: str) -> None:
    name = wheel.rsplit("/", 1)[-1]
    if not re.fullmatch(rf"simakernels-[\w.]+-cp311-cp311-manylinux2014_{arch}\.whl", name):
        fail(f"{name}: expected a cp311 manylinux2014_{arch} wheel")
    with zipfile.ZipFile(wheel) as zf:
        objects = [n for n in zf.namelist() if n.endswith(".so")]
        expected = f"simakernels/_native.cpython-311-{arch}-linux-gnu.so"
        if objects != [expected]:
            fail(f"{name}: shared objects {objects}, expected [{expected}]")
        data = zf.read(expected)
    if data[:4] != b"\x7fELF" or int.from_bytes(data[18:20], "little") != ELF_MACHINE[arch]:
        fail(f"{expected} is not an {arch} ELF object")
    with tempfile.NamedTemporaryFile(suffix=".so") as so:
        so.write(data)
        so.flush()
        dump = subprocess.run([OBJDUMP[arch], "-T", so.name], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_([\d.]+)", dump)}
    newest = max(versions, default=(0,))
    if newest > GLIBC_LIMIT:
        fail(f"{expected} needs GLIBC_{'.'.join(map(str, newest))}, manylinux2014 allows 2.17")
    print(f"check_wheel: {name} ok ({arch} ELF, newest glibc symbol {'.'.join(map(str, newest))})")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ELF_MACHINE:
        fail("usage: check_wheel.py WHEEL aarch64|x86_64")
    main(sys.argv[1], sys.argv[2])
