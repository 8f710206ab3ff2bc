"""Reliability (docs/RELIABILITY.md): guard pages, fuzz properties, threads,
small stacks, error messages."""
