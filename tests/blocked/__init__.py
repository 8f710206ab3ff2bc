"""Blocked (group-wise) parameters: admission, numerics, layouts, plans,
the array layer and Dask."""
