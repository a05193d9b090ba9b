"""Built-in adapter plugin: numpy adjacency arrays."""

from __future__ import annotations

import numpy as np

from spdgraph._types import GraphData
from spdgraph.adjacency import adjacency_from_array
from spdgraph.hookspecs import hookimpl


@hookimpl(trylast=True)
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a square numpy array; nodes are labelled ``0..p-1``."""
    if not isinstance(graph, np.ndarray):
        return None
    adjacency = adjacency_from_array(graph, what="adjacency array")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl(trylast=True)
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a numpy adjacency: its number of rows (no copy)."""
    if not isinstance(graph, np.ndarray) or graph.ndim != 2:
        return None
    return int(graph.shape[0])
