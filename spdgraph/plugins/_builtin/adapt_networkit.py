"""Built-in adapter plugin: NetworKit graphs (undirected; directed ones for DAG methods).

networkit is imported only when such an object is passed (recognised by the
module of its type). Node labels are NetworKit's node ids (``G.iterNodes()``
order); weights are ignored, self-loops too; parallel edges are refused.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


def _is_networkit(graph: object) -> bool:
    nk = sys.modules.get("networkit")
    return nk is not None and isinstance(graph, nk.Graph)


def _matrix(graph: Any, nodes: list[int], directed: bool) -> np.ndarray:
    p = len(nodes)
    if p == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    position = {node: k for k, node in enumerate(nodes)}
    out = np.zeros((p, p), dtype=bool)
    for u, v in graph.iterEdges():
        i, j = position[u], position[v]
        if i == j:
            if directed:
                raise GraphError(
                    f"the directed graph has a self-loop at node {u}; a DAG has none."
                )
            continue  # self-loops are ignored
        if out[i, j] or (not directed and out[j, i]):
            raise GraphError(
                f"the NetworKit graph has parallel edges between nodes {u} and {v}; a graph "
                "matrix has one entry per pair. Remove them (G.removeMultiEdges())."
            )
        out[i, j] = True
        if not directed:
            out[j, i] = True
    return out


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt an undirected ``networkit.Graph``; a directed one is refused with the fix."""
    if not _is_networkit(graph):
        return None
    g: Any = graph
    if g.isDirected():
        raise GraphError(
            "got a directed NetworKit graph; spdgraph needs an undirected graph. Use "
            "networkit.graphtools.toUndirected(G), or a DAG method such as method='dag'."
        )
    nodes = [int(u) for u in g.iterNodes()]
    return GraphData(adjacency=_matrix(g, nodes, False), labels=nodes)


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a NetworKit graph: ``G.numberOfNodes()``."""
    if not _is_networkit(graph):
        return None
    g: Any = graph
    return int(g.numberOfNodes())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a directed ``networkit.Graph`` (bare or in :class:`spdgraph.DAG`) for DAG methods."""
    inner = graph.graph if isinstance(graph, DAG) else graph
    if not _is_networkit(inner):
        return None
    g: Any = inner
    if not g.isDirected():
        return None
    nodes = [int(u) for u in g.iterNodes()]
    directed = _matrix(g, nodes, True)
    return GraphData(adjacency=directed | directed.T, labels=nodes, directed=directed)
