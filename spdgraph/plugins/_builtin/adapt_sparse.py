"""Built-in adapter plugin: PyData ``sparse`` arrays (COO, GCXS, DOK).

``sparse`` is imported only when such an array is passed (recognised by the
module of its type). The same rules as every adjacency array (see
:func:`spdgraph.adjacency.adjacency_from_array`); nodes are labelled ``0..p-1``.
"""

from __future__ import annotations

import sys
from typing import Any

from spdgraph.adjacency import adjacency_from_array
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import GraphData


def _is_sparse_array(graph: object) -> bool:
    sparse = sys.modules.get("sparse")
    return sparse is not None and isinstance(graph, sparse.SparseArray)


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a PyData sparse adjacency array; nodes are labelled ``0..p-1``."""
    if not _is_sparse_array(graph):
        return None
    array: Any = graph
    adjacency = adjacency_from_array(array.todense(), what="sparse adjacency array")
    return GraphData(adjacency=adjacency, labels=list(range(adjacency.shape[0])))


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a PyData sparse adjacency: its number of rows, without densifying it."""
    if not _is_sparse_array(graph):
        return None
    shape: Any = getattr(graph, "shape", ())
    return int(shape[0]) if len(shape) == 2 else None
