"""Every built-in adapter: labels, structure, and the bad inputs it must reject."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import spdgraph

PATH = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)


def _adj(obj):
    g = spdgraph.adapt_graph(obj)
    return g.adjacency, list(g.labels)


def test_networkx_labels_and_order():
    g = nx.Graph()
    g.add_nodes_from(["z", "a", "m"])
    g.add_edges_from([("z", "a"), ("a", "m")])
    adj, labels = _adj(g)
    assert labels == ["z", "a", "m"]
    np.testing.assert_array_equal(adj, PATH)
    da = spdgraph.sample(g, seed=1)
    assert list(da.node.values) == ["z", "a", "m"]
    assert list(da.node_2.values) == ["z", "a", "m"]
    assert float(da.sel(node="z", node_2="m")) == 0.0


def test_networkx_self_loops_ignored_and_multigraph_without_parallel_edges():
    g = nx.path_graph(3)
    g.add_edge(1, 1)
    adj, _ = _adj(g)
    np.testing.assert_array_equal(adj, PATH)
    mg = nx.MultiGraph(nx.path_graph(3))
    mg.add_edge(2, 2)
    mg.add_edge(2, 2)  # parallel self-loops are still only self-loops
    np.testing.assert_array_equal(_adj(mg)[0], PATH)


def _edge_loop_adjacency(graph, labels):
    """The slow, obviously correct reference: one pair of entries per edge."""
    index = {node: i for i, node in enumerate(labels)}
    adjacency = np.zeros((len(labels), len(labels)), dtype=bool)
    for u, v in graph.edges():
        if u != v:
            adjacency[index[u], index[v]] = adjacency[index[v], index[u]] = True
    return adjacency


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(1, 40),
    d=st.floats(0.0, 1.0),
    seed=st.integers(0, 10_000),
    labels=st.sampled_from(["in order", "shuffled ints", "strings", "numpy ints"]),
    loops=st.booleans(),
    multi=st.booleans(),
)
def test_networkx_adjacency_matches_the_edge_loop(p, d, seed, labels, loops, multi):
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(p, d, seed=seed)
    if labels == "shuffled ints":
        g = nx.relabel_nodes(g, dict(enumerate(rng.permutation(p).tolist())))
    elif labels == "strings":
        g = nx.relabel_nodes(g, {i: f"n{i}" for i in range(p)})
    elif labels == "numpy ints":
        g = nx.relabel_nodes(g, {i: np.int64(i) for i in range(p)})
    if loops:
        g.add_edges_from((node, node) for node in list(g.nodes)[::3])
    if multi:
        g = nx.MultiGraph(g)
    adj, got_labels = _adj(g)
    assert got_labels == list(g.nodes)
    np.testing.assert_array_equal(adj, _edge_loop_adjacency(g, got_labels))


def test_networkx_tuple_labels():
    g = nx.grid_2d_graph(2, 2)
    da = spdgraph.sample(g, seed=0)
    assert da.node.values[0] == (0, 0)
    assert da.sizes["node"] == 4


def test_networkx_rejects_directed_and_parallel_edges():
    with pytest.raises(spdgraph.GraphError, match="to_undirected"):
        spdgraph.sample(nx.DiGraph([(0, 1)]))
    mg = nx.MultiGraph()
    mg.add_edges_from([(0, 1), (0, 1)])
    with pytest.raises(spdgraph.GraphError, match="parallel edges"):
        spdgraph.sample(mg)
    with pytest.raises(spdgraph.GraphError, match="no nodes"):
        spdgraph.sample(nx.Graph())


def test_igraph_names_and_defaults():
    ig = pytest.importorskip("igraph")
    g = ig.Graph(n=3, edges=[(0, 1), (1, 2), (2, 2)])
    adj, labels = _adj(g)
    np.testing.assert_array_equal(adj, PATH)
    assert labels == [0, 1, 2]
    g.vs["name"] = ["x", "y", "w"]
    assert list(spdgraph.sample(g, seed=0).node.values) == ["x", "y", "w"]


def test_igraph_rejects_directed_multi_and_empty():
    ig = pytest.importorskip("igraph")
    with pytest.raises(spdgraph.GraphError, match="directed"):
        spdgraph.sample(ig.Graph(n=2, edges=[(0, 1)], directed=True))
    with pytest.raises(spdgraph.GraphError, match="parallel edges"):
        spdgraph.sample(ig.Graph(n=2, edges=[(0, 1), (1, 0)]))
    with pytest.raises(spdgraph.GraphError, match="no vertices"):
        spdgraph.sample(ig.Graph())


@pytest.mark.parametrize("dtype", [bool, np.int8, np.int64, np.float32, np.float64])
def test_numpy_arrays_of_any_numeric_dtype(dtype):
    a = PATH.astype(dtype)
    adj, labels = _adj(a)
    np.testing.assert_array_equal(adj, PATH)
    assert labels == [0, 1, 2]


def test_numpy_weighted_and_diagonal_ignored():
    a = np.array([[5.0, 0.3, 0.0], [0.3, 1.0, -2.0], [0.0, -2.0, 7.0]])
    np.testing.assert_array_equal(_adj(a)[0], PATH)


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.ones((2, 3)), "square"),
        (np.ones(3), "square"),
        (np.zeros((0, 0)), "no nodes"),
        (np.array([[0, 1], [0, 0]]), "not symmetric"),
        (np.array([[0, np.nan], [np.nan, 0]]), "non-finite"),
        (np.array([[0, np.inf], [np.inf, 0]]), "non-finite"),
        (np.array([[0, 1j], [1j, 0]]), "complex"),
        (np.array([["a", "b"], ["b", "a"]]), "dtype"),
    ],
)
def test_numpy_bad_arrays(bad, match):
    with pytest.raises(spdgraph.GraphError, match=match):
        spdgraph.sample(bad)


@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_array", "coo_matrix", "lil_array"])
def test_scipy_sparse(fmt):
    a = getattr(sp, fmt)(PATH.astype(float))
    adj, labels = _adj(a)
    np.testing.assert_array_equal(adj, PATH)
    assert labels == [0, 1, 2]


def test_scipy_sparse_bad():
    with pytest.raises(spdgraph.GraphError, match="not symmetric"):
        spdgraph.sample(sp.csr_matrix(np.array([[0, 1], [0, 0]])))
    with pytest.raises(spdgraph.GraphError, match="non-finite"):
        spdgraph.sample(sp.csr_matrix(np.array([[0, np.nan], [np.nan, 0]])))


def test_pandas_labels_and_column_reordering():
    labels = ["g1", "g2", "g3"]
    df = pd.DataFrame(PATH.astype(int), index=labels, columns=labels)
    shuffled = df[["g3", "g1", "g2"]]
    adj, got = _adj(shuffled)
    np.testing.assert_array_equal(adj, PATH)
    assert got == labels
    assert list(spdgraph.sample(df, seed=0).node.values) == labels


def test_pandas_bad():
    with pytest.raises(spdgraph.GraphError, match="same labels"):
        spdgraph.sample(pd.DataFrame(PATH, index=[1, 2, 3], columns=["a", "b", "c"]))
    with pytest.raises(spdgraph.GraphError, match="duplicate"):
        spdgraph.sample(pd.DataFrame(PATH, index=[1, 1, 2], columns=[1, 1, 2]))


def test_xarray_roundtrip_of_graph():
    g = nx.relabel_nodes(nx.path_graph(3), {0: "a", 1: "b", 2: "c"})
    first = spdgraph.sample(g, seed=0)
    again = spdgraph.sample(first, "dd", seed=0)
    assert list(again.node.values) == ["a", "b", "c"]
    np.testing.assert_array_equal(again["adjacency"].values, PATH)
    plain = xr.DataArray(PATH, dims=("u", "v"), coords={"u": [7, 8, 9], "v": [7, 8, 9]})
    assert _adj(plain)[1] == [7, 8, 9]


def test_unsupported_type_names_alternatives():
    with pytest.raises(spdgraph.GraphTypeError, match="networkx, igraph, rustworkx or NetworKit"):
        spdgraph.sample([[0, 1], [1, 0]])
    with pytest.raises(TypeError):  # also a plain TypeError
        spdgraph.sample(object())
    # a string is a path to a graph file (the built-in path adapter): no file, a FileError
    with pytest.raises(spdgraph.FileError, match="'not a graph' is a path, but no such file"):
        spdgraph.sample("not a graph")


def test_duplicate_labels_rejected():
    class DuplicateLabels:
        @spdgraph.hookimpl
        def spdgraph_graph_backends(self):
            return [
                spdgraph.GraphBackend(
                    "dup",
                    recognises=lambda graph: graph == "dup",
                    to_graph=lambda graph: spdgraph.GraphData(np.zeros((2, 2), bool), ["a", "a"]),
                )
            ]

    pm = spdgraph.get_plugin_manager()
    pm.register(DuplicateLabels(), name="dup-backend")
    try:  # registered last, asked first: takes the string over from the file backend
        with pytest.raises(spdgraph.GraphError, match="appears twice"):
            spdgraph.sample("dup")
    finally:
        pm.unregister(name="dup-backend")


def test_p1_empty_and_complete_graphs_work():
    for g in [nx.empty_graph(1), nx.empty_graph(6), nx.complete_graph(6)]:
        for method in ["po", "dd"]:
            m = spdgraph.sample(g, method, seed=2).values
            np.linalg.cholesky(m)
