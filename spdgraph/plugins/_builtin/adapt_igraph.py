"""Built-in graph backend: python-igraph graphs (labels from the ``name`` attribute), both ways.

igraph is never imported to recognise a graph: if the user has not imported
it, the object cannot be an igraph graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import (
    adjacency_from_edges,
    first_parallel,
    from_directed,
    instance_of,
    offered_backend,
    require,
    upper_edges,
)
from spdgraph.plugins.types import GraphData, SparseGraphData


def recognises(graph: object) -> bool:
    """An ``igraph.Graph`` (igraph imported)."""
    return instance_of(graph, "igraph", "Graph")


def count_nodes(graph: Any) -> int:
    """``graph.vcount()``."""
    return int(graph.vcount())


def to_graph(graph: Any) -> GraphData:
    """An ``igraph.Graph`` without multi-edges; directed ones give ``directed``.

    Labels are the vertex attribute ``name`` when present, else ``0..p-1``.
    Self-loops of an undirected graph are ignored (kept in ``directed`` for
    the core to refuse).
    """
    p = graph.vcount()
    if p == 0:
        raise GraphError("the graph has no vertices; a graph needs at least one node.")
    edges = np.array(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    labels = list(graph.vs["name"]) if "name" in graph.vs.attributes() else list(range(p))
    pair = first_parallel(edges, directed=graph.is_directed())
    if pair is not None:
        u, v = pair
        raise GraphError(
            f"the igraph graph has parallel edges between vertices {u} and {v}; a graph "
            "matrix has one entry per pair. Use graph.simplify() to merge them."
        )
    if not graph.is_directed():
        return GraphData(adjacency=adjacency_from_edges(edges, p), labels=labels)
    return from_directed(adjacency_from_edges(edges, p, directed=True), labels)


def from_graph(data: GraphData) -> Any:
    """An ``igraph.Graph`` (directed for a DAG): labels in ``name``, ``attrs`` as attributes."""
    ig = require("igraph", "igraph")
    rows, cols = upper_edges(data)
    edges = list(zip(rows.tolist(), cols.tolist(), strict=True))
    out = ig.Graph(n=len(data.labels), edges=edges, directed=data.directed is not None)
    out.vs["name"] = list(data.labels)
    for key, value in data.attrs.items():
        out[key] = value
    return out


def from_sparse(data: SparseGraphData) -> Any:
    """An undirected ``igraph.Graph`` from the edge list: labels in ``name``, ``attrs`` kept.

    Labels ``0..p-1`` (the families') are the vertex ids and are not stored. The
    edges go in as a list of tuples (4x faster than a NumPy array or lists).
    """
    ig = require("igraph", "igraph")
    rows, cols = data.edges()
    edges = list(zip(rows.tolist(), cols.tolist(), strict=True))
    out = ig.Graph(n=len(data.labels), edges=edges, directed=False)
    labels = data.labels
    if not (isinstance(labels, range) and labels == range(len(labels))):
        out.vs["name"] = list(labels)
    for key, value in data.attrs.items():
        out[key] = value
    return out


#: What to tell a user who passes a directed graph to a method taking an undirected one.
UNDIRECTED_HINT = "Use graph.as_undirected() (or graph.to_undirected() in place)."

BACKEND, spdgraph_graph_backends = offered_backend("igraph", globals())
