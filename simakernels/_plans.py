"""The plan cache the array layer and the Hurray bridge share: plans (or the
Error a request gets) by everything that determines them, the forced route
among it (:func:`simakernels._routes.forced_route_key`).  Bounded: cleared
when full."""
from __future__ import annotations

from typing import Any, Callable, Dict

PLANS: Dict[Any, Any] = {}
MAX_PLANS = 1024


def remember(key: Any, plan: Any) -> Any:
    """Keeps ``plan`` under ``key`` (an unhashable key is never cached)."""
    try:
        if len(PLANS) >= MAX_PLANS:
            PLANS.clear()
        PLANS[key] = plan
    except TypeError:
        pass
    return plan


def cached(key: Any, build: Callable[[], Any]) -> Any:
    """The cached plan for ``key``, built and remembered on a miss."""
    try:
        plan = PLANS.get(key)
    except TypeError:  # unhashable parameters: never cached
        plan = None
    return remember(key, build()) if plan is None else plan
