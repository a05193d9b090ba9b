"""Helpers of the built-in graph backends (``adapt_*`` modules).

:func:`library_of` tells which optional library an object comes from without
importing it, :func:`instance_of` whether it is one of that library's graph types
(each backend's ``recognises``), :func:`require` imports one for ``from_graph``; the others turn a
library's edge list into spdgraph's adjacency and back.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from spdgraph.errors import GraphError, MissingDependencyError
from spdgraph.plugins.hookspecs import offering
from spdgraph.plugins.types import DAG, GraphBackend, GraphData

__all__ = [
    "adjacency_from_edges",
    "dag_from_array",
    "edge_list_data",
    "first_parallel",
    "from_directed",
    "hashable_unique",
    "instance_of",
    "labels_and_rows",
    "library_of",
    "offered_backend",
    "positions",
    "require",
    "unwrap",
    "upper_edges",
]


def library_of(obj: object, name: str) -> ModuleType | None:
    """The top-level module ``name`` when ``type(obj)`` (or a base) was defined in it.

    Reads the module name of the object's type and its bases, so an optional
    library is never imported here: an object of a library exists only once
    the user has imported it (it is then in :data:`sys.modules`).

    Examples
    --------
    >>> import numpy as np
    >>> library_of(np.zeros(2), "numpy").__name__
    'numpy'
    >>> library_of([], "rustworkx") is None
    True
    """
    for cls in type(obj).__mro__:
        if str(getattr(cls, "__module__", "")).partition(".")[0] == name:
            return sys.modules.get(name)
    return None


def instance_of(obj: object, library: str, *classes: str) -> bool:
    """True when ``obj`` is an instance of one of the ``classes`` of ``library``.

    A backend's ``recognises``: the library is never imported for it (see
    :func:`library_of`), so an object of a library the user has not imported
    is recognised as none of its types at no cost.

    Examples
    --------
    >>> import numpy as np
    >>> instance_of(np.zeros(2), "numpy", "ndarray"), instance_of([], "networkx", "Graph")
    (True, False)
    """
    module = library_of(obj, library)
    return module is not None and isinstance(obj, tuple(getattr(module, c) for c in classes))


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` for a backend's ``from_graph``; a MissingDependencyError naming the extra.

    Examples
    --------
    >>> require("numpy", "numpy").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"this graph backend needs the {module.split('.')[0]} package; install it with "
            f'pip install "spdgraph[{extra}]".'
        ) from None


def upper_edges(data: GraphData) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the edges of ``data``: ``i -> j`` of a DAG, ``i < j`` otherwise.

    Examples
    --------
    >>> a = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=bool)
    >>> [x.tolist() for x in upper_edges(GraphData(a, [0, 1, 2]))]
    [[0, 0], [1, 2]]
    """
    if data.directed is not None:
        rows, cols = np.nonzero(data.directed)
    else:
        rows, cols = np.nonzero(np.triu(data.adjacency, 1))
    return rows.astype(np.int64), cols.astype(np.int64)


def unwrap(graph: object) -> object:
    """The graph inside a :class:`spdgraph.DAG`, or ``graph`` itself."""
    return graph.graph if isinstance(graph, DAG) else graph


def positions(nodes: Sequence[int]) -> np.ndarray:
    """Map node ids (possibly with gaps, after removals) to rows ``0..p-1``.

    ``positions(nodes)[node_id]`` is the row of that node; ids not in ``nodes``
    map to -1.

    Examples
    --------
    >>> positions([0, 2, 5]).tolist()
    [0, -1, 1, -1, -1, 2]
    """
    ids = np.asarray(nodes, dtype=np.int64)
    rows = np.full(int(ids.max()) + 1 if ids.size else 0, -1, dtype=np.int64)
    rows[ids] = np.arange(ids.size)
    return rows


def first_parallel(edges: np.ndarray, *, directed: bool) -> tuple[int, int] | None:
    """The first pair of rows linked by more than one edge (self-loops aside), or None.

    ``edges`` is an ``(m, 2)`` array of rows; an undirected edge counts in
    either direction.

    Examples
    --------
    >>> first_parallel(np.array([[0, 1], [2, 2], [2, 2], [1, 0]]), directed=False)
    (0, 1)
    >>> first_parallel(np.array([[0, 1], [1, 0]]), directed=True) is None
    True
    """
    edges = edges[edges[:, 0] != edges[:, 1]]
    if not directed:
        edges = np.sort(edges, axis=1)
    pairs, counts = np.unique(edges, axis=0, return_counts=True)
    repeated = np.flatnonzero(counts > 1)
    if repeated.size == 0:
        return None
    u, v = pairs[repeated[0]]
    return int(u), int(v)


def adjacency_from_edges(edges: np.ndarray, p: int, *, directed: bool = False) -> np.ndarray:
    """A boolean ``(p, p)`` adjacency from an ``(m, 2)`` array of rows.

    Undirected: symmetric, self-loops ignored. Directed: ``[u, v]`` set for
    ``u -> v`` only (the caller refuses self-loops).

    Examples
    --------
    >>> adjacency_from_edges(np.array([[0, 1], [2, 2]]), 3).astype(int).tolist()
    [[0, 1, 0], [1, 0, 0], [0, 0, 0]]
    """
    adjacency = np.zeros((p, p), dtype=bool)
    if not directed:
        edges = edges[edges[:, 0] != edges[:, 1]]
        adjacency[edges[:, 1], edges[:, 0]] = True
    adjacency[edges[:, 0], edges[:, 1]] = True
    return adjacency


def hashable_unique(values: Sequence[object]) -> bool:
    """True when every value is hashable, not None, and no two are equal.

    Examples
    --------
    >>> hashable_unique(["a", "b"]), hashable_unique([{}, 1]), hashable_unique([None])
    (True, False, False)
    """
    seen: set[object] = set()
    for value in values:
        if value is None:
            return False
        try:
            if value in seen:
                return False
            seen.add(value)
        except TypeError:  # unhashable
            return False
    return True


def edge_list_data(
    labels: list[Any], edges: np.ndarray, what: str, fix: str, *, directed: bool
) -> GraphData:
    """The GraphData of an edge list of rows; parallel edges are a GraphError.

    ``what`` names the graph in messages ("the rustworkx graph") and ``fix``
    says how to merge parallel edges. Undirected: self-loops are ignored.
    Directed: self-loops stay in ``directed`` and cycles in the graph (the
    core refuses them for the DAG methods, and any directed graph for the
    others).

    Examples
    --------
    >>> d = edge_list_data(["a", "b"], np.array([[0, 1]]), "g", "", directed=True)
    >>> d.directed.astype(int).tolist(), d.adjacency.astype(int).tolist()
    ([[0, 1], [0, 0]], [[0, 1], [1, 0]])
    """
    pair = first_parallel(edges, directed=directed)
    if pair is not None:
        u, v = labels[pair[0]], labels[pair[1]]
        if directed:
            raise GraphError(f"{what} has parallel edges {u!r} -> {v!r}. {fix}")
        raise GraphError(
            f"{what} has parallel edges between {u!r} and {v!r}; "
            f"a graph matrix has one entry per pair. {fix}"
        )
    adjacency = adjacency_from_edges(edges, len(labels), directed=directed)
    if directed:
        return from_directed(adjacency, labels)
    return GraphData(adjacency=adjacency, labels=labels)


def labels_and_rows(
    ids: Sequence[int], names: list[Any] | None, id_edges: np.ndarray
) -> tuple[list[Any], np.ndarray]:
    """Node labels and edge rows of a graph whose nodes are integer ids (gaps allowed).

    The labels are ``names`` (one per id) when given and
    :func:`hashable_unique`, else the ids; ``id_edges`` (``(m, 2)``, in ids)
    become rows ``0..p-1`` in the order of ``ids``.

    Examples
    --------
    >>> labels, rows = labels_and_rows([0, 2], ["a", "b"], np.array([[2, 0]]))
    >>> labels, rows.tolist()
    (['a', 'b'], [[1, 0]])
    >>> labels_and_rows([0, 2], ["a", "a"], np.array([[2, 0]]))[0]
    [0, 2]
    """
    labels = names if names is not None and hashable_unique(names) else list(ids)
    return labels, positions(ids)[id_edges]


def from_directed(directed: np.ndarray, labels: Sequence[Any]) -> GraphData:
    """The GraphData of a boolean directed adjacency: ``adjacency`` its loop-free skeleton.

    Examples
    --------
    >>> d = from_directed(np.array([[1, 1], [0, 0]], dtype=bool), ["a", "b"])
    >>> d.adjacency.astype(int).tolist(), d.directed.astype(int).tolist()
    ([[0, 1], [1, 0]], [[1, 1], [0, 0]])
    """
    skeleton = directed | directed.T
    np.fill_diagonal(skeleton, False)
    return GraphData(adjacency=skeleton, labels=list(labels), directed=directed)


def dag_from_array(array: np.ndarray, what: str) -> GraphData:
    """The GraphData of a dense directed adjacency: ``array[i, j] != 0`` is ``i -> j``.

    Shared by the array adapters (numpy, scipy.sparse, PyData sparse);
    ``what`` names the input in messages. Nodes are labelled ``0..p-1``.
    """
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise GraphError(f"a {what} must be square, got shape {array.shape}.")
    if array.dtype.kind not in "biuf" or not np.all(np.isfinite(array)):
        raise GraphError(f"a {what} must hold finite numbers or booleans.")
    directed = array != 0
    if directed.diagonal().any():
        raise GraphError(f"the {what} has a non-zero diagonal (self-loops).")
    return from_directed(directed, range(array.shape[0]))


#: The protocol's names an ``adapt_*`` module defines (the ``GraphBackend`` fields).
_PROTOCOL = ("recognises", "to_graph", "from_graph", "count_nodes", "from_sparse")


def offered_backend(
    name: str, namespace: Mapping[str, Any], *, trylast: bool = False
) -> tuple[GraphBackend, Callable[[], list[GraphBackend]]]:
    """``(record, hook)`` of a built-in ``adapt_*`` module, from its ``globals()``.

    The module's functions named as the :class:`GraphBackend` fields
    (``recognises``, ``to_graph`` and those of ``from_graph``, ``count_nodes``,
    ``from_sparse`` it defines) and its ``UNDIRECTED_HINT`` make the record;
    the hook offers it (:func:`spdgraph.plugins.hookspecs.offering`), and the
    module binds the two as ``BACKEND, spdgraph_graph_backends``.
    """
    fields = {key: namespace[key] for key in _PROTOCOL if key in namespace}
    backend = GraphBackend(name, undirected_hint=namespace.get("UNDIRECTED_HINT", ""), **fields)
    return backend, offering(backend, trylast=trylast)
