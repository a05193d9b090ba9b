"""Built-in graph backend: numpy adjacency arrays, both ways.

A bare array is read as an undirected adjacency (it must be symmetric);
``spdgraph.DAG(array)`` reads ``array[i, j] != 0`` as the edge ``i -> j``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins._builtin._library import dag_from_array, offered_backend, unwrap
from spdgraph.plugins.types import DAG, GraphData, SparseGraphData


def recognises(graph: object) -> bool:
    """A numpy array, bare or in a :class:`spdgraph.DAG`."""
    return isinstance(unwrap(graph), np.ndarray)


def count_nodes(graph: object) -> int | None:
    """Its number of rows (no copy); None for an array that is not 2-D."""
    inner: Any = unwrap(graph)
    return int(inner.shape[0]) if inner.ndim == 2 else None


def to_graph(graph: object) -> GraphData:
    """A square array (non-zero off the diagonal is an edge); nodes are ``0..p-1``.

    A bare array is never read as directed (it would be ambiguous with a
    symmetric adjacency): ``spdgraph.DAG(array)`` is.
    """
    if isinstance(graph, DAG):
        return dag_from_array(np.asarray(graph.graph), "DAG adjacency array")
    adjacency = adjacency_from_array(np.asarray(graph), what="adjacency array")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


def from_graph(data: GraphData) -> Any:
    """The boolean adjacency (labels dropped); ``spdgraph.DAG(directed)`` for a DAG."""
    if data.directed is not None:
        return DAG(np.array(data.directed, dtype=bool))
    return np.array(data.adjacency, dtype=bool)


def from_sparse(data: SparseGraphData) -> Any:
    """The dense boolean adjacency (``p * p`` bytes; the caller checks that it fits)."""
    p = len(data.labels)
    out = np.zeros((p, p), dtype=bool)
    rows, cols = data.edges()
    out[rows, cols] = True
    out[cols, rows] = True
    return out


# asked last: any library's array subclass goes first
BACKEND, spdgraph_graph_backends = offered_backend("numpy", globals(), trylast=True)
