"""Built-in adapter plugin: scipy.sparse matrices and arrays."""

from __future__ import annotations

import sys
from typing import Any

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import GraphData


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a scipy.sparse adjacency; nodes are labelled ``0..p-1``."""
    sparse = sys.modules.get("scipy.sparse")
    if sparse is None or not sparse.issparse(graph):
        return None  # scipy.sparse not imported: graph cannot be one of its objects
    matrix: Any = graph  # a scipy.sparse matrix or array: issparse said so
    adjacency = adjacency_from_array(matrix.toarray(), what="sparse adjacency matrix")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a scipy.sparse adjacency: its number of rows, without densifying it."""
    sparse = sys.modules.get("scipy.sparse")
    if sparse is None or not sparse.issparse(graph):
        return None
    shape: Any = getattr(graph, "shape", ())
    return int(shape[0]) if len(shape) == 2 else None
