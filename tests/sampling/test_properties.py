"""Hypothesis property tests over random graphs: the guarantees every matrix must meet."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from reference import random_adjacencies

import spdgraph
from spdgraph.plugins._builtin.gen_uniform import chordal_cover

METHODS = ["po", "dd", "huge", "port_chol", "uniform"]


def _for(method, adjacency):
    """The graph a method accepts: ``uniform`` needs a chordal graph (its minimum-degree cover)."""
    return chordal_cover(adjacency, "min_degree")[0] if method == "uniform" else adjacency


graphs = random_adjacencies(1, 40)


@given(
    adjacency=graphs,
    method=st.sampled_from(METHODS),
    kind=st.sampled_from(["covariance", "precision"]),
    normalize=st.booleans(),
    entries=st.sampled_from(["normal", "uniform"]),
    seed=st.integers(0, 2**63),
)
def test_structure_symmetry_definiteness(adjacency, method, kind, normalize, entries, seed):
    adjacency = _for(method, adjacency)
    da = spdgraph.sample(
        adjacency, method, seed=seed, kind=kind, normalize=normalize, entries=entries
    )
    m = da.values
    p = adjacency.shape[0]
    assert da.name == kind
    assert np.array_equal(m, m.T)  # exactly symmetric
    nonedge = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(m[nonedge] == 0.0)  # exact zeros
    assert np.all(m[adjacency] != 0.0)  # edges non-zero (probability 1)
    np.linalg.cholesky(m)  # positive definite
    if normalize:
        assert np.all(np.diag(m) == 1.0)
    np.testing.assert_array_equal(da["adjacency"].values, adjacency)


@given(adjacency=graphs, method=st.sampled_from(METHODS), seed=st.integers(0, 2**32))
def test_reproducible_and_independent_of_size(adjacency, method, seed):
    adjacency = _for(method, adjacency)
    one = spdgraph.sample(adjacency, method, seed=seed).values
    again = spdgraph.sample(adjacency, method, seed=seed).values
    stack = spdgraph.sample(adjacency, method, seed=seed, size=3).values
    bigger = spdgraph.sample(adjacency, method, seed=seed, size=5).values
    np.testing.assert_array_equal(one, again)
    np.testing.assert_array_equal(stack[0], one)
    np.testing.assert_array_equal(bigger[:3], stack)
