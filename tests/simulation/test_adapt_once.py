"""``simulate`` reads its graph once: the node count and ``sample`` share one adaptation."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import spdgraph


class SpyGraph:
    """A graph type of its own, read by the spy backend below (which counts its reads)."""

    def __init__(self, graph: nx.Graph) -> None:
        self.graph = graph


class SpyBackend:
    def __init__(self) -> None:
        self.reads = 0
        self.counts = 0

    def _to_graph(self, obj: SpyGraph) -> spdgraph.GraphData:
        self.reads += 1
        nodes = list(obj.graph.nodes)
        adjacency = nx.to_numpy_array(obj.graph, nodelist=nodes, weight=None).astype(bool)
        return spdgraph.GraphData(adjacency=adjacency, labels=nodes)

    def _count(self, obj: SpyGraph) -> int:
        self.counts += 1
        return obj.graph.number_of_nodes()

    @spdgraph.hookimpl
    def spdgraph_graph_backends(self):
        return [
            spdgraph.GraphBackend(
                name="spy",
                recognises=lambda obj: isinstance(obj, SpyGraph),
                to_graph=self._to_graph,
                count_nodes=self._count,
            )
        ]


@pytest.fixture
def spy():
    backend = SpyBackend()
    pm = spdgraph.get_plugin_manager()
    pm.register(backend, name="spy-backend")
    try:
        yield backend
    finally:
        pm.unregister(name="spy-backend")


def test_simulate_adapts_the_graph_once(spy):
    graph = nx.cycle_graph(6)
    sim = spdgraph.simulate(SpyGraph(graph), n=4, seed=3)
    assert spy.reads == 1
    plain = spdgraph.simulate(graph, n=4, seed=3)  # same bits as the graph itself
    for name in ("precision", "covariance", "adjacency", "data"):
        np.testing.assert_array_equal(sim[name].values, plain[name].values)


def test_simulate_with_related_graphs_reads_the_base_once(spy):
    sim = spdgraph.simulate(
        SpyGraph(nx.path_graph(8)), n=2, seed=1, related={"n_graphs": 3, "n_add": 1}
    )
    assert spy.reads == 1  # the base; the related graphs are built, then adapted once each
    assert sim["precision"].sizes["group"] == 3


def test_sample_takes_an_adapted_graph_as_it_is(spy):
    adapted = spdgraph.adapt_graph(SpyGraph(nx.star_graph(4)))
    assert spy.reads == 1
    da = spdgraph.sample(adapted, seed=2)
    assert spy.reads == 1  # not read again
    again = spdgraph.sample(SpyGraph(nx.star_graph(4)), seed=2)
    assert spy.reads == 2  # sample reads a graph it is given once
    assert da.identical(again)
