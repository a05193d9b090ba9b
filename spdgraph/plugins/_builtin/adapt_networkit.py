"""Built-in adapter plugin: NetworKit graphs (labels from the ``name`` node attribute).

NetworKit is never imported here: an object is recognised by the module its
type comes from, so a user who has not imported NetworKit pays nothing.
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

#: The node attribute read as node labels (NetworKit node attributes are int, float or str).
NAME_ATTRIBUTE = "name"


def _graph(graph: object) -> Any:
    """``graph`` (or the graph in a DAG) when it is a ``networkit.Graph``."""
    inner = unwrap(graph)
    nk = library_of(inner, "networkit")
    if nk is None or not isinstance(inner, nk.Graph):
        return None
    return inner


def _names(graph: Any, nodes: list[int]) -> list[Any] | None:
    """The ``name`` node attribute (str or int) when set for every node and unique."""
    for kind in (str, int):
        try:
            attribute = graph.getNodeAttribute(NAME_ATTRIBUTE, kind)
        except RuntimeError:  # no such attribute, or one of another type
            continue
        try:
            names = [attribute[u] for u in nodes]
        except ValueError:  # a node without a value
            return None
        return names if hashable_unique(names) else None
    return None


def _nodes(graph: Any) -> tuple[list[Any], np.ndarray]:
    """Node labels (names, else node ids) and edge rows."""
    nodes = list(graph.iterNodes())
    if not nodes:
        raise GraphError("the NetworKit graph has no nodes; a graph needs at least one node.")
    labels = _names(graph, nodes) or nodes
    edges = np.fromiter((x for edge in graph.iterEdges() for x in edge), dtype=np.int64)
    return labels, positions(nodes)[edges.reshape(-1, 2)]


@hookimpl
def spdgraph_adapt_graph(graph: object) -> GraphData | None:
    """Adapt an undirected ``networkit.Graph`` without multi-edges.

    Node order is ``graph.iterNodes()`` (ascending ids; removed nodes are
    skipped). The labels are the string or integer node attribute ``name``
    when it is set for every node and unique, else the node ids. Edge weights
    and self-loops are ignored.
    """
    inner = _graph(graph)
    if inner is None or isinstance(graph, DAG):
        return None  # not NetworKit (a DAG wrapper is for the DAG methods only)
    if inner.isDirected():
        raise GraphError(
            "got a directed NetworKit graph; spdgraph needs an undirected graph. Use "
            "networkit.graphtools.toUndirected(G), or a DAG-capable method such as "
            "method='dag'."
        )
    labels, edges = _nodes(inner)
    return undirected_data(
        labels, edges, "the NetworKit graph", "Use G.removeMultiEdges() to merge them."
    )


@hookimpl
def spdgraph_count_nodes(graph: object) -> int | None:
    """Nodes of a NetworKit graph (bare or in a DAG): ``G.numberOfNodes()``."""
    inner = _graph(graph)
    return None if inner is None else int(inner.numberOfNodes())


@hookimpl
def spdgraph_adapt_dag(graph: object) -> GraphData | None:
    """Adapt a directed ``networkit.Graph`` (bare or in :class:`spdgraph.DAG`) for DAG methods.

    An edge ``u -> v`` sets ``directed[u, v]``; labels as for undirected
    graphs. Self-loops and multi-edges are refused; cycles are left to the core.
    """
    inner = _graph(graph)
    if inner is None or not inner.isDirected():
        return None  # not NetworKit, or undirected
    labels, edges = _nodes(inner)
    return directed_data(
        labels, edges, "the directed NetworKit graph", "Use G.removeMultiEdges()."
    )
