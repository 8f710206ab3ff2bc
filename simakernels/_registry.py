"""The native kernel registry: one row per leaf function of the C core, as
each operation's registry file lists it (``sk_leaf_at``).  Tests and
benchmarks take variant lists and vector-block edges from here instead of
spelling them again."""
from __future__ import annotations

import functools
from typing import NamedTuple, Tuple

from ._ffi import ffi, lib


class Leaf(NamedTuple):
    operation: int  # enum sk_operation
    route: int  # enum sk_route: the table that holds the leaf
    variant: int  # the operation's table index
    kind: int  # enum sk_leaf_kind
    block: int  # elements per vector block (1: element at a time)
    symbol: str


@functools.lru_cache(maxsize=None)
def leaves() -> Tuple[Leaf, ...]:
    """Every row of the registry, in its order."""
    rows = []
    for i in range(lib.sk_leaf_count()):
        r = lib.sk_leaf_at(i)
        rows.append(Leaf(r.operation, r.route, r.variant, r.kind, r.block, ffi.string(r.symbol).decode()))
    return tuple(rows)


def find(operation: int, route: int, variant: int, kind: int) -> "Leaf | None":
    """The leaf of one kind in a table entry, or None where it has none."""
    for leaf in leaves():
        if (leaf.operation, leaf.route, leaf.variant, leaf.kind) == (operation, route, variant, kind):
            return leaf
    return None


def block(operation: int, route: int, variant: int) -> int:
    """Elements per vector block of an entry's dense leaf (0: no entry)."""
    leaf = find(operation, route, variant, lib.SK_LEAF_SPAN)
    return leaf.block if leaf else 0


def variants(operation: int) -> Tuple[int, ...]:
    """The table indices the operation's registry fills, ascending."""
    return tuple(sorted({leaf.variant for leaf in leaves() if leaf.operation == operation}))
