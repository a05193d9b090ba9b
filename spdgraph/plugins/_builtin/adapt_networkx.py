"""Built-in adapter plugin: networkx graphs (labels are the node names)."""

from __future__ import annotations

import sys

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import unwrap
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt an undirected ``networkx.Graph`` or ``MultiGraph`` without parallel edges.

    Node order is ``list(graph.nodes)``; self-loops are ignored.
    """
    nx = sys.modules.get("networkx")
    if nx is None or not isinstance(graph, nx.Graph):
        return None  # networkx not imported: graph cannot be a networkx graph
    if graph.is_directed():
        raise GraphError(
            f"got a directed networkx graph ({type(graph).__name__}); spdgraph needs an "
            "undirected graph. Use graph.to_undirected() (an edge in either direction "
            "becomes an undirected edge)."
        )
    labels = list(graph.nodes)
    p = len(labels)
    if p == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    if graph.is_multigraph():
        for u, v in graph.edges():
            if u != v and graph.number_of_edges(u, v) > 1:
                raise GraphError(
                    f"the multigraph has parallel edges between {u!r} and {v!r}; a graph "
                    "matrix has one entry per pair. Use networkx.Graph(multigraph) to "
                    "merge them."
                )
    index = {node: i for i, node in enumerate(labels)}
    adjacency = np.zeros((p, p), dtype=bool)
    for u, v in graph.edges():
        if u != v:  # self-loops are ignored
            i, j = index[u], index[v]
            adjacency[i, j] = adjacency[j, i] = True
    return GraphData(adjacency=adjacency, labels=labels)


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a networkx graph (bare or in a DAG): ``graph.number_of_nodes()``."""
    nx = sys.modules.get("networkx")
    inner = unwrap(graph)
    if nx is None or not isinstance(inner, nx.Graph):
        return None
    return int(inner.number_of_nodes())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a ``networkx.DiGraph`` (bare or in :class:`spdgraph.DAG`) for the DAG methods.

    Node order is ``list(graph.nodes)``; an edge ``u -> v`` sets
    ``directed[u, v]``. Self-loops are refused (a DAG has none), as are
    parallel edges of a ``MultiDiGraph``; cycles are left to the core.
    """
    nx = sys.modules.get("networkx")
    inner = graph.graph if isinstance(graph, DAG) else graph
    if nx is None or not isinstance(inner, nx.Graph) or not inner.is_directed():
        return None
    labels = list(inner.nodes)
    index = {node: i for i, node in enumerate(labels)}
    directed = np.zeros((len(labels), len(labels)), dtype=bool)
    for u, v in inner.edges():
        if u == v:
            raise GraphError(f"the directed graph has a self-loop at {u!r}; a DAG has none.")
        if inner.is_multigraph() and inner.number_of_edges(u, v) > 1:
            raise GraphError(
                f"the multigraph has parallel edges {u!r} -> {v!r}; use networkx.DiGraph(G)."
            )
        directed[index[u], index[v]] = True
    return GraphData(adjacency=directed | directed.T, labels=labels, directed=directed)
