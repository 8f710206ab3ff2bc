"""Blocked (group-wise) parameters: admission, numerics, layouts, plans,
the array layer and Dask; blocked choose_qparams and quantize_dynamic."""
