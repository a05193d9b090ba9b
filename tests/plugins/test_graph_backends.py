"""Every graph a user holds (issue 26): the same graph in every backend gives the same bits.

Each backend is tested with real objects of its library: networkx, igraph,
numpy, scipy.sparse, pandas, xarray (numpy- and PyData-sparse-backed),
rustworkx, NetworKit and PyData sparse (COO, GCXS). Graphs also come back
out with ``da.spd.graph(backend=...)``.
"""

from __future__ import annotations

import subprocess
import sys

import igraph as ig
import networkit as nk
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import rustworkx as rx
import scipy.sparse
import sparse
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph import DAG
from spdgraph.errors import GraphError, GraphTypeError, InvalidOptionError
from spdgraph.sampling._adapt import count_nodes

# ---------------------------------------------------------------- one graph, every backend


def _edges(adjacency):
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    return list(zip(iu.tolist(), ju.tolist(), strict=True))


def _networkit(adjacency, labels=None, directed=False):
    g = nk.Graph(adjacency.shape[0], directed=directed)
    pairs = np.argwhere(adjacency) if directed else _edges(adjacency)
    for u, v in pairs:
        g.addEdge(int(u), int(v))
    if labels is not None:
        names = g.attachNodeAttribute("name", type(labels[0]))
        for u, label in enumerate(labels):
            names[u] = label
    return g


def _rustworkx(adjacency, labels, directed=False):
    g = rx.PyDiGraph() if directed else rx.PyGraph()
    g.add_nodes_from(list(labels))
    pairs = np.argwhere(adjacency).tolist() if directed else _edges(adjacency)
    g.add_edges_from([(u, v, {"weight": 2.5}) for u, v in pairs])  # payloads are ignored
    return g


def every_backend(adjacency, labels):
    """(name, graph, labels spdgraph reads) for one graph in every backend."""
    p = adjacency.shape[0]
    named = labels != list(range(p))
    g = nx.Graph()
    g.add_nodes_from(labels)
    g.add_edges_from((labels[i], labels[j]) for i, j in _edges(adjacency))
    igraph = ig.Graph(n=p, edges=_edges(adjacency))
    if named:
        igraph.vs["name"] = labels
    weights = adjacency * 0.5  # weights are allowed: any non-zero entry is an edge
    coo = sparse.COO.from_numpy(weights)
    indices = list(range(p))
    return [
        ("networkx", g, labels),
        ("igraph", igraph, labels),
        ("numpy", weights, indices),
        ("scipy.sparse", scipy.sparse.csr_array(weights), indices),
        ("pandas", pd.DataFrame(weights, index=labels, columns=labels), labels),
        ("xarray", xr.DataArray(weights, dims=("a", "b"), coords={"a": labels}), labels),
        ("xarray over sparse", xr.DataArray(coo, dims=("a", "b"), coords={"a": labels}), labels),
        ("rustworkx", _rustworkx(adjacency, labels), labels),
        ("rustworkx, no payloads", _rustworkx(adjacency, [None] * p), indices),
        ("networkit", _networkit(adjacency, labels if named else None), labels),
        ("sparse COO", coo, indices),
        ("sparse GCXS", sparse.GCXS.from_numpy(weights), indices),
    ]


def _labels(kind, p, rng):
    if kind == "int":
        return list(range(p))
    return [f"v{i}" for i in rng.permutation(p)]  # strings, not in sorted order


@settings(max_examples=15, deadline=None)
@given(
    p=st.integers(1, 10),
    density=st.floats(0, 1),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["int", "str"]),
    method=st.sampled_from(["po", "dd"]),
)
def test_the_same_graph_gives_the_same_bits_in_every_backend(p, density, seed, kind, method):
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, density, rng)
    labels = _labels(kind, p, rng)
    reference = spdgraph.sample(adjacency, method, seed=seed, size=2)
    for name, graph, expected in every_backend(adjacency, labels):
        assert count_nodes(graph) == p, name
        # complete=True: a weighted complete graph is refused by default (it looks like a
        # covariance); here it is meant as a graph
        da = spdgraph.sample(graph, method, seed=seed, size=2, complete=True)
        assert da.values.tobytes() == reference.values.tobytes(), name  # bit-equal
        assert da["node"].values.tolist() == expected, name
        assert np.array_equal(da["adjacency"].values, adjacency), name


def _random_dag(p, density, rng):
    upper = np.triu(rng.random((p, p)) < density, 1)
    order = rng.permutation(p)
    return upper[np.ix_(order, order)]  # acyclic, not upper triangular


def every_dag_backend(directed, labels):
    p = directed.shape[0]
    g = nx.DiGraph()
    g.add_nodes_from(labels)
    g.add_edges_from((labels[i], labels[j]) for i, j in np.argwhere(directed))
    igraph = ig.Graph(n=p, edges=np.argwhere(directed).tolist(), directed=True)
    igraph.vs["name"] = labels
    weights = directed * 2.0
    indices = list(range(p))
    graphs = [
        ("networkx", g, labels),
        ("igraph", igraph, labels),
        ("numpy", DAG(weights), indices),
        ("scipy.sparse", DAG(scipy.sparse.csr_array(weights)), indices),
        ("sparse COO", DAG(sparse.COO.from_numpy(weights)), indices),
        ("sparse GCXS", DAG(sparse.GCXS.from_numpy(weights)), indices),
        ("rustworkx", _rustworkx(directed, labels, directed=True), labels),
        ("networkit", _networkit(directed, labels, directed=True), labels),
    ]
    graphs += [(f"DAG({name})", DAG(graph), labels) for name, graph, _ in graphs[6:]]
    return graphs


@settings(max_examples=10, deadline=None)
@given(
    p=st.integers(1, 9),
    density=st.floats(0, 1),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["covariance", "precision"]),
)
def test_the_same_dag_gives_the_same_bits_in_every_backend(p, density, seed, kind):
    rng = np.random.default_rng(seed)
    directed = _random_dag(p, density, rng)
    labels = _labels("str", p, rng)
    reference = spdgraph.sample(DAG(directed), "dag", seed=seed, kind=kind)
    for name, graph, expected in every_dag_backend(directed, labels):
        assert count_nodes(graph) == p, name  # the memory guard's count, for DAGs too
        da = spdgraph.sample(graph, "dag", seed=seed, kind=kind)
        assert da.values.tobytes() == reference.values.tobytes(), name
        assert np.array_equal(da["dag"].values, directed), name
        assert da["node"].values.tolist() == expected, name


# ---------------------------------------------------------------- rustworkx


def test_rustworkx_labels_are_payloads_when_hashable_and_unique():
    g = rx.PyGraph()
    g.add_nodes_from(["a", "b", "c"])
    g.add_edges_from([(0, 1, None), (1, 2, None), (2, 2, None)])  # a self-loop: ignored
    data = spdgraph.adapt_graph(g)
    assert data.labels == ["a", "b", "c"]
    assert data.adjacency.astype(int).tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    for payloads in (["a", "a", "b"], [{"x": 1}, {"x": 2}, {"x": 3}], [None, None, None]):
        h = rx.PyGraph()
        h.add_nodes_from(payloads)
        assert spdgraph.adapt_graph(h).labels == [0, 1, 2]  # duplicates, unhashable, None


def test_rustworkx_removed_nodes_keep_their_indices():
    g = rx.PyGraph()
    g.add_nodes_from([None] * 5)
    g.add_edges_from([(0, 1, None), (1, 3, None), (3, 4, None), (0, 4, None)])
    g.remove_node(2)
    data = spdgraph.adapt_graph(g)
    assert data.labels == [0, 1, 3, 4]
    assert count_nodes(g) == 4
    expected = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    assert data.adjacency.astype(int).tolist() == expected


def test_rustworkx_refusals():
    g = rx.PyGraph()
    g.add_nodes_from(["a", "b"])
    g.add_edges_from([(0, 1, None), (1, 0, None)])
    with pytest.raises(GraphError, match=r"parallel edges between 'a' and 'b'.*multigraph=False"):
        spdgraph.sample(g)
    with pytest.raises(GraphError, match="no nodes"):
        spdgraph.adapt_graph(rx.PyGraph())
    d = rx.PyDiGraph()
    d.add_nodes_from(["a", "b"])
    d.add_edge(0, 1, None)
    with pytest.raises(GraphError, match=r"PyDiGraph.*to_undirected"):
        spdgraph.sample(d)
    with pytest.raises(GraphTypeError, match=r"rustworkx\.PyDiGraph.*undirected graph"):
        spdgraph.sample(_rustworkx(np.zeros((2, 2), bool), ["a", "b"]), "dag")  # no direction
    d.add_edge(1, 0, None)
    with pytest.raises(GraphError, match="cycle"):
        spdgraph.sample(d, "dag")
    loop = rx.PyDiGraph()
    loop.add_nodes_from(["a"])
    loop.add_edge(0, 0, None)
    with pytest.raises(GraphError, match="self-loop at 'a'"):
        spdgraph.sample(loop, "dag")
    twice = rx.PyDiGraph()
    twice.add_nodes_from(["a", "b"])
    twice.add_edges_from([(0, 1, None), (0, 1, None)])
    with pytest.raises(GraphError, match="parallel edges 'a' -> 'b'"):
        spdgraph.sample(twice, "dag")


# ---------------------------------------------------------------- NetworKit


def test_networkit_ids_weights_and_removed_nodes():
    g = nk.Graph(5, weighted=True)
    g.addEdge(0, 1, 3.0)
    g.addEdge(1, 3, -2.0)
    g.addEdge(3, 4, 0.5)
    g.addEdge(4, 4, 1.0)  # a self-loop: ignored
    g.removeNode(2)
    data = spdgraph.adapt_graph(g)
    assert data.labels == [0, 1, 3, 4] and count_nodes(g) == 4
    expected = [[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    assert data.adjacency.astype(int).tolist() == expected


def test_networkit_names_when_set_for_every_node_and_unique():
    adjacency = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    assert spdgraph.adapt_graph(_networkit(adjacency, ["x", "y", "z"])).labels == ["x", "y", "z"]
    assert spdgraph.adapt_graph(_networkit(adjacency, [30, 10, 20])).labels == [30, 10, 20]
    assert spdgraph.adapt_graph(_networkit(adjacency, ["x", "x", "z"])).labels == [0, 1, 2]
    partial = _networkit(adjacency)
    names = partial.attachNodeAttribute("name", str)
    names[0] = "x"
    assert spdgraph.adapt_graph(partial).labels == [0, 1, 2]


def test_networkit_refusals():
    g = nk.Graph(2)
    g.addEdge(0, 1)
    g.addEdge(1, 0)
    with pytest.raises(GraphError, match=r"parallel edges between 0 and 1.*removeMultiEdges"):
        spdgraph.sample(g)
    with pytest.raises(GraphError, match="no nodes"):
        spdgraph.adapt_graph(nk.Graph(0))
    d = nk.Graph(2, directed=True)
    d.addEdge(0, 1)
    with pytest.raises(GraphError, match=r"directed graph \(networkit.*toUndirected"):
        spdgraph.sample(d)
    with pytest.raises(GraphTypeError, match="NetworKit"):
        spdgraph.sample(nk.Graph(2), "dag")
    d.addEdge(1, 0)
    with pytest.raises(GraphError, match="cycle"):
        spdgraph.sample(d, "dag")
    loop = nk.Graph(1, directed=True)
    loop.addEdge(0, 0)
    with pytest.raises(GraphError, match="self-loop at 0"):
        spdgraph.sample(loop, "dag")


# ---------------------------------------------------------------- PyData sparse


def test_pydata_sparse_reads_as_numpy_does():
    a = np.array([[5.0, 1.0, 0.0], [1.0, 0.0, -2.0], [0.0, -2.0, 0.0]])
    for graph in (sparse.COO.from_numpy(a), sparse.GCXS.from_numpy(a), sparse.DOK.from_numpy(a)):
        data = spdgraph.adapt_graph(graph)
        assert data.labels == [0, 1, 2]
        assert np.array_equal(data.adjacency, spdgraph.adapt_graph(a).adjacency)
    full = sparse.COO.from_numpy(np.ones((3, 3)), fill_value=1.0)  # no stored entry at all
    assert spdgraph.adapt_graph(full).adjacency.sum() == 6


def test_pydata_sparse_refusals():
    with pytest.raises(GraphError, match=r"square 2-D.*\(2, 3\)"):
        spdgraph.sample(sparse.COO.from_numpy(np.zeros((2, 3))))
    with pytest.raises(GraphError, match=r"square 2-D.*\(2, 2, 2\)"):
        spdgraph.sample(sparse.COO.from_numpy(np.zeros((2, 2, 2))))
    with pytest.raises(GraphError, match="not symmetric"):
        spdgraph.sample(sparse.COO.from_numpy(np.triu(np.ones((3, 3)), 1)))
    with pytest.raises(GraphError, match="non-finite"):
        spdgraph.sample(sparse.COO.from_numpy(np.array([[0, np.nan], [np.nan, 0]])))
    with pytest.raises(GraphTypeError):  # a bare array is never read as directed
        spdgraph.sample(sparse.COO.from_numpy(np.triu(np.ones((3, 3)), 1)), "dag")
    with pytest.raises(GraphError, match="non-zero diagonal"):
        spdgraph.sample(DAG(sparse.COO.from_numpy(np.eye(2))), "dag")


def test_optional_libraries_are_not_imported_by_spdgraph():
    # PyData sparse registers a numba extension, which numba imports on its first
    # compilation: adapting alone (no numba) shows that spdgraph imports none of them
    code = (
        "import sys, numpy as np, networkx as nx, scipy.sparse, spdgraph\n"
        "for g in (nx.path_graph(3), np.eye(3), scipy.sparse.eye(3)):\n"
        "    spdgraph.adapt_graph(g); spdgraph.sample(g, seed=0)\n"
        "    print(sorted(m for m in ('rustworkx', 'networkit', 'igraph') if m in sys.modules))\n"
        "spdgraph.sample(spdgraph.DAG(np.zeros((2, 2))), 'dag')\n"
        "print(sorted(m for m in ('rustworkx', 'networkit', 'igraph') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"] * 4
    code = (
        "import sys, numpy as np, networkx as nx, scipy.sparse, spdgraph\n"
        "from spdgraph.sampling._adapt import count_nodes\n"
        "for g in (nx.path_graph(3), np.eye(3), scipy.sparse.eye(3)):\n"
        "    spdgraph.adapt_graph(g); count_nodes(g)\n"
        "print('sparse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- graphs back out


def _labelled_sample(kind="precision"):
    rng = np.random.default_rng(5)
    adjacency = random_adjacency(9, 0.4, rng)
    labels = _labels("str", 9, rng)
    g = nx.relabel_nodes(nx.from_numpy_array(adjacency.astype(int)), dict(enumerate(labels)))
    return spdgraph.sample(g, seed=1, kind=kind), adjacency, labels


@pytest.mark.parametrize("backend", ["networkx", "igraph", "rustworkx", "networkit", "scipy"])
def test_graph_back_out_samples_the_same_bits(backend):
    da, adjacency, labels = _labelled_sample()
    out = da.spd.graph(backend=backend)
    again = spdgraph.sample(out, seed=1, kind="precision")
    assert np.array_equal(again.values, da.values)
    assert np.array_equal(again["adjacency"].values, adjacency)
    expected = list(range(9)) if backend == "scipy" else labels
    assert again["node"].values.tolist() == expected


def test_graph_back_out_records_the_kind_where_the_library_can():
    da, *_ = _labelled_sample("covariance")
    assert da.spd.graph("networkx").graph["kind"] == "covariance"
    assert da.spd.graph("igraph")["kind"] == "covariance"
    assert da.spd.graph("rustworkx").attrs == {"kind": "covariance"}
    assert da.spd.inverse().spd.graph("rustworkx").attrs == {"kind": "covariance"}
    csr = da.spd.graph("scipy")
    assert isinstance(csr, scipy.sparse.csr_array) and csr.dtype == np.int64


def test_networkit_keeps_int_and_str_labels_only():
    a = np.array([[0, 1], [1, 0]], dtype=bool)
    for labels in ([7, 3], ["p", "q"]):
        g = nx.Graph([tuple(labels)])
        out = spdgraph.sample(g, seed=0).spd.graph("networkit")
        assert spdgraph.adapt_graph(out).labels == labels
    tuples = spdgraph.sample(nx.Graph([((0, 0), (0, 1))]), seed=0).spd.graph("networkit")
    assert spdgraph.adapt_graph(tuples).labels == [0, 1]  # node ids: tuples cannot be kept
    assert np.array_equal(spdgraph.adapt_graph(tuples).adjacency, a)


@pytest.mark.parametrize("backend", ["networkx", "scipy", "rustworkx"])
def test_graph_gives_one_graph_per_group(backend):
    # a group dim was a MatrixError before issue 26
    base = nx.relabel_nodes(spdgraph.graphs.erdos_renyi(8, 0.4, seed=2), lambda i: f"n{i}")
    graphs = spdgraph.graphs.related_graphs(base, 3, n_add=2, n_remove=2, seed=2)
    da = spdgraph.sample(graphs, seed=1, size=2)
    out = da.spd.graph(backend)
    assert list(out) == [0, 1, 2]
    for k, graph in out.items():
        one = da.isel(group=k).spd.graph(backend)
        assert np.array_equal(spdgraph.adapt_graph(graph).adjacency, da["adjacency"].values[k])
        assert spdgraph.adapt_graph(graph).labels == spdgraph.adapt_graph(one).labels
    relabelled = da.assign_coords(group=["a", "b", "c"])
    assert list(relabelled.spd.graph(backend)) == ["a", "b", "c"]


def test_graph_backend_errors(monkeypatch):
    da, *_ = _labelled_sample()
    with pytest.raises(InvalidOptionError, match=r"backend must be one of.*'networkit'"):
        da.spd.graph("graphtool")
    monkeypatch.setitem(sys.modules, "rustworkx", None)
    with pytest.raises(spdgraph.MissingDependencyError, match=r"spdgraph\[rustworkx\]"):
        da.spd.graph("rustworkx")


# --- valid sparse inputs pass the raw-array checks unchanged (issue 57, item 1) -----------

_SPARSE_FORMS = ("csr", "csc", "coo", "bsr", "dia", "lil", "dok", "COO", "GCXS", "DOK")


def _in_form(dense: np.ndarray, form: str) -> object:
    """``dense`` as a scipy.sparse array (lowercase format) or a PyData one (uppercase)."""
    if form.islower():
        return scipy.sparse.coo_array(dense).asformat(form)
    return getattr(sparse, form).from_numpy(dense)


@settings(max_examples=25)
@given(
    st.integers(1, 7).flatmap(
        lambda p: st.tuples(
            st.lists(st.booleans(), min_size=p * p, max_size=p * p),
            st.lists(st.sampled_from([0, 3]), min_size=p, max_size=p),
        )
    ),
    st.sampled_from(_SPARSE_FORMS),
    st.integers(0, 2**32 - 1),
)
def test_valid_sparse_inputs_sample_the_same_bits_as_their_dense_array(case, form, seed):
    bits, diagonal = case
    p = len(diagonal)
    upper = np.triu(np.array(bits).reshape(p, p), 1)
    dense = (upper | upper.T).astype(np.int64) + np.diag(diagonal)  # the diagonal is ignored
    matrix = _in_form(dense, form)
    expected = spdgraph.sample(dense, seed=seed)
    assert np.array_equal(spdgraph.sample(matrix, seed=seed).values, expected.values)
    sparse_expected = spdgraph.sample(dense, "dd", seed=seed, sparse=True)
    got = spdgraph.sample(matrix, "dd", seed=seed, sparse=True)
    assert np.array_equal(got.data.todense(), sparse_expected.data.todense())


def test_a_malformed_sparse_adjacency_names_the_entry():
    matrix = scipy.sparse.csr_array(np.array([[0, 1], [1, 0]]))
    matrix.indices = np.array([1, 2])  # column 2 of a 2-node matrix
    with pytest.raises(GraphError, match=r"column index 2 \(stored entry 1, in row 1\)"):
        spdgraph.adapt_graph(matrix)
    with pytest.raises(GraphError, match=r"column index 2 \(stored entry 1, in row 1\)"):
        spdgraph.sample(matrix, "dd", seed=0, sparse=True)
