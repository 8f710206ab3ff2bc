"""Numerical routes of this build and the choice among them: below every
backend and layer (the A65 backend, the array layer, the EV74 device model and
the formats all choose a route here)."""
from __future__ import annotations

import functools
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

from ._ffi import ffi, lib
from .core import Error, ErrorCode, KernelError

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


def forced_route() -> Optional[str]:
    """The route ``$SIMAKERNELS_FORCE_ROUTE`` names; None when it is unset or empty."""
    return os.environ.get(FORCE_ROUTE_ENV) or None


# The variable's raw value, for plan caches to key by (a change takes effect at
# the next call): os.environ's backing dict, kept current by its assignments.
_ENV_DATA = getattr(os.environ, "_data", None)
if isinstance(_ENV_DATA, dict):
    forced_route_key: Callable[[], Any] = functools.partial(_ENV_DATA.get, os.fsencode(FORCE_ROUTE_ENV))
else:  # pragma: no cover - non-POSIX os.environ
    forced_route_key = functools.partial(os.environ.get, FORCE_ROUTE_ENV)


def _why_unavailable(name: str) -> str:
    """Why ``name`` is not one of :func:`available_routes`: a mistyped name,
    or a route this build or this CPU lacks."""
    if name in compiled_routes():
        return "this CPU lacks it"
    if any(ffi.string(lib.sk_route_name(r)).decode() == name for r in range(lib.SK_ROUTE_COUNT)):
        return "this build did not compile it"
    return "no route has this name"


def choose(route: Optional[str]) -> Union[Tuple[str, int], Error]:
    """The explicit ``route``, else ``$SIMAKERNELS_FORCE_ROUTE``, else the best
    available route.  An unknown name is an error, never a silent fallback."""
    name = route if route is not None else forced_route()
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


_CHOSEN: Dict[Any, int] = {}


def route_id() -> int:
    """The native number of the route a call that names none runs on (the
    forced one, else the best), remembered per value of the variable; an
    unknown forced name raises KernelError (UNSUPPORTED_ENVIRONMENT)."""
    key = forced_route_key()
    route = _CHOSEN.get(key)
    if route is None:
        chosen = choose(None)
        if isinstance(chosen, Error):
            raise KernelError(chosen)
        route = _CHOSEN[key] = chosen[1]
    return route


def forced_route_problem() -> Optional[str]:
    """Why the route ``$SIMAKERNELS_FORCE_ROUTE`` names cannot run here, so
    that every call leaving the route to it fails (``info`` and ``selftest``
    say so); None when it can, or when no route is forced."""
    name, chosen = forced_route(), choose(None)
    if name is None or not isinstance(chosen, Error):
        return None
    return f"{_why_unavailable(name)}; {chosen.message}"
