"""The A65 CPU backend: route choice, plans and synchronous execution."""
from . import cast, dequant, quant
from .._routes import FORCE_ROUTE_ENV, available_routes, compiled_routes

__all__ = ["cast", "dequant", "quant", "available_routes", "compiled_routes", "FORCE_ROUTE_ENV"]
