"""Graph adaptation: any graph object to canonical adjacency plus node labels.

The registered graph backends (:class:`spdgraph.GraphBackend`, hook
``spdgraph_graph_backends``) are asked once which one recognises the object
(:func:`recognise`); that backend alone counts its nodes for the memory guard
and reads it. A :class:`~spdgraph.GraphData` (a graph :func:`adapt_graph` has
read already) is taken as it is (:data:`ADAPTED`): a caller adapts a graph once
and passes the result on. This module checks what it returns and turns labels into a
coordinate array; :mod:`spdgraph.sampling._adapt_dag` does the same for DAGs.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from spdgraph.adjacency import accepting_complete
from spdgraph.errors import GraphError, GraphTypeError, InvalidOptionError, written
from spdgraph.plugins.backends import call_backend, find_backend
from spdgraph.plugins.types import GraphBackend, GraphData

__all__ = [
    "ADAPTED",
    "Recognised",
    "SparseGraph",
    "adapt_graph",
    "adapt_graph_sparse",
    "check_adapted_matrix",
    "check_unique_labels",
    "count_nodes",
    "label_array",
    "recognise",
]

#: What the built-in backends take, for the message when none recognises an object.
KNOWN = (
    "a networkx, igraph, rustworkx or NetworKit graph, a square numpy/scipy.sparse/PyData "
    "sparse adjacency matrix, an adjacency pandas.DataFrame or xarray.DataArray, the path "
    "of a graph file"
)


def _as_adapted(graph: object) -> GraphData:
    assert isinstance(graph, GraphData)
    return graph


#: The backend of a graph adapted already (a :class:`~spdgraph.GraphData`, as
#: :func:`adapt_graph` returns): read as it is, so a caller that adapted a graph
#: (``simulate``, for its node count) passes it on without a second adaptation.
ADAPTED = GraphBackend(
    name="adapted",
    recognises=lambda graph: isinstance(graph, GraphData),
    to_graph=_as_adapted,
    count_nodes=lambda graph: int(_as_adapted(graph).adjacency.shape[0]),
)


@dataclass(frozen=True)
class Recognised:
    """A graph object and the one backend that recognised it (asked once per object).

    ``obj`` is what the backend recognised: the object given, or the graph
    inside a :class:`spdgraph.DAG` that no backend recognised as such.
    """

    backend: GraphBackend
    plugin: str
    obj: object

    def count_nodes(self) -> int | None:
        """The backend's node count (None without one), checked to be a count."""
        if self.backend.count_nodes is None:
            return None
        count = call_backend(self.backend, self.plugin, "count_nodes", self.obj)
        if count is None:
            return None
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
            raise GraphTypeError(
                f"the count_nodes of graph backend {self.backend.name!r} (plugin "
                f"{self.plugin!r}) returned {count!r}, not a node count; it must return a "
                "non-negative int or None."
            )
        return int(count)

    def to_graph(self) -> GraphData:
        """The backend's GraphData, its shapes and labels checked (undirected or directed)."""
        result = call_backend(self.backend, self.plugin, "to_graph", self.obj)
        what = f"graph backend {self.backend.name!r} (plugin {self.plugin!r})"
        if not isinstance(result, GraphData):
            raise GraphTypeError(
                f"{what} returned {type(result).__name__} from to_graph instead of "
                "spdgraph.GraphData."
            )
        matrix = result.adjacency if result.directed is None else result.directed
        p = check_adapted_matrix(np.asarray(matrix), f"{what} returned an adjacency")
        labels = list(result.labels)
        if len(labels) != p:
            raise GraphError(f"{what} returned {len(labels)} labels for {p} nodes.")
        check_unique_labels(labels)
        return result


def recognise(graph: object, dag_method: str | None = None) -> Recognised:
    """The backend that recognises ``graph``, asked once; a GraphTypeError when none does.

    ``dag_method`` names a DAG-capable method the graph is for (the message
    then says which directed inputs it takes).
    """
    if isinstance(graph, Recognised):
        return graph
    if isinstance(graph, GraphData):  # adapted already (simulate adapts once): as it is
        return Recognised(ADAPTED, "spdgraph", graph)
    found = find_backend(graph)
    if found is None:
        given = f"{type(graph).__module__}.{type(graph).__qualname__}"
        if _is_pair(graph):
            raise GraphTypeError(
                f"got the pair {written(graph)} as a graph: a list (or tuple) given to "
                "spdgraph.sample is read as several related graphs, one per item, so a list "
                "of (u, v) pairs is not an edge list. For an edge list pass "
                "networkx.Graph(edges) (nodes in order of first appearance; add isolated "
                "nodes with G.add_nodes_from), or the path of an edge-list file."
            )
        if dag_method is not None:
            raise GraphTypeError(needs_dag(dag_method, given))
        raise GraphTypeError(
            f"no graph backend recognises a graph of type {given}; pass {KNOWN}, or "
            "install/register a graph backend plugin for this type (spdgraph.GraphBackend)."
        )
    return Recognised(*found)


def _is_pair(graph: object) -> bool:
    """A tuple of two labels (str or number): an edge, not a graph.

    (A list of two numbers is more likely a row of a nested-list matrix: the
    general message, which names numpy arrays, fits it better.)
    """
    return (
        isinstance(graph, tuple)
        and len(graph) == 2
        and all(isinstance(x, str | numbers.Number) for x in graph)
    )


def needs_dag(method: str, given: str) -> str:
    """The message for a DAG-capable method given something that is not directed."""
    return (
        f"method {method!r} needs a directed acyclic graph: a networkx.DiGraph, a directed "
        "igraph.Graph or NetworKit graph, a rustworkx.PyDiGraph, spdgraph.DAG(path) for a "
        "graph file read as directed, or spdgraph.DAG(array) for an adjacency array (numpy, "
        f"scipy.sparse or PyData sparse; array[i, j] != 0 for an edge i -> j); got {given}. "
        "An undirected graph has no direction to follow: orient its edges first."
    )


def adapt_graph(
    graph: object, method: str | None = None, *, complete: object = False
) -> GraphData:
    """Turn any supported graph object into canonical adjacency plus labels.

    Asks the registered graph backends (:class:`spdgraph.GraphBackend`: the
    built-in ones read networkx, igraph, rustworkx, NetworKit, numpy,
    scipy.sparse, PyData sparse, pandas and xarray objects and graph files)
    which one recognises the object, reads it with that one and validates the
    result.

    Parameters
    ----------
    graph
        A graph object some registered backend recognises.
    method
        The method the graph is for, named in the refusal of a directed graph.
    complete
        Take a dense weighted array (no zero off its diagonal, values other
        than 1: a covariance matrix, say) as the complete graph it encodes;
        by default such an array is refused (``GraphError``), since it is
        rarely meant as a graph.

    Returns
    -------
    GraphData
        Boolean symmetric adjacency with a False diagonal, and the node labels.

    Raises
    ------
    GraphTypeError
        No backend recognises the object.
    GraphError
        The object is recognised but invalid (directed, parallel edges, ...).

    Examples
    --------
    >>> import networkx as nx
    >>> import spdgraph
    >>> g = spdgraph.adapt_graph(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.adjacency.sum()
    (['a', 'b', 'c'], np.int64(4))
    """
    if not isinstance(complete, bool | np.bool_):
        raise InvalidOptionError(f"complete must be True or False, got {written(complete)}.")
    if _is_sparse_result(graph):  # sample(..., sparse=True)'s graph, dense (guarded)
        sparse_graph = adapt_graph_sparse(graph)
        _check_dense_adjacency(sparse_graph.p, None)
        dense = sparse_graph.adjacency.toarray()  # type: ignore[attr-defined]
        return GraphData(adjacency=dense, labels=list(sparse_graph.labels))
    found = recognise(graph)
    with accepting_complete(bool(complete)):
        result = found.to_graph()
    if result.directed is not None:
        raise GraphError(_directed_refusal(found, method))
    adjacency = np.asarray(result.adjacency)
    if adjacency.diagonal().any() or not np.array_equal(adjacency, adjacency.T):
        raise GraphError(
            f"graph backend {found.backend.name!r} (plugin {found.plugin!r}) returned a "
            "non-symmetric adjacency or self-loops."
        )
    return GraphData(adjacency=adjacency, labels=list(result.labels))


def _directed_refusal(found: Recognised, method: str | None) -> str:
    from spdgraph.plugins import generators

    dag = sorted(name for name, (gen, _) in generators().items() if gen.accepts_dag)
    given = f"{type(found.obj).__module__}.{type(found.obj).__qualname__}"
    who = f"method {method!r} takes" if method else "spdgraph needs"
    return (
        f"got a directed graph ({given}); {who} an undirected graph. "
        f"{found.backend.undirected_hint or 'Make it undirected first.'} A DAG-capable "
        f"method ({', '.join(dag) or 'none installed'}) takes it as a directed acyclic graph."
    )


def count_nodes(graph: object) -> int | None:
    """The number of nodes of ``graph``, counted without building its adjacency.

    Asks the backend that recognises it (every built-in backend counts); None
    when none recognises the object or its backend cannot count it, and then
    the graph must be adapted to know.

    Examples
    --------
    >>> import scipy.sparse
    >>> count_nodes(scipy.sparse.eye(200_000, format="csr"))
    200000
    """
    found = graph if isinstance(graph, Recognised) else find_backend(graph)
    if found is None:
        return None
    return (found if isinstance(found, Recognised) else Recognised(*found)).count_nodes()


def check_adapted_matrix(matrix: np.ndarray, what: str) -> int:
    """The node count of a backend's matrix, after checking it is square, boolean, non-empty.

    ``what`` starts the message (``"graph backend ... returned an adjacency"``).
    """
    if matrix.dtype != bool or matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise GraphError(
            f"{what} that is not a square boolean matrix "
            f"(dtype {matrix.dtype}, shape {matrix.shape})."
        )
    if matrix.shape[0] == 0:
        raise GraphError("the graph has no nodes; a graph needs at least one node.")
    return int(matrix.shape[0])


def check_unique_labels(labels: Sequence[Hashable]) -> None:
    seen: set[Hashable] = set()
    for label in labels:
        try:
            if label in seen:
                raise GraphError(
                    f"node label {label!r} appears twice; node labels must be unique."
                )
            seen.add(label)
        except TypeError as exc:
            raise GraphError(f"node label {label!r} is not hashable.") from exc


def label_array(labels: Sequence[Hashable]) -> np.ndarray:
    """Labels as a 1-D coordinate array: int64, str, or object as a last resort."""
    if all(
        isinstance(x, numbers.Integral) and not isinstance(x, bool) and -(2**63) <= x < 2**63
        for x in labels
    ):  # beyond 64 bits (2**70): kept exactly as Python ints, in an object array
        return np.asarray(labels, dtype=np.int64)
    if all(isinstance(x, str) for x in labels):
        for x in labels:
            if str(x).endswith("\0"):  # numpy's str arrays drop trailing NULs: "a\0" -> "a"
                raise GraphError(
                    f"node label {x!r} ends with a NUL character, which numpy's string arrays "
                    "drop (the label would silently change); relabel the nodes first."
                )
        return np.asarray(labels, dtype=str)
    out = np.empty(len(labels), dtype=object)
    for i, x in enumerate(labels):
        out[i] = x
    return out


@dataclass(frozen=True)
class SparseGraph:
    """The sparse canonical form of a graph: what ``sample(..., sparse=True)`` works on.

    ``adjacency`` is a boolean ``scipy.sparse.csr_array``, symmetric, with no
    diagonal entry and sorted indices; ``labels`` the node labels in its order.
    """

    adjacency: object
    labels: Sequence[Hashable]

    @property
    def p(self) -> int:
        return int(self.adjacency.shape[0])  # type: ignore[attr-defined]

    @property
    def edges(self) -> int:
        return int(self.adjacency.nnz) // 2  # type: ignore[attr-defined]


def adapt_graph_sparse(
    graph: object, method: str | None = None, *, complete: object = False
) -> SparseGraph:
    """Any supported graph to its sparse canonical form, in time and memory O(p + edges).

    scipy.sparse and PyData sparse adjacencies, networkx graphs and the
    sparse-backed DataArrays of ``sample(..., sparse=True)`` are read without a
    dense ``p x p`` array; any other input goes through its backend's dense
    adjacency (:func:`adapt_graph`), refused first when that boolean ``p x p``
    array would not fit in memory.

    Examples
    --------
    >>> import networkx as nx
    >>> g = adapt_graph_sparse(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.edges, type(g.adjacency).__name__
    (['a', 'b', 'c'], 2, 'csr_array')
    """
    import sys

    from spdgraph.adjacency import sparse_adjacency_from_matrix

    if isinstance(graph, SparseGraph):  # read already (simulate reads once): as it is
        return graph
    scipy_sparse = sys.modules.get("scipy.sparse")
    pydata = sys.modules.get("sparse")
    networkx = sys.modules.get("networkx")
    xarray = sys.modules.get("xarray")
    if scipy_sparse is not None and scipy_sparse.issparse(graph):
        adjacency = sparse_adjacency_from_matrix(graph)
        return SparseGraph(adjacency, np.arange(adjacency.shape[0], dtype=np.int64))  # type: ignore[attr-defined, arg-type]
    if pydata is not None and isinstance(graph, pydata.SparseArray) and graph.ndim == 2:
        adjacency = sparse_adjacency_from_matrix(graph)
        return SparseGraph(adjacency, np.arange(adjacency.shape[0], dtype=np.int64))  # type: ignore[attr-defined, arg-type]
    if networkx is not None and isinstance(graph, networkx.Graph) and not graph.is_directed():
        labels = list(graph)
        if not labels:
            raise GraphError("the graph has no nodes; a graph needs at least one node.")
        check_unique_labels(labels)
        matrix = networkx.to_scipy_sparse_array(graph, nodelist=labels, format="csr")
        matrix.data[:] = 1  # weights never matter: every edge is an edge
        return SparseGraph(sparse_adjacency_from_matrix(matrix), labels)
    if _is_sparse_result(graph):  # a sparse result of sample(..., sparse=True): its graph again
        assert xarray is not None and isinstance(graph, xarray.DataArray)
        adjacency = sparse_adjacency_from_matrix(graph["adjacency"].data)
        return SparseGraph(adjacency, list(graph["node"].values.tolist()))
    found = recognise(graph)
    counted = found.count_nodes()
    if counted is not None:
        _check_dense_adjacency(counted, found)
    data = adapt_graph(found, method, complete=complete)
    import scipy.sparse

    dense = np.asarray(data.adjacency)
    return SparseGraph(scipy.sparse.csr_array(dense), list(data.labels))


def _is_sparse_result(graph: object) -> bool:
    """A DataArray whose ``adjacency`` coordinate is a 2-D PyData sparse array."""
    import sys

    xarray, pydata = sys.modules.get("xarray"), sys.modules.get("sparse")
    return (
        xarray is not None
        and pydata is not None
        and isinstance(graph, xarray.DataArray)
        and "adjacency" in graph.coords
        and isinstance(graph["adjacency"].data, pydata.SparseArray)
        and graph["adjacency"].ndim == 2
    )


def _check_dense_adjacency(p: int, found: Recognised | None) -> None:
    """Refuse a backend whose dense ``p x p`` boolean adjacency would not fit."""
    from spdgraph._machine import available_memory
    from spdgraph.errors import TooLargeError

    need = 4 * p * p  # the boolean adjacency, its transpose check and a copy
    available = available_memory()
    if available is not None and need > available:
        raise TooLargeError(
            f"{'this graph' if found is None else repr(found.backend.name)} is read as a dense "
            f"{p:,} x {p:,} adjacency, about {need / 2**30:,.1f} GiB, beyond the "
            f"{available / 2**30:,.1f} GiB available; pass it as a scipy.sparse adjacency "
            "(or a networkx graph), which sparse=True reads without a dense array."
        )
