"""The A65 CPU backend: route choice, plans and synchronous execution."""
from . import affine_dequant, affine_quant, cast, dequant, quant
from .._routes import FORCE_ROUTE_ENV, available_routes, compiled_routes

__all__ = ["affine_dequant", "affine_quant", "cast", "dequant", "quant", "available_routes", "compiled_routes",
           "FORCE_ROUTE_ENV"]
