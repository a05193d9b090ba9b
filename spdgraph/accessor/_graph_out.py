"""The graph of a sampled matrix, back out in the graph library a user works with.

``da.spd.graph(backend=...)``: the undirected graph of the ``adjacency``
coordinate with the array's node labels, as a networkx, igraph, rustworkx or
NetworKit graph, or a SciPy sparse adjacency. The library is imported only
when asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from spdgraph.errors import InvalidOptionError, MissingDependencyError

#: backend -> (module to import, pip extra that installs it; networkx and SciPy are
#: dependencies of spdgraph itself)
BACKENDS: dict[str, tuple[str, str]] = {
    "networkx": ("networkx", "networkx"),
    "igraph": ("igraph", "igraph"),
    "rustworkx": ("rustworkx", "rustworkx"),
    "networkit": ("networkit", "networkit"),
    "scipy": ("scipy.sparse", "scipy"),
}


def _library(backend: object) -> Any:
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidOptionError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}."
        )
    module, extra = BACKENDS[backend]
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"backend={backend!r} needs the {module.split('.')[0]} package; install it with "
            f'pip install "spdgraph[{extra}]".'
        ) from None


def graph_out(adjacency: np.ndarray, labels: Sequence[Any], kind: str, backend: str) -> Any:
    """The graph of a boolean ``adjacency`` with node ``labels`` in ``backend``'s type.

    ``kind`` (``"covariance"`` or ``"concentration"``) is stored where the type
    has room for graph attributes (networkx ``G.graph``, igraph ``g["kind"]``,
    rustworkx ``g.attrs``). Node labels: networkx node names, igraph's ``name``
    vertex attribute, rustworkx node payloads, NetworKit's ``name`` node
    attribute (when the labels are all str or all int, and not ``0..p-1``: what
    spdgraph's NetworKit adapter reads back); a SciPy ``csr_array`` (int64 0/1)
    is in the array's node order.

    Examples
    --------
    >>> a = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> sorted(graph_out(a, ["x", "y", "z"], "precision", "networkx").edges())
    [('x', 'y'), ('y', 'z')]
    >>> graph_out(a, ["x", "y", "z"], "precision", "scipy").toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    lib = _library(backend)
    p = adjacency.shape[0]
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    edges = list(zip(iu.tolist(), ju.tolist(), strict=True))
    if backend == "networkx":
        out = lib.Graph(kind=kind)
        out.add_nodes_from(labels)
        out.add_edges_from((labels[i], labels[j]) for i, j in edges)
        return out
    if backend == "igraph":
        out = lib.Graph(n=p, edges=edges, directed=False)
        out.vs["name"] = list(labels)
        out["kind"] = kind
        return out
    if backend == "rustworkx":
        out = lib.PyGraph(multigraph=False, attrs={"kind": kind})
        out.add_nodes_from(list(labels))
        out.add_edges_from_no_data(edges)
        return out
    if backend == "networkit":
        return _networkit(lib, p, iu, ju, labels)
    rows, cols = np.concatenate([iu, ju]), np.concatenate([ju, iu])
    data = np.ones(rows.size, dtype=np.int64)
    return lib.csr_array((data, (rows, cols)), shape=(p, p))


def _networkit(nk: Any, p: int, iu: np.ndarray, ju: np.ndarray, labels: Sequence[Any]) -> Any:
    """A NetworKit graph on nodes ``0..p-1``, str or int labels in node attribute ``name``."""
    out = nk.Graph(p, weighted=False, directed=False)
    if iu.size:
        out.addEdges((iu.astype(np.int64), ju.astype(np.int64)))
    if list(labels) == list(range(p)):
        return out  # the node ids are the labels
    for kind in (str, int):
        if all(isinstance(x, kind) and not isinstance(x, bool) for x in labels):
            names = out.attachNodeAttribute("name", kind)
            for u, label in enumerate(labels):
                names[u] = label
            break
    return out
