"""Directed acyclic graphs for the DAG-capable methods: adapted, checked, given a pattern.

The ``spdgraph_adapt_dag`` hook finds the adapter (networkx ``DiGraph``,
directed igraph and NetworKit graphs, rustworkx ``PyDiGraph``,
:class:`spdgraph.DAG` around an array or a graph file); this module checks
what it returns and computes the zero pattern of the requested kind (moral
graph for a precision, common-ancestor pairs for a covariance), which the
core's checks then enforce.
"""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.sem import ancestral_pairs, moral_graph, topological_order
from spdgraph.errors import GraphError, GraphTypeError
from spdgraph.plugins.types import DAG, GraphData
from spdgraph.sampling._adapt import call_adapters, check_adapted_matrix, check_unique_labels

__all__ = ["adapt_dag", "refuse_dag"]


def refuse_dag(graph: object, method: str, dag_methods: list[str]) -> None:
    """A :class:`spdgraph.DAG` given to a method that is not DAG-capable: a GraphError."""
    if isinstance(graph, DAG):
        raise GraphError(
            f"method {method!r} takes an undirected graph, not a spdgraph.DAG; the "
            f"DAG-capable methods are: {', '.join(dag_methods) or 'none installed'}. For an "
            "undirected graph pass the graph itself (unwrapped)."
        )


def adapt_dag(graph: object, kind: str, method: str) -> GraphData:
    """Adapt a DAG; ``adjacency`` of the result is the zero pattern of ``kind``.

    Raises
    ------
    GraphTypeError
        No DAG adapter recognises the object (an undirected graph, a bare array).
    GraphError
        A cycle, a self-loop or an invalid adapter result.

    Examples
    --------
    >>> import networkx as nx
    >>> g = adapt_dag(nx.DiGraph([("a", "c"), ("b", "c")]), "precision", "dag")
    >>> g.labels, g.adjacency.astype(int).tolist()  # a and b married
    (['a', 'c', 'b'], [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    """
    result = call_adapters("spdgraph_adapt_dag", graph)
    if result is None:
        raise GraphTypeError(
            f"method {method!r} needs a directed acyclic graph: a networkx.DiGraph, a "
            "directed igraph.Graph or NetworKit graph, a rustworkx.PyDiGraph, a graph file "
            "read as directed, or spdgraph.DAG(array) for an adjacency array (numpy, "
            "scipy.sparse or PyData sparse; array[i, j] != 0 for an edge i -> j); got "
            f"{type(graph).__module__}.{type(graph).__qualname__}. An undirected graph "
            "has no direction to follow: orient its edges first."
        )
    if not isinstance(result, GraphData) or result.directed is None:
        raise GraphTypeError(
            "a DAG adapter returned no directed adjacency; spdgraph_adapt_dag must return "
            "a spdgraph.GraphData with `directed` set."
        )
    directed = np.asarray(result.directed)
    p = check_adapted_matrix(directed, "a DAG adapter returned a directed adjacency")
    if directed.diagonal().any():
        raise GraphError("a DAG adapter returned self-loops; a DAG has none.")
    order = topological_order(directed)
    if order is None:
        raise GraphError(
            "the directed graph has a cycle; a structural equation model needs a directed "
            "acyclic graph (networkx.find_cycle(G) shows one cycle)."
        )
    labels = list(result.labels)
    if len(labels) != p:
        raise GraphError(f"a DAG adapter returned {len(labels)} labels for {p} nodes.")
    check_unique_labels(labels)
    pattern = moral_graph(directed) if kind == "precision" else ancestral_pairs(directed, order)
    return GraphData(adjacency=pattern, labels=labels, directed=directed)
