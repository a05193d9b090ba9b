"""Bulk per-matrix streams (spdgraph._kernels.streams) against NumPy's own Generators.

The bulk path must give NumPy's bits exactly (seeded results depend on it), so
each function is compared with NumPy on this machine: no bits are pinned.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from spdgraph._kernels import streams
from spdgraph._kernels.po.bartlett import (
    draw_group_coordinates,
    draw_lower_coordinates,
    draw_stack_coordinates,
    draw_state_coordinates,
)
from spdgraph.seeds import GROUP, MatrixStreams, matrix_stream


@njit
def _normals(s, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = streams.standard_normal(s)
    return out


@njit
def _chisquares(s, dfs):
    out = np.empty(dfs.shape[0])
    for i in range(dfs.shape[0]):
        out[i] = streams.chisquare(s, dfs[i])
    return out


@njit
def _raw(s, n):
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i] = streams.next_uint64(s)
    return out


@njit
def _doubles(s, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = streams.next_double(s)
    return out


def _as_int(state: np.ndarray) -> tuple[int, int]:
    return int(state[0]) << 64 | int(state[1]), int(state[2]) << 64 | int(state[3])


SEEDS = [0, 1, 5, 2**40 + 3, [1, 2, 3], 2**200 + 17, [2**63, 7, 2**64 - 1, 0]]
KEYS = [(), (7,), (GROUP, 2), (2**33,), (1, 2, 3, 4, 5)]


@pytest.mark.parametrize("seed", SEEDS, ids=str)
@pytest.mark.parametrize("key", KEYS, ids=str)
def test_states_and_outputs_are_numpys(seed: object, key: tuple[int, ...]) -> None:
    root = np.random.SeedSequence(seed, spawn_key=key)
    ks = np.array([0, 1, 2, 3, 1000, 2**32 - 1, 2**32 + 5], dtype=np.uint64)
    states = streams.pcg64_states(root, ks)
    for j, k in enumerate(ks.tolist()):
        rng = matrix_stream(root, k)
        ref = rng.bit_generator.state["state"]
        assert _as_int(states[j]) == (ref["state"], ref["inc"])
        s = states[j].copy()
        assert np.array_equal(_raw(s, 7), rng.bit_generator.random_raw(7))
        assert np.array_equal(_doubles(s, 5), rng.random(5))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**128), k=st.integers(0, 2**40))
def test_normals_and_chisquares_are_numpys(seed: int, k: int) -> None:
    root = np.random.SeedSequence(seed)
    s = streams.pcg64_states(root, np.array([k], dtype=np.uint64))[0].copy()
    rng = matrix_stream(root, k)
    # 20,000 normals reach the ziggurat's tail and wedges many times
    assert np.array_equal(_normals(s, 20_000), rng.standard_normal(20_000))
    # shapes below 1 (df = 1), exactly 1 (df = 2: the exponential ziggurat) and above
    dfs = np.concatenate(
        [np.arange(120, 0, -1.0), np.full(300, 1.0), np.full(300, 2.0),
         np.random.default_rng(seed % 2**32).uniform(0.01, 6.0, 300)]
    )  # fmt: skip
    assert np.array_equal(_chisquares(s, dfs), rng.chisquare(dfs))
    assert np.array_equal(_normals(s, 3), rng.standard_normal(3))


def test_many_tails() -> None:
    """Enough draws that the normal ziggurat's base strip (idx 0) is met repeatedly."""
    root = np.random.SeedSequence(2024)
    s = streams.pcg64_states(root, np.array([9], dtype=np.uint64))[0].copy()
    a, b = _normals(s, 2_000_000), matrix_stream(root, 9).standard_normal(2_000_000)
    assert np.abs(b).max() > 3.65  # beyond the ziggurat's r: the tail was drawn
    assert np.array_equal(a, b)


@pytest.mark.parametrize("p", [1, 2, 7, 40])
def test_bartlett_group_is_the_generators_draw(p: int) -> None:
    root = np.random.SeedSequence(11, spawn_key=(3,))
    streams_ = MatrixStreams(root, 5, 12)
    states = streams_.pcg64_states()
    lm = np.empty((p, p, len(streams_)))
    packed = np.full((len(streams_), p * (p + 1) // 2), np.nan)  # any content: overwritten
    draw_group_coordinates(states, lm, packed)
    stack = draw_stack_coordinates(states, np.empty((len(streams_), p, p)))
    for g in range(len(streams_)):
        ref = draw_lower_coordinates(matrix_stream(root, 5 + g), np.empty((p, p)))
        assert np.array_equal(lm[:, :, g], ref)
        assert np.array_equal(stack[g], ref)
        one = draw_state_coordinates(states[g], np.full((p, p), np.nan))
        assert np.array_equal(one, ref)


def test_matrix_streams_sequence() -> None:
    root = np.random.SeedSequence(3)
    streams_ = MatrixStreams(root, 2, 6)
    assert len(streams_) == 4 and len(streams_[1:3]) == 2 and len(streams_[3:1]) == 0
    assert streams_[1] is streams_[1]  # one object: a use continues where the last stopped
    assert streams_[-1].random() == matrix_stream(root, 5).random()
    assert [g.random() for g in streams_[1:3]] == [matrix_stream(root, k).random() for k in (3, 4)]
    with pytest.raises(IndexError):
        streams_[4]
    with pytest.raises(RuntimeError, match="already drawn"):
        streams_.pcg64_states()
    assert streams.pcg64_states(root, np.arange(0, dtype=np.uint64)).shape == (0, 4)


@pytest.mark.parametrize(("p", "d"), [(12, 0.2), (40, 0.1), (40, 0.6)])
def test_po_batch_bulk_streams_give_the_generators_bits(p: int, d: float) -> None:
    """po_batch with MatrixStreams (bulk PCG64 states) == with a list of the same Generators."""
    from spdgraph._kernels.po.batch import po_batch
    from spdgraph.plugins.types import standard_normal_entries

    rng = np.random.default_rng(p)
    upper = np.triu(rng.random((p, p)) < d, 1)
    adjacency = upper | upper.T
    root = np.random.SeedSequence(99, spawn_key=(4,))
    kw = {"entries": standard_normal_entries, "normal": True}
    bulk = po_batch(adjacency, rngs=MatrixStreams(root, 3, 40), **kw)
    listed = po_batch(adjacency, rngs=[matrix_stream(root, k) for k in range(3, 40)], **kw)
    np.testing.assert_array_equal(bulk, listed)
    # matrix k does not depend on where the stack starts or ends
    part = po_batch(adjacency, rngs=MatrixStreams(root, 20, 23), **kw)
    np.testing.assert_array_equal(part, bulk[17:20])
