"""Built-in adapter plugin: numpy adjacency arrays."""

from __future__ import annotations

import numpy as np

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins._builtin._library import dag_from_array, unwrap
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


@hookimpl(trylast=True)
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a square numpy array; nodes are labelled ``0..p-1``."""
    if not isinstance(graph, np.ndarray):
        return None
    adjacency = adjacency_from_array(graph, what="adjacency array")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl(trylast=True)
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a numpy adjacency (bare or in a DAG): its number of rows (no copy)."""
    inner = unwrap(graph)
    if not isinstance(inner, np.ndarray) or inner.ndim != 2:
        return None
    return int(inner.shape[0])


@hookimpl(trylast=True)
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt ``spdgraph.DAG(array)``: ``array[i, j] != 0`` is the edge ``i -> j``.

    A bare array is never read as directed (it would be ambiguous with a
    symmetric adjacency); nodes are labelled ``0..p-1``.
    """
    if not isinstance(graph, DAG) or not isinstance(graph.graph, np.ndarray):
        return None
    return dag_from_array(graph.graph, "DAG adjacency array")
