"""A third-party graph backend defined here, registered at run time: it works end to end.

Issue 32: one :class:`spdgraph.GraphBackend` per graph library, from one hook.
A toy graph type gives the same bits as the same graph in networkx, comes back
out with ``da.spd.graph("toy")`` (per group too), its node count feeds the
memory guard before anything is read, and unregistering it leaves no trace.
Every built-in backend also round-trips: ``to_graph(from_graph(g)) == g``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph.plugins import graph_backend, graph_backends
from spdgraph.sampling._adapt import recognise


class Toy:
    """A toy graph type: a node list and a set of undirected edges."""

    def __init__(self, nodes, edges):
        self.nodes = list(nodes)
        self.edges = {frozenset(edge) for edge in edges}


def _to_graph(toy):
    labels = toy.nodes
    index = {node: i for i, node in enumerate(labels)}
    adjacency = np.zeros((len(labels), len(labels)), dtype=bool)
    for edge in toy.edges:
        u, v = (index[node] for node in edge)
        adjacency[u, v] = adjacency[v, u] = True
    return spdgraph.GraphData(adjacency, labels)


def _from_graph(data):
    toy = Toy(data.labels, [])
    rows, cols = np.nonzero(np.triu(data.adjacency, 1))
    toy.edges = {
        frozenset((data.labels[i], data.labels[j])) for i, j in zip(rows, cols, strict=True)
    }
    toy.attrs = dict(data.attrs)
    return toy


TOY = spdgraph.GraphBackend(
    name="toy",
    recognises=lambda obj: isinstance(obj, Toy),
    to_graph=_to_graph,
    from_graph=_from_graph,
    count_nodes=lambda toy: len(toy.nodes),
)


class ToyPlugin:
    @spdgraph.hookimpl
    def spdgraph_graph_backends(self):
        return [TOY]


@pytest.fixture
def toy_plugin():
    pm = spdgraph.get_plugin_manager()
    pm.register(ToyPlugin(), name="toy-plugin")
    yield pm
    if pm.has_plugin("toy-plugin"):
        pm.unregister(name="toy-plugin")


def _pair(adjacency, labels):
    """The same graph as a Toy and as a networkx graph."""
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    edges = [(labels[i], labels[j]) for i, j in zip(rows, cols, strict=True)]
    g = nx.Graph()
    g.add_nodes_from(labels)
    g.add_edges_from(edges)
    return Toy(labels, edges), g


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 10), st.floats(0, 1), st.integers(0, 2**32 - 1), st.sampled_from(["po", "dd"])
)
def test_a_toy_graph_gives_the_bits_of_the_same_networkx_graph(p, density, seed, method):
    pm = spdgraph.get_plugin_manager()
    pm.register(ToyPlugin(), name="toy-plugin")
    try:
        rng = np.random.default_rng(seed)
        labels = [f"v{k}" for k in rng.permutation(p)]
        toy, g = _pair(random_adjacency(p, density, rng), labels)
        a = spdgraph.sample(toy, method, seed=seed, size=2, kind="precision")
        b = spdgraph.sample(g, method, seed=seed, size=2, kind="precision")
        assert a.values.tobytes() == b.values.tobytes()
        assert a["node"].values.tolist() == labels
        assert a.attrs == b.attrs
    finally:
        pm.unregister(name="toy-plugin")


def test_the_graph_comes_back_as_a_toy(toy_plugin):
    rng = np.random.default_rng(3)
    toy, _ = _pair(random_adjacency(7, 0.4, rng), list("abcdefg"))
    da = spdgraph.sample(toy, seed=1, kind="precision")
    back = da.spd.graph("toy")
    assert isinstance(back, Toy)
    assert back.nodes == toy.nodes and back.edges == toy.edges
    assert back.attrs == {"kind": "precision"}
    again = spdgraph.sample(back, seed=1, kind="precision")  # and samples the same bits
    assert again.values.tobytes() == da.values.tobytes()


def test_per_group_graphs_come_back_as_toys(toy_plugin):
    rng = np.random.default_rng(4)
    labels = list("pqrstu")
    pairs = [_pair(random_adjacency(6, 0.5, rng), labels) for _ in range(3)]
    da = spdgraph.sample([toy for toy, _ in pairs], seed=2)
    reference = spdgraph.sample([g for _, g in pairs], seed=2)
    assert da.values.tobytes() == reference.values.tobytes()
    out = da.spd.graph("toy")
    assert list(out) == [0, 1, 2]
    for k, (toy, _) in enumerate(pairs):
        assert isinstance(out[k], Toy) and out[k].nodes == labels and out[k].edges == toy.edges


def test_the_toy_count_feeds_the_memory_guard_before_reading(toy_plugin):
    huge = Toy(range(10**6), [])
    huge.nodes = range(10**6)  # no list: only len() is asked

    def never(toy):
        raise AssertionError("to_graph called before the memory guard")

    import dataclasses

    toy_plugin.unregister(name="toy-plugin")
    guarded = dataclasses.replace(TOY, to_graph=never)

    class Guarded:
        @spdgraph.hookimpl
        def spdgraph_graph_backends(self):
            return [guarded]

    toy_plugin.register(Guarded(), name="toy-plugin")
    with pytest.raises(spdgraph.TooLargeError):
        spdgraph.sample(huge, seed=0)


def test_unregistering_the_toy_backend_cleans_up(toy_plugin):
    toy, _ = _pair(np.zeros((2, 2), bool), ["x", "y"])
    da = spdgraph.sample(toy, seed=0)
    assert "toy" in {b.name for b, _ in graph_backends()}
    toy_plugin.unregister(name="toy-plugin")
    assert "toy" not in {b.name for b, _ in graph_backends()}
    with pytest.raises(spdgraph.GraphTypeError, match=r"no graph backend recognises.*Toy"):
        spdgraph.sample(toy, seed=0)
    with pytest.raises(spdgraph.InvalidOptionError, match="graph backend must be one of"):
        da.spd.graph("toy")
    assert isinstance(da.spd.graph(), nx.Graph)  # the built-ins are untouched


def test_a_later_backend_takes_over_a_known_type(toy_plugin):
    class Mine:
        @spdgraph.hookimpl
        def spdgraph_graph_backends(self):
            def empty(g):
                return spdgraph.GraphData(np.zeros((len(g), len(g)), bool), list(g.nodes))

            return [spdgraph.GraphBackend("mine", lambda obj: isinstance(obj, nx.Graph), empty)]

    toy_plugin.register(Mine(), name="mine")
    try:
        assert recognise(nx.path_graph(3)).backend.name == "mine"
        assert spdgraph.adapt_graph(nx.path_graph(3)).adjacency.sum() == 0
    finally:
        toy_plugin.unregister(name="mine")
    assert recognise(nx.path_graph(3)).backend.name == "networkx"


# ------------------------------------------------------- every built-in backend, both ways

BUILDERS = ["networkx", "igraph", "rustworkx", "networkit", "numpy", "scipy", "sparse"]
LABELLED = ["networkx", "igraph", "rustworkx", "networkit", "pandas", "xarray"]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 9), st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_every_builtin_backend_round_trips(p, density, seed):
    rng = np.random.default_rng(seed)
    adjacency = random_adjacency(p, density, rng)
    labels = [f"n{k}" for k in rng.permutation(p)]
    data = spdgraph.GraphData(adjacency, labels)
    for name in sorted(set(BUILDERS) | set(LABELLED)):
        backend, _ = graph_backend(name)
        back = spdgraph.adapt_graph(backend.from_graph(data))
        assert np.array_equal(back.adjacency, adjacency), name
        assert back.labels == (labels if name in LABELLED else list(range(p))), name
    directed = np.triu(rng.random((p, p)) < density, 1)
    dag = spdgraph.GraphData(directed | directed.T, labels, directed=directed)
    for name in BUILDERS:
        backend, _ = graph_backend(name)
        back = recognise(backend.from_graph(dag)).to_graph()
        assert np.array_equal(back.directed, directed), name


def test_every_builtin_library_is_one_backend():
    names = {backend.name: plugin for backend, plugin in graph_backends()}
    expected = {*BUILDERS, "pandas", "xarray", "file"}
    assert expected <= set(names)
    for name in expected:  # one module each, registered like a third party
        assert names[name] in spdgraph.plugins.DEFAULT_PLUGINS
    assert graph_backend("file")[0].from_graph is None  # input only
