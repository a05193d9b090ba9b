"""Built-in graph backend: NetworKit graphs (labels from the ``name`` node attribute), both ways.

NetworKit is not imported to recognise a graph (see ``_library.library_of``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph.errors import GraphError
from spdgraph.plugins._builtin._library import (
    edge_list_data,
    instance_of,
    labels_and_rows,
    offered_backend,
    require,
    upper_edges,
)
from spdgraph.plugins.types import GraphData, SparseGraphData

#: The node attribute read as node labels (NetworKit node attributes are int, float or str).
NAME_ATTRIBUTE = "name"


def recognises(graph: object) -> bool:
    """A ``networkit.Graph``."""
    return instance_of(graph, "networkit", "Graph")


def count_nodes(graph: Any) -> int:
    """``G.numberOfNodes()``."""
    return int(graph.numberOfNodes())


def _names(graph: Any, nodes: list[int]) -> list[Any] | None:
    """The ``name`` node attribute (str or int) when set for every node."""
    for kind in (str, int):
        try:
            attribute = graph.getNodeAttribute(NAME_ATTRIBUTE, kind)
        except RuntimeError:  # no such attribute, or one of another type
            continue
        try:
            names = [attribute[u] for u in nodes]
        except ValueError:  # a node without a value
            return None
        return names
    return None


def to_graph(graph: Any) -> GraphData:
    """A ``networkit.Graph`` without multi-edges (directed ones give ``directed``).

    Node order is ``graph.iterNodes()`` (ascending ids; removed nodes are
    skipped). The labels are the string or integer node attribute ``name``
    when it is set for every node and unique, else the node ids. Edge weights
    are ignored, and self-loops of an undirected graph.
    """
    nodes = list(graph.iterNodes())
    if not nodes:
        raise GraphError("the NetworKit graph has no nodes; a graph needs at least one node.")
    flat = np.fromiter((x for edge in graph.iterEdges() for x in edge), dtype=np.int64)
    labels, edges = labels_and_rows(nodes, _names(graph, nodes), flat.reshape(-1, 2))
    if graph.isDirected():
        what, fix = "the directed NetworKit graph", "Use G.removeMultiEdges()."
        return edge_list_data(labels, edges, what, fix, directed=True)
    fix = "Use G.removeMultiEdges() to merge them."
    return edge_list_data(labels, edges, "the NetworKit graph", fix, directed=False)


def from_graph(data: GraphData) -> Any:
    """A NetworKit graph on nodes ``0..p-1`` (directed for a DAG).

    Str or int labels other than ``0..p-1`` go to the node attribute
    ``name`` (what :func:`to_graph` reads back); NetworKit has no graph
    attributes, so ``attrs`` are not kept.
    """
    nk = require("networkit", "networkit")
    p = len(data.labels)
    out = nk.Graph(p, weighted=False, directed=data.directed is not None)
    rows, cols = upper_edges(data)
    if rows.size:
        out.addEdges((rows, cols))
    _set_names(out, list(data.labels))
    return out


def from_sparse(data: SparseGraphData) -> Any:
    """An undirected NetworKit graph from the edge list (labels as in :func:`from_graph`)."""
    nk = require("networkit", "networkit")
    out = nk.Graph(len(data.labels), weighted=False, directed=False)
    rows, cols = data.edges()
    if rows.size:
        out.addEdges((rows, cols))
    _set_names(out, list(data.labels))
    return out


def _set_names(graph: Any, labels: Sequence[Any]) -> None:
    if labels == list(range(len(labels))):
        return  # the node ids are the labels
    for kind in (str, int):
        if all(isinstance(x, kind) and not isinstance(x, bool) for x in labels):
            names = graph.attachNodeAttribute(NAME_ATTRIBUTE, kind)
            for u, label in enumerate(labels):
                names[u] = label
            return


#: What to tell a user who passes a directed graph to a method taking an undirected one.
UNDIRECTED_HINT = "Use networkit.graphtools.toUndirected(G)."

BACKEND, spdgraph_graph_backends = offered_backend("networkit", globals())
