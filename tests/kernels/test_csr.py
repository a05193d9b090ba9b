"""Neighbour lists (spdgraph/_kernels/csr.py) against NumPy's nonzero."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

from spdgraph._kernels.csr import neighbour_lists


@settings(max_examples=40, deadline=None)
@given(p=st.integers(0, 40), d=st.sampled_from([0.0, 0.1, 0.5, 1.0]), seed=st.integers(0, 2**31))
def test_neighbour_lists_are_nonzeros_lists(p, d, seed):
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, d, rng) if p else np.zeros((0, 0), dtype=bool)
    for earlier, mask in ((False, adjacency), (True, np.tril(adjacency, -1))):
        ptr, idx = neighbour_lists(np.ascontiguousarray(adjacency), earlier)
        rows, cols = np.nonzero(mask)
        assert ptr.tolist() == [0, *np.cumsum(np.bincount(rows, minlength=p)).tolist()]
        assert idx.tolist() == cols.tolist()
