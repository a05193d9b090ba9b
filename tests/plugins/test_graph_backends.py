"""Every graph library a user holds: the same graph gives the same bits, and back out."""

from __future__ import annotations

import time

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
import xarray as xr

import spdgraph

igraph = pytest.importorskip("igraph")
rx = pytest.importorskip("rustworkx")
nk = pytest.importorskip("networkit")
sparse = pytest.importorskip("sparse")


def _graph(labelled: bool) -> tuple[np.ndarray, list]:
    g = nx.gnp_random_graph(15, 0.3, seed=4)
    adjacency = nx.to_numpy_array(g, nodelist=range(15), dtype=bool)
    labels = [f"v{i}" for i in range(15)] if labelled else list(range(15))
    return adjacency, labels


def _edges(adjacency):
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(adjacency, 1)), strict=True)]


def _backends(adjacency, labels):
    """The one graph in every supported backend, with its labels where the type keeps them."""
    p = len(labels)
    edges = _edges(adjacency)
    g_nx = nx.Graph()
    g_nx.add_nodes_from(labels)
    g_nx.add_edges_from((labels[i], labels[j]) for i, j in edges)
    g_ig = igraph.Graph(n=p, edges=edges)
    g_ig.vs["name"] = labels
    g_rx = rx.PyGraph(multigraph=False)
    g_rx.add_nodes_from(labels)
    g_rx.add_edges_from_no_data(edges)
    frame = pd.DataFrame(adjacency.astype(int), index=labels, columns=labels)
    labelled = {
        "networkx": g_nx,
        "igraph": g_ig,
        "rustworkx": g_rx,
        "pandas": frame,
        "xarray": xr.DataArray(
            adjacency, dims=("node", "node_2"), coords={"node": labels, "node_2": labels}
        ),
    }
    g_nk = nk.Graph(p)
    for i, j in edges:
        g_nk.addEdge(i, j)
    unlabelled = {
        "numpy": adjacency.astype(float),
        "scipy": scipy.sparse.csr_array(adjacency.astype(float)),
        "sparse-coo": sparse.COO.from_numpy(adjacency.astype(float)),
        "sparse-gcxs": sparse.GCXS.from_numpy(adjacency.astype(float)),
        "networkit": g_nk,
    }
    return labelled, unlabelled


@pytest.mark.parametrize("labelled", [True, False])
@pytest.mark.parametrize("method", ["po", "dd"])
def test_the_same_graph_gives_the_same_bits_in_every_backend(labelled, method):
    adjacency, labels = _graph(labelled)
    with_labels, without = _backends(adjacency, labels)
    reference = spdgraph.sample(adjacency, method, seed=3, size=2)
    for name, graph in {**with_labels, **without}.items():
        da = spdgraph.sample(graph, method, seed=3, size=2)
        assert da.values.tobytes() == reference.values.tobytes(), name
        expected = labels if name in with_labels else list(range(len(labels)))
        assert da["node"].values.tolist() == expected, name


def test_rustworkx_labels_fall_back_to_indices():
    g = rx.PyGraph()
    g.add_nodes_from([{"a": 1}, {"b": 2}, None])  # unhashable / None payloads
    g.add_edges_from_no_data([(0, 1)])
    assert spdgraph.sample(g, seed=0)["node"].values.tolist() == [0, 1, 2]
    twins = rx.PyGraph()
    twins.add_nodes_from(["x", "x"])  # not unique
    assert spdgraph.sample(twins, seed=0)["node"].values.tolist() == [0, 1]
    holes = rx.PyGraph()
    holes.add_nodes_from(["a", "b", "c"])
    holes.add_edges_from_no_data([(0, 2)])
    holes.remove_node(1)  # indices 0 and 2 remain
    da = spdgraph.sample(holes, seed=0)
    assert da["node"].values.tolist() == ["a", "c"] and da.values[0, 1] != 0


def test_parallel_edges_self_loops_and_direction():
    multi = rx.PyGraph()
    multi.add_nodes_from([0, 1])
    multi.add_edges_from_no_data([(0, 1), (0, 1)])
    with pytest.raises(spdgraph.GraphError, match="parallel edges"):
        spdgraph.sample(multi, seed=0)
    loop = nk.Graph(3)
    loop.addEdge(0, 0)
    loop.addEdge(0, 1)
    assert np.count_nonzero(spdgraph.sample(loop, seed=0).spd.adjacency().values) == 2
    with pytest.raises(spdgraph.GraphError, match="directed"):
        spdgraph.sample(rx.PyDiGraph(), seed=0)
    directed = nk.Graph(3, directed=True)
    with pytest.raises(spdgraph.GraphError, match="directed NetworKit"):
        spdgraph.sample(directed, seed=0)


def test_dags_from_rustworkx_and_networkit():
    dag_nx = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "d")])
    ref = spdgraph.sample(dag_nx, "dag", seed=2, kind="precision")
    d = rx.PyDiGraph()
    d.add_nodes_from(["a", "b", "c", "d"])
    d.add_edges_from_no_data([(0, 1), (1, 2), (0, 3)])
    da = spdgraph.sample(d, "dag", seed=2, kind="precision")
    assert da.values.tobytes() == ref.values.tobytes()
    assert da["node"].values.tolist() == ["a", "b", "c", "d"]
    k = nk.Graph(4, directed=True)
    for u, v in [(0, 1), (1, 2), (0, 3)]:
        k.addEdge(u, v)
    assert spdgraph.sample(k, "dag", seed=2, kind="precision").values.tobytes() == (
        ref.values.tobytes()
    )
    cyclic = rx.PyDiGraph()
    cyclic.add_nodes_from([0, 1])
    cyclic.add_edges_from_no_data([(0, 1), (1, 0)])
    with pytest.raises(spdgraph.GraphError, match="cycle"):
        spdgraph.sample(cyclic, "dag", seed=0)


def _huge_inputs():
    p = 200_000
    g_rx = rx.PyGraph()
    g_rx.add_nodes_from(range(p))
    g_rx.add_edges_from_no_data([(0, 1)])
    coo = sparse.COO(coords=np.array([[0, 1], [1, 0]]), data=np.ones(2), shape=(p, p))
    return {
        "rustworkx": g_rx,
        "networkit": nk.Graph(p),
        "sparse-coo": coo,
        "sparse-gcxs": sparse.GCXS(coo),
    }


@pytest.mark.parametrize("name", ["rustworkx", "networkit", "sparse-coo", "sparse-gcxs"])
def test_p_200000_is_refused_from_the_node_count(name):
    graph = _huge_inputs()[name]
    start = time.perf_counter()
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sample(graph, seed=0)
    assert time.perf_counter() - start < 1.0  # refused before any p x p array


@pytest.mark.parametrize("backend", ["networkx", "igraph", "rustworkx", "networkit", "scipy"])
def test_graphs_back_out_in_every_backend(backend):
    adjacency, labels = _graph(True)
    da = spdgraph.sample(
        adjacency_graph := nx.relabel_nodes(
            nx.from_numpy_array(adjacency), dict(enumerate(labels))
        ),
        seed=1,
        kind="precision",
    )
    out = da.spd.graph(backend=backend)
    assert spdgraph.sample(out, seed=1, kind="precision").values.tobytes() == (
        da.values.tobytes()
    ) or backend in ("networkit", "scipy")  # these two carry no labels for sample
    back = spdgraph.adapt_graph(out).adjacency
    np.testing.assert_array_equal(back, nx.to_numpy_array(adjacency_graph, nodelist=labels) > 0)
    if backend == "networkit":
        names = out.getNodeAttribute("label", str)
        assert [names[i] for i in range(len(labels))] == labels


def test_graph_per_group_and_bad_backend():
    g1 = nx.path_graph(["a", "b", "c"])
    g2 = nx.complete_graph(["a", "b", "c"])
    da = spdgraph.sample([g1, g2], seed=0)
    graphs = da.spd.graph()
    assert list(graphs) == [0, 1]
    assert graphs[0].number_of_edges() == 2 and graphs[1].number_of_edges() == 3
    with pytest.raises(spdgraph.InvalidOptionError, match="backend must be one of"):
        spdgraph.sample(g1, seed=0).spd.graph(backend="graph-tool")
