"""Built-in adapter plugin: rustworkx graphs (labels from the node payloads).

rustworkx is never imported here: an object is recognised by the module its
type comes from, so a user who has not imported rustworkx pays nothing.
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
    undirected_data,
    unwrap,
)
from spdgraph.plugins.hookspecs import hookimpl
from spdgraph.plugins.types import DAG, GraphData


def _graph(graph: object) -> tuple[Any, bool] | None:
    """(the graph, whether directed) when ``graph`` is (or a DAG wraps) a rustworkx graph."""
    inner = unwrap(graph)
    rx = library_of(inner, "rustworkx")
    if rx is None or not isinstance(inner, rx.PyGraph | rx.PyDiGraph):
        return None
    return inner, isinstance(inner, rx.PyDiGraph)


def _nodes(graph: Any) -> tuple[list[Any], np.ndarray]:
    """Node labels (payloads when hashable and unique, else indices) and edge rows."""
    indices = list(graph.node_indices())
    if not indices:
        raise GraphError("the rustworkx graph has no nodes; a graph needs at least one node.")
    payloads = [graph[i] for i in indices]
    labels = payloads if hashable_unique(payloads) else indices
    edges = np.asarray(graph.edge_list(), dtype=np.int64).reshape(-1, 2)
    return labels, positions(indices)[edges]


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt a ``rustworkx.PyGraph`` without parallel edges.

    Node order is ``graph.node_indices()``. The labels are the node payloads
    (``graph[i]``) when none is None and all are hashable and distinct, else
    the node indices. Edge payloads (weights) and self-loops are ignored.
    """
    found = _graph(graph)
    if found is None or isinstance(graph, DAG):
        return None  # not rustworkx (a DAG wrapper is for the DAG methods only)
    inner, directed = found
    if directed:
        raise GraphError(
            "got a rustworkx PyDiGraph; spdgraph needs an undirected graph. Use "
            "graph.to_undirected(multigraph=False) (an edge in either direction becomes an "
            "undirected edge), or a DAG-capable method such as method='dag'."
        )
    labels, edges = _nodes(inner)
    return undirected_data(
        labels,
        edges,
        "the rustworkx graph",
        "Build it as rustworkx.PyGraph(multigraph=False), where adding an edge twice keeps one.",
    )


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a rustworkx graph (bare or in a DAG): ``graph.num_nodes()``."""
    found = _graph(graph)
    return None if found is None else int(found[0].num_nodes())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a ``rustworkx.PyDiGraph`` (bare or in :class:`spdgraph.DAG`) for the DAG methods.

    An edge ``u -> v`` sets ``directed[u, v]``; labels as for undirected
    graphs. Self-loops and parallel edges are refused; cycles are left to the
    core.
    """
    found = _graph(graph)
    if found is None or not found[1]:
        return None  # not rustworkx, or an undirected PyGraph
    inner = found[0]
    labels, edges = _nodes(inner)
    return directed_data(
        labels,
        edges,
        "the rustworkx PyDiGraph",
        "Build it as rustworkx.PyDiGraph(multigraph=False).",
    )
