"""Digest of the native build's inputs (csrc/).  The builder compiles it into
the core; a source checkout recomputes it at import to catch a stale build.
Kept free of package imports so that csrc/ffi_build.py can load it by path."""
import hashlib
import pathlib


def source_digest(csrc: pathlib.Path) -> str:
    h = hashlib.sha256()
    for path in sorted(csrc.rglob("*")):
        if path.suffix in {".c", ".h", ".inc", ".cl", ".py"} and "__pycache__" not in path.parts:
            h.update(path.relative_to(csrc).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]
