"""Graph inputs that are not what they seem are refused with the fix (issue 34, item 2).

A dense covariance passed as a graph is the complete graph (refused unless
``complete=True``); a list of ``(u, v)`` pairs is a list of graphs to
``spdgraph.sample``, not an edge list (refused, saying how to pass one). The
rule in :func:`spdgraph.adjacency.adjacency_from_array` is checked against a
plain statement of it on random arrays.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
import sparse
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph
from spdgraph.adjacency import accepting_complete, adjacency_from_array

X = np.random.default_rng(0).standard_normal((60, 5))
COV = np.cov(X, rowvar=False)


@pytest.mark.parametrize(
    "graph",
    [
        COV,
        np.linalg.inv(COV),
        pd.DataFrame(X).cov(),
        xr.DataArray(COV, dims=("a", "b")),
        scipy.sparse.csr_array(COV),
        sparse.COO.from_numpy(COV),
    ],
    ids=["numpy cov", "numpy precision", "pandas", "xarray", "scipy.sparse", "PyData sparse"],
)
def test_a_dense_covariance_is_refused_as_a_graph(graph):
    with pytest.raises(spdgraph.GraphError, match=r"complete graph on 5 nodes.*complete=True"):
        spdgraph.sample(graph, seed=0)
    with pytest.raises(spdgraph.GraphError, match="Threshold it"):
        spdgraph.adapt_graph(graph)


def test_complete_true_samples_on_the_complete_graph():
    da = spdgraph.sample(COV, seed=3, size=2, complete=True)
    reference = spdgraph.sample(nx.complete_graph(5), seed=3, size=2)
    assert da.values.tobytes() == reference.values.tobytes()
    assert spdgraph.adapt_graph(COV, complete=True).adjacency.sum() == 20
    groups = spdgraph.sample([COV, COV], seed=1, complete=True)  # per group too
    assert groups["adjacency"].values.sum() == 40
    with pytest.raises(spdgraph.InvalidOptionError, match="complete must be True or False"):
        spdgraph.sample(COV, complete="yes")


def test_adjacency_matrices_that_are_complete_graphs_stay_accepted():
    for graph in (
        nx.to_numpy_array(nx.complete_graph(4)),  # float 0/1
        np.ones((4, 4)),  # float ones, diagonal ignored
        np.ones((4, 4), dtype=int) * 3,  # integer weights: an explicit adjacency
        np.ones((4, 4), dtype=bool),
        np.array([[2.5]]),  # one node
    ):
        p = len(graph)
        assert spdgraph.adapt_graph(graph).adjacency.sum() == p * (p - 1)
    weighted = COV.copy()
    weighted[0, 1] = weighted[1, 0] = 0.0  # one zero: a weighted graph, read as such
    assert spdgraph.adapt_graph(weighted).adjacency.sum() == 18
    spdgraph.sample(spdgraph.sample(COV, seed=0, complete=True), seed=0)  # its adjacency


def _refused(a: np.ndarray) -> bool:
    """The rule, stated plainly: float, p >= 2, no zero off the diagonal, not all ones."""
    p = a.shape[0]
    off = [a[i, j] for i in range(p) for j in range(p) if i != j]
    return a.dtype.kind == "f" and p >= 2 and all(v != 0 for v in off) and any(v != 1 for v in off)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["float", "int", "ones", "zero-one"]),
    st.floats(0, 1),
)
def test_the_refusal_follows_its_rule(p, seed, values, zeros):
    rng = np.random.default_rng(seed)
    if values == "float":
        a = rng.standard_normal((p, p))
    elif values == "int":
        a = rng.integers(1, 4, (p, p))
    elif values == "ones":
        a = np.ones((p, p))
    else:
        a = (rng.random((p, p)) < 0.5).astype(float) + 0.0
    a = np.where(rng.random((p, p)) < zeros * 0.3, 0, a)
    a = np.triu(a) + np.triu(a, 1).T  # symmetric
    if _refused(a):
        with pytest.raises(spdgraph.GraphError, match="complete graph"):
            adjacency_from_array(a)
        with accepting_complete():
            assert adjacency_from_array(a).sum() == p * (p - 1)
    else:
        assert np.array_equal(adjacency_from_array(a), (a != 0) & ~np.eye(p, dtype=bool))


@pytest.mark.parametrize(
    "graph",
    [[(0, 1), (1, 2)], [("a", "b")], ((0, 1), (1, 2)), [(0.5, 1.5)]],
    ids=["int pairs", "str pair", "tuple of pairs", "float pair"],
)
def test_a_list_of_pairs_is_refused_saying_how_to_pass_an_edge_list(graph):
    with pytest.raises(
        spdgraph.GraphTypeError, match=r"not an edge list.*networkx.Graph\(edges\)"
    ):
        spdgraph.sample(graph, seed=0)
    edges = [tuple(pair) for pair in graph]
    da = spdgraph.sample(nx.Graph(edges), seed=0)  # the fix the message gives works
    assert int(da["adjacency"].sum()) == 2 * len(edges)


def test_a_list_of_graphs_is_still_a_list_of_graphs():
    da = spdgraph.sample([nx.path_graph(3), nx.cycle_graph(3)], seed=0)
    assert da.dims == ("group", "node", "node_2")
    with pytest.raises(spdgraph.GraphTypeError, match=r"no graph backend recognises.*set"):
        spdgraph.sample([{0, 1}], seed=0)  # not a pair: the general message
    with pytest.raises(spdgraph.GraphTypeError, match="square numpy"):
        spdgraph.sample([[0, 1], [1, 0]], seed=0)  # a nested-list matrix: use an array
