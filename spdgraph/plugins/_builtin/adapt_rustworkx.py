"""Built-in graph backend: rustworkx graphs (labels from the node payloads), both ways.

rustworkx is not imported to recognise a graph (see ``_library.library_of``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import (
    edge_list_data,
    instance_of,
    labels_and_rows,
    library_of,
    offered_backend,
    require,
    upper_edges,
)
from spdgraph.plugins.types import GraphData, SparseGraphData


def recognises(graph: object) -> bool:
    """A ``rustworkx.PyGraph`` or ``PyDiGraph``."""
    return instance_of(graph, "rustworkx", "PyGraph", "PyDiGraph")


def count_nodes(graph: Any) -> int:
    """``graph.num_nodes()``."""
    return int(graph.num_nodes())


def _nodes(graph: Any) -> tuple[list[Any], np.ndarray]:
    """Node labels (payloads when hashable and unique, else indices) and edge rows."""
    indices = list(graph.node_indices())
    if not indices:
        raise GraphError("the rustworkx graph has no nodes; a graph needs at least one node.")
    edges = np.asarray(graph.edge_list(), dtype=np.int64).reshape(-1, 2)
    return labels_and_rows(indices, [graph[i] for i in indices], edges)


def to_graph(graph: Any) -> GraphData:
    """A ``PyGraph`` or ``PyDiGraph`` without parallel edges.

    Node order is ``graph.node_indices()``. The labels are the node payloads
    (``graph[i]``) when none is None and all are hashable and distinct, else
    the node indices. Edge payloads (weights) are ignored; self-loops of a
    ``PyGraph`` too.
    """
    labels, edges = _nodes(graph)
    if isinstance(graph, library_of(graph, "rustworkx").PyDiGraph):  # type: ignore[union-attr]
        fix = "Build it as rustworkx.PyDiGraph(multigraph=False)."
        return edge_list_data(labels, edges, "the rustworkx PyDiGraph", fix, directed=True)
    fix = "Build it as rustworkx.PyGraph(multigraph=False), where adding an edge twice keeps one."
    return edge_list_data(labels, edges, "the rustworkx graph", fix, directed=False)


def from_graph(data: GraphData) -> Any:
    """A ``PyGraph`` (``PyDiGraph`` for a DAG): labels as payloads, ``attrs`` as graph attrs."""
    rx = require("rustworkx", "rustworkx")
    kind = rx.PyDiGraph if data.directed is not None else rx.PyGraph
    out = kind(multigraph=False, attrs=dict(data.attrs))
    out.add_nodes_from(list(data.labels))
    rows, cols = upper_edges(data)
    out.add_edges_from_no_data(list(zip(rows.tolist(), cols.tolist(), strict=True)))
    return out


def from_sparse(data: SparseGraphData) -> Any:
    """A ``PyGraph`` from the edge list: labels as payloads, ``attrs`` as graph attrs."""
    rx = require("rustworkx", "rustworkx")
    out = rx.PyGraph(multigraph=False, attrs=dict(data.attrs))
    out.add_nodes_from(list(data.labels))
    rows, cols = data.edges()
    out.extend_from_edge_list(list(zip(rows.tolist(), cols.tolist(), strict=True)))
    return out


#: What to tell a user who passes a directed graph to a method taking an undirected one.
UNDIRECTED_HINT = (
    "Use graph.to_undirected(multigraph=False) (an edge in either direction becomes an "
    "undirected edge)."
)

BACKEND, spdgraph_graph_backends = offered_backend("rustworkx", globals())
