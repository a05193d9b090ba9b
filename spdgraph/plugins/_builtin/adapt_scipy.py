"""Built-in adapter plugin: scipy.sparse matrices and arrays."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins._builtin._library import dag_from_array, unwrap
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


def _sparse(graph: object) -> Any:
    """``graph`` when it is a scipy.sparse matrix or array (scipy.sparse imported), else None."""
    sparse = sys.modules.get("scipy.sparse")
    if sparse is None or not sparse.issparse(graph):
        return None  # scipy.sparse not imported: graph cannot be one of its objects
    return graph


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a scipy.sparse adjacency; nodes are labelled ``0..p-1``."""
    matrix = _sparse(graph)
    if matrix is None:
        return None
    adjacency = adjacency_from_array(matrix.toarray(), what="sparse adjacency matrix")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a scipy.sparse adjacency (bare or in a DAG): its rows, never densified."""
    matrix = _sparse(unwrap(graph))
    if matrix is None:
        return None
    shape: Any = getattr(matrix, "shape", ())
    return int(shape[0]) if len(shape) == 2 else None


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt ``spdgraph.DAG(matrix)`` of a scipy.sparse matrix: ``[i, j] != 0`` is ``i -> j``."""
    matrix = _sparse(graph.graph) if isinstance(graph, DAG) else None
    if matrix is None:
        return None  # a bare matrix is never read as directed
    return dag_from_array(np.asarray(matrix.toarray()), "DAG sparse adjacency matrix")
