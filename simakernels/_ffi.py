"""The compiled core, loaded once and checked against this package.

A build left over from another version or from older C sources would give
wrong answers quietly, so importing one fails loudly instead.
"""
from __future__ import annotations

import pathlib
from typing import Optional

from ._sourcedigest import source_digest
from ._version import __version__

__all__ = ["ffi", "lib", "NATIVE_VERSION"]

# cffi's module has no stubs: ``ffi`` and ``lib`` are untyped (Any) here and
# wherever they are imported from.
try:
    from ._native import ffi, lib
except ImportError as exc:  # pragma: no cover - exercised by a missing build
    raise ImportError(
        "simakernels: the compiled core (simakernels._native) is missing; "
        "build it with `make build` (or pip install the package)"
    ) from exc


def _string(ptr: object) -> str:
    text: str = ffi.string(ptr).decode()
    return text


def _checkout_digest() -> Optional[str]:
    """Digest of csrc/ when running from a source checkout; None when installed."""
    csrc = pathlib.Path(__file__).resolve().parent.parent / "csrc"
    if not (csrc / "ffi_build.py").is_file():
        return None
    return source_digest(csrc)


NATIVE_VERSION = _string(lib.sk_version())
if NATIVE_VERSION != __version__:
    raise ImportError(
        f"simakernels: stale build: the compiled core is version {NATIVE_VERSION} but the "
        f"package is {__version__}; rebuild with `make build`"
    )
_digest = _checkout_digest()
if _digest is not None and _digest != _string(lib.sk_source_digest()):
    raise ImportError(
        "simakernels: stale build: csrc/ changed since the compiled core was built; "
        "rebuild with `make build`"
    )
