"""Built-in adapter plugin: python-igraph graphs (labels from the ``name`` attribute)."""

from __future__ import annotations

import sys

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import unwrap
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt an undirected ``igraph.Graph`` without multi-edges.

    Labels are the vertex attribute ``name`` when present, else ``0..p-1``.
    igraph is never imported by spdgraph: if the user has not imported it, the
    object cannot be an igraph graph.
    """
    ig = sys.modules.get("igraph")
    if ig is None or not isinstance(graph, ig.Graph):
        return None
    if graph.is_directed():
        raise GraphError(
            "got a directed igraph graph; spdgraph needs an undirected graph. Use "
            "graph.as_undirected() (or graph.to_undirected() in place)."
        )
    p = graph.vcount()
    if p == 0:
        raise GraphError("the graph has no vertices; a graph needs at least one node.")
    loops = graph.is_loop()
    multiple = graph.is_multiple()
    for e, (is_loop, is_multi) in enumerate(zip(loops, multiple, strict=True)):
        if is_multi and not is_loop:
            u, v = graph.es[e].tuple
            raise GraphError(
                f"the igraph graph has parallel edges between vertices {u} and {v}; a graph "
                "matrix has one entry per pair. Use graph.simplify() to merge them."
            )
    adjacency = np.zeros((p, p), dtype=bool)
    edges = np.array(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    if edges.size:
        keep = edges[:, 0] != edges[:, 1]  # self-loops are ignored
        edges = edges[keep]
        adjacency[edges[:, 0], edges[:, 1]] = True
        adjacency[edges[:, 1], edges[:, 0]] = True
    if "name" in graph.vs.attributes():
        labels = list(graph.vs["name"])
    else:
        labels = list(range(p))
    return GraphData(adjacency=adjacency, labels=labels)


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of an igraph graph (bare or in a DAG): ``graph.vcount()``."""
    ig = sys.modules.get("igraph")
    inner = unwrap(graph)
    if ig is None or not isinstance(inner, ig.Graph):
        return None
    return int(inner.vcount())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a directed ``igraph.Graph`` (bare or in :class:`spdgraph.DAG`) for the DAG methods.

    An edge ``(u, v)`` sets ``directed[u, v]``; labels as for undirected graphs.
    """
    ig = sys.modules.get("igraph")
    inner = graph.graph if isinstance(graph, DAG) else graph
    if ig is None or not isinstance(inner, ig.Graph) or not inner.is_directed():
        return None
    p = inner.vcount()
    directed = np.zeros((p, p), dtype=bool)
    edges = np.array(inner.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    if np.any(edges[:, 0] == edges[:, 1]):
        raise GraphError("the directed igraph graph has a self-loop; a DAG has none.")
    if any(inner.is_multiple()):
        raise GraphError("the directed igraph graph has parallel edges; use graph.simplify().")
    directed[edges[:, 0], edges[:, 1]] = True
    labels = list(inner.vs["name"]) if "name" in inner.vs.attributes() else list(range(p))
    return GraphData(adjacency=directed | directed.T, labels=labels, directed=directed)
