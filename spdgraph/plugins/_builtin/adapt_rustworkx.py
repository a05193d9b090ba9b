"""Built-in graph backend: rustworkx graphs (labels from the node payloads), both ways.

rustworkx is never imported to recognise a graph: an object is recognised by
the module its type comes from, so a user who has not imported rustworkx pays
nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import (
    directed_data,
    hashable_unique,
    library_of,
    positions,
    require,
    undirected_data,
    upper_edges,
)
from spdgraph.plugins.backends import GraphBackend
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import GraphData


def recognises(graph: object) -> bool:
    """A ``rustworkx.PyGraph`` or ``PyDiGraph``."""
    rx = library_of(graph, "rustworkx")
    return rx is not None and isinstance(graph, rx.PyGraph | rx.PyDiGraph)


def count_nodes(graph: Any) -> int:
    """``graph.num_nodes()``."""
    return int(graph.num_nodes())


def _nodes(graph: Any) -> tuple[list[Any], np.ndarray]:
    """Node labels (payloads when hashable and unique, else indices) and edge rows."""
    indices = list(graph.node_indices())
    if not indices:
        raise GraphError("the rustworkx graph has no nodes; a graph needs at least one node.")
    payloads = [graph[i] for i in indices]
    labels = payloads if hashable_unique(payloads) else indices
    edges = np.asarray(graph.edge_list(), dtype=np.int64).reshape(-1, 2)
    return labels, positions(indices)[edges]


def to_graph(graph: Any) -> GraphData:
    """A ``PyGraph`` or ``PyDiGraph`` without parallel edges.

    Node order is ``graph.node_indices()``. The labels are the node payloads
    (``graph[i]``) when none is None and all are hashable and distinct, else
    the node indices. Edge payloads (weights) are ignored; self-loops of a
    ``PyGraph`` too.
    """
    labels, edges = _nodes(graph)
    if isinstance(graph, library_of(graph, "rustworkx").PyDiGraph):  # type: ignore[union-attr]
        return directed_data(
            labels,
            edges,
            "the rustworkx PyDiGraph",
            "Build it as rustworkx.PyDiGraph(multigraph=False).",
        )
    return undirected_data(
        labels,
        edges,
        "the rustworkx graph",
        "Build it as rustworkx.PyGraph(multigraph=False), where adding an edge twice keeps one.",
    )


def from_graph(data: GraphData) -> Any:
    """A ``PyGraph`` (``PyDiGraph`` for a DAG): labels as payloads, ``attrs`` as graph attrs."""
    rx = require("rustworkx", "rustworkx")
    kind = rx.PyDiGraph if data.directed is not None else rx.PyGraph
    out = kind(multigraph=False, attrs=dict(data.attrs))
    out.add_nodes_from(list(data.labels))
    rows, cols = upper_edges(data)
    out.add_edges_from_no_data(list(zip(rows.tolist(), cols.tolist(), strict=True)))
    return out


BACKEND = GraphBackend(
    name="rustworkx",
    recognises=recognises,
    to_graph=to_graph,
    from_graph=from_graph,
    count_nodes=count_nodes,
    undirected_hint=(
        "Use graph.to_undirected(multigraph=False) (an edge in either direction becomes an "
        "undirected edge)."
    ),
)


@hookimpl
def spdgraph_graph_backends() -> list[GraphBackend]:
    """The rustworkx backend."""
    return [BACKEND]
