"""Strided traversal: every length around the 8/16-element blocks, named
layouts (padded rows, permutations, stepped views, singleton axes, axes that
coalesce and axes that do not), and random layouts of rank 0..6 with
independent port strides.  Every case runs on every route, with outputs
pre-filled with the sentinel and every byte outside the logical elements
checked untouched (gaps, padding and excess capacity)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.helpers import DIRECTION_IDS, DIRECTIONS, ITEMSIZE, ROUTES, admissible_strides, element_offsets, run_cast

LENGTHS = list(range(71)) + [127, 128, 129, 255, 256, 257, 1000]


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("route", ROUTES)
def test_dense_1d_lengths(route, n, direction):
    src, dst = DIRECTIONS[direction]
    run_cast(route, (n,), src, dst, seed=n)


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 129])
@pytest.mark.parametrize("route", ROUTES)
def test_padded_rows_around_blocks(route, n, direction):
    """Rows of n packed elements separated by gaps: each row is a dense run with
    its own tail, and the gaps right after each row must survive."""
    src, dst = DIRECTIONS[direction]
    si, so = ITEMSIZE[src], ITEMSIZE[dst]
    run_cast(route, (3, n), src, dst, ((n + 3) * si, si), ((n + 5) * so, so), seed=n)
    run_cast(route, (3, n), src, dst, None, ((n + 1) * so, so), seed=n + 1)
    run_cast(route, (3, n), src, dst, ((n + 2) * si, si), None, seed=n + 2)


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 33])
@pytest.mark.parametrize("route", ROUTES)
def test_stepped_around_blocks(route, n, direction):
    src, dst = DIRECTIONS[direction]
    si, so = ITEMSIZE[src], ITEMSIZE[dst]
    run_cast(route, (n,), src, dst, (2 * si,), None, seed=n)
    run_cast(route, (n,), src, dst, None, (3 * so,), seed=n)
    run_cast(route, (2, n), src, dst, (si, 2 * si), (n * so, so), seed=n)  # interleaved pair


# (id, shape, input strides, output strides), strides in elements of each
# port's dtype (None = Contiguous()).
LAYOUTS = [
    ("rank0-contiguous", (), None, None),
    ("rank0-strided", (), (), ()),
    ("single", (1,), None, None),
    ("single-zero-stride", (1,), (0,), (0,)),
    ("single-odd-stride", (1,), (7,), (13,)),
    ("dense-1d", (37,), None, None),
    ("dense-1d-strided-spelling", (37,), (1,), (1,)),
    ("stepped-in", (37,), (2,), None),
    ("stepped-out", (37,), None, (3,)),
    ("stepped-both", (37,), (3,), (2,)),
    ("dense-2d-coalesces", (5, 17), None, None),
    ("dense-2d-strided-spelling", (5, 17), (17, 1), (17, 1)),
    ("padded-rows-both", (5, 17), (20, 1), (19, 1)),
    ("padded-rows-in", (5, 17), (20, 1), None),
    ("padded-rows-out", (5, 17), None, (24, 1)),
    ("transposed-in", (6, 9), (1, 6), None),
    ("transposed-out", (6, 9), None, (1, 6)),
    ("transposed-both-coalesces", (6, 9), (1, 6), (1, 6)),
    ("transposed-padded", (6, 9), (1, 8), (1, 7)),
    ("stepped-rows-padded", (4, 9), (25, 2), (10, 1)),
    ("perm-3d-in", (3, 4, 5), (20, 1, 4), None),
    ("perm-3d-different", (3, 4, 5), (20, 1, 4), (1, 15, 3)),
    ("perm-3d-same-coalesces", (3, 4, 5), (1, 15, 3), (1, 15, 3)),
    ("perm-3d-reversed-axes", (3, 4, 5), (1, 3, 12), (1, 3, 12)),
    ("partial-coalesce", (2, 3, 4), (13, 4, 1), (12, 4, 1)),
    ("no-coalesce", (3, 4, 5), (30, 6, 1), (24, 6, 1)),
    ("coalesce-in-only", (3, 4, 5), None, (24, 6, 1)),
    ("singleton-leading-zero", (1, 7), (0, 1), (0, 1)),
    ("singleton-middle-odd", (4, 1, 6), (6, 99, 1), (6, 5, 1)),
    ("singleton-middle-zero", (4, 1, 6), (7, 0, 1), (6, 0, 1)),
    ("singleton-inner", (6, 1), (1, 0), (2, 11)),
    ("singleton-huge-stride", (1, 5), (1 << 40, 1), (1 << 41, 1)),
    ("all-singleton-rank6", (1,) * 6, (0,) * 6, (3, 5, 7, 0, 11, 13)),
    ("rank6-dense", (2, 3, 1, 2, 3, 2), None, None),
    ("rank6-permuted-padded", (2, 3, 1, 2, 3, 2), (5, 34, 999, 3, 12, 1), (1, 2, 0, 6, 12, 40)),
    ("rank6-singletons-between", (3, 1, 4, 1, 5, 1), (20, 0, 5, 3, 1, 0), (1, 1, 3, 0, 12, 7)),
    ("empty-1d", (0,), None, None),
    ("empty-zero-stride", (0,), (0,), (0,)),
    ("empty-middle", (3, 0, 2), (8, 0, 1), (2, 0, 1)),
    ("empty-rank6", (2, 3, 1, 0, 3, 2), None, (1, 2, 0, 0, 6, 40)),
]
# The extreme layouts (huge or arbitrary strides on singleton axes, rank 6,
# empty tensors with strides): a kernel that steps by such a stride reads
# far outside its buffers, so these cases run in a forked child, where a
# wild access fails the case only.
EXTREME = ("singleton", "huge", "rank6", "empty")
LAYOUT_PARAMS = [pytest.param(c, id=c[0], marks=[pytest.mark.in_child] if any(w in c[0] for w in EXTREME) else [])
                 for c in LAYOUTS]


@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("layout", LAYOUT_PARAMS)
@pytest.mark.parametrize("route", ROUTES)
def test_named_layouts(route, layout, direction):
    _, shape, in_el, out_el = layout
    src, dst = DIRECTIONS[direction]
    in_strides = None if in_el is None else tuple(s * ITEMSIZE[src] for s in in_el)
    out_strides = None if out_el is None else tuple(s * ITEMSIZE[dst] for s in out_el)
    run_cast(route, shape, src, dst, in_strides, out_strides, seed=len(shape))


# ------------------------------------------------------------------ random


@st.composite
def layouts(draw):
    rank = draw(st.integers(0, 6))
    shape = draw(st.lists(st.sampled_from([1, 1, 2, 2, 3, 4, 5]), min_size=rank, max_size=rank))
    if rank and draw(st.integers(0, 9)) == 0:
        shape[draw(st.integers(0, rank - 1))] = 0
    return tuple(shape)


@settings(max_examples=60)
@given(data=st.data())
@pytest.mark.parametrize("direction", DIRECTION_IDS)
@pytest.mark.parametrize("route", ROUTES)
def test_random_layouts(route, direction, data):
    src, dst = DIRECTIONS[direction]
    shape = data.draw(layouts(), label="shape")
    in_strides = data.draw(admissible_strides(shape, ITEMSIZE[src]), label="input strides")
    out_strides = data.draw(admissible_strides(shape, ITEMSIZE[dst]), label="output strides")
    in_excess = data.draw(st.integers(0, 16), label="input excess")
    out_excess = data.draw(st.integers(0, 16), label="output excess")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    run_cast(route, shape, src, dst, in_strides, out_strides, seed=seed,
             in_excess=in_excess, out_excess=out_excess)


def test_offsets_helper():
    """The independent offset computation used by every layout test."""
    assert element_offsets((), ()).tolist() == [0]
    assert element_offsets((0, 3), (12, 4)).tolist() == []
    assert element_offsets((2, 3), (20, 4)).tolist() == [0, 4, 8, 20, 24, 28]
    assert element_offsets((2, 1, 2), (2, 1 << 40, 8)).tolist() == [0, 8, 2, 10]
    assert np.array_equal(element_offsets((4,), (6,)), np.arange(4) * 6)
