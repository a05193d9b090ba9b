"""Built-in adapter plugin: rustworkx graphs (``PyGraph``; ``PyDiGraph`` for DAG methods).

rustworkx is imported only when such an object is passed (recognised by the
module of its type). Node labels are the node payloads when every payload is
hashable, not None and unique, else the node indices; edge payloads (weights)
are ignored, self-loops too; parallel edges are refused.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


def _graph_type(graph: object, directed: bool) -> bool:
    rx = sys.modules.get("rustworkx")
    if rx is None:
        return False  # rustworkx not imported: graph cannot be one of its objects
    return isinstance(graph, rx.PyDiGraph if directed else rx.PyGraph)


def _labels(graph: Any, indices: list[int]) -> list[Any]:
    payloads = [graph[i] for i in indices]
    usable = all(x is not None and isinstance(x, Hashable) for x in payloads)
    if usable:
        try:
            usable = len(set(payloads)) == len(payloads)
        except TypeError:  # hashable type, unhashable value (a tuple holding a list)
            usable = False
    return payloads if usable else list(indices)


def _matrix(graph: Any, indices: list[int], directed: bool) -> np.ndarray:
    position = {node: k for k, node in enumerate(indices)}
    p = len(indices)
    if p == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    out = np.zeros((p, p), dtype=bool)
    for u, v in graph.edge_list():
        i, j = position[u], position[v]
        if i == j:
            if directed:
                raise GraphError(
                    f"the directed graph has a self-loop at node {u}; a DAG has none."
                )
            continue  # self-loops are ignored
        if out[i, j] or (not directed and out[j, i]):
            raise GraphError(
                f"the rustworkx graph has parallel edges between nodes {u} and {v}; a graph "
                "matrix has one entry per pair. Build it with multigraph=False."
            )
        out[i, j] = True
        if not directed:
            out[j, i] = True
    return out


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a ``rustworkx.PyGraph``; a ``PyDiGraph`` is refused with the fix."""
    if _graph_type(graph, directed=True):
        raise GraphError(
            "got a directed rustworkx graph (PyDiGraph); spdgraph needs an undirected graph. "
            "Use graph.to_undirected(multigraph=False) (an edge in either direction becomes "
            "an undirected edge), or a DAG method such as method='dag'."
        )
    if not _graph_type(graph, directed=False):
        return None
    g: Any = graph
    indices = list(g.node_indices())
    return GraphData(adjacency=_matrix(g, indices, False), labels=_labels(g, indices))


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a rustworkx graph: ``graph.num_nodes()``."""
    if not (_graph_type(graph, directed=False) or _graph_type(graph, directed=True)):
        return None
    g: Any = graph
    return int(g.num_nodes())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a ``rustworkx.PyDiGraph`` (bare or in :class:`spdgraph.DAG`) for DAG methods."""
    inner = graph.graph if isinstance(graph, DAG) else graph
    if not _graph_type(inner, directed=True):
        return None
    g: Any = inner
    indices = list(g.node_indices())
    directed = _matrix(g, indices, True)
    return GraphData(
        adjacency=directed | directed.T, labels=_labels(g, indices), directed=directed
    )
