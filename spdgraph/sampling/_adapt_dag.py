"""Directed acyclic graphs for the DAG-capable methods: adapted, checked, given a pattern.

The graph backend that recognises the object reads it (networkx ``DiGraph``,
directed igraph and NetworKit graphs, rustworkx ``PyDiGraph``,
:class:`spdgraph.DAG` around an array or a graph file) as a directed graph;
this module checks it and computes the zero pattern of the requested kind (moral
graph for a precision, common-ancestor pairs for a covariance), which the
core's checks then enforce.
"""

from __future__ import annotations

import numpy as np

from spdgraph._kernels.sem import ancestral_pairs, moral_graph, topological_order
from spdgraph.errors import GraphError, GraphTypeError
from spdgraph.plugins.types import DAG, GraphData
from spdgraph.sampling._adapt import Recognised, needs_dag, recognise

__all__ = ["adapt_dag", "refuse_dag"]


def refuse_dag(graph: object, method: str, dag_methods: list[str]) -> None:
    """A :class:`spdgraph.DAG` given to a method that is not DAG-capable: a GraphError."""
    if isinstance(graph, DAG):
        raise GraphError(
            f"method {method!r} takes an undirected graph, not a spdgraph.DAG; the "
            f"DAG-capable methods are: {', '.join(dag_methods) or 'none installed'}. For an "
            "undirected graph pass the graph itself (unwrapped)."
        )


def adapt_dag(graph: object | Recognised, kind: str, method: str) -> GraphData:
    """Adapt a DAG; ``adjacency`` of the result is the zero pattern of ``kind``.

    Raises
    ------
    GraphTypeError
        No backend recognises the object, or it is not directed (an undirected
        graph, a bare array).
    GraphError
        A cycle, a self-loop or an invalid backend result.

    Examples
    --------
    >>> import networkx as nx
    >>> g = adapt_dag(nx.DiGraph([("a", "c"), ("b", "c")]), "precision", "dag")
    >>> g.labels, g.adjacency.astype(int).tolist()  # a and b married
    (['a', 'c', 'b'], [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    """
    found = recognise(graph, method)
    given = f"{type(found.obj).__module__}.{type(found.obj).__qualname__}"
    if not isinstance(found.obj, DAG) and found.backend.recognises(DAG(found.obj)):
        # an array or a file: its backend reads it as directed only when wrapped
        raise GraphTypeError(needs_dag(method, f"{given}, not wrapped in spdgraph.DAG"))
    result = found.to_graph()  # shapes and labels checked
    if result.directed is None:
        raise GraphTypeError(needs_dag(method, f"an undirected graph ({given})"))
    directed = np.asarray(result.directed)
    labels = list(result.labels)
    loops = np.flatnonzero(directed.diagonal())
    if loops.size:
        raise GraphError(
            f"the directed graph has a self-loop at {labels[loops[0]]!r}; a DAG has none."
        )
    order = topological_order(directed)
    if order is None:
        raise GraphError(
            "the directed graph has a cycle; a structural equation model needs a directed "
            "acyclic graph (networkx.find_cycle(G) shows one cycle)."
        )
    pattern = moral_graph(directed) if kind == "precision" else ancestral_pairs(directed, order)
    return GraphData(adjacency=pattern, labels=labels, directed=directed)
