"""Graphs back out of a matrix: what ``da.spd.graph(backend=...)`` builds.

A matrix's graph is its ``adjacency`` coordinate with the node labels; this
module builds it as an object of one of the graph libraries in
:data:`BACKENDS` (each imported only when asked for). An array with a
``group`` dim (several related graphs, from ``spdgraph.sample([g_1, ...])``)
gives one graph per group, in a dict keyed by the group label.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable
from typing import Any

import numpy as np

from spdgraph._layout import SpdArrayView
from spdgraph._numerics import plain
from spdgraph.errors import InvalidOptionError, MissingDependencyError

__all__ = ["BACKENDS", "build_graph", "matrix_graph"]

#: The graph libraries ``da.spd.graph(backend=...)`` builds, and the extra installing each.
BACKENDS: dict[str, str] = {
    "networkx": "",
    "igraph": "igraph",
    "rustworkx": "rustworkx",
    "networkit": "networkit",
    "scipy": "",
}


def matrix_graph(view: SpdArrayView, backend: object) -> Any:
    """The graph of the array behind ``view`` (one per group for a ``group`` dim)."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidOptionError(
            f"unknown graph backend {backend!r}; choose one of {', '.join(BACKENDS)}."
        )
    da = view._da
    if "group" in da.dims:
        groups = [plain(g) for g in da["group"].values]
        return {
            g: matrix_graph(SpdArrayView(da.isel(group=k)), backend) for k, g in enumerate(groups)
        }
    kind = view._graph_kind(view._kind_or_none() or "covariance")
    return build_graph(view._adjacency_values(), view._labels(), kind, backend)


def build_graph(adjacency: np.ndarray, labels: list[Hashable], kind: str, backend: str) -> Any:
    """The undirected graph ``adjacency`` (boolean, symmetric) with ``labels``, in ``backend``.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> sorted(build_graph(a, ["x", "y", "z"], "precision", "networkx").edges())
    [('x', 'y'), ('y', 'z')]
    >>> build_graph(a, ["x", "y", "z"], "precision", "scipy").toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    p = adjacency.shape[0]
    if backend == "scipy":
        import scipy.sparse

        rows, cols = np.concatenate([iu, ju]), np.concatenate([ju, iu])
        data = np.ones(rows.size, dtype=np.int64)
        return scipy.sparse.csr_array((data, (rows, cols)), shape=(p, p))
    if backend == "networkx":
        import networkx as nx

        out = nx.Graph(kind=kind)
        out.add_nodes_from(labels)
        out.add_edges_from((labels[i], labels[j]) for i, j in zip(iu, ju, strict=True))
        return out
    library = _require(backend)
    edges = list(zip(iu.tolist(), ju.tolist(), strict=True))
    if backend == "igraph":
        out = library.Graph(n=p, edges=edges, directed=False)
        out.vs["name"] = list(labels)
        out["kind"] = kind
        return out
    if backend == "rustworkx":
        out = library.PyGraph(multigraph=False, attrs={"kind": kind})
        out.add_nodes_from(list(labels))
        out.extend_from_edge_list(edges)
        return out
    return _networkit(library, p, iu, ju, labels)


def _networkit(nk: Any, p: int, iu: np.ndarray, ju: np.ndarray, labels: list[Hashable]) -> Any:
    """A NetworKit graph on nodes ``0..p-1``; labels other than those in attribute ``name``."""
    out = nk.Graph(p, weighted=False, directed=False)
    if iu.size:
        out.addEdges((iu.astype(np.int64), ju.astype(np.int64)))
    if labels == list(range(p)):
        return out
    for kind in (str, int):
        if all(isinstance(x, kind) and not isinstance(x, bool) for x in labels):
            names = out.attachNodeAttribute("name", kind)
            for u, label in enumerate(labels):
                names[u] = label
            break
    return out


def _require(backend: str) -> Any:
    """Import a backend's library, or say which extra installs it."""
    try:
        return importlib.import_module(backend)
    except ImportError:
        raise MissingDependencyError(
            f"graph(backend={backend!r}) needs {backend}; install it with "
            f'pip install "spdgraph[{BACKENDS[backend]}]".'
        ) from None
