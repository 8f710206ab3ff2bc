"""Numerical routes of this build and the choice among them."""
from __future__ import annotations

import os
from typing import Dict, Optional, Tuple, Union

from .._ffi import ffi, lib
from ..core import Error, ErrorCode

FORCE_ROUTE_ENV = "SIMAKERNELS_FORCE_ROUTE"


def _routes() -> Dict[str, int]:
    names = {}
    for route in range(lib.SK_ROUTE_COUNT):  # best first
        if lib.sk_route_compiled(route) and lib.sk_route_available(route):
            names[ffi.string(lib.sk_route_name(route)).decode()] = route
    return names


_AVAILABLE = _routes()


def available_routes() -> Tuple[str, ...]:
    """Routes this build compiled and this CPU can run, best first."""
    return tuple(_AVAILABLE)


def compiled_routes() -> Tuple[str, ...]:
    """Every route this build compiled, runnable here or not."""
    return tuple(
        ffi.string(lib.sk_route_name(r)).decode()
        for r in range(lib.SK_ROUTE_COUNT)
        if lib.sk_route_compiled(r)
    )


def choose(route: Optional[str]) -> Union[Tuple[str, int], Error]:
    """The explicit ``route``, else ``$SIMAKERNELS_FORCE_ROUTE``, else the best
    available route.  An unknown name is an error, never a silent fallback."""
    name = route if route is not None else os.environ.get(FORCE_ROUTE_ENV) or None
    if name is None:
        best = next(iter(_AVAILABLE))
        return best, _AVAILABLE[best]
    if name not in _AVAILABLE:
        source = "route" if route is not None else FORCE_ROUTE_ENV
        return Error(
            ErrorCode.UNSUPPORTED_ENVIRONMENT,
            f"{source}={name!r} names no route of this build on this CPU; "
            f"available: {', '.join(_AVAILABLE)}",
        )
    return name, _AVAILABLE[name]
